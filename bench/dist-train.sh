#!/usr/bin/env bash
# Data-parallel training on one machine: tokens/s of the RNN preset as 1 process x 2 threads, 1 process x 1
# thread and 2 workers x 1 thread (nmt-train --processes 2), the same global batches in each, then
# nmt-bench-allreduce's all-reduce time and scaling model fed with the 1-thread step time.
#   bench/dist-train.sh [--steps 40] [--data data/multi30k] [--out runs/dist-train]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${NMT_BIN:-$ROOT/build/bin}
STEPS=40 DATA=$ROOT/data/multi30k OUT=$ROOT/runs/dist-train
while [ $# -gt 0 ]; do
  case $1 in
    --steps) STEPS=$2; shift 2 ;;
    --data) DATA=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    *) echo "usage: $0 [--steps N] [--data DIR] [--out DIR]" >&2; exit 2 ;;
  esac
done
[ -f "$DATA/train.de" ] || "$ROOT/data/get-multi30k.sh" "$DATA"
rm -rf "$OUT"; mkdir -p "$OUT"
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(nproc) cores"

# BPE once, then every run reuses the models (so the runs time training only)
mkdir -p "$OUT/bpe"
"$BIN/nmt-bpe" train --input "$DATA/train.de" --model-prefix "$OUT/bpe/source" --vocab-size 8000 > /dev/null
"$BIN/nmt-bpe" train --input "$DATA/train.en" --model-prefix "$OUT/bpe/target" --vocab-size 8000 > /dev/null
run() {  # run NAME ARGS...: prints the tokens/s over the steps after the first 10
  local name=$1; shift
  mkdir -p "$OUT/$name"
  cp "$OUT"/bpe/source.* "$OUT"/bpe/target.* "$OUT/$name/"
  (cd "$ROOT" && "$BIN/nmt-train" --config configs/multi30k-de-en-rnn.ini --train-src "$DATA/train.de" \
    --train-tgt "$DATA/train.en" --valid-src "$DATA/val.de" --valid-tgt "$DATA/val.en" --model-dir "$OUT/$name" \
    --max-steps "$STEPS" --valid-every 1000000 --log-every 10 --device cpu "$@" 2> "$OUT/$name.log")
  grep -m1 'matrix kernels' "$OUT/$name.log" >&2
  # rows after the first: steady state; tokens/s of each 10-step window, averaged
  awk -F, 'NR > 2 && $8 != "" { s += $8; n++ } END { printf "%.0f", s / n }' "$OUT/$name/metrics.csv"
}
two_threads=$(run t2 --threads 2)
one_thread=$(run t1 --threads 1)
workers=$(run w2 --processes 2)
step_ms=$(awk -F, 'NR > 2 && $8 != "" { t = $9; s = $1 } NR == 2 { t0 = $9; s0 = $1 } END { printf "%.0f", 1000 * (t - t0) / (s - s0) }' \
          "$OUT/t1/metrics.csv")
echo "RNN preset, $STEPS steps of 4096-token global batches (tokens/s of steps 11 to $STEPS):"
echo "  1 process  x 2 threads: $two_threads tokens/s"
echo "  1 process  x 1 thread:  $one_thread tokens/s ($step_ms ms a step)"
echo "  2 workers  x 1 thread:  $workers tokens/s ($(awk -v a="$workers" -v b="$two_threads" 'BEGIN { printf "%.2f", a / b }')x of 1 x 2 threads, $(awk -v a="$workers" -v b="$one_thread" 'BEGIN { printf "%.2f", a / b }')x of 1 x 1 thread)"
"$BIN/nmt-bench-allreduce" --step-ms "$step_ms"
