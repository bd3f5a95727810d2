#!/usr/bin/env bash
# End-to-end test of the full Transformer: training with one shared embedding matrix, kept
# checkpoints across a resume, nmt-average, translation of the averaged model, and the errors of
# settings that do not fit it. Usage: nmt_transformer.sh BIN_DIR [--cuda]
#   --cuda: the same model trains, resumes and translates on a GPU (exits 77, skipped, where there is none).
set -u
BIN=$1 MODE=${2:-}
[[ $MODE == "" || $MODE == --cuda ]] || { echo "usage: nmt_transformer.sh BIN_DIR [--cuda]" >&2; exit 2; }
source "$(dirname "$0")/lib.sh"
[ "$MODE" != --cuda ] || require_cuda
source "$(dirname "$0")/tiny_corpus.sh"
make_tiny_corpus "$TMP"
cd "$TMP"
BASE=("$BIN/nmt-train" --train-src train.src --train-tgt train.tgt --valid-src valid.src --valid-tgt valid.tgt
      --vocab-size 120 --embedding-size 64 --dropout 0 --batch-tokens 600 --lr 0.003 --warmup-steps 50
      --decoder transformer --layers 1 --heads 2 --ff-size 64 --patience 0)  # no early stop: runs end where told
TRAIN=("${BASE[@]}" --encoder transformer --device cpu)
FULL_ON=("${BASE[@]}" --encoder transformer --joint-vocab --share-embeddings --tie-embeddings)
FULL=("${FULL_ON[@]}" --device cpu)
# the files of the last N validations of a run (epochs end between the --valid-every steps too)
last_validations() { awk -F, 'NR > 1 && $6 != "" { printf "step-%08d.pt\n", $1 }' "$1" | tail -$2 | tr '\n' ' '; }
head -5 valid.src > in.txt

# --- on a GPU (--cuda): the same model trains, resumes and translates there
if [ "$MODE" == --cuda ]; then
  expect_ok "${FULL_ON[@]}" --device cuda --model-dir gpu --max-steps 120 --valid-every 40 --keep-checkpoints 2
  expect_contains "$ERR" "device: cuda:0"
  bleu=$(metric gpu/metrics.csv 120 6)
  numbers_hold 'b > 5' b="$bleu" || fail "CUDA: validation BLEU only '$bleu' after 120 steps"
  expect_ok "$BIN/nmt-train" --model-dir gpu --resume --max-steps 140
  expect_contains "$ERR" "resuming at step 120"
  expect_ok "$BIN/nmt-translate" --model gpu --device cuda --input in.txt --beam 4
  [ "$(wc -l <<< "$OUT")" -eq 5 ] || fail "CUDA: 5 lines in, $(wc -l <<< "$OUT") out"
  finish
  exit 0
fi

# --- it learns; the validations' weights are kept, the last 3, across a resume
expect_ok "${FULL[@]}" --model-dir run --max-steps 240 --valid-every 40 --log-every 10 --keep-checkpoints 3
expect_contains "$ERR" "model: transformer encoder, transformer decoder"
expect_contains "$ERR" "BPE: trained one joint model with 120 pieces"
first=$(metric run/metrics.csv 10 3) last=$(metric run/metrics.csv 240 3)
numbers_hold 'b < 0.5 * a' a="$first" b="$last" || fail "train loss '$first' at step 10, '$last' at 240"
bleu=$(metric run/metrics.csv 240 6)
numbers_hold 'b > 30' b="$bleu" || fail "validation BLEU only '$bleu' after 240 steps"
expect_line "$(ls run/kept | tr '\n' ' ')" "$(last_validations run/metrics.csv 3)"
expect_contains "$(cat run/config.ini)" "keep-checkpoints = 3"
expect_ok "$BIN/nmt-train" --model-dir run --resume --max-steps 280
expect_line "$(ls run/kept | tr '\n' ' ')" "$(last_validations run/metrics.csv 3)"
[ "$(ls run/kept | tail -1)" == step-00000280.pt ] || fail "the last validation's weights are not kept"

# --- nmt-average: a new model directory that translates
expect_ok "$BIN/nmt-average" --model-dir run --output-dir avg --last 2
expect_line "$ERR" "nmt-average: averaged 2 weights (run/kept/$(ls run/kept | sed -n 2p) ... run/kept/step-00000280.pt) into avg/best.pt"
for f in bpe.model config.ini best.pt shortlist.bin; do [ -s "avg/$f" ] || fail "avg/$f missing"; done
cmp -s run/shortlist.bin avg/shortlist.bin || fail "avg/shortlist.bin is not run's"
expect_ok "$BIN/nmt-translate" --model avg --input in.txt --shortlist on --stats
expect_contains "$ERR" "; shortlist on,"
expect_ok "$BIN/nmt-translate" --model avg --input in.txt
[ "$(wc -l <<< "$OUT")" -eq 5 ] || fail "5 lines in, $(wc -l <<< "$OUT") out"
expect_ok "$BIN/nmt-translate" --model avg --input in.txt --beam 4
# int8 (where LibTorch has a fast int8 engine; on the CPU, as --int8 is, also on a machine with a GPU): the same
# number of lines, most of them the same text
if "$BIN/nmt-translate" --model run --input in.txt --int8 --device cpu > int8.txt 2> int8.err; then
  expect_ok "$BIN/nmt-translate" --model run --input in.txt --device cpu
  [ "$(wc -l < int8.txt)" -eq 5 ] || fail "--int8: 5 lines in, $(wc -l < int8.txt) out"
  same=$(paste -d'\t' int8.txt <(echo "$OUT") | awk -F'\t' '$1 == $2' | wc -l)
  [ "$same" -ge 3 ] || fail "--int8 changed $((5 - same)) of 5 translations"
  expect_ok "$BIN/nmt-translate" --model run --input in.txt --int8 --shortlist on --beam 4 --stats --device cpu
  expect_contains "$ERR" "; shortlist on, int8 on"
else
  expect_contains "$(cat int8.err)" "nmt-translate: error: --int8 needs LibTorch's oneDNN, x86 or FBGEMM quantized engine"
fi
# the average of one is that checkpoint: the last validation's weights, which last.pt holds too
expect_ok "$BIN/nmt-average" --model-dir run --output-dir one --last 1
expect_ok "$BIN/nmt-translate" --model one --input in.txt --beam 4
one=$OUT
expect_ok "$BIN/nmt-translate" --model run --weights last.pt --input in.txt --beam 4
expect_line "$one" "$OUT"
expect_fail 1 "$BIN/nmt-average" --model-dir run --output-dir avg
expect_line "$ERR" "nmt-average: error: avg/best.pt already exists; choose another --output-dir"
expect_fail 1 "$BIN/nmt-average" --model-dir run --output-dir run
expect_line "$ERR" "nmt-average: error: --output-dir must be another directory than --model-dir (its best.pt would be replaced)"
expect_fail 1 "$BIN/nmt-average" --model-dir avg --output-dir x
expect_line "$ERR" "nmt-average: error: model directory avg has no kept weights in avg/kept (train with nmt-train --keep-checkpoints N)"
expect_fail 2 "$BIN/nmt-average" --model-dir run --output-dir x --last -1
expect_line "$ERR" "nmt-average: --last must not be negative (see nmt-average --help)"

# --- the decoder's own feed-forward width: trained, saved, translated (int8 too, where it runs)
expect_ok "${FULL[@]}" --model-dir narrow --max-steps 20 --decoder-ff-size 32
expect_contains "$(cat narrow/config.ini)" "decoder-ff-size = 32"
# (20 steps: translations may be empty lines, so count them in files)
"$BIN/nmt-translate" --model narrow --input in.txt --beam 4 > narrow.txt 2> narrow.err || fail "$(cat narrow.err)"
[ "$(wc -l < narrow.txt)" -eq 5 ] || fail "--decoder-ff-size 32: 5 lines in, $(wc -l < narrow.txt) out"
if "$BIN/nmt-translate" --model narrow --input in.txt --int8 --device cpu > narrow8.txt 2> narrow8.err; then
  [ "$(wc -l < narrow8.txt)" -eq 5 ] || fail "--decoder-ff-size 32 --int8: 5 lines in, $(wc -l < narrow8.txt) out"
else
  expect_contains "$(cat narrow8.err)" "nmt-translate: error: --int8 needs LibTorch's oneDNN, x86 or FBGEMM quantized engine"
fi
expect_fail 1 "${FULL[@]}" --model-dir x --max-steps 1 --decoder-ff-size -1
expect_line "$(tail -1 <<< "$ERR")" "nmt-train: error: model config: decoder-ff-size must not be negative"

# --- settings that do not fit the Transformer decoder
expect_fail 1 "${BASE[@]}" --model-dir x --max-steps 1 --encoder rnn --device cpu
expect_line "$ERR" "nmt-train: error: model config: the transformer decoder needs the transformer encoder"
expect_fail 1 "${TRAIN[@]}" --model-dir x --max-steps 1 --share-embeddings
expect_line "$(tail -1 <<< "$ERR")" "nmt-train: error: --share-embeddings needs one joint BPE model (--joint-vocab), but x has one per language"
expect_fail 1 "${FULL[@]}" --model-dir y --max-steps 1 --teacher-forcing 0.5
expect_line "$(tail -1 <<< "$ERR")" "nmt-train: error: --teacher-forcing below 1 needs the rnn decoder: the transformer decoder reads the whole gold prefix at once"
expect_fail 1 "${FULL[@]}" --model-dir z --max-steps 1 --keep-checkpoints -2
expect_line "$(tail -1 <<< "$ERR")" "nmt-train: error: --keep-checkpoints must not be negative"

finish
