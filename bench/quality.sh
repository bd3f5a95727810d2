#!/usr/bin/env bash
# The full Multi30k recipe from a clean model directory: BPE, training with a preset under a
# time budget, translating test_2016_flickr (greedy and beam), scoring (cased and lowercased
# BLEU, chrF). Prints one result line per decoding; a run that keeps checkpoints
# (keep-checkpoints in its preset) is also scored with them averaged (nmt-average).
#   bench/quality.sh [--encoder rnn|transformer|transformer-full] [--minutes 60] [--also-at MINUTES]
#                    [--config FILE] [--out DIR] [--data DIR] [--beam 5] [-- extra nmt-train options]
# --also-at 20 scores the same run after 20 minutes of training too (into DIR-20min), then resumes
# it to --minutes: the schedule depends on steps and validations, not on the time budget.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${NMT_BIN:-$ROOT/build/bin}
ENCODER=rnn MINUTES=60 ALSO_AT="" CONFIG="" OUT="" DATA=$ROOT/data/multi30k BEAM=5
while [ $# -gt 0 ]; do
  case $1 in
    --encoder) ENCODER=$2; shift 2 ;;
    --minutes) MINUTES=$2; shift 2 ;;
    --also-at) ALSO_AT=$2; shift 2 ;;
    --config) CONFIG=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --data) DATA=$2; shift 2 ;;
    --beam) BEAM=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "usage: $0 [--encoder rnn|transformer|transformer-full] [--minutes M] [--also-at M] [--config FILE] [--out DIR] [--data DIR] [--beam K] [-- nmt-train options]" >&2; exit 2 ;;
  esac
done
CONFIG=${CONFIG:-$ROOT/configs/multi30k-de-en-$ENCODER.ini}
OUT=${OUT:-$ROOT/runs/quality-$ENCODER-${MINUTES}min}
[ -f "$DATA/train.de" ] || "$ROOT/data/get-multi30k.sh" "$DATA"

score() {  # score NAME HYP DIR
  local cased lower chrf minutes steps
  cased=$("$BIN/nmt-score" --ref "$DATA/test_2016_flickr.en" --hyp "$2" --metrics bleu | awk '{ print $3 }')
  lower=$("$BIN/nmt-score" --ref "$DATA/test_2016_flickr.en" --hyp "$2" --metrics bleu --lowercase | awk '{ print $3 }')
  chrf=$("$BIN/nmt-score" --ref "$DATA/test_2016_flickr.en" --hyp "$2" --metrics chrf | awk '{ print $3 }')
  minutes=$(tail -1 "$3/metrics.csv" | awk -F, '{ printf "%.1f", $9 / 60 }')
  steps=$(tail -1 "$3/metrics.csv" | cut -d, -f1)
  printf '%-12s %-16s %-14s BLEU %6s  lowercased %6s  chrF2 %6s  trained %s min, %s steps  (%s)\n' \
    "de-en" "$ENCODER" "$1" "$cased" "$lower" "$chrf" "$minutes" "$steps" "$3"
}
evaluate() {  # evaluate DIR: greedy and beam, on best.pt and (when kept) on the average of the kept weights
  local dir=$1 model
  for model in "$dir" "$dir-averaged"; do
    local what=""
    if [ "$model" != "$dir" ]; then
      [ -d "$dir/kept" ] || continue
      rm -rf "$model"
      "$BIN/nmt-average" --model-dir "$dir" --output-dir "$model" 2> "$dir/average.log"
      what="averaged "
    fi
    "$BIN/nmt-translate" --model "$model" --input "$DATA/test_2016_flickr.de" --output "$model/test.greedy.en" --shortlist off
    score "${what}greedy" "$model/test.greedy.en" "$dir"
    "$BIN/nmt-translate" --model "$model" --input "$DATA/test_2016_flickr.de" --output "$model/test.beam$BEAM.en" --beam "$BEAM" --shortlist off
    score "${what}beam $BEAM" "$model/test.beam$BEAM.en" "$dir"
  done
}

if [ -n "$ALSO_AT" ]; then
  # the linear schedule decays to the end of --max-time: a run stopped at ALSO_AT minutes would have decayed by then
  if grep -qE '^[[:space:]]*lr-schedule[[:space:]]*=[[:space:]]*linear' "$CONFIG" || [[ " $* " =~ \ --lr-schedule[=\ ]linear\  ]]; then
    echo "$0: --also-at cannot score a run with lr-schedule linear part-way (it decays to the end of --minutes): run --minutes $ALSO_AT on its own" >&2
    exit 2
  fi
fi
rm -rf "$OUT"
mkdir -p "$OUT"
# the preset's relative data paths are resolved from the repository root
cd "$ROOT"
TRAIN=("$BIN/nmt-train" --config "$CONFIG" --model-dir "$OUT"
       --train-src "$DATA/train.de" --train-tgt "$DATA/train.en" --valid-src "$DATA/val.de" --valid-tgt "$DATA/val.en")
if [ -n "$ALSO_AT" ]; then
  "${TRAIN[@]}" --max-time "$ALSO_AT" "$@" 2> "$OUT/train.log"
  rm -rf "$OUT-${ALSO_AT}min"
  cp -r "$OUT" "$OUT-${ALSO_AT}min"
  evaluate "$OUT-${ALSO_AT}min"
  "$BIN/nmt-train" --model-dir "$OUT" --resume --max-time "$MINUTES" 2>> "$OUT/train.log"
else
  "${TRAIN[@]}" --max-time "$MINUTES" "$@" 2> "$OUT/train.log"
fi
evaluate "$OUT"
