#!/usr/bin/env bash
# Data at scale: makes training corpora of N pairs from Multi30k (its training set repeated, each
# copy's pairs ending in the copy's number on both sides, so that lines are not duplicates) and
# measures nmt-train on each: a fresh start (BPE on its sample, preparing MODEL_DIR/data/train.bin,
# one step), then --resume (mapping the prepared corpus, one more step), then, with --processes,
# a resume with that many workers. Prints per corpus: the text's size, BPE and preparation time
# (pairs/s), the prepared file's size, and per start the time until training begins (its line
# "training: N pairs in B batches"), the whole run's time (with a validation of the first 100
# lines of Multi30k's val, a checkpoint and the shortlist) and peak RSS (of every worker with
# --processes), then the training speed of --steps more steps (tokens/s, metrics.csv's rows after
# the first ten steps). 29,000 pairs (Multi30k's own size) is the baseline: what is left of the
# peak RSS above it is what the corpus costs, and its tokens/s are what a large corpus must keep.
# --new-words: every copy after the first also gives every fourth word of a line (from a place that
# moves with the copy) a suffix of its own, so that the corpus keeps bringing words never seen
# before (about 10,000 a copy on the German side: 340,000 in a million pairs) as real text does, where repeating Multi30k brings
# none: a harder case for preparation's word cache (corpora under WORK/N-new-words).
#   bench/data-scale.sh [--pairs "29000 1000000 10000000"] [--config configs/multi30k-de-en-rnn.ini]
#                       [--work DIR] [--processes 2] [--threads 2] [--steps 40] [--new-words]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${NMT_BIN:-$ROOT/build/bin}
PAIRS="29000 1000000 10000000" CONFIG=$ROOT/configs/multi30k-de-en-rnn.ini WORK=${TMPDIR:-/tmp}/nmt-data-scale
PROCESSES=2 THREADS=2 STEPS=40 NEW_WORDS=0
while [ $# -gt 0 ]; do
  case $1 in
    --pairs) PAIRS=$2; shift 2 ;;
    --config) CONFIG=$2; shift 2 ;;
    --work) WORK=$2; shift 2 ;;
    --processes) PROCESSES=$2; shift 2 ;;
    --threads) THREADS=$2; shift 2 ;;
    --steps) STEPS=$2; shift 2 ;;
    --new-words) NEW_WORDS=1; shift ;;
    *) echo "usage: $0 [--pairs \"N ...\"] [--config FILE] [--work DIR] [--processes N (0: none)] [--threads N] [--steps N] [--new-words]" >&2
       exit 2 ;;
  esac
done
DATA=$ROOT/data/multi30k
[ -f "$DATA/train.de" ] || { echo "data-scale: no $DATA/train.de (data/get-multi30k.sh fetches Multi30k)" >&2; exit 2; }
mkdir -p "$WORK"
head -n 100 "$DATA/val.de" > "$WORK/val.de"
head -n 100 "$DATA/val.en" > "$WORK/val.en"

echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(nproc) cores; $CONFIG; --threads $THREADS"

# measure LOG COMMAND...: peak RSS (MiB) of every nmt-train process while COMMAND runs in $PEAKS,
# the same until its first validation began (its first step done) in $STEP_PEAKS, the highest
# anonymous memory sampled (RssAnon: the heap, not the mapped corpus's pages, which workers share
# through the page cache) in $ANON_PEAKS, its wall time in $WALL and the time until training
# began in $READY (seconds); LOG gets its output, each line prefixed with the seconds since the start
measure() {
  local log=$1; shift
  local start; start=$(date +%s.%N)
  "$@" 2>&1 | while IFS= read -r line; do
    printf '%.1f %s\n' "$(echo "$(date +%s.%N) - $start" | bc)" "$line"
  done > "$log" &
  local main=$! peaks="" step_peaks="" anon_peaks=""
  declare -A hwm=() anon=()
  while kill -0 "$main" 2>/dev/null; do
    for status in /proc/[0-9]*/status; do
      grep -qE '^Name:\s+(nmt-train|exe)$' "$status" 2>/dev/null || continue
      local pid=${status#/proc/}; pid=${pid%/status}
      local kb a; read -r kb a < <(awk '/^VmHWM/ { h = $2 } /^RssAnon/ { a = $2 } END { print h, a }' "$status" 2>/dev/null) || continue
      [ -n "$kb" ] && [ "${hwm[$pid]:-0}" -lt "$kb" ] && hwm[$pid]=$kb
      [ -n "$a" ] && [ "${anon[$pid]:-0}" -lt "$a" ] && anon[$pid]=$a
    done
    if [ -z "$step_peaks" ] && grep -q ' validation: ' "$log"; then
      for pid in "${!hwm[@]}"; do step_peaks+="$((hwm[$pid] / 1024)) "; done
    fi
    sleep 0.2
  done
  wait "$main"
  grep -q 'nmt-train: done' "$log" || { echo "data-scale: failed, see $log:"; tail -3 "$log"; exit 1; }
  WALL=$(echo "$(date +%s.%N) - $start" | bc | xargs printf '%.0f')
  READY=$(awk '$2 == "training:" { print $1; exit }' "$log")
  for pid in "${!hwm[@]}"; do peaks+="$((hwm[$pid] / 1024)) "; anon_peaks+="$((${anon[$pid]:-0} / 1024)) "; done
  PEAKS=$peaks STEP_PEAKS=$step_peaks ANON_PEAKS=$anon_peaks
}

for n in $PAIRS; do
  dir=$WORK/$n
  [ "$NEW_WORDS" -eq 0 ] || dir=$WORK/$n-new-words
  mkdir -p "$dir"
  if [ ! -s "$dir/train.en" ]; then
    for side in de en; do
      # copy c > 0: the copy's number at the end; with --new-words, words at places p = c (mod 4) of four
      # letters or more also end in the copy's number written in letters (c = 27: "aa")
      awk -v n="$n" -v vary="$NEW_WORDS" '
        function letters(c,   s) { s = ""; while (c > 0) { s = substr("abcdefghijklmnopqrstuvwxyz", (c - 1) % 26 + 1, 1) s; c = int((c - 1) / 26) } return s }
        NR == FNR { line[++lines] = $0; next }
        END {
          for (i = 0; i < n; i++) {
            c = int(i / lines); text = line[i % lines + 1]
            if (c > 0 && vary) {
              k = split(text, w, " "); text = ""; suffix = letters(c)
              for (p = 1; p <= k; p++) text = text (p > 1 ? " " : "") w[p] ((p % 4 == c % 4 && length(w[p]) >= 4) ? suffix : "")
            }
            print text (c > 0 ? " " c : "")
          }
        }' "$DATA/train.$side" /dev/null > "$dir/train.$side"
    done
  fi
  rm -rf "$dir/run"
  common=(--config "$CONFIG" --train-src "$dir/train.de" --train-tgt "$dir/train.en" --valid-src "$WORK/val.de"
          --valid-tgt "$WORK/val.en" --model-dir "$dir/run" --threads "$THREADS" --valid-every 1000000)
  echo
  echo "== $n pairs: $(du -m "$dir/train.de" "$dir/train.en" | awk '{ s += $1 } END { print s }') MiB of text"
  measure "$dir/fresh.log" "$BIN/nmt-train" "${common[@]}" --max-steps 1
  echo "fresh start: training after ${READY} s, whole run ${WALL} s, peak RSS to the first step ${STEP_PEAKS}MiB, in all ${PEAKS}MiB (anonymous ${ANON_PEAKS}MiB)"
  grep -E '^[0-9.]+ (BPE: trained|prepared )' "$dir/fresh.log" | sed 's/^/  at /'
  echo "  prepared file: $(du -m "$dir/run/data/train.bin" | cut -f1) MiB"
  measure "$dir/resume.log" "$BIN/nmt-train" "${common[@]}" --resume --max-steps 2
  echo "resume: training after ${READY} s, whole run ${WALL} s, peak RSS to the first step ${STEP_PEAKS}MiB, in all ${PEAKS}MiB (anonymous ${ANON_PEAKS}MiB)"
  grep -qE '^[0-9.]+ prepared ' "$dir/resume.log" && echo "  (it prepared the corpus again!)"
  if [ "$PROCESSES" -gt 1 ]; then
    measure "$dir/resume-$PROCESSES.log" "$BIN/nmt-train" "${common[@]}" --resume --max-steps 3 --processes "$PROCESSES"
    echo "resume, --processes $PROCESSES: training after ${READY} s, whole run ${WALL} s, peak RSS per process" \
         "(launcher too) to the first step ${STEP_PEAKS}MiB, in all ${PEAKS}MiB (anonymous ${ANON_PEAKS}MiB)"
  fi
  if [ "$STEPS" -gt 0 ]; then
    # not through measure: reading /proc five times a second slows training on 2 cores
    "$BIN/nmt-train" "${common[@]}" --resume --max-steps $((10 + STEPS)) --log-every 10 > "$dir/speed.log" 2>&1 ||
      { echo "data-scale: failed, see $dir/speed.log"; exit 1; }
    echo "training speed, steps 11-$((10 + STEPS)): $(awk -F, 'NR > 1 && $1 > 10 && $8 > 0 { s += $8; n++ }
      END { printf "%.0f", n ? s / n : 0 }' "$dir/run/metrics.csv") tokens/s (metrics.csv, mean of its rows)"
  fi
done
