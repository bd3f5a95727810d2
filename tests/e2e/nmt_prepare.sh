#!/usr/bin/env bash
# End-to-end test of the prepared training corpus: nmt-train prepares MODEL_DIR/data/train.bin on
# its first start, maps it on resume without reading the text again, prepares it again when an
# input changes, and refuses a damaged one. Usage: nmt_prepare.sh BIN_DIR
set -u
BIN=$1
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/tiny_corpus.sh"
make_tiny_corpus "$TMP"
cd "$TMP"
TRAIN=("$BIN/nmt-train" "${TINY_DATA[@]}" "${TINY_MODEL[@]}" --device cpu --valid-every 10 --model-dir run)

expect_ok "${TRAIN[@]}" --max-steps 10 --bpe-sentences 500
expect_contains "$ERR" "BPE: trained a model per side with 60 pieces on 500 of 600 pairs"
expect_contains "$ERR" "prepared run/data/train.bin: 600 pairs in "
expect_contains "$ERR" "train: 600 lines, 600 pairs kept"
[ -s run/data/train.bin ] || fail "no run/data/train.bin"
[ -e run/data/train.bin.tmp ] && fail "run/data/train.bin.tmp left behind"

# resume: mapped as it is, the text not read again
expect_ok "${TRAIN[@]}" --resume --max-steps 20
[[ "$ERR" == *"prepared run/data/train.bin"* ]] && fail "resume prepared the corpus again: $ERR"
expect_contains "$ERR" "train: 600 lines, 600 pairs kept"

# an input that changed is prepared again, saying which
echo "der Hund" >> train.src
echo "the dog" >> train.tgt
expect_ok "${TRAIN[@]}" --resume --max-steps 30
expect_contains "$ERR" "$TMP/train.src changed since run/data/train.bin was prepared; preparing it again"
expect_contains "$ERR" "prepared run/data/train.bin: 601 pairs in "

# a damaged one is refused with one line (its key intact: the damage is in the ids)
cp run/data/train.bin keep.bin
printf 'XXXX' | dd of=run/data/train.bin bs=1 seek=100 conv=notrunc status=none
expect_fail 1 "${TRAIN[@]}" --resume --max-steps 40
expect_line "$(tail -n 1 <<< "$ERR")" "nmt-train: error: run/data/train.bin: damaged (its checksum does not match); delete it and nmt-train prepares it again"
# deleted, it is prepared again and training goes on
rm run/data/train.bin
expect_ok "${TRAIN[@]}" --resume --max-steps 40
expect_contains "$ERR" "prepared run/data/train.bin: 601 pairs in "
cmp -s run/data/train.bin keep.bin || fail "the same inputs prepared again gave another file"

# no pairs to train on: said before anything is written
: > empty.src
: > empty.tgt
expect_fail 1 "$BIN/nmt-train" --train-src empty.src --train-tgt empty.tgt --valid-src valid.src --valid-tgt valid.tgt \
  "${TINY_MODEL[@]}" --device cpu --model-dir none
expect_line "$(tail -n 1 <<< "$ERR")" "nmt-train: error: no training pairs: $TMP/empty.src and $TMP/empty.tgt are empty"
[ -e none ] && fail "a run without training pairs made its folder"
finish
