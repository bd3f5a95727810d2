#!/usr/bin/env bash
# nmt against CTranslate2 (../shared/peers/ct2: OpenNMT's C++ inference engine, built with oneDNN and GNU
# OpenMP) on the same full-Transformer model (encoder and decoder transformer, one joint bpe.model), on a CPU,
# in one run. The model is converted with the peer's convert.py; then:
#   1. agreement: greedy float32 translations of --source by nmt-translate (--shortlist off --max-ratio 1000)
#      and by CTranslate2 must be identical line for line; otherwise the comparison is not valid, and the
#      script prints the count and some differing lines and exits 1 without timing anything;
#   2. timings: for each --threads count, greedy and beam K (default 5), ROUNDS times (round 1 of everything,
#      then round 2, ...), the wall seconds of each whole process for the rows
#        CTranslate2 float32, CTranslate2 int8, each in both of its thread layouts at T > 1 threads:
#          --intra_threads T --inter_threads 1 (one batch at a time, its products on T threads) and
#          --inter_threads T --intra_threads 1 (T batches at once, one thread each, as nmt's default);
#        nmt the same work (--shortlist off --max-ratio 1000 --int8 off: float32), the same with --int8 on,
#        nmt defaults (--shortlist auto --int8 auto, the default --max-ratio), and the defaults with --int8 off;
#      each row with its output pieces, pieces/s, cased BLEU against --reference (nmt-score), the lines it
#      shares with CTranslate2 float32's output, and the speed ratio to CTranslate2 (float32 and int8) at the
#      same threads and decoding: CTranslate2's best seconds (its faster layout) over the row's for the same
#      sentences (a row that writes fewer pieces, as the defaults' length limit makes it, is not slower for it;
#      its BLEU is beside it). The report says which layout won at each thread count and decoding.
#
#   bench/vs-ct2.sh (--model DIR | --train-steps N) [--work DIR] [--rounds 2] [--threads "1 2"] [--beam 5]
#                   [--source FILE --reference FILE] [--peer DIR] [--in-process] [--latency [--latency-lines N]]
#   bench/vs-ct2.sh --model runs/tf --threads 2 --rounds 1     # one quick pass
#
# --model DIR        an nmt-train model directory (best.pt, bpe.model; encoder and decoder transformer)
# --train-steps N    instead: train configs/multi30k-de-en-transformer-full.ini for N steps into WORK/model
#                    (refused when WORK/model exists: pass --model WORK/model to reuse it)
# --work DIR         outputs: ct2/ (the converted model), outputs of the last round, logs/, summary.txt
#                    (default runs/vs-ct2)
# --threads LIST     thread counts, e.g. "1 2": nmt --threads T (OpenBLAS threads; nmt decodes as many batches
#                    at once, its default), CTranslate2 in both layouts (above)
# --source/--reference  the test set (default data/multi30k/test_2016_flickr.de / .en, copied there from
#                    ../shared/data/multi30k with data/get-multi30k.sh when missing)
# --peer DIR         the CTranslate2 peer (default ../shared/peers/ct2 beside the repository)
# --latency          instead of the timings: one sentence at a time (bench/line_latency.py: each program stays
#                    loaded, reads a line from a pipe and answers it before the next is sent), per-sentence
#                    p50/p90/p99 milliseconds at each --threads count, for CTranslate2 float32 and int8
#                    (bench/ct2_lines.cpp: its CLI flushes only at the end, so a small program of its C++ API
#                    answers a line at a time, --intra_threads T), nmt same work and nmt defaults, over
#                    --latency-lines lines of --source (default 1000; the first 10 not counted)
# --ct2-include DIR  CTranslate2 4.8.1's headers, for --latency (default PEER/include): the include/ folder of
#                    github.com/OpenNMT/CTranslate2 at v4.8.1 (git archive 0d8bcd36 include | tar -x)
# --in-process       also time every row on the test set twice over (2 x its lines, one process), and report
#                    each side's in-process seconds for the test set: the best 2x run's seconds less the best 1x
#                    run's, which leaves out what a process costs once (start-up, loading the model); a second
#                    table, with the ratios of those (about 3x the timing)
# --check          only check that the run has what it needs (the peer, its converter's python3-torch and
#                    python3-numpy, ct2-translator's libraries, the data, a full-Transformer --model): exit 0, or
#                    1 with the reason on stderr
# Environment: NMT_BIN (default build/bin), NICE (default 0: unniced). Defaults are relative to the
# repository root, paths on the command line to the current directory. Time on an idle machine: CTranslate2's
# OpenMP threads spin, and beside another busy process it can take many times longer.
#
# The same work: CTranslate2 has no length-ratio limit, only --max_decoding_length 256; nmt caps a
# translation at min(ratio x source pieces + 10, 256), so nmt with --max-ratio 1000 has the same 256 cap.
# CTranslate2 runs as the peer's bench.sh runs it: --min_decoding_length 0 --max_decoding_length 256
# --suppress_sequences '<pad>,<s>' (nmt never emits those), batches of 32; nmt keeps its --batch-size default.
# Beam search: both sides rank hypotheses by raw summed log-probability, i.e. the same (no) length penalty:
# nmt --length-penalty 0 (its default 1 divides by ((5 + length) / 6)^1) and CTranslate2 --length_penalty 0
# (its default 1 divides by length); every nmt beam row, the defaults row included, runs with --length-penalty 0.
# Timing: wall seconds of each whole process (model loading included). CTranslate2 reads BPE pieces made
# beforehand by nmt-bpe (timed once, separately) and writes pieces; nmt reads and writes text, so its seconds
# include BPE encoding and decoding. Output pieces: what each side generated, </s> not counted (CTranslate2:
# the pieces it wrote; nmt: nmt-translate --stats). BLEU: CTranslate2's pieces joined by nmt-bpe decode.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${NMT_BIN:-$ROOT/build/bin}
NICE=${NICE:-0}
CONFIG=configs/multi30k-de-en-transformer-full.ini
PY=/usr/bin/python3  # Debian's Python, the one that sees python3-torch

MODEL="" TRAIN_STEPS="" WORK=$ROOT/runs/vs-ct2 ROUNDS=2 THREADS="1 2" BEAM=5 IN_PROCESS=0 LATENCY=0 LATENCY_LINES=1000 CHECK=0
CT2_INCLUDE=""
SRC="" REF="" PEER=$ROOT/../shared/peers/ct2
ROWS=(ct2-f32 ct2-f32-inter ct2-int8 ct2-int8-inter nmt-same nmt-same-int8 nmt-default nmt-default-f32)
declare -A LABEL SECONDS_OF PIECES_OF RATES FASTEST BLEU SAME

usage() {
  echo "usage: $0 (--model DIR | --train-steps N) [--work DIR] [--rounds N] [--threads \"1 2\"] [--beam K]" \
       "[--source FILE --reference FILE] [--peer DIR] [--in-process] [--latency [--latency-lines N]] [--check]   ($0 --help: details)" >&2
  exit 2
}
die() { echo "vs-ct2: $*" >&2; exit 1; }
bad() { echo "vs-ct2: $*" >&2; exit 2; }
absolute() { case $1 in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
is_count() { [[ $1 =~ ^[1-9][0-9]*$ ]]; }
now() { date +%s.%N; }

# fail STEP LOG: one line naming the step, its log and the log's last line; exit 1
fail() {
  local last=""
  [ -s "$2" ] && last=$(tail -n 1 "$2")
  die "$1 failed; log: $2${last:+ (last line: $last)}"
}

# run_log STEP LOG COMMAND...: runs COMMAND, its stdout and stderr to LOG; fails naming STEP and LOG
run_log() {
  local step=$1 log=$2 rc=0
  shift 2
  echo "+ $*" > "$log"
  "$@" >> "$log" 2>&1 || rc=$?
  [ "$rc" -eq 0 ] || fail "$step (exit $rc)" "$log"
}

parse_args() {
  while [ $# -gt 0 ]; do
    case $1 in
      -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
      --in-process) IN_PROCESS=1; shift; continue ;;
      --latency) LATENCY=1; shift; continue ;;
      --check) CHECK=1; shift; continue ;;
    esac
    [ $# -ge 2 ] || usage
    case $1 in
      --model) MODEL=$(absolute "$2") ;;
      --train-steps) TRAIN_STEPS=$2 ;;
      --work) WORK=$(absolute "$2") ;;
      --rounds) ROUNDS=$2 ;;
      --threads) THREADS=$2 ;;
      --beam) BEAM=$2 ;;
      --source) SRC=$(absolute "$2") ;;
      --reference) REF=$(absolute "$2") ;;
      --peer) PEER=$(absolute "$2") ;;
      --latency-lines) LATENCY_LINES=$2 ;;
      --ct2-include) CT2_INCLUDE=$(absolute "$2") ;;
      *) usage ;;
    esac
    shift 2
  done
  [ -n "$MODEL" ] || [ -n "$TRAIN_STEPS" ] || bad "give --model DIR or --train-steps N"
  [ -z "$MODEL" ] || [ -z "$TRAIN_STEPS" ] || bad "give --model DIR or --train-steps N, not both"
  [ -z "$TRAIN_STEPS" ] || is_count "$TRAIN_STEPS" || bad "--train-steps must be a positive number, not '$TRAIN_STEPS'"
  is_count "$ROUNDS" || bad "--rounds must be a positive number, not '$ROUNDS'"
  is_count "$LATENCY_LINES" && [ "$LATENCY_LINES" -gt 10 ] || bad "--latency-lines must be more than 10, not '$LATENCY_LINES'"
  is_count "$BEAM" && [ "$BEAM" -ge 2 ] || bad "--beam must be 2 or more, not '$BEAM'"
  local t
  read -r -a THREAD_LIST <<< "$THREADS"
  [ "${#THREAD_LIST[@]}" -gt 0 ] || bad "--threads needs at least one thread count"
  for t in "${THREAD_LIST[@]}"; do is_count "$t" || bad "--threads: '$t' is not a positive number"; done
  { [ -z "$SRC" ] && [ -z "$REF" ]; } || { [ -n "$SRC" ] && [ -n "$REF" ]; } ||
    bad "--source and --reference go together"
  DATA=$ROOT/data/multi30k
  SRC=${SRC:-$DATA/test_2016_flickr.de} REF=${REF:-$DATA/test_2016_flickr.en}
  [ -n "$MODEL" ] || MODEL=$WORK/model
}

# data/multi30k, copied from ../shared/data/multi30k when the defaults or training need it
ensure_data() {
  local f need=""
  [ -z "$TRAIN_STEPS" ] || need="train.de train.en val.de val.en"
  case $SRC in "$DATA"/*) need="$need ${SRC##*/}" ;; esac
  case $REF in "$DATA"/*) need="$need ${REF##*/}" ;; esac
  for f in $need; do
    [ -s "$DATA/$f" ] && continue
    [ -d "$ROOT/../shared/data/multi30k" ] ||
      die "missing $DATA/$f and no ../shared/data/multi30k to copy it from (data/get-multi30k.sh data/multi30k downloads it)"
    echo "vs-ct2: copying Multi30k into data/multi30k ..." >&2
    mkdir -p "$WORK/logs"
    run_log "data/get-multi30k.sh" "$WORK/logs/data.log" "$ROOT/data/get-multi30k.sh" "$DATA" "$ROOT/../shared/data/multi30k"
    break
  done
}

# everything the steps need, checked before the first long one
preflight() {
  local f missing=() libs
  for f in nmt-translate nmt-bpe nmt-score nmt-bench-model ${TRAIN_STEPS:+nmt-train}; do
    [ -x "$BIN/$f" ] || die "missing $BIN/$f (build first, or set NMT_BIN)"
  done
  [ -x "$PEER/install/bin/ct2-translator" ] || die "missing $PEER/install/bin/ct2-translator (--peer DIR: the CTranslate2 peer)"
  [ -f "$PEER/convert.py" ] && [ -d "$PEER/python/ctranslate2" ] || die "missing $PEER/convert.py or $PEER/python/ctranslate2"
  [ -x "$PY" ] || missing+=(python3)
  if [ -x "$PY" ]; then
    "$PY" -c 'import numpy' 2> /dev/null || missing+=(python3-numpy)
    "$PY" -c 'import torch' 2> /dev/null || missing+=(python3-torch)
  fi
  libs=$(LD_LIBRARY_PATH=$PEER/install/lib ldd "$PEER/install/bin/ct2-translator" 2>&1 | awk '/not found/ { print $1 }') || true
  case $libs in *libdnnl*) missing+=(libdnnl2) ;; esac
  case $libs in *libgomp*) missing+=(libgomp1) ;; esac
  [ "${#missing[@]}" -eq 0 ] ||
    die "missing ${missing[*]} (the converter needs Debian's python3-torch and python3-numpy in $PY, ct2-translator libdnnl2 and libgomp1): apt-get install -y ${missing[*]}"
  [ -z "$libs" ] || die "ct2-translator lacks shared libraries: ${libs//$'\n'/ }"
  if [ "$LATENCY" = 1 ]; then
    CT2_INCLUDE=${CT2_INCLUDE:-$PEER/include}
    [ -f "$CT2_INCLUDE/ctranslate2/translator.h" ] ||
      die "--latency needs CTranslate2 4.8.1's headers in $CT2_INCLUDE (--ct2-include DIR: the include/ of github.com/OpenNMT/CTranslate2 at v4.8.1)"
    command -v g++ > /dev/null || die "--latency needs g++ to build bench/ct2_lines.cpp"
  fi
  ensure_data
  [ -s "$SRC" ] || die "missing or empty --source $SRC"
  [ -s "$REF" ] || die "missing or empty --reference $REF"
  LINES=$(wc -l < "$SRC")
  [ "$(wc -l < "$REF")" -eq "$LINES" ] || die "--source has $LINES lines, --reference $(wc -l < "$REF")"
}

# --train-steps: the full-Transformer preset into WORK/model
train_model() {
  [ ! -e "$MODEL" ] || [ -z "$(ls -A "$MODEL")" ] ||
    die "$MODEL exists: pass --model $MODEL to reuse it, or remove it to train again"
  echo "vs-ct2: training $CONFIG for $TRAIN_STEPS steps into $MODEL (log: $WORK/logs/train.log) ..." >&2
  (cd "$ROOT" && run_log "nmt-train" "$WORK/logs/train.log" \
    "$BIN/nmt-train" --config "$CONFIG" --model-dir "$MODEL" --max-steps "$TRAIN_STEPS")
}

check_model() {
  [ -d "$MODEL" ] || die "no model directory $MODEL"
  [ -s "$MODEL/best.pt" ] || die "$MODEL has no best.pt (an nmt-train model directory?)"
  [ -s "$MODEL/bpe.model" ] || die "$MODEL has no bpe.model: CTranslate2's conversion needs one joint BPE model (joint-vocab = true)"
  if [ -f "$MODEL/config.ini" ]; then
    local enc dec
    enc=$(sed -n 's/^encoder *= *//p' "$MODEL/config.ini" | tail -n 1)
    dec=$(sed -n 's/^decoder *= *//p' "$MODEL/config.ini" | tail -n 1)
    [ "$enc" = transformer ] && [ "$dec" = transformer ] ||
      die "$MODEL is encoder=$enc decoder=$dec; only the full Transformer (both transformer) converts"
  fi
}

convert_model() {
  echo "vs-ct2: converting $MODEL to $WORK/ct2 ..." >&2
  rm -rf "$WORK/ct2"
  run_log "converting the model (convert.py)" "$WORK/logs/convert.log" \
    env PYTHONPATH="$PEER/python" "$PY" "$PEER/convert.py" --model-dir "$MODEL" --output-dir "$WORK/ct2"
  local t0 t1
  t0=$(now)
  "$BIN/nmt-bpe" encode --model "$MODEL/bpe.model" < "$SRC" > "$WORK/src.pieces" 2> "$WORK/logs/encode.log" ||
    fail "nmt-bpe encode of --source" "$WORK/logs/encode.log"
  t1=$(now)
  ENCODE_SECONDS=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
  cat "$SRC" "$SRC" > "$WORK/src.twice"  # --in-process: the test set twice over, as text and as pieces
  cat "$WORK/src.pieces" "$WORK/src.pieces" > "$WORK/src.twice.pieces"
}

# ct2 OUT COMPUTE_TYPE THREADS BEAM LOG LAYOUT [more options]: CTranslate2 on WORK/src.pieces, pieces to OUT;
# LAYOUT intra: one batch at a time on THREADS threads; inter: THREADS batches at once, one thread each
ct2() {
  local out=$1 ctype=$2 threads=$3 beam=$4 log=$5 intra=$3 inter=1
  [ "$6" = intra ] || { intra=1; inter=$3; }
  shift 6
  run_log "CTranslate2 ($ctype, $threads threads, beam $beam, --intra_threads $intra --inter_threads $inter)" "$log" \
    env LD_LIBRARY_PATH="$PEER/install/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" nice -n "$NICE" \
    "$PEER/install/bin/ct2-translator" --model "$WORK/ct2" --src "${INPUT_PIECES:-$WORK/src.pieces}" --out "$out" \
    --batch_size 32 --beam_size "$beam" --compute_type "$ctype" --intra_threads "$intra" --inter_threads "$inter" \
    --min_decoding_length 0 --max_decoding_length 256 --suppress_sequences '<pad>,<s>' "$@"
}

# The same work as CTranslate2's: its input is the pieces of each line as written, so nmt's text
# preparation (sentences, protected spans, capitals) and its loop cut are off (docs/translation.md).
RAW=(--split-sentences off --protect-spans off --restore-case off --cut-loops off)
# nmt OUT THREADS BEAM LOG [options]: nmt-translate of --source to OUT (text), with --stats
nmt() {
  local out=$1 threads=$2 beam=$3 log=$4
  shift 4
  run_log "nmt-translate (beam $beam, $threads threads${*:+, $*})" "$log" \
    nice -n "$NICE" "$BIN/nmt-translate" --model "$MODEL" --input "${INPUT_TEXT:-$SRC}" --output "$out" \
    --beam "$beam" --threads "$threads" --stats "${RAW[@]}" "$@"
}

# pieces nmt-translate generated, from its --stats line in LOG
nmt_pieces() {
  local p
  p=$(sed -n 's/^nmt-translate: [0-9]* sentences, \([0-9]*\) pieces in .*/\1/p' "$1" | tail -n 1)
  [ -n "$p" ] || fail "reading nmt-translate's --stats line" "$1"
  echo "$p"
}

decode_pieces() {  # decode_pieces PIECES TEXT
  "$BIN/nmt-bpe" decode --model "$MODEL/bpe.model" < "$1" > "$2" 2> "$2.log" || fail "nmt-bpe decode of $1" "$2.log"
}

# identical lines of two files of the same length
same_lines() { awk 'NR == FNR { a[FNR] = $0; next } a[FNR] == $0 { n++ } END { print n + 0 }' "$1" "$2"; }

agreement() {
  local t=${THREAD_LIST[0]} dir=$WORK/agreement same ct2p nmtp
  mkdir -p "$dir"
  echo "vs-ct2: greedy float32 agreement at $t threads ..." >&2
  ct2 "$dir/ct2.pieces" float32 "$t" 1 "$WORK/logs/agreement.ct2.log" intra
  decode_pieces "$dir/ct2.pieces" "$dir/ct2.txt"
  nmt "$dir/nmt.txt" "$t" 1 "$WORK/logs/agreement.nmt.log" --shortlist off --max-ratio 1000 --int8 off
  [ "$(wc -l < "$dir/nmt.txt")" -eq "$LINES" ] || die "nmt-translate wrote $(wc -l < "$dir/nmt.txt") lines for $LINES"
  [ "$(wc -l < "$dir/ct2.txt")" -eq "$LINES" ] || die "CTranslate2 wrote $(wc -l < "$dir/ct2.txt") lines for $LINES"
  same=$(same_lines "$dir/nmt.txt" "$dir/ct2.txt")
  AGREEMENT="$same / $LINES lines identical"
  if [ "$same" -ne "$LINES" ]; then
    echo "vs-ct2: greedy float32 agreement: $AGREEMENT between nmt-translate --shortlist off --max-ratio 1000" \
         "and CTranslate2 float32 ($t threads); the first differing lines:"
    paste -d '\t' "$SRC" "$dir/nmt.txt" "$dir/ct2.txt" | awk -F '\t' '$2 != $3 && shown++ < 5 {
      printf "  line %d\n    source: %s\n    nmt:    %s\n    ct2:    %s\n", NR, cut($1), cut($2), cut($3) }
      function cut(s) { return length(s) > 160 ? substr(s, 1, 160) " ..." : s }'
    echo "vs-ct2: the two do not decode the same model the same way, so the comparison is not valid (no timings);" \
         "outputs in $dir"
    exit 1
  fi
  ct2p=$(wc -w < "$dir/ct2.pieces")
  nmtp=$(nmt_pieces "$WORK/logs/agreement.nmt.log")
  [ "$ct2p" -eq "$nmtp" ] || echo "vs-ct2: warning: identical text, but CTranslate2 generated $ct2p pieces and nmt $nmtp" >&2
  echo "vs-ct2: greedy float32 agreement: $AGREEMENT" >&2
}

# run_row ROUND THREADS DECODING ROW [twice]: one timed process; records SECONDS_OF, PIECES_OF, RATES, FASTEST
# (with "twice": on the test set twice over, FASTEST only, under the key with "|twice")
run_row() {
  local round=$1 t=$2 dec=$3 row=$4 key="$2|$3|$4" beam=1 out log t0 t1 s p
  local TWICE=${5:-} INPUT_TEXT=$SRC INPUT_PIECES=$WORK/src.pieces  # what ct2 and nmt read
  [ -z "$TWICE" ] || INPUT_TEXT=$WORK/src.twice INPUT_PIECES=$WORK/src.twice.pieces
  [ "$dec" = greedy ] || beam=$BEAM
  out=$WORK/out/$t.$dec.$row${TWICE:+.twice} log=$WORK/logs/$t.$dec.$row.round$round${TWICE:+.twice}.log
  # beam search: no length penalty on either side (raw log-probability), see the header
  local ct2_lp=() nmt_lp=()
  [ "$beam" -eq 1 ] || { ct2_lp=(--length_penalty 0); nmt_lp=(--length-penalty 0); }
  t0=$(now)
  case $row in
    ct2-f32) ct2 "$out.pieces" float32 "$t" "$beam" "$log" intra "${ct2_lp[@]}" ;;
    ct2-f32-inter) ct2 "$out.pieces" float32 "$t" "$beam" "$log" inter "${ct2_lp[@]}" ;;
    ct2-int8) ct2 "$out.pieces" int8 "$t" "$beam" "$log" intra "${ct2_lp[@]}" ;;
    ct2-int8-inter) ct2 "$out.pieces" int8 "$t" "$beam" "$log" inter "${ct2_lp[@]}" ;;
    nmt-same) nmt "$out.txt" "$t" "$beam" "$log" --shortlist off --max-ratio 1000 --int8 off "${nmt_lp[@]}" ;;
    nmt-same-int8) nmt "$out.txt" "$t" "$beam" "$log" --shortlist off --max-ratio 1000 --int8 on "${nmt_lp[@]}" ;;
    nmt-default) nmt "$out.txt" "$t" "$beam" "$log" "${nmt_lp[@]}" ;;
    nmt-default-f32) nmt "$out.txt" "$t" "$beam" "$log" --int8 off "${nmt_lp[@]}" ;;
  esac
  t1=$(now)
  s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
  if [ -n "$TWICE" ]; then
    key="$key|twice"
    FASTEST[$key]=$(awk -v a="${FASTEST[$key]:-0}" -v b="$s" 'BEGIN { print ((a == 0 || b < a) ? b : a) }')
    return
  fi
  case $row in
    ct2-*) p=$(wc -w < "$out.pieces"); decode_pieces "$out.pieces" "$out.txt" ;;
    *) p=$(nmt_pieces "$log") ;;
  esac
  SECONDS_OF[$key]="${SECONDS_OF[$key]:-}${SECONDS_OF[$key]:+ / }$s"
  case " ${PIECES_OF[$key]:-} " in *" $p "*) ;; *) PIECES_OF[$key]="${PIECES_OF[$key]:-}${PIECES_OF[$key]:+ / }$p" ;; esac
  local rate
  rate=$(awk -v p="$p" -v s="$s" 'BEGIN { printf "%.0f", (s > 0 ? p / s : 0) }')
  RATES[$key]="${RATES[$key]:-}${RATES[$key]:+ / }$rate"
  FASTEST[$key]=$(awk -v a="${FASTEST[$key]:-0}" -v b="$s" 'BEGIN { print ((a == 0 || b < a) ? b : a) }')
}

# rows_at T: the rows timed at T threads (CTranslate2's two layouts are one at a single thread)
rows_at() {
  local row
  for row in "${ROWS[@]}"; do
    [ "$1" -eq 1 ] && [[ $row == *-inter ]] && continue
    echo "$row"
  done
}

# best_ct2 T DECODING TYPE: CTranslate2's best seconds of compute type TYPE (f32, int8) over its layouts
best_ct2() {
  local a=${FASTEST[$1|$2|ct2-$3]} b=${FASTEST[$1|$2|ct2-$3-inter]:-0}
  awk -v a="$a" -v b="$b" 'BEGIN { print ((b > 0 && b < a) ? b : a) }'
}

# best_layout T DECODING TYPE: which layout gave best_ct2
best_layout() {
  local a=${FASTEST[$1|$2|ct2-$3]} b=${FASTEST[$1|$2|ct2-$3-inter]:-0}
  if [ "$1" -eq 1 ]; then echo "one thread"
  elif awk -v a="$a" -v b="$b" 'BEGIN { exit !(b > 0 && b < a) }'; then echo "--inter_threads $1 --intra_threads 1"
  else echo "--intra_threads $1 --inter_threads 1"; fi
}

timings() {
  local round t dec row n=0 total=0
  for t in "${THREAD_LIST[@]}"; do total=$(( total + ROUNDS * 2 * (1 + IN_PROCESS) * $(rows_at "$t" | wc -l) )); done
  mkdir -p "$WORK/out"
  LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
  TIMING_START=$(now)
  for round in $(seq "$ROUNDS"); do
    for t in "${THREAD_LIST[@]}"; do
      for dec in greedy beam; do
        for row in $(rows_at "$t"); do
          n=$(( n + 1 ))
          echo "vs-ct2: [$n/$total] round $round, $t threads, $dec, $row ..." >&2
          run_row "$round" "$t" "$dec" "$row"
          [ "$IN_PROCESS" = 0 ] || {
            n=$(( n + 1 ))
            echo "vs-ct2: [$n/$total] round $round, $t threads, $dec, $row, the test set twice over ..." >&2
            run_row "$round" "$t" "$dec" "$row" twice
          }
        done
      done
    done
  done
  TIMING_SECONDS=$(awk -v a="$TIMING_START" -v b="$(now)" 'BEGIN { printf "%.0f", b - a }')
  LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)
  # BLEU and agreement with CTranslate2 float32, from the last round's outputs
  for t in "${THREAD_LIST[@]}"; do
    for dec in greedy beam; do
      for row in $(rows_at "$t"); do
        local key="$t|$dec|$row" out=$WORK/out/$t.$dec.$row.txt
        BLEU[$key]=$("$BIN/nmt-score" --ref "$REF" --hyp "$out" --metrics bleu 2> "$WORK/logs/score.log" | awk '{ print $3 }') ||
          fail "nmt-score of $out" "$WORK/logs/score.log"
        SAME[$key]=$(same_lines "$out" "$WORK/out/$t.$dec.ct2-f32.txt")
      done
    done
  done
}

# what --int8 auto settles to here: nmt-translate --stats names it
int8_default() {
  echo "Ein Hund." > "$WORK/logs/int8-default.de"
  "$BIN/nmt-translate" --model "$MODEL" --input "$WORK/logs/int8-default.de" --output "$WORK/logs/int8-default.en" --stats 2>&1 |
    sed -n 's/.*, int8 \(on\|off\),.*/\1/p'
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2fx", a / b; else print "-" }'; }

# row_ratios ROW R32 R8 SECONDS: "x32 x8", a row's speed against CTranslate2 float32's best (R32) and int8's (R8):
# none for CTranslate2 float32 itself, float32's alone for CTranslate2 int8, both for nmt's rows
row_ratios() {
  case $1 in
    ct2-f32*) echo "- -" ;;
    ct2-int8*) echo "$(ratio "$2" "$4") -" ;;
    *) echo "$(ratio "$2" "$4") $(ratio "$3" "$4")" ;;
  esac
}

report() {
  local cpu commit kernels t dec row key r32 r8 shortlist
  cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
  commit=$(git -C "$ROOT" rev-parse --short HEAD 2> /dev/null) || commit="?"
  [ -z "$(git -C "$ROOT" status --porcelain --untracked-files=no 2> /dev/null)" ] || commit="$commit (with uncommitted changes)"
  "$BIN/nmt-bench-model" --kernels > "$WORK/logs/kernels.log" 2>&1 || true
  kernels=$(head -n 3 "$WORK/logs/kernels.log")
  shortlist="no shortlist.bin: off"
  [ ! -f "$MODEL/shortlist.bin" ] || shortlist="the model's shortlist.bin: on"
  echo "vs-ct2: nmt against CTranslate2 on $MODEL"
  echo "machine: ${cpu:-unknown CPU}, $(nproc) cores; load average before the timings $LOAD_BEFORE, after $LOAD_AFTER"
  echo "$kernels" | sed 's/^/  /'
  echo "nmt: commit $commit, $BIN; CTranslate2: $PEER/install$([ "$NICE" = 0 ] || echo "; nice -n $NICE")${OMP_WAIT_POLICY:+; OMP_WAIT_POLICY=$OMP_WAIT_POLICY}"
  echo "test set: $SRC ($LINES lines), reference $REF"
  echo "greedy float32 agreement (nmt --shortlist off --max-ratio 1000 vs CTranslate2, ${THREAD_LIST[0]} threads): $AGREEMENT"
  echo "CTranslate2: --batch_size 32 --min_decoding_length 0 --max_decoding_length 256 --suppress_sequences '<pad>,<s>'" \
       "in both layouts at T > 1 threads (intra: --intra_threads T --inter_threads 1; inter: --inter_threads T" \
       "--intra_threads 1); reads pieces (nmt-bpe encode: $ENCODE_SECONDS s, not counted)"
  echo "nmt: --threads T, --batch-size default; 'same work' = --shortlist off --max-ratio 1000 --int8 off (float32, the"
  echo "  same 256-piece cap); defaults = --shortlist auto ($shortlist), --int8 auto ($(int8_default)), --max-ratio 2"
  echo "beam $BEAM: equal length penalties, none: hypotheses ranked by raw log-probability on both sides"
  echo "  (nmt --length-penalty 0 on every nmt row, CTranslate2 --length_penalty 0); same 256-piece cap"
  local t1=${THREAD_LIST[0]} cg cb
  cg=$(awk 'NF >= 256 { n++ } END { print n + 0 }' "$WORK/out/$t1.greedy.ct2-f32.pieces")
  cb=$(awk 'NF >= 256 { n++ } END { print n + 0 }' "$WORK/out/$t1.beam.ct2-f32.pieces")
  echo "lines that ran to the 256-piece cap (CTranslate2 float32, $t1 threads): greedy $cg, beam $BEAM $cb of $LINES$(
    [ "$cg$cb" = 00 ] || echo "; a model that fails to stop (under-trained?): those lines weigh heavily in the same-work rows")"
  echo "seconds: wall seconds of each whole process, $ROUNDS round(s) (a / b / ...); pieces/s: output pieces (no </s>) /"
  echo "  seconds; BLEU: cased, last round; = ct2 f32: lines identical to CTranslate2 float32's at the same threads and"
  echo "  decoding; x ct2: CTranslate2's best seconds (its faster layout) over the row's best, the same $LINES"
  echo "  sentences (speed). Timings took $TIMING_SECONDS s."
  echo "CTranslate2's faster layout:"
  for t in "${THREAD_LIST[@]}"; do
    for dec in greedy beam; do
      echo "  $t threads, $dec: float32 $(best_layout "$t" "$dec" f32), int8 $(best_layout "$t" "$dec" int8)"
    done
  done
  echo
  echo "| threads | decoding | system | seconds | output pieces | pieces/s | BLEU | = ct2 f32 | x ct2 f32 | x ct2 int8 |"
  echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
  for t in "${THREAD_LIST[@]}"; do
    for dec in greedy beam; do
      r32=$(best_ct2 "$t" "$dec" f32) r8=$(best_ct2 "$t" "$dec" int8)
      for row in $(rows_at "$t"); do
        key="$t|$dec|$row"
        local x32 x8 d=$dec
        [ "$dec" = greedy ] || d="beam $BEAM"
        read -r x32 x8 <<< "$(row_ratios "$row" "$r32" "$r8" "${FASTEST[$key]}")"
        printf '| %s | %s | %s | %s | %s | %s | %s | %s / %s | %s | %s |\n' "$t" "$d" "${LABEL[$row]}" \
          "${SECONDS_OF[$key]}" "${PIECES_OF[$key]}" "${RATES[$key]}" "${BLEU[$key]}" "${SAME[$key]}" "$LINES" "$x32" "$x8"
      done
    done
  done
  [ "$IN_PROCESS" = 0 ] || in_process_report
  echo
  echo "files: $WORK"
}

# in_seconds KEY: a row's in-process seconds for the test set (best twice-over run less best run)
in_seconds() { awk -v a="${FASTEST[$1|twice]}" -v b="${FASTEST[$1]}" 'BEGIN { printf "%.2f", a - b }'; }

# best_ct2_in T DECODING TYPE: CTranslate2's best in-process seconds of TYPE over its layouts
best_ct2_in() {
  local a b
  a=$(in_seconds "$1|$2|ct2-$3")
  b=$([ -n "${FASTEST[$1|$2|ct2-$3-inter]:-}" ] && in_seconds "$1|$2|ct2-$3-inter" || echo 0)
  awk -v a="$a" -v b="$b" 'BEGIN { print ((b > 0 && b < a) ? b : a) }'
}

in_process_report() {
  local t dec row key d r32 r8 x32 x8 sec
  echo
  echo "in process: each row's seconds for the $LINES sentences without what its process costs once (start-up,"
  echo "  loading): its best run on the test set twice over less its best run on it once; x ct2: CTranslate2's"
  echo "  best (its faster layout) over the row's, the same way"
  echo
  echo "| threads | decoding | system | whole process (best) | twice over (best) | in process | x ct2 f32 | x ct2 int8 |"
  echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
  for t in "${THREAD_LIST[@]}"; do
    for dec in greedy beam; do
      r32=$(best_ct2_in "$t" "$dec" f32) r8=$(best_ct2_in "$t" "$dec" int8)
      d=$dec
      [ "$dec" = greedy ] || d="beam $BEAM"
      for row in $(rows_at "$t"); do
        key="$t|$dec|$row"
        sec=$(in_seconds "$key")
        read -r x32 x8 <<< "$(row_ratios "$row" "$r32" "$r8" "$sec")"
        printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' "$t" "$d" "${LABEL[$row]}" "${FASTEST[$key]}" \
          "${FASTEST[$key|twice]}" "$sec" "$x32" "$x8"
      done
    done
  done
}

# latency_of INPUT COMMAND...: line_latency.py's figures ("p50 P p90 P p99 P mean M ...") for COMMAND on INPUT
latency_of() {
  local input=$1
  shift
  "$PY" "$ROOT/bench/line_latency.py" --input "$input" -- "$@" 2> "$WORK/logs/latency.log" ||
    fail "one sentence at a time: $*" "$WORK/logs/latency.log"
}

# latency_row THREADS LABEL INPUT COMMAND...: one row of the latency table
latency_row() {
  local t=$1 label=$2 figures
  shift 2
  figures=$(latency_of "$@")
  read -r _ p50 _ p90 _ p99 _ mean _ <<< "$figures"
  printf '| %s | %s | %s | %s | %s | %s |\n' "$t" "$label" "$p50" "$p90" "$p99" "$mean"
}

# --latency: per-sentence latency, one sentence at a time, each row at each thread count
latency() {
  local t ctype text=$WORK/latency.src pieces=$WORK/latency.pieces
  run_log "building bench/ct2_lines.cpp" "$WORK/logs/ct2_lines.log" g++ -O2 -std=c++17 -I"$CT2_INCLUDE" \
    "$ROOT/bench/ct2_lines.cpp" -o "$WORK/ct2_lines" -L"$PEER/install/lib" -l:libctranslate2.so.4 \
    -Wl,-rpath,"$PEER/install/lib"
  head -n "$LATENCY_LINES" "$SRC" > "$text"
  head -n "$LATENCY_LINES" "$WORK/src.pieces" > "$pieces"
  echo "vs-ct2: nmt against CTranslate2, one sentence at a time ($LATENCY_LINES lines of $SRC; the first 10 not counted)"
  echo "machine: $(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo), $(nproc) cores; load average $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "nmt: commit $(git -C "$ROOT" rev-parse --short HEAD 2> /dev/null || echo unknown); greedy search; milliseconds per sentence"
  echo "CTranslate2 reads pieces (made beforehand), nmt text (its BPE in its time)"
  echo
  echo "| threads | system | p50 | p90 | p99 | mean |"
  echo "| --- | --- | --- | --- | --- | --- |"
  for t in "${THREAD_LIST[@]}"; do
    for ctype in float32 int8; do
      latency_row "$t" "CTranslate2 $ctype" "$pieces" "$WORK/ct2_lines" "$WORK/ct2" "$ctype" "$t"
    done
    latency_row "$t" "nmt same work (float32)" "$text" \
      "$BIN/nmt-translate" --model "$MODEL" --threads "$t" --shortlist off --max-ratio 1000 --int8 off "${RAW[@]}"
    latency_row "$t" "nmt defaults" "$text" "$BIN/nmt-translate" --model "$MODEL" --threads "$t"
  done
}

main() {
  parse_args "$@"
  if [ "$CHECK" = 1 ]; then
    preflight
    [ -n "$TRAIN_STEPS" ] || check_model
    exit 0
  fi
  mkdir -p "$WORK/logs"
  LABEL=([ct2-f32]="CTranslate2 float32" [ct2-f32-inter]="CTranslate2 float32 inter" [ct2-int8]="CTranslate2 int8"
         [ct2-int8-inter]="CTranslate2 int8 inter"
         [nmt-same]="nmt same work" [nmt-same-int8]="nmt same work --int8 on" [nmt-default]="nmt defaults"
         [nmt-default-f32]="nmt defaults --int8 off")
  preflight
  [ -z "$TRAIN_STEPS" ] || train_model
  check_model
  convert_model
  agreement
  if [ "$LATENCY" = 1 ]; then
    latency | tee "$WORK/latency.txt"
    return
  fi
  timings
  report | tee "$WORK/summary.txt"
}

main "$@"
