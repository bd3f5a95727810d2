#!/usr/bin/env bash
# nmt against the Python peer (PyTorch, eager; /work/shared/peers/torch_seq2seq.py) on one device in one run:
# the same model (configs/multi30k-de-en-rnn-reference.ini, 24.9 M parameters), the same token budget per
# batch (nmt groups sentences by target length first, the peer by source length), the same data. Measures,
# one after the other (never two at once):
#   training tokens/s  nmt-train's tokens_per_s (metrics.csv) against the peer's `bench` mode;
#   greedy pieces/s    nmt-translate --stats against the peer's `decode` (batches of 64 sentences, both),
#                      each with its own model trained for the same --steps; then nmt with --shortlist on,
#                      --int8 and both, against the peer's fp32 and its own `decode --int8` (int8 on a CPU
#                      only), each row with the cased BLEU of both sides.
# Prints a table (device, nmt / peer / ratio) and keeps everything, logs included, under --out.
#
#   bench/vs-peer.sh [--device cuda|cpu] [--steps 300] [--data data/multi30k] [--out runs/vs-peer]
#                        [--peer ../shared/peers/torch_seq2seq.py] [--python python3] [--batch-tokens 4096]
#                        [--decode-lines N] [--threads N] [--decode-only] [--reuse-models]
#   bench/vs-peer.sh --device cpu --steps 4 --decode-lines 64 --python /usr/bin/python3   # a quick check
#
# Defaults are relative to the repository root, paths given on the command line to the current directory.
# The peer needs PyTorch and sentencepiece in --python (Debian: python3-torch python3-sentencepiece, in
# /usr/bin/python3); --device cuda needs CUDA builds of both LibTorch (nmt) and PyTorch. NMT_BIN overrides
# the folder of the nmt binaries (default build/bin). --decode-only leaves out the peer's training
# benchmark (its tokens/s row), about a third of the run on a CPU. --reuse-models keeps both sides' models from
# an earlier run into the same --out (and the training figures its nmt-train log and metrics.csv hold) and only
# decodes: for a decoding change, not for a training one. --decode-lines decodes only the test set's first N
# lines (both sides). Both sides run the same thread layout, the fastest for both: LibTorch's (PyTorch's)
# intra-op pool at 1 thread and OpenBLAS at --threads N (nmt: --threads N; the peer: --threads 1 with
# OPENBLAS_NUM_THREADS=N); without --threads OpenBLAS uses its default (all cores) on both sides. Exit status 0 only if every step succeeded.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${NMT_BIN:-$ROOT/build/bin}
CONFIG=$ROOT/configs/multi30k-de-en-rnn-reference.ini
TEST=test_2016_flickr

DEVICE=cuda STEPS=300 DATA=$ROOT/data/multi30k PEER=$ROOT/../shared/peers/torch_seq2seq.py PYTHON=python3
OUT=$ROOT/runs/vs-peer BATCH_TOKENS=4096 DECODE_LINES="" THREADS="" DECODE_ONLY="" PEER_TRAIN="" REUSE=""
PEER_ENV=(env)  # + OPENBLAS_NUM_THREADS=N with --threads N
declare -A NMT_DECODE NMT_BLEU PEER_DECODE PEER_BLEU  # by row: fp32, shortlist, int8, both, both-serial

usage() {
  echo "usage: $0 [--device cuda|cpu] [--steps N] [--data DIR] [--peer PATH] [--python PYTHON] [--out DIR]" \
       "[--batch-tokens N] [--decode-lines N] [--threads N] [--decode-only] [--reuse-models]" >&2
  exit 2
}

absolute() { case $1 in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }

is_count() { [[ $1 =~ ^[1-9][0-9]*$ ]]; }

# fail STEP LOG: one line naming the step and its log (with the log's last line), exit 1
fail() {
  local last=""
  [ -s "$2" ] && last=$(tail -n 1 "$2")
  echo "vs-peer: $1 failed; log: $2${last:+ (last line: $last)}" >&2
  exit 1
}

# run_step STEP LOG STDOUT COMMAND...: runs COMMAND with stderr to LOG and stdout to STDOUT (LOG too if
# STDOUT is "-"), fails naming STEP and LOG
run_step() {
  local step=$1 log=$2 stdout=$3 rc=0
  shift 3
  echo "vs-peer: $step ..." >&2
  echo "+ $*" > "$log"
  if [ "$stdout" = - ]; then "$@" >> "$log" 2>&1 || rc=$?
  else "$@" > "$stdout" 2>> "$log" || rc=$?
  fi
  [ "$rc" -eq 0 ] || fail "$step (exit $rc)" "$log"
}

parse_args() {
  while [ $# -gt 0 ]; do
    [ $# -ge 2 ] || [ "$1" = --decode-only ] || [ "$1" = --reuse-models ] || usage
    case $1 in
      --device) DEVICE=$2 ;;
      --steps) STEPS=$2 ;;
      --data) DATA=$(absolute "$2") ;;
      --peer) PEER=$(absolute "$2") ;;
      --python) PYTHON=$2 ;;
      --out) OUT=$(absolute "$2") ;;
      --batch-tokens) BATCH_TOKENS=$2 ;;
      --decode-lines) DECODE_LINES=$2 ;;
      --threads) THREADS=$2 ;;
      --decode-only) DECODE_ONLY=yes; shift; continue ;;
      --reuse-models) REUSE=yes; shift; continue ;;
      *) usage ;;
    esac
    shift 2
  done
  case $DEVICE in cuda | cpu) ;; *) echo "vs-peer: --device must be cuda or cpu, not '$DEVICE'" >&2; exit 2 ;; esac
  # the first metrics.csv row is warm-up: at least one more is needed
  if ! is_count "$STEPS" || [ "$STEPS" -lt 2 ]; then echo "vs-peer: --steps must be 2 or more" >&2; exit 2; fi
  is_count "$BATCH_TOKENS" || { echo "vs-peer: --batch-tokens must be a positive number" >&2; exit 2; }
  [ -z "$DECODE_LINES" ] || is_count "$DECODE_LINES" || { echo "vs-peer: --decode-lines must be positive" >&2; exit 2; }
  [ -z "$THREADS" ] || is_count "$THREADS" || { echo "vs-peer: --threads must be positive" >&2; exit 2; }
  [ -z "$THREADS" ] || PEER_ENV=(env "OPENBLAS_NUM_THREADS=$THREADS")
  return 0
}

# everything the steps need, checked before the first long one
preflight() {
  local log=$OUT/preflight.log f
  : > "$log"
  for f in nmt-train nmt-translate nmt-bpe nmt-score; do
    [ -x "$BIN/$f" ] || { echo "missing $BIN/$f (build first, or set NMT_BIN)" >> "$log"; fail "preflight" "$log"; }
  done
  for f in train.de train.en val.de val.en $TEST.de $TEST.en; do
    [ -s "$DATA/$f" ] || { echo "missing $DATA/$f (data/get-multi30k.sh DIR)" >> "$log"; fail "preflight" "$log"; }
  done
  [ -f "$PEER" ] || { echo "missing the peer $PEER (--peer PATH)" >> "$log"; fail "preflight" "$log"; }
  "$PYTHON" - "$DEVICE" >> "$log" 2>&1 <<'EOF' || fail "preflight (the peer's Python: torch, sentencepiece, device)" "$log"
import sys, torch, sentencepiece
if sys.argv[1] == "cuda" and not torch.cuda.is_available():
    sys.exit(f"PyTorch {torch.__version__} in {sys.executable} sees no CUDA device (CUDA build: {torch.version.cuda})")
EOF
}

# step-weighted mean of metrics.csv's tokens_per_s (column 8) over the rows that have one, after the first
# (warm-up). Each row's figure covers the steps since the row before; they differ only at an epoch's end,
# where the validation row covers the steps since the last log row.
nmt_train_tokens_per_s() {
  awk -F, 'NR == 1 { next }
           $8 != "" { if (seen++) { w = $1 - prev; sum += $8 * w; n += w } }
           { prev = $1 }
           END { if (n > 0) printf "%.1f\n", sum / n }' "$1"
}

# nmt counts a target's <s> and </s>, the peer its </s> only (sources: </s>, both). Factor that turns nmt's
# tokens into the peer's count: (S + T + 2n) / (S + T + 3n), from nmt's own BPE of the training pairs.
nmt_token_factor() {
  local s t n
  s=$("$BIN/nmt-bpe" encode --model "$OUT/nmt/source.model" --ids < "$DATA/train.de" | awk '{ k += NF } END { print k }')
  t=$("$BIN/nmt-bpe" encode --model "$OUT/nmt/target.model" --ids < "$DATA/train.en" | awk '{ k += NF } END { print k }')
  n=$(wc -l < "$DATA/train.de")
  awk -v s="$s" -v t="$t" -v n="$n" 'BEGIN { if (s + t > 0) printf "%.4f\n", (s + t + 2 * n) / (s + t + 3 * n) }'
}

train_nmt() {
  local log_every=25
  [ "$STEPS" -ge 100 ] || log_every=$(( STEPS / 4 > 1 ? STEPS / 4 : 1 ))
  if [ -n "$REUSE" ]; then
    [ -s "$OUT/nmt/best.pt" ] && [ -s "$OUT/nmt/metrics.csv" ] && [ -s "$OUT/nmt-train.log" ] ||
      fail "--reuse-models: no nmt model of an earlier run in $OUT/nmt" "$OUT/nmt-train.log"
    echo "vs-peer: nmt training: reusing $OUT/nmt" >&2
  else run_step "nmt training" "$OUT/nmt-train.log" - \
    "$BIN/nmt-train" --config "$CONFIG" --model-dir "$OUT/nmt" --device "$DEVICE" --max-steps "$STEPS" \
    --batch-tokens "$BATCH_TOKENS" --valid-every 0 --log-every "$log_every" ${THREADS:+--threads "$THREADS"} \
    --train-src "$DATA/train.de" --train-tgt "$DATA/train.en" --valid-src "$DATA/val.de" --valid-tgt "$DATA/val.en"
  fi
  NMT_TRAIN_RAW=$(nmt_train_tokens_per_s "$OUT/nmt/metrics.csv") || true
  [ -n "$NMT_TRAIN_RAW" ] || fail "reading nmt's tokens/s from $OUT/nmt/metrics.csv" "$OUT/nmt-train.log"
  NMT_FACTOR=$(nmt_token_factor) || true
  [ -n "$NMT_FACTOR" ] || fail "counting nmt's training pieces (nmt-bpe encode)" "$OUT/nmt-train.log"
  NMT_TRAIN=$(awk -v r="$NMT_TRAIN_RAW" -v f="$NMT_FACTOR" 'BEGIN { printf "%.1f\n", r * f }')
  NMT_THREADS=$(sed -n 's/^device: .*; threads: //p' "$OUT/nmt-train.log" | head -n 1)
}

# cased BLEU of a translation file against the test set's references (the same lines)
bleu() { "$BIN/nmt-score" --ref "$TEST_REF" --hyp "$1" --metrics bleu | awk '{ print $3 }'; }

# decode_nmt ROW [nmt-translate options...]: greedy decoding of the test set; sets NMT_DECODE[ROW]
# (pieces/s, </s> included) and NMT_BLEU[ROW]
decode_nmt() {
  local row=$1 log=$OUT/nmt-translate.$1.log stats sentences pieces seconds raw
  shift
  run_step "nmt greedy decoding ($row)" "$log" - \
    "$BIN/nmt-translate" --model "$OUT/nmt" --input "$TEST_SRC" --output "$OUT/nmt.$TEST.$row.en" --device "$DEVICE" \
    --stats ${THREADS:+--threads "$THREADS"} "$@"
  # nmt-translate: 1000 sentences, 12345 pieces in 2.50 s: 400.0 sentences/s, 4938 pieces/s; shortlist off[, peak GPU memory]
  stats=$(sed -n 's/^nmt-translate: \([0-9]*\) sentences, \([0-9]*\) pieces in \([0-9.]*\) s: [0-9.]* sentences\/s, \([0-9.]*\) pieces\/s.*/\1 \2 \3 \4/p' "$log" | tail -n 1)
  [ -n "$stats" ] || fail "reading nmt-translate's --stats line" "$log"
  # pieces without </s> -> with: (pieces + sentences) / seconds; seconds from pieces / (pieces/s), which is
  # printed to more digits than the seconds themselves
  read -r sentences pieces seconds raw <<< "$stats"
  NMT_DECODE[$row]=$(awk -v n="$sentences" -v p="$pieces" -v s="$seconds" -v r="$raw" \
    'BEGIN { if (p > 0 && r > 0) s = p / r; if (s > 0) printf "%.1f\n", (p + n) / s }')
  [ -n "${NMT_DECODE[$row]}" ] || fail "nmt-translate measured no time" "$log"
  NMT_BLEU[$row]=$(bleu "$OUT/nmt.$TEST.$row.en") || fail "scoring nmt's $row translation (nmt-score)" "$log"
  if [ "$row" = fp32 ]; then
    NMT_SENTENCES=$sentences NMT_PIECES=$pieces NMT_SECONDS=$seconds NMT_DECODE_RAW=$raw
  fi
}

bench_peer() {
  local log=$OUT/peer-bench.log
  run_step "peer bench" "$log" - \
    "${PEER_ENV[@]}" "$PYTHON" "$PEER" bench --data "$DATA" --out "$OUT/peer-bench" --steps "$STEPS" --batch-tokens "$BATCH_TOKENS" \
    --device "$DEVICE" --threads 1
  # bench: 300 steps, 123456 tokens/s, 33 ms/step   (after 3 warm-up steps)
  PEER_TRAIN=$(sed -n 's/^bench: [0-9]* steps, \([0-9.]*\) tokens\/s.*/\1/p' "$log" | tail -n 1)
  [ -n "$PEER_TRAIN" ] || fail "reading the peer's 'bench: ... tokens/s' line" "$log"
}

train_peer() {
  if [ -n "$REUSE" ]; then
    [ -s "$OUT/peer/model.pt" ] || fail "--reuse-models: no peer model of an earlier run in $OUT/peer" "$OUT/peer-train.log"
    echo "vs-peer: peer training: reusing $OUT/peer" >&2
    return
  fi
  # --minutes: the peer also stops after that many minutes (default 60); here only --max-steps counts
  run_step "peer training" "$OUT/peer-train.log" - \
    "${PEER_ENV[@]}" "$PYTHON" "$PEER" train --data "$DATA" --out "$OUT/peer" --max-steps "$STEPS" --minutes 1000000 \
    --batch-tokens "$BATCH_TOKENS" --device "$DEVICE" --threads 1
  [ -s "$OUT/peer/model.pt" ] || fail "peer training (no model.pt)" "$OUT/peer-train.log"
}

# decode_peer ROW [peer decode options...]: sets PEER_DECODE[ROW] and PEER_BLEU[ROW]
decode_peer() {
  local row=$1 log=$OUT/peer-decode.$1.log
  shift
  run_step "peer greedy decoding ($row)" "$log" "$OUT/peer.$TEST.$row.en" \
    "${PEER_ENV[@]}" "$PYTHON" "$PEER" decode --run "$OUT/peer" --src-file "$TEST_SRC" --device "$DEVICE" --threads 1 "$@"
  # decode: 1000 sentences in 19.80s, 14000 target pieces incl. </s>, 707 pieces/s
  PEER_DECODE[$row]=$(sed -n 's/^decode: [0-9]* sentences in [0-9.]*s, [0-9]* target pieces incl\. <\/s>, \([0-9.]*\) pieces\/s.*/\1/p' "$log" | tail -n 1)
  [ -n "${PEER_DECODE[$row]}" ] || fail "reading the peer's 'decode: ... pieces/s' line" "$log"
  PEER_BLEU[$row]=$(bleu "$OUT/peer.$TEST.$row.en") || fail "scoring the peer's $row translation (nmt-score)" "$log"
  # decode: int8 dynamic quantization, engine qnnpack
  [ "$row" != int8 ] || PEER_INT8_ENGINE=$(sed -n 's/^decode: int8 dynamic quantization, engine //p' "$log" | tail -n 1)
}

device_name() {
  local name="" index=${CUDA_VISIBLE_DEVICES:-0} lib
  if [ "$DEVICE" = cuda ]; then
    index=${index%%,*}
    name=$(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader -i "$index" 2>/dev/null |
           awk -F', ' '{ printf "%s, %s, driver %s", $1, $2, $3 }') || true
    [ -n "$name" ] || name=$("$PYTHON" -c 'import torch; print(torch.cuda.get_device_name(0))' 2>/dev/null) || true
    echo "${name:-unknown GPU}"
    return
  fi
  name=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)
  name="${name:-unknown CPU}, $(nproc) cores"
  # OpenBLAS's kernel set, from the BLAS library nmt-train loads (optional)
  lib=$(ldd "$BIN/nmt-train" 2>/dev/null | awk '$1 ~ /^lib(open)?blas/ { print $3; exit }') || true
  if [ -n "$lib" ]; then
    lib=$("$PYTHON" -c 'import ctypes, sys
l = ctypes.CDLL(sys.argv[1]); l.openblas_get_corename.restype = ctypes.c_char_p
print(l.openblas_get_corename().decode())' "$lib" 2>/dev/null) || lib=""
  fi
  echo "$name${lib:+, OpenBLAS kernels $lib}"
}

# decode_row LABEL NMT_ROW PEER_ROW: one line of the table, when both sides decoded that row
decode_row() {
  [ -n "${NMT_DECODE[$2]:-}" ] && [ -n "${PEER_DECODE[$3]:-}" ] || return 0
  printf '%-30s %10.0f %10.0f %9s %9s %9s\n' "$1" "${NMT_DECODE[$2]}" "${PEER_DECODE[$3]}" \
    "$(ratio "${NMT_DECODE[$2]}" "${PEER_DECODE[$3]}")" "${NMT_BLEU[$2]}" "${PEER_BLEU[$3]}"
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2fx", a / b; else print "-" }'; }

report() {
  local peer_torch nmt_runtime lines
  peer_torch=$("$PYTHON" -c 'import sys, torch; print(f"PyTorch {torch.__version__} (CUDA {torch.version.cuda}), Python {sys.version.split()[0]}")' 2>/dev/null) || peer_torch="?"
  nmt_runtime=$("$BIN/nmt-train" --version 2>/dev/null | sed -n 's/^runtime: //p') || nmt_runtime="?"
  lines=$(wc -l < "$TEST_SRC")
  echo "vs-peer: configs/multi30k-de-en-rnn-reference.ini, $BATCH_TOKENS-token batches, $STEPS steps, --device $DEVICE"
  echo "device: $(device_name)"
  echo "nmt:    $nmt_runtime; ${NMT_THREADS:-threads ?}"
  echo "peer:   $peer_torch; torch intra-op threads 1, OpenBLAS threads ${THREADS:-default}; $(basename "$PEER")"
  echo
  printf '%-30s %10s %10s %9s %9s %9s\n' "" nmt peer nmt/peer "nmt BLEU" "peer BLEU"
  if [ -n "$PEER_TRAIN" ]; then
    printf '%-30s %10.0f %10.0f %9s\n' "training tokens/s" "$NMT_TRAIN" "$PEER_TRAIN" "$(ratio "$NMT_TRAIN" "$PEER_TRAIN")"
  else
    printf '%-30s %10.0f %10s %9s\n' "training tokens/s" "$NMT_TRAIN" - -
  fi
  decode_row "greedy pieces/s" fp32 fp32
  decode_row "  nmt --shortlist on" shortlist fp32
  decode_row "  nmt --int8, peer --int8" int8 int8
  decode_row "  nmt both, peer --int8" both int8
  decode_row "    one batch at a time" both-serial int8
  echo
  echo "training tokens/s: source + target pieces without padding, a sentence's </s> counted, <s> not (the peer's"
  echo "  count). nmt: metrics.csv's tokens_per_s after the first row (warm-up), mean weighted by steps:"
  printf '  %.0f as logged, which counts the target <s> too; x %s for the same count. peer: bench mode, %s steps\n' \
    "$NMT_TRAIN_RAW" "$NMT_FACTOR" "$STEPS"
  echo "  after 3 warm-up steps. Each side trains its own 8,000-piece BPE (on Multi30k: the same piece counts)."
  echo "greedy pieces/s: ${DECODE_LINES:+the first }$lines lines of $TEST.de, batches of 64, target pieces including </s>."
  echo "  nmt: ($NMT_PIECES pieces + $NMT_SENTENCES </s>) / $(awk -v p="$NMT_PIECES" -v r="$NMT_DECODE_RAW" -v s="$NMT_SECONDS" \
    'BEGIN { printf "%.3f", (p > 0 && r > 0) ? p / r : s }') s (nmt-translate --stats: $NMT_DECODE_RAW pieces/s without </s>);"
  echo "  peer: decode mode. Each side decodes with its own model after the same $STEPS steps."
  echo "  --shortlist on: the shortlist nmt-train made for its model (the peer has none: its fp32 beside it);"
  echo "  --int8: nmt's output layer in int8; the peer's every Linear and GRU (PyTorch's dynamic quantization,"
  echo "  engine ${PEER_INT8_ENGINE:-?}); both: nmt --shortlist on --int8. nmt decodes as many batches at once as"
  echo "  OpenBLAS has threads, one thread each (its default, --parallel-batches); one batch at a time: with all"
  echo "  threads on each batch's products (--parallel-batches 1). BLEU: cased, on the lines decoded."
  [ "$DEVICE" = cpu ] || echo "  int8 rows: CPU only (nmt refuses --int8 with --device cuda)."
  echo "files: $OUT"
}

main() {
  parse_args "$@"
  # fresh runs: nmt-train refuses a model directory that holds one; only what this script writes is removed
  mkdir -p "$OUT"
  [ -n "$REUSE" ] || rm -rf "$OUT/nmt" "$OUT/peer"
  rm -rf "$OUT/peer-bench"
  preflight
  TEST_SRC=$DATA/$TEST.de TEST_REF=$DATA/$TEST.en
  if [ -n "$DECODE_LINES" ]; then
    TEST_SRC=$OUT/$TEST.first$DECODE_LINES.de TEST_REF=$OUT/$TEST.first$DECODE_LINES.en
    head -n "$DECODE_LINES" "$DATA/$TEST.de" > "$TEST_SRC"
    head -n "$DECODE_LINES" "$DATA/$TEST.en" > "$TEST_REF"
  fi
  cd "$ROOT"
  train_nmt
  decode_nmt fp32 --shortlist off --int8 off
  decode_nmt shortlist --shortlist on --int8 off
  [ "$DEVICE" != cpu ] || decode_nmt int8 --shortlist off --int8 on
  [ "$DEVICE" != cpu ] || decode_nmt both --shortlist on --int8 on
  [ "$DEVICE" != cpu ] || decode_nmt both-serial --shortlist on --int8 on --parallel-batches 1
  [ -n "$DECODE_ONLY" ] || bench_peer
  train_peer
  decode_peer fp32
  [ "$DEVICE" != cpu ] || decode_peer int8 --int8
  report | tee "$OUT/summary.txt"
}

main "$@"
