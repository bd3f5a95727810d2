#!/usr/bin/env bash
# Writes what every way of decoding gives for one model, a file per way, so that a change to decode/
# can be shown to change nothing: run it with the programs before and after, then `diff -r` the two
# folders (docs/testing.md, "Decoding unchanged across a change").
#
#   scripts/decoding-outputs.sh --bin DIR --model DIR --input FILE --out DIR [--lines N] [--threads "1 2"]
#
#   --bin DIR       the programs' folder (build/bin, or a copy of it made before the change)
#   --model DIR     a model directory (with shortlist.bin for the shortlist's ways)
#   --input FILE    source sentences; the first --lines of them are decoded (default 200)
#   --out DIR       made afresh; one file per way, named after it
#   --threads LIST  thread counts to run each way at (default "1 2": one batch, then batches in parallel)
#
# Ways: greedy with scores; beam 5 with a 3-best list; each with the shortlist and int8 on and off;
# prefixes (greedy and beam); a glossary (beam); sampling with a seed (top-k and top-p); no repeated
# 3-grams; word alignments; alternatives; forced decoding of the greedy output (nmt-attention
# --reference: its CSV files). Each file ends with the program's exit status.
set -euo pipefail

BIN="" MODEL="" INPUT="" OUT="" LINES=200 THREADS="1 2"
usage() { sed -n '6,12p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
  case $1 in
    --bin) BIN=$2; shift 2 ;;
    --model) MODEL=$2; shift 2 ;;
    --input) INPUT=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --lines) LINES=$2; shift 2 ;;
    --threads) THREADS=$2; shift 2 ;;
    *) usage ;;
  esac
done
[ -n "$BIN" ] && [ -n "$MODEL" ] && [ -n "$INPUT" ] && [ -n "$OUT" ] || usage
[ -x "$BIN/nmt-translate" ] || { echo "decoding-outputs: no nmt-translate in $BIN" >&2; exit 1; }

rm -rf "$OUT"
mkdir -p "$OUT/inputs"
head -n "$LINES" "$INPUT" > "$OUT/inputs/source.txt"
# every third line gets a prefix: its first two words of the greedy translation, and an unrelated one
"$BIN/nmt-translate" --model "$MODEL" --input "$OUT/inputs/source.txt" --threads 1 > "$OUT/inputs/greedy.txt"
awk 'NR % 3 == 1 {print $1 " " $2; next} NR % 3 == 2 {print "A"; next} {print ""}' "$OUT/inputs/greedy.txt" \
  > "$OUT/inputs/prefixes.txt"
printf 'Mann\tgentleman\nHund\tpuppy\nStraße\troad\n' > "$OUT/inputs/glossary.tsv"

# way NAME PROGRAM-ARGS...: nmt-translate's output at each thread count, then its exit status
way() {
  local name=$1; shift
  for t in $THREADS; do
    local file="$OUT/$name.threads$t.txt"
    local rc=0
    "$BIN/nmt-translate" --model "$MODEL" --input "$OUT/inputs/source.txt" --threads "$t" "$@" > "$file" 2>&1 || rc=$?
    echo "exit $rc" >> "$file"
  done
}

for list in on off; do
  for int8 in on off; do
    ways=(--shortlist "$list" --int8 "$int8")
    way "greedy.shortlist-$list.int8-$int8" "${ways[@]}" --scores
    way "beam5-nbest3.shortlist-$list.int8-$int8" "${ways[@]}" --beam 5 --nbest 3
  done
done
way greedy.prefixes --prefixes "$OUT/inputs/prefixes.txt" --scores
way beam4.prefixes --beam 4 --prefixes "$OUT/inputs/prefixes.txt" --scores
way beam5.glossary --beam 5 --glossary "$OUT/inputs/glossary.tsv"
way sampling-topk10.seed7 --sampling-topk 10 --seed 7 --scores
way sampling-topp0.9.seed3 --sampling-topk 0 --sampling-topp 0.9 --sampling-temperature 0.8 --seed 3 --scores
way greedy.no-repeat3 --no-repeat-ngram 3 --scores
way beam3.no-repeat2 --beam 3 --no-repeat-ngram 2
way greedy.alignment --alignment
way beam4.alignment-replace --beam 4 --alignment --alignment-threshold 0.2 --replace-unknowns
way greedy.max-ratio0.5 --max-ratio 0.5 --scores
way alternatives3 --alternatives 3 --prefixes "$OUT/inputs/prefixes.txt"

if [ -x "$BIN/nmt-attention" ]; then
  head -n 20 "$OUT/inputs/source.txt" > "$OUT/inputs/source20.txt"
  head -n 20 "$OUT/inputs/greedy.txt" > "$OUT/inputs/greedy20.txt"
  attention=$(realpath "$BIN/nmt-attention")
  model=$(realpath "$MODEL")
  # inside OUT, so that what it prints names the same folders whatever OUT is
  for kind in forced attention; do
    reference=()
    [ "$kind" = forced ] && reference=(--reference inputs/greedy20.txt)
    rc=0
    (cd "$OUT" && "$attention" --model "$model" --input inputs/source20.txt "${reference[@]}" --output-dir "$kind" \
       --threads 1 > "$kind.log" 2>&1) || rc=$?
    echo "exit $rc" >> "$OUT/$kind.log"
  done
fi
echo "decoding-outputs: $(find "$OUT" -type f | wc -l) files in $OUT"
