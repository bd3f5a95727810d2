#!/usr/bin/env bash
# End-to-end test of what must not be lost or go silently wrong: standard output that cannot be
# written, damaged weight files and BPE models, two trainers on one model folder, control characters.
# (A full file system: full_disk.sh.) Usage: nmt_reliability.sh BIN_DIR
set -u
BIN=$1
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/tiny_corpus.sh"
make_tiny_corpus "$TMP"
cd "$TMP"
DATA=("${TINY_DATA[@]}")
TRAIN=("$BIN/nmt-train" "${DATA[@]}" "${TINY_MODEL[@]}" --device cpu)
expect_ok "${TRAIN[@]}" --max-steps 40 --valid-every 20 --keep-checkpoints 2 --model-dir run
last_line() { tail -n 1 <<< "$1"; }

# --- standard output that cannot be written (/dev/full): exit 1, one line naming it
to_full() { "$@" > /dev/full 2> "$TMP/.err"; local rc=$?; ERR=$(cat "$TMP/.err"); return $rc; }
for program in nmt-translate nmt-bpe nmt-score; do
  case $program in
    nmt-translate) command=("$BIN/nmt-translate" --model run --input valid.src) ;;
    nmt-bpe) command=("$BIN/nmt-bpe" encode --model run/source.model) ;;
    nmt-score) command=("$BIN/nmt-score" --ref valid.tgt --hyp valid.tgt) ;;
  esac
  to_full "${command[@]}" < valid.src && fail "$program wrote to /dev/full and exited 0"
  expect_line "$ERR" "$program: error: cannot write standard output: No space left on device"
done
to_full "$BIN/nmt-translate" --model run <<< 'der Hund' && fail "a piped translation to /dev/full exited 0"
expect_line "$ERR" "nmt-translate: error: cannot write standard output: No space left on device"

# --- a damaged weight file is refused naming it (LibTorch alone loads it and translates otherwise)
flip() { printf 'XXXXXXXXXXXXXXXX' | dd of="$1" bs=1 seek=$(( $(stat -c %s "$1") / 2 )) conv=notrunc status=none; }
cp run/best.pt best.keep
flip run/best.pt
expect_fail 1 "$BIN/nmt-translate" --model run --input valid.src
expect_contains "$ERR" "nmt-translate: error: cannot load model run/best.pt: damaged (record "
expect_contains "$ERR" " fails its CRC-32 check)"
cp best.keep run/best.pt
# --resume from a damaged last.pt: refused, naming the newest intact weights
cp run/last.pt last.keep
flip run/last.pt
expect_fail 1 "$BIN/nmt-train" --model-dir run --resume --max-steps 60 --device cpu
expect_contains "$(last_line "$ERR")" "nmt-train: error: cannot load model run/last.pt: damaged (record "
expect_contains "$ERR" "; training cannot resume from it (intact weights, without the training state: run/kept/step-00000040.pt)"
cp last.keep run/last.pt
expect_ok "$BIN/nmt-train" --model-dir run --resume --max-steps 45 --device cpu

# --- a damaged BPE model in a folder without weights: one line saying how to recover
mkdir bpe-only
cp run/source.model run/source.vocab run/target.vocab bpe-only/
head -c 1000 run/target.model > bpe-only/target.model
expect_fail 1 "${TRAIN[@]}" --max-steps 4 --model-dir bpe-only
expect_line "$(last_line "$ERR")" "nmt-train: error: cannot load BPE model bpe-only/target.model: damaged or not a SentencePiece model; delete it and nmt-train trains a new one"
rm bpe-only/target.model
expect_ok "${TRAIN[@]}" --max-steps 4 --model-dir bpe-only

# --- two trainers on one folder: the second stops at once, naming the first; readers go on
"${TRAIN[@]}" --max-steps 100000 --valid-every 10 --model-dir busy > busy.log 2>&1 &
FIRST=$!
for _ in $(seq 300); do [ -s busy/best.pt ] && break; sleep 0.1; done
[ -s busy/best.pt ] || { kill $FIRST; fail "the first trainer wrote no best.pt in 30 s: $(cat busy.log)"; }
expect_fail 1 "$BIN/nmt-train" "${DATA[@]}" --vocab-size 50 --hidden-size 32 --device cpu --max-steps 4 --model-dir busy
expect_line "$(last_line "$ERR")" "nmt-train: error: busy is in use by nmt-train (process $FIRST); wait for it to end or choose another --model-dir"
expect_ok "$BIN/nmt-translate" --model busy --input valid.src
kill -TERM $FIRST
wait $FIRST
grep -q "^vocab-size = 60" busy/config.ini || fail "busy/config.ini no longer says the first run's vocabulary"
expect_ok "$BIN/nmt-train" --model-dir busy --resume --max-steps 1 --device cpu  # the lock died with its process

# --- control characters: refused with file, line and byte, the same in every program; tab passes
printf 'der Hund\nder\0Hund\n' > nul.txt
expect_fail 1 "$BIN/nmt-translate" --model run --input nul.txt
expect_line "$ERR" "nmt-translate: error: nul.txt:2: control character U+0000 at byte 4 (only tab is allowed)"
expect_fail 1 "$BIN/nmt-attention" --model run --input nul.txt --output-dir attn
expect_line "$(last_line "$ERR")" "nmt-attention: error: nul.txt:2: control character U+0000 at byte 4 (only tab is allowed)"
printf 'der\0Hund\n' > nul1.txt
expect_fail 1 "$BIN/nmt-bpe" encode --model run/source.model < nul1.txt
expect_line "$ERR" "nmt-bpe: error: <stdin>:1: control character U+0000 at byte 4 (only tab is allowed)"
printf 'der\tHund\n' > tab.txt
expect_ok "$BIN/nmt-translate" --model run --input tab.txt
finish
