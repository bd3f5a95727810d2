#!/usr/bin/env bash
# End-to-end test of nmt-distill with a tiny full-Transformer teacher trained here: the distilled corpus is
# the teacher's translations line for line, a stopped distillation continues without translating again,
# the filters drop what they say, the built-in student preset trains and translates.
# Usage: nmt_distill.sh BIN_DIR
set -u
BIN=$1
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/tiny_corpus.sh"
make_tiny_corpus "$TMP"
cd "$TMP"
"$BIN/nmt-train" "${TINY_DATA[@]}" "${TINY_MODEL[@]}" --encoder transformer --decoder transformer --joint-vocab \
  --share-embeddings --tie-embeddings --max-length 40 --max-steps 200 --valid-every 100 --model-dir teacher \
  --device cpu > /dev/null 2>&1 || fail "training the teacher failed"
SMALL=(--embedding-size 32 --ff-size 64 --heads 2 --layers 2 --batch-tokens 600 --lr 0.003 --device cpu)
D=("$BIN/nmt-distill" --teacher teacher)

# --- the distilled corpus is the teacher's translations, line for line; the student trains on it and translates
expect_ok "${D[@]}" --model-dir s1 --teacher-beam 2 "${SMALL[@]}" --max-steps 40 --valid-every 20
expect_contains "$ERR" "teacher: 600 of 600 sentences, 600 in this run"
expect_contains "$ERR" "student pairs: 600; left out: 0 empty, 0 below the minimum score, 0 past the length ratio"
expect_contains "$ERR" "nmt-distill: done: reached --max-steps 40"
expect_ok "$BIN/nmt-translate" --model teacher --input train.src --beam 2 --device cpu
expect_line "$(cut -f4 s1/distilled/teacher.tsv)" "$OUT"
expect_line "$(cat s1/distilled/train.tgt)" "$OUT"
expect_line "$(cat s1/distilled/train.src)" "$(cat train.src)"
cmp -s teacher/bpe.model s1/bpe.model || fail "the student's BPE model is not the teacher's"
grep -qx "train-src = $TMP/s1/distilled/train.src" s1/config.ini || fail "the student did not train on the distilled corpus"
grep -qx "valid-tgt = $TMP/valid.tgt" s1/config.ini || fail "the student is not validated on the teacher's references"
grep -qx "decoder-layers = 1" s1/config.ini || fail "the student's shape is not the preset's (decoder-layers 1)"
expect_ok "$BIN/nmt-translate" --model s1 --input valid.src --output s1.valid.txt --device cpu
[ "$(wc -l < s1.valid.txt)" = 40 ] || fail "the student translated $(wc -l < s1.valid.txt) of 40 lines"

# --- stopped part-way (whole lines, then one cut short): the same command continues after the whole lines
mkdir -p s2/distilled
cp s1/distilled/distillation.ini s2/distilled/
head -250 s1/distilled/teacher.tsv > s2/distilled/teacher.tsv
printf -- '-1.5\t3\t' >> s2/distilled/teacher.tsv
expect_ok "${D[@]}" --model-dir s2 --teacher-beam 2 "${SMALL[@]}" --max-steps 10 --valid-every 10
expect_contains "$ERR" "teacher: 600 of 600 sentences, 350 in this run"
expect_line "$(cat s2/distilled/teacher.tsv)" "$(cat s1/distilled/teacher.tsv)"
# again once the student has trained: nothing translated again, training resumes
expect_ok "${D[@]}" --model-dir s2 --teacher-beam 2 "${SMALL[@]}" --max-steps 20 --valid-every 10
[[ $ERR != *"in this run"* ]] || fail "the teacher translated again: $ERR"
expect_contains "$ERR" "resum"
expect_contains "$ERR" "nmt-distill: done: reached --max-steps 20"
expect_fail 2 "${D[@]}" --model-dir s2 --teacher-beam 3
expect_contains "$ERR" "was distilled from another teacher, other sources or another beam"

# --- a real SIGINT while the teacher translates: whole chunks kept (4,096 lines each), exit 130; the same
# command translates only the rest (a source of 30 times the training sources: 5 chunks at beam 5)
for i in $(seq 30); do cat train.src; done > big.src
"${D[@]}" --model-dir s6 --source big.src --teacher-beam 5 "${SMALL[@]}" --max-steps 1 > /dev/null 2> s6.err &
pid=$!
for ((i = 0; i < 600; i++)); do [ -s s6/distilled/teacher.tsv ] && break; sleep 0.05; done
kill -INT $pid
wait $pid; rc=$?
[ $rc -eq 130 ] || fail "SIGINT during the teacher's translation: exit $rc, expected 130 ($(tail -1 s6.err))"
expect_contains "$(cat s6.err)" "nmt-distill: stopped; s6/distilled/teacher.tsv holds what the teacher translated"
kept=$(wc -l < s6/distilled/teacher.tsv)
[ "$kept" -gt 0 ] && [ $((kept % 4096)) = 0 ] && [ "$kept" -lt 18000 ] ||
  fail "after SIGINT the teacher file holds $kept lines, not whole chunks short of 18000"
expect_ok "${D[@]}" --model-dir s6 --source big.src --teacher-beam 5 "${SMALL[@]}" --max-steps 1
expect_contains "$ERR" "teacher: 18000 of 18000 sentences, $((18000 - kept)) in this run"

# --- the filters drop what they say (the score per piece, </s> counted; then the length ratio)
threshold=$(awk -F'\t' '{ print $1 / ($3 + 1) }' s1/distilled/teacher.tsv | sort -g | awk '{ v[NR] = $1 } END { print v[int(NR / 4)] }')
low=$(awk -F'\t' -v m="$threshold" '$1 / ($3 + 1) < m' s1/distilled/teacher.tsv | wc -l)
far=$(awk -F'\t' -v m="$threshold" '$1 / ($3 + 1) >= m && ($2 > 1.2 * $3 || $3 > 1.2 * $2)' s1/distilled/teacher.tsv | wc -l)
[ "$low" -gt 0 ] && [ "$far" -gt 0 ] || fail "the filters' test needs pairs of both kinds ($low low, $far far)"
expect_ok "${D[@]}" --model-dir s3 --teacher-beam 2 --min-score "$threshold" --max-length-ratio 1.2 "${SMALL[@]}" \
  --max-steps 2 --valid-every 2
expect_contains "$ERR" "student pairs: $((600 - low - far)); left out: 0 empty, $low below the minimum score, $far past the length ratio"
[ "$(wc -l < s3/distilled/train.tgt)" = $((600 - low - far)) ] || fail "s3/distilled/train.tgt holds $(wc -l < s3/distilled/train.tgt) pairs"

# --- bad options: one line each, nothing written
expect_fail 2 "${D[@]}" --model-dir s4 --train-src train.src
expect_contains "$ERR" "nmt-distill: --train-src is nmt-distill's to set"
expect_fail 2 "${D[@]}" --model-dir s4 --min-score 1
expect_contains "$ERR" "nmt-distill: --min-score is a log-probability per piece: 0 (keep all) or below, not 1"
expect_fail 2 "${D[@]}" --model-dir s4 --max-length-ratio 0.5
expect_contains "$ERR" "nmt-distill: --max-length-ratio must be 0 (keep all) or at least 1, not 0.5"
expect_fail 2 "${D[@]}" --model-dir s4 --teacher-beam 0
expect_contains "$ERR" "nmt-distill: --teacher-beam must be between 1 and 100, not 0"
expect_fail 2 "${D[@]}" --model-dir s4 --layrs 3
expect_contains "$ERR" "layrs"
[ ! -e s4 ] || fail "a refused command left s4 behind"
expect_fail 1 "$BIN/nmt-distill" --teacher nowhere --model-dir s4
expect_contains "$ERR" "nowhere does not exist"

# --- the built-in student preset: its shape, a step, a translation
expect_ok "${D[@]}" --model-dir s5 --teacher-beam 1 --max-steps 1 --valid-every 1 --batch-tokens 600 --device cpu
grep -qx "layers = 2" s5/config.ini && grep -qx "embedding-size = 192" s5/config.ini ||
  fail "the student is not the preset's shape (d 192, 2 encoder layers)"
grep -qx "precision = auto" s5/config.ini || fail "the student preset does not train in bf16 where the CPU has it"
expect_ok "$BIN/nmt-translate" --model s5 --input valid.src --device cpu
finish
