#!/usr/bin/env bash
# Load benchmark of nmt-serve on loopback: the batched throughput of nmt-translate on a file,
# then nmt-serve under 1, 8 and 64 concurrent clients sending one sentence per request
# (nmt-bench-serve), each for a bounded time, with latency percentiles, errors, the ratio to the
# batched throughput and the server's peak memory. Prints the CPU and the matrix kernels.
# nmt-translate sorts a whole file by length before batching; a server cannot sort sentences that
# have not arrived yet, so the script also measures nmt-translate on the same file through a pipe
# (batches in arrival order), the bound for batching without sorting. --shortlist and --int8 (off unless
# given, where the programs' default is auto) go to every nmt-translate and to nmt-serve alike; other
# nmt-serve options follow "--".
#   bench/serve-load.sh --model DIR [--input data/multi30k/test_2016_flickr.de] [--clients "1 8 64"]
#                       [--seconds 60] [--threads 2] [--shortlist off|on|auto] [--int8 off|on|auto] [-- extra nmt-serve options]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${NMT_BIN:-$ROOT/build/bin}
MODEL="" INPUT=$ROOT/data/multi30k/test_2016_flickr.de CLIENTS="1 8 64" SECONDS_EACH=60 THREADS=2
SHORTLIST=off INT8=off  # --shortlist and --int8 auto|on|off (here off unless given): for nmt-translate and nmt-serve
while [ $# -gt 0 ]; do
  case $1 in
    --model) MODEL=$2; shift 2 ;;
    --input) INPUT=$2; shift 2 ;;
    --clients) CLIENTS=$2; shift 2 ;;
    --seconds) SECONDS_EACH=$2; shift 2 ;;
    --threads) THREADS=$2; shift 2 ;;
    --shortlist) SHORTLIST=$2; shift 2 ;;
    --int8) INT8=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "usage: $0 --model DIR [--input FILE] [--clients \"1 8 64\"] [--seconds S] [--threads N]" \
            "[--shortlist off|on|auto] [--int8 off|on|auto] [-- nmt-serve options]" >&2
       exit 2 ;;
  esac
done
FAST=(--shortlist "$SHORTLIST" --int8 "$INT8")
[ -n "$MODEL" ] || { echo "serve-load: --model DIR is required (a directory written by nmt-train)" >&2; exit 2; }
[ -f "$INPUT" ] || { echo "serve-load: no input file $INPUT (data/get-multi30k.sh fetches Multi30k)" >&2; exit 2; }

echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(nproc) cores"
# the median of three runs: a 3-second run on a shared machine varies by 10% or more
median3() { sort -g | sed -n 2p; }
"$BIN/nmt-translate" --model "$MODEL" --input /dev/null --threads "$THREADS" --device cpu --verbose 2>&1 | grep 'matrix kernels'
batched=$(for _ in 1 2 3; do
  "$BIN/nmt-translate" --model "$MODEL" --input "$INPUT" --threads "$THREADS" --device cpu "${FAST[@]}" --stats 2>&1 >/dev/null \
    | grep -o '[0-9.]* sentences/s' | awk '{ print $1 }'
done | median3)
echo "nmt-translate batched (batch 64, sorted by length), median of 3: $batched sentences/s"
# what the server can at best do with sentences as they come: batches in arrival order, unsorted
MAX_BATCH=32
args=("$@")
for i in "${!args[@]}"; do [ "${args[$i]}" = --max-batch-sentences ] && MAX_BATCH=${args[$((i + 1))]}; done
arrival=$(for _ in 1 2 3; do
  "$BIN/nmt-translate" --model "$MODEL" --threads "$THREADS" --device cpu "${FAST[@]}" --batch-size "$MAX_BATCH" --stats \
    < "$INPUT" 2>&1 >/dev/null | grep -o '[0-9.]* sentences/s' | awk '{ print $1 }'
done | median3)
echo "nmt-translate in arrival order (a pipe, batches of $MAX_BATCH as lines come, unsorted), median of 3: $arrival sentences/s"

LOG=$(mktemp)
"$BIN/nmt-serve" --model "$MODEL" --port 0 --threads "$THREADS" --device cpu "${FAST[@]}" "$@" 2> "$LOG" &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true; rm -f "$LOG"' EXIT
for _ in $(seq 600); do grep -q 'serving .* on http' "$LOG" && break; sleep 0.1; done
PORT=$(grep -o 'http://[^ ]*' "$LOG" | sed 's|.*:\([0-9]*\)/$|\1|')
[ -n "$PORT" ] || { echo "serve-load: nmt-serve did not start: $(cat "$LOG")" >&2; exit 1; }
grep 'matrix kernels' "$LOG"
echo "nmt-serve options: ${FAST[*]} ${*:-(defaults: --max-batch-sentences 32 --batch-wait-ms 5)}"

for n in $CLIENTS; do
  line=$("$BIN/nmt-bench-serve" --port "$PORT" --input "$INPUT" --clients "$n" --seconds "$SECONDS_EACH")
  rate=$(sed 's/.*: \([0-9.]*\) sentences\/s.*/\1/' <<< "$line")
  echo "$line; $(awk -v a="$rate" -v b="$batched" -v c="$arrival" \
                 'BEGIN { printf "%.0f%% of batched, %.0f%% of arrival order", 100 * a / b, 100 * a / c }')"
done
echo "nmt-serve memory: $(awk '/VmHWM/ { printf "peak %.0f MiB", $2 / 1024 } /VmRSS/ { printf ", now %.0f MiB", $2 / 1024 }' /proc/$SERVER/status)"
kill -TERM $SERVER
wait $SERVER
