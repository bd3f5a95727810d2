#!/usr/bin/env bash
# The full Multi30k recipe from a clean model directory: BPE, training with a preset under a
# time budget, translating test_2016_flickr (greedy and beam), scoring (cased and lowercased
# BLEU, chrF). Prints one result line per decoding.
#   bench/quality.sh [--encoder rnn|transformer] [--minutes 60] [--config FILE] [--out DIR]
#                    [--data DIR] [--beam 5] [-- extra nmt-train options]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${NMT_BIN:-$ROOT/build/bin}
ENCODER=rnn MINUTES=60 CONFIG="" OUT="" DATA=$ROOT/data/multi30k BEAM=5
while [ $# -gt 0 ]; do
  case $1 in
    --encoder) ENCODER=$2; shift 2 ;;
    --minutes) MINUTES=$2; shift 2 ;;
    --config) CONFIG=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --data) DATA=$2; shift 2 ;;
    --beam) BEAM=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "usage: $0 [--encoder rnn|transformer] [--minutes M] [--config FILE] [--out DIR] [--data DIR] [--beam K] [-- nmt-train options]" >&2; exit 2 ;;
  esac
done
CONFIG=${CONFIG:-$ROOT/configs/multi30k-de-en-$ENCODER.ini}
OUT=${OUT:-$ROOT/runs/quality-$ENCODER-${MINUTES}min}
[ -f "$DATA/train.de" ] || "$ROOT/data/get-multi30k.sh" "$DATA"

rm -rf "$OUT"
mkdir -p "$OUT"
# the preset's relative data paths are resolved from the repository root
cd "$ROOT"
"$BIN/nmt-train" --config "$CONFIG" --model-dir "$OUT" --max-time "$MINUTES" \
  --train-src "$DATA/train.de" --train-tgt "$DATA/train.en" --valid-src "$DATA/val.de" --valid-tgt "$DATA/val.en" \
  "$@" 2> "$OUT/train.log"
minutes=$(tail -1 "$OUT/metrics.csv" | awk -F, '{ printf "%.1f", $9 / 60 }')

score() {  # score NAME HYP
  local cased lower chrf
  cased=$("$BIN/nmt-score" --ref "$DATA/test_2016_flickr.en" --hyp "$2" --metrics bleu | awk '{ print $3 }')
  lower=$("$BIN/nmt-score" --ref "$DATA/test_2016_flickr.en" --hyp "$2" --metrics bleu --lowercase | awk '{ print $3 }')
  chrf=$("$BIN/nmt-score" --ref "$DATA/test_2016_flickr.en" --hyp "$2" --metrics chrf | awk '{ print $3 }')
  printf '%-12s %-12s %-8s BLEU %6s  lowercased %6s  chrF2 %6s  trained %s min  (%s)\n' \
    "de-en" "$ENCODER" "$1" "$cased" "$lower" "$chrf" "$minutes" "$OUT"
}
"$BIN/nmt-translate" --model "$OUT" --input "$DATA/test_2016_flickr.de" --output "$OUT/test.greedy.en"
score greedy "$OUT/test.greedy.en"
"$BIN/nmt-translate" --model "$OUT" --input "$DATA/test_2016_flickr.de" --output "$OUT/test.beam$BEAM.en" --beam "$BEAM"
score "beam $BEAM" "$OUT/test.beam$BEAM.en"
