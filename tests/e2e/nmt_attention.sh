#!/usr/bin/env bash
# End-to-end test of nmt-attention with tiny models trained here. Usage: nmt_attention.sh BIN_DIR
set -u
BIN=$1
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/tiny_corpus.sh"
make_tiny_corpus "$TMP"
cd "$TMP"
DATA=("${TINY_DATA[@]}" "${TINY_MODEL[@]}" --max-length 40)
"$BIN/nmt-train" "${DATA[@]}" --max-steps 200 --valid-every 100 --model-dir rnn > /dev/null 2>&1 || fail "training failed"
"$BIN/nmt-train" "${DATA[@]}" --encoder transformer --layers 2 --heads 2 --ff-size 64 --max-steps 3 --model-dir tf \
  > /dev/null 2>&1 || fail "training the transformer failed"
"$BIN/nmt-train" "${DATA[@]}" --encoder transformer --decoder transformer --layers 2 --heads 2 --ff-size 64 \
  --joint-vocab --share-embeddings --tie-embeddings --max-steps 3 --model-dir full > /dev/null 2>&1 ||
  fail "training the full transformer failed"
A=("$BIN/nmt-attention" --model rnn)
{ head -4 valid.src; echo; echo 'der Hund, "sieht" die Katze'; } > in.txt
{ head -4 valid.tgt; echo; echo 'the dog, "sees" the cat'; } > ref.txt

# A Python check of what the files hold; exits 1 with a message when something is off.
check() { python3 - "$@" <<'PY' || fail "check $1 failed"
import csv, glob, math, os, re, sys, xml.dom.minidom
what, out = sys.argv[1], sys.argv[2]
tolerance = float(sys.argv[3]) if what == 'heads' and len(sys.argv) > 3 else 1e-5  # heads' mean vs the main matrix
def mains(out):  # the main matrices OUT/000001.csv, not the per-head files beside them
    return sorted(f for f in glob.glob(f'{out}/*.csv') if re.fullmatch(r'\d{6}\.csv', os.path.basename(f)))
def rows(path):
    with open(path, newline='', encoding='utf-8') as f:
        return list(csv.reader(f))
def matrix(path):
    r = rows(path)
    header, body = r[0], r[1:]
    assert header[0] == '', f'{path}: corner cell {header[0]!r}'
    for line in body:
        assert len(line) == len(header), f'{path}: row of {len(line)} fields, header has {len(header)}'
        s = sum(float(x) for x in line[1:])
        assert abs(s - 1) <= 1e-4, f'{path}: row {line[0]!r} sums to {s}'
    return header[1:], [line[0] for line in body], [[float(x) for x in line[1:]] for line in body]
if what == 'matrix':
    files = mains(out)
    assert [os.path.basename(f) for f in files] == ['000001.csv', '000002.csv', '000003.csv', '000004.csv', '000006.csv'], files
    for f in files:
        src, tgt, w = matrix(f)
        assert src[-1] == '</s>' and len(src) >= 2, src
        assert len(tgt) >= 1 and len(w) == len(tgt)
    index = rows(f'{out}/index.csv')
    assert index[0] == ['sentence', 'source', 'translation'], index[0]
    assert [r[0] for r in index[1:]] == ['1', '2', '3', '4', '6'], index
    assert index[5][1] == 'der Hund, "sieht" die Katze', index[5]
elif what == 'pieces':  # the source pieces (header) and target pieces (rows) of sentence 6
    src, tgt, _ = matrix(f'{out}/000006.csv')
    print(' '.join(src)); print(' '.join(tgt))
elif what == 'long-equals':  # long format in argv[2], matrix format in argv[3]
    seen = {}
    r = rows(f'{out}/attention.csv')
    assert r[0] == ['sentence', 'target_pos', 'target_piece', 'source_pos', 'source_piece', 'weight'], r[0]
    for s, tp, tpiece, sp, spiece, w in r[1:]:
        seen.setdefault(int(s), []).append((int(tp), tpiece, int(sp), spiece, float(w)))
    for s, cells in seen.items():
        src, tgt, w = matrix(f'{sys.argv[3]}/{s:06}.csv')
        assert len(cells) == len(src) * len(tgt), (s, len(cells))
        for tp, tpiece, sp, spiece, weight in cells:
            assert tgt[tp - 1] == tpiece and src[sp - 1] == spiece and w[tp - 1][sp - 1] == weight, (s, tp, sp)
    assert sorted(seen) == [1, 2, 3, 4, 6], sorted(seen)
elif what == 'svg':
    for f in glob.glob(f'{out}/*.svg'):
        doc = xml.dom.minidom.parse(f)
        assert doc.documentElement.tagName == 'svg'
        assert len(doc.getElementsByTagName('rect')) > 1
    assert len(glob.glob(f'{out}/*.svg')) == 5
elif what == 'self':
    files = sorted(glob.glob(f'{out}/000001.self.*.csv'))
    names = [os.path.basename(f) for f in files]
    assert names == ['000001.self.layer1.head1.csv', '000001.self.layer1.head2.csv',
                     '000001.self.layer2.head1.csv', '000001.self.layer2.head2.csv'], names
    for f in files:
        src, rowsLabels, w = matrix(f)
        assert src == rowsLabels, (src, rowsLabels)
elif what == 'heads':  # a full Transformer's per-head files of every sentence
    for main in mains(out):
        n = os.path.basename(main)[:6]
        src, tgt, w = matrix(main)
        names = sorted(os.path.basename(f)[7:-4] for f in glob.glob(f'{out}/{n}.*.csv'))
        expected = sorted(f'{kind}.layer{l}.head{h}' for kind in ('self', 'cross', 'decoder-self')
                          for l in (1, 2) for h in (1, 2))
        assert names == expected, names
        # the main matrix is the mean over the last decoder layer's heads
        heads = [matrix(f'{out}/{n}.cross.layer2.head{h}.csv') for h in (1, 2)]
        for hsrc, htgt, hw in heads:
            assert hsrc == src and htgt == tgt, (hsrc, src, htgt, tgt)
        for i in range(len(tgt)):
            for j in range(len(src)):
                mean = (heads[0][2][i][j] + heads[1][2][i][j]) / 2
                assert abs(mean - w[i][j]) <= tolerance, (main, i, j, mean, w[i][j])
        # decoder self-attention: rows are the pieces produced, columns those fed (<s> first);
        # no row attends to a later position
        fed, produced, sw = matrix(f'{out}/{n}.decoder-self.layer1.head2.csv')
        assert produced == tgt and fed[0] == '<s>' and fed[1:] == tgt[:len(fed) - 1], (fed, produced)
        for i in range(len(produced)):
            assert all(x == 0 for x in sw[i][i + 1:]), (main, i, sw[i])
PY
}

expect_ok "$BIN/nmt-attention" --help
expect_contains "$OUT" "--format arg (=matrix)"

# --- matrix format (default), with SVG pictures
expect_ok "${A[@]}" --input in.txt --output-dir m --svg
expect_contains "$ERR" "nmt-attention: wrote attention of 5 sentences to m"
check matrix m
check svg m
# the header holds the source pieces as BPE cuts them, then </s>; quotes and commas survive
pieces=$(check pieces m)
expect_line "$(head -1 <<< "$pieces")" "$("$BIN/nmt-bpe" encode --model rnn/source.model <<< 'der Hund, "sieht" die Katze') </s>"
# the rows are the translation nmt-translate gives, as pieces
translation=$("$BIN/nmt-translate" --model rnn <<< 'der Hund, "sieht" die Katze')
expect_line "$(sed -n 2p <<< "$pieces")" "$("$BIN/nmt-bpe" encode --model rnn/target.model <<< "$translation") </s>"

# --- long format agrees with the matrix format
expect_ok "${A[@]}" --input in.txt --output-dir l --format long
check long-equals l m

# --- forced decoding reproduces the reference pieces
expect_ok "${A[@]}" --input in.txt --output-dir f --reference ref.txt
pieces=$(check pieces f)
expect_line "$(sed -n 2p <<< "$pieces")" "$("$BIN/nmt-bpe" encode --model rnn/target.model <<< 'the dog, "sees" the cat') </s>"
expect_contains "$(cat f/index.csv)" '6,"der Hund, ""sieht"" die Katze","the dog, ""sees"" the cat"'

# --- transformer self-attention, per layer and head
expect_ok "$BIN/nmt-attention" --model tf --input in.txt --output-dir s --self-attention
check self s
expect_fail 1 "${A[@]}" --input in.txt --output-dir x --self-attention
expect_line "$ERR" "nmt-attention: error: --self-attention needs a model with the transformer encoder; rnn has the rnn encoder"

# --- full Transformer: the last layer's mean by default; every layer's and head's cross- and self-attention.
# The heads come from one pass over the translation, the main matrix from the search's steps: in float32 the
# two agree to rounding; with int8 (the default) a rounding of an activation to int8 may fall the other way in
# one of them, and weights then differ by up to a few thousandths (5e-3 seen on the full preset).
expect_ok "$BIN/nmt-attention" --model full --input in.txt --output-dir h --all-heads --self-attention --int8 off
check heads h
check matrix h
expect_ok "$BIN/nmt-attention" --model full --input in.txt --output-dir h8 --all-heads --self-attention
check heads h8 1e-2
# forced decoding: the same agreement, in float32 (int8's rounding, above, fell the other way by 8.7e-5 in a
# forced step under ONEDNN_MAX_CPU_ISA=AVX2's 7-bit activations)
expect_ok "$BIN/nmt-attention" --model full --input in.txt --output-dir hf --all-heads --self-attention --reference ref.txt \
  --int8 off
check heads hf
pieces=$(check pieces hf)
expect_line "$(sed -n 2p <<< "$pieces")" "$("$BIN/nmt-bpe" encode --model full/bpe.model <<< 'the dog, "sees" the cat') </s>"
expect_fail 1 "${A[@]}" --input in.txt --output-dir x --all-heads
expect_line "$ERR" "nmt-attention: error: --all-heads needs a model with the transformer decoder; rnn has the rnn decoder"

# --- bad input
head -3 ref.txt > short.txt
expect_fail 1 "${A[@]}" --input in.txt --output-dir x --reference short.txt
expect_line "$ERR" "nmt-attention: error: in.txt has 6 lines but short.txt has 3; they must be line-aligned"
expect_fail 2 "${A[@]}" --input in.txt --output-dir x --format wide
expect_line "$ERR" "nmt-attention: --format must be matrix or long, not 'wide' (see nmt-attention --help)"
expect_fail 2 "${A[@]}" --input in.txt
expect_contains "$ERR" "the option '--output-dir' is required"
expect_fail 1 "$BIN/nmt-attention" --model nowhere --input in.txt --output-dir x
expect_line "$ERR" "nmt-attention: error: model directory nowhere does not exist (train one with nmt-train)"
mkdir broken; cp rnn/*.model broken/; echo garbage > broken/best.pt
expect_fail 1 "$BIN/nmt-attention" --model broken --input in.txt --output-dir x
expect_line "$ERR" "nmt-attention: error: cannot load model broken/best.pt: not a model file or corrupt"
printf 'der Hund\n\xff\n' > bad.txt
expect_fail 1 "${A[@]}" --input bad.txt --output-dir x
expect_line "$ERR" "nmt-attention: error: bad.txt:2: invalid UTF-8 at byte 1"

finish
