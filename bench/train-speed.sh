#!/usr/bin/env bash
# Training speed of a preset at each precision (and any other variants), one after the other on this
# machine, from the same BPE model and prepared corpus: tokens/s (source + target tokens, padding not
# counted, step time only) over steps N+1 to 2N (the first N warm up; the same batches for every variant),
# the window nmt-train's metrics.csv reports with --log-every N (an epoch's end validates and restarts it: keep 2N
# within an epoch: 133 steps of the 4,096-token Multi30k presets, 501 of the full Transformer's 1,024).
#   bench/train-speed.sh [--config FILE] [--steps 60] [--threads 2] [--data DIR] [--out DIR]
#                        [--peer] [--python /usr/bin/python3] [-- VARIANT ...]
# Each VARIANT is a quoted list of extra nmt-train options; the default ones are "--precision fp32" and
# "--precision bf16" (the second where the CPU has bf16 instructions). Run it alone on the machine.
# --peer also times bench/peers/torch_transformer.py (the same full Transformer in eager PyTorch: the shape and
# options of the config.ini nmt-train wrote for its "--precision P" variant, else the config's; same BPE model,
# batch rule and token count; needs python3-torch and python3-sentencepiece) at each precision in both thread
# layouts (PyTorch's pool at 1 and OpenBLAS at --threads, and the reverse), and prints nmt's "--precision P"
# variant against the peer's faster layout.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${NMT_BIN:-$ROOT/build/bin}
CONFIG=$ROOT/configs/multi30k-de-en-transformer-full.ini STEPS=60 THREADS=2
DATA=$ROOT/data/multi30k OUT=$ROOT/runs/train-speed PEER="" PYTHON=python3
while [ $# -gt 0 ]; do
  case $1 in
    --config) CONFIG=$2; shift 2 ;;
    --steps) STEPS=$2; shift 2 ;;
    --threads) THREADS=$2; shift 2 ;;
    --data) DATA=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --peer) PEER=1; shift ;;
    --python) PYTHON=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "usage: $0 [--config FILE] [--steps N] [--threads N] [--data DIR] [--out DIR] [--peer]" \
            "[--python PYTHON] [-- VARIANT ...]" >&2; exit 2 ;;
  esac
done
VARIANTS=("$@")
PRECISIONS=(fp32)
grep -qwE 'avx512_bf16|amx_bf16' /proc/cpuinfo && PRECISIONS+=(bf16)
if [ ${#VARIANTS[@]} -eq 0 ]; then
  for p in "${PRECISIONS[@]}"; do VARIANTS+=("--precision $p"); done
fi
if [ -n "$PEER" ]; then
  "$PYTHON" -c 'import torch, sentencepiece' 2> /dev/null || {
    echo "train-speed: --peer needs PyTorch and sentencepiece in $PYTHON (Debian: apt-get install python3-torch" \
         "python3-sentencepiece; --python /usr/bin/python3)" >&2; exit 2; }
fi
declare -A NMT_RATE
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
# a variant's model directory
variant_dir() { echo "$OUT/$(echo "$1" | tr -c 'a-zA-Z0-9.\n' '_')"; }
for variant in "${VARIANTS[@]}"; do
  dir=$(variant_dir "$variant")
  mkdir -p "$dir/data"
  cp "$OUT"/prepared/*.model "$OUT"/prepared/*.vocab "$dir/"
  cp "$OUT/prepared/data/train.bin" "$dir/data/"
  # shellcheck disable=SC2086
  "${TRAIN[@]}" --model-dir "$dir" --max-steps $((2 * STEPS)) $variant 2> "$dir/train.log"
  rate=$(awk -F, -v last=$((2 * STEPS)) 'NR > 1 && $1 == last && $8 != "" { printf "%.0f", $8; exit }' "$dir/metrics.csv")
  printf '%-40s %8s tokens/s\n' "$variant" "$rate"
  NMT_RATE[$variant]=$rate
  grep -m1 '^matrix' "$dir/train.log" | sed 's/^/    /'
done
[ -n "$PEER" ] || exit 0
for p in "${PRECISIONS[@]}"; do
  best=0
  shape=$(variant_dir "--precision $p")/config.ini
  [ -f "$shape" ] || shape=$OUT/prepared/config.ini
  for layout in "1 $THREADS" "$THREADS 1"; do
    read -r torch_threads blas_threads <<< "$layout"
    log=$OUT/peer-$p-torch$torch_threads-blas$blas_threads.log
    OPENBLAS_NUM_THREADS=$blas_threads "$PYTHON" "$ROOT/bench/peers/torch_transformer.py" --config "$shape" \
      --bpe "$OUT/prepared/bpe.model" --data "$DATA" --steps "$STEPS" --threads "$torch_threads" --precision "$p" \
      > "$log" 2>&1 ||
      { echo "train-speed: the peer failed; log: $log" >&2; exit 1; }
    rate=$(sed -n 's/^bench: .* \([0-9]*\) tokens\/s.*/\1/p' "$log")
    [ -n "$rate" ] || { echo "train-speed: no figure from the peer; log: $log" >&2; exit 1; }
    printf '%-40s %8s tokens/s\n' "PyTorch $p (PyTorch $torch_threads, OpenBLAS $blas_threads)" "$rate"
    [ "$rate" -gt "$best" ] && best=$rate
  done
  nmt=${NMT_RATE["--precision $p"]:-}
  if [ -n "$nmt" ]; then
    awk -v n="$nmt" -v b="$best" -v p="$p" 'BEGIN { printf "  %s: nmt / PyTorch %.2fx\n", p, n / b }'
  fi
done
