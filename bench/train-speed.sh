#!/usr/bin/env bash
# Training speed of a preset at each precision (and any other variants), one after the other on this
# machine, from the same BPE model and prepared corpus: tokens/s (source + target tokens, padding not
# counted, step time only) over steps N+1 to 2N (the first N warm up; the same batches for every variant),
# the window nmt-train's metrics.csv reports with --log-every N (an epoch's end validates and restarts it: keep 2N
# within an epoch, 133 steps of the Multi30k presets).
#   bench/train-speed.sh [--config FILE] [--steps 60] [--threads 2] [--data DIR] [--out DIR]
#                        [-- VARIANT ...]
# Each VARIANT is a quoted list of extra nmt-train options; the default ones are "--precision fp32" and
# "--precision bf16" (the second where the CPU has bf16 instructions). Run it alone on the machine.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${NMT_BIN:-$ROOT/build/bin}
CONFIG=$ROOT/configs/multi30k-de-en-transformer-full.ini STEPS=60 THREADS=2
DATA=$ROOT/data/multi30k OUT=$ROOT/runs/train-speed
while [ $# -gt 0 ]; do
  case $1 in
    --config) CONFIG=$2; shift 2 ;;
    --steps) STEPS=$2; shift 2 ;;
    --threads) THREADS=$2; shift 2 ;;
    --data) DATA=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "usage: $0 [--config FILE] [--steps N] [--threads N] [--data DIR] [--out DIR] [-- VARIANT ...]" >&2; exit 2 ;;
  esac
done
VARIANTS=("$@")
if [ ${#VARIANTS[@]} -eq 0 ]; then
  VARIANTS=("--precision fp32")
  grep -qwE 'avx512_bf16|amx_bf16' /proc/cpuinfo && VARIANTS+=("--precision bf16")
fi
[ -f "$DATA/train.de" ] || "$ROOT/data/get-multi30k.sh" "$DATA"
cd "$ROOT"
TRAIN=("$BIN/nmt-train" --config "$CONFIG" --train-src "$DATA/train.de" --train-tgt "$DATA/train.en"
       --valid-src "$DATA/val.de" --valid-tgt "$DATA/val.en" --threads "$THREADS" --log-every "$STEPS" --valid-every 0
       --max-epochs 0 --patience 0 --keep-checkpoints 0)
# BPE and the prepared corpus once, reused by every variant (one step trains them)
rm -rf "$OUT"
mkdir -p "$OUT"
"${TRAIN[@]}" --model-dir "$OUT/prepared" --max-steps 1 2> "$OUT/prepared.log"
echo "$(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); steps $((STEPS + 1))-$((2 * STEPS)), --threads $THREADS; $(basename "$CONFIG")"
for variant in "${VARIANTS[@]}"; do
  name=$(echo "$variant" | tr -c 'a-zA-Z0-9.\n' '_')
  dir=$OUT/$name
  mkdir -p "$dir/data"
  cp "$OUT"/prepared/*.model "$OUT"/prepared/*.vocab "$dir/"
  cp "$OUT/prepared/data/train.bin" "$dir/data/"
  # shellcheck disable=SC2086
  "${TRAIN[@]}" --model-dir "$dir" --max-steps $((2 * STEPS)) $variant 2> "$dir/train.log"
  awk -F, -v last=$((2 * STEPS)) -v v="$variant" '
    NR > 1 && $1 == last && $8 != "" && !done { printf "%-40s %8.0f tokens/s\n", v, $8; done = 1 }' "$dir/metrics.csv"
  grep -m1 '^matrix' "$dir/train.log" | sed 's/^/    /'
done
