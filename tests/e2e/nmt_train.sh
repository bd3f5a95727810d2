#!/usr/bin/env bash
# End-to-end test of nmt-train on a tiny task the test makes.
# Usage: nmt_train.sh BIN_DIR [--cuda]
#   without --cuda: on the CPU, and that asking for CUDA where there is none fails clearly;
#   --cuda: training, resuming and precisions on a GPU (exits 77, skipped, where there is none).
set -u
BIN=$1 MODE=${2:-}
[[ $MODE == "" || $MODE == --cuda ]] || { echo "usage: nmt_train.sh BIN_DIR [--cuda]" >&2; exit 2; }
source "$(dirname "$0")/lib.sh"
[ "$MODE" != --cuda ] || require_cuda
source "$(dirname "$0")/tiny_corpus.sh"
make_tiny_corpus "$TMP"
cd "$TMP"
DATA=("${TINY_DATA[@]}")
# teacher forcing decays, so resuming must also restore the random draws that choose it
TRAIN_ON=("$BIN/nmt-train" "${DATA[@]}" "${TINY_MODEL[@]}" --valid-every 20 --log-every 10
          --teacher-forcing-min 0.8 --teacher-forcing-decay-steps 200)
# on the CPU, where runs repeat bit for bit
TRAIN=("${TRAIN_ON[@]}" --device cpu)

# --- CUDA (--cuda): train, resume on the GPU, and carry checkpoints across devices
if [ "$MODE" == --cuda ]; then
  expect_ok "${TRAIN_ON[@]}" --device cuda --model-dir gpu --max-steps 120
  expect_contains "$ERR" "device: cuda:0, precision fp32"
  expect_contains "$ERR" "peak GPU memory: "
  bleu=$(metric gpu/metrics.csv 120 6)
  numbers_hold 'b > 10' b="$bleu" || fail "CUDA: validation BLEU only $bleu"
  expect_ok "${TRAIN_ON[@]}" --device cuda --model-dir gpu-split --max-steps 60
  expect_ok "$BIN/nmt-train" --model-dir gpu-split --resume --max-steps 120
  expect_contains "$ERR" "resuming at step 60"
  # CUDA kernels are not bit-exact: the resumed run's train loss at step 120 within 2%
  a=$(metric gpu/metrics.csv 120 3) b=$(metric gpu-split/metrics.csv 120 3)
  numbers_hold '(a - b) ^ 2 <= (0.02 * a) ^ 2' a="$a" b="$b" || fail "CUDA: resumed train loss $b, uninterrupted $a"
  cp -r gpu gpu-to-cpu
  expect_ok "$BIN/nmt-train" --model-dir gpu-to-cpu --resume --device cpu --max-steps 140
  expect_contains "$ERR" "device: cpu"
  expect_ok "${TRAIN[@]}" --model-dir cpu-to-gpu --max-steps 60
  expect_ok "$BIN/nmt-train" --model-dir cpu-to-gpu --resume --device cuda --max-steps 140
  expect_contains "$ERR" "device: cuda:0"
  expect_contains "$ERR" "resuming at step 60"
  for precision in bf16 fp16; do
    expect_ok "${TRAIN_ON[@]}" --device cuda --precision $precision --model-dir $precision --max-steps 120
    expect_contains "$(cat $precision/config.ini)" "precision = $precision"
    bleu=$(metric $precision/metrics.csv 120 6)
    numbers_hold 'b > 10' b="$bleu" || fail "CUDA $precision: validation BLEU only $bleu"
    expect_ok "$BIN/nmt-train" --model-dir $precision --resume --max-steps 130
  done
  finish
  exit 0
fi

expect_ok "$BIN/nmt-train" --help
expect_contains "$OUT" "--label-smoothing arg (=0.1)"
expect_contains "$OUT" "--resume"

# --- a run learns: loss falls well below its start, the directory is self-contained
expect_ok "${TRAIN[@]}" --model-dir run --max-steps 120
expect_contains "$ERR" "BPE: trained a model per side with 60 pieces"
expect_contains "$ERR" "train: 600 lines, 600 pairs kept"
expect_contains "$ERR" "nmt-train: done: reached --max-steps 120; best validation BLEU"
# each validation says what it cost
grep -qE '^step 120 validation: loss [0-9.]+, perplexity [0-9.]+, BLEU [0-9.]+ \(.*; [0-9]+\.[0-9] s$' <<< "$ERR" ||
  fail "no timed validation line for step 120: $ERR"
for f in config.ini source.model target.model best.pt last.pt metrics.csv; do
  [ -s "run/$f" ] || fail "run/$f missing"
done
[ ! -e run/last.pt.tmp ] || fail "temporary checkpoint left behind"
expect_line "$(head -1 run/metrics.csv)" "step,epoch,train_loss,valid_loss,valid_ppl,valid_bleu,learning_rate,tokens_per_s,elapsed_s,workers"
first=$(metric run/metrics.csv 10 3) last=$(metric run/metrics.csv 120 3)
numbers_hold 'b < a / 2' a="$first" b="$last" || fail "train loss did not halve: '$first' -> '$last'"
bleu=$(metric run/metrics.csv 120 6)
numbers_hold 'b > 10' b="$bleu" || fail "validation BLEU only '$bleu'"
# curves.svg plots metrics.csv: one validation BLEU point per validation row (every 20 steps and each epoch end)
[ -s run/curves.svg ] || fail "run/curves.svg missing"
validations=$(awk -F, 'NR > 1 && $6 != ""' run/metrics.csv | wc -l)
points=$(python3 -c 'import re,sys; m=re.search(r"class=\"valid-bleu\"[^>]*points=\"([^\"]*)\"", open(sys.argv[1]).read()); print(len(m.group(1).split()) if m else -1)' run/curves.svg)
[ "$validations" -ge 6 ] && [ "$points" -eq "$validations" ] || fail "curves.svg has $points BLEU points for $validations validations"
expect_contains "$(cat run/curves.svg)" ">step<"
expect_contains "$(cat run/config.ini)" "hidden-size = 64"
expect_contains "$(cat run/config.ini)" "train-src = $TMP/train.src"

# --- on a terminal: a live progress line with the ETA, redrawn in place
script -qec "${TRAIN[*]} --model-dir tty --max-steps 30" /dev/null > tty.txt 2>&1 || fail "training on a terminal failed"
expect_contains "$(cat tty.txt)" $'\r'
expect_contains "$(cat tty.txt)" "tok/s  lr 0.003  elapsed 0m0"
expect_contains "$(cat tty.txt)" "ETA 0m0"

# --- same seed, same loss curve and weights; a different seed differs
expect_ok "${TRAIN[@]}" --model-dir again --max-steps 120
[ "$(cut -d, -f1-7 run/metrics.csv)" == "$(cut -d, -f1-7 again/metrics.csv)" ] || fail "two runs differ"
cmp -s run/best.pt again/best.pt || fail "best.pt differs between identical runs"
expect_ok "${TRAIN[@]}" --model-dir seed2 --max-steps 20 --seed 2
[ "$(metric run/metrics.csv 20 3)" != "$(metric seed2/metrics.csv 20 3)" ] || fail "--seed changed nothing"

# --- resume: 60 steps, stop, resume to 120 gives the 120-step run exactly
expect_ok "${TRAIN[@]}" --model-dir split --max-steps 60
expect_ok "$BIN/nmt-train" --model-dir split --resume --max-steps 120
expect_contains "$ERR" "resuming at step 60"
[ "$(cut -d, -f1-7 run/metrics.csv)" == "$(cut -d, -f1-7 split/metrics.csv)" ] || fail "resumed metrics differ:
$(diff <(cut -d, -f1-7 run/metrics.csv) <(cut -d, -f1-7 split/metrics.csv))"
cmp -s run/best.pt split/best.pt || fail "resumed weights differ"
expect_contains "$(cat split/config.ini)" "max-steps = 120"

# --- config file, command line precedence, the effective config
cat > preset.ini <<INI
# a preset
layers = 2
hidden-size = 48
max-steps = 5
valid-every = 5
INI
expect_ok "${TRAIN[@]}" --config preset.ini --model-dir pre --max-steps 3
expect_line "$(tail -1 pre/metrics.csv | cut -d, -f1)" "3"
expect_contains "$(cat pre/config.ini)" "layers = 2"        # from the file
expect_contains "$(cat pre/config.ini)" "hidden-size = 64"  # the command line wins
expect_contains "$(cat pre/config.ini)" "max-steps = 3"
expect_ok "$BIN/nmt-train" --config pre/config.ini --model-dir pre2 --max-steps 1
expect_contains "$(cat pre2/config.ini)" "layers = 2"
expect_contains "$(cat pre2/config.ini)" "hidden-size = 64"

# --- joint vocabulary and the transformer encoder
expect_ok "${TRAIN[@]}" --model-dir joint --joint-vocab --encoder transformer --layers 2 --heads 2 --ff-size 64 --max-steps 4
[ -s joint/bpe.model ] && [ ! -e joint/source.model ] || fail "joint BPE model not written"
expect_contains "$ERR" "BPE: trained one joint model"
expect_contains "$ERR" "model: transformer encoder"
# BPE models already there are reused
cp joint/bpe.model reuse.model; mkdir reuse; cp joint/bpe.model reuse/
expect_ok "${TRAIN[@]}" --model-dir reuse --max-steps 1
expect_contains "$ERR" "BPE: reusing reuse/bpe.model"

# --- the language pair: recorded in config.ini from two-letter extensions or as given; train.src names none
expect_contains "$(cat run/config.ini)" $'\nsource-lang = \n'
cp train.src train.de; cp train.tgt train.en
expect_ok "$BIN/nmt-train" --train-src train.de --train-tgt train.en --valid-src valid.src --valid-tgt valid.tgt \
  "${TINY_MODEL[@]}" --model-dir langs --max-steps 1 --device cpu
expect_contains "$(cat langs/config.ini)" $'\nsource-lang = de\n'
expect_contains "$(cat langs/config.ini)" $'\ntarget-lang = en\n'
expect_ok "${TRAIN[@]}" --model-dir langs3 --max-steps 1 --source-lang fil --target-lang en
expect_contains "$(cat langs3/config.ini)" $'\nsource-lang = fil\n'
expect_fail 2 "${TRAIN[@]}" --model-dir langs4 --max-steps 1 --source-lang DE
expect_line "$ERR" "nmt-train: --source-lang must be a language code of 2 or 3 lower-case letters (de, en), not 'DE' (see nmt-train --help)"

# --- TSV input, epochs, early stopping, the inverse-square-root and linear schedules
paste train.src train.tgt > train.tsv; paste valid.src valid.tgt > valid.tsv
expect_ok "$BIN/nmt-train" --train train.tsv --valid valid.tsv "${TINY_MODEL[@]}" --model-dir tsv --max-epochs 1
expect_contains "$ERR" "training: 600 pairs in 27 batches per epoch"
expect_contains "$ERR" "nmt-train: done: reached --max-epochs 1"
expect_line "$(tail -1 tsv/metrics.csv | cut -d, -f1,2)" "27,1"
expect_ok "$BIN/nmt-train" "${DATA[@]}" --vocab-size 60 --embedding-size 32 --hidden-size 64 --batch-tokens 600 \
  --model-dir stale --lr 1e-9 --valid-every 2 --patience 2 --max-steps 100
expect_contains "$ERR" "nmt-train: done: early stopping: no better validation BLEU in 2 validations"
expect_line "$(tail -1 stale/metrics.csv | cut -d, -f1)" "6"
expect_ok "${TRAIN[@]}" --model-dir isqrt --lr-schedule inverse-sqrt --warmup-steps 10 --max-steps 40
expect_line "$(metric isqrt/metrics.csv 10 7)" "0.003"
expect_line "$(metric isqrt/metrics.csv 40 7)" "0.0015"
expect_fail 1 "${TRAIN[@]}" --model-dir x --lr-schedule inverse-sqrt
expect_line "$ERR" "nmt-train: error: --lr-schedule inverse-sqrt needs --warmup-steps above 0"
expect_ok "${TRAIN[@]}" --model-dir linear --lr-schedule linear --max-steps 40  # step s: (s - 1) of 40 steps done
expect_line "$(metric linear/metrics.csv 20 7)" "0.001575"
expect_line "$(metric linear/metrics.csv 40 7)" "7.5e-05"
# --lr-hold 0.5: the peak through step 21 (20 of 40 steps done), then the line down over the second half
expect_ok "${TRAIN[@]}" --model-dir held --lr-schedule linear --lr-hold 0.5 --max-steps 40
expect_line "$(metric held/metrics.csv 20 7)" "0.003"
expect_line "$(metric held/metrics.csv 30 7)" "0.00165"
# validations at --valid-every's steps and each epoch's end (27 batches), or (--valid-epoch-ends=false) the steps only
validated() { awk -F, 'NR > 1 && $6 != "" { printf "%s ", $1 }' "$1"; }
expect_line "$(validated held/metrics.csv)" "20 27 40 "
expect_ok "${TRAIN[@]}" --model-dir steps-only --lr-schedule linear --lr-hold 0.5 --max-steps 40 --valid-epoch-ends=false
expect_line "$(validated steps-only/metrics.csv)" "20 40 "
expect_line "$(metric steps-only/metrics.csv 40 3)" "$(metric held/metrics.csv 40 3)"  # the same steps
expect_fail 1 "${TRAIN[@]}" --model-dir x --lr-hold 0.5
expect_line "$ERR" "nmt-train: error: --lr-hold needs --lr-schedule linear"
expect_fail 1 "$BIN/nmt-train" "${DATA[@]}" --model-dir x --lr-schedule linear
expect_line "$ERR" "nmt-train: error: --lr-schedule linear decays to the end of the run: it needs --max-steps, --max-time or --max-epochs"
expect_ok "${TRAIN[@]}" --model-dir dropout --subword-alpha 0.1 --max-steps 20
expect_contains "$ERR" "subword sampling: BPE-dropout 0.1 on each training pair as it is read"
expect_line "$(grep -c '^subword-alpha = 0.1$' dropout/config.ini)" "1"
expect_fail 1 "${TRAIN[@]}" --model-dir x --subword-alpha 1
expect_line "$ERR" "nmt-train: error: --subword-alpha must be in [0, 1) (0: the one best segmentation)"

# --- bad options and input: one line naming the option, file or line
printf 'hidden-size = 48\nbogus-option = 1\n' > bad1.ini
expect_fail 2 "${TRAIN[@]}" --model-dir x --config bad1.ini
expect_line "$ERR" "nmt-train: bad1.ini:2: unrecognised option 'bogus-option' (see nmt-train --help)"
printf '# c\n\nlayers = big\n' > bad2.ini
expect_fail 2 "${TRAIN[@]}" --model-dir x --config bad2.ini
expect_line "$ERR" "nmt-train: bad2.ini:3: the argument ('big') for option 'layers' is invalid (see nmt-train --help)"
expect_fail 2 "${TRAIN[@]}" --model-dir x --no-such-thing
expect_contains "$ERR" "unrecognised option '--no-such-thing'"
expect_fail 2 "${TRAIN[@]}" --model-dir x --config missing.ini
expect_line "$ERR" "nmt-train: cannot open config file missing.ini (see nmt-train --help)"
expect_fail 2 "${TRAIN[@]}"
expect_line "$ERR" "nmt-train: --model-dir is required (see nmt-train --help)"
BARE=("$BIN/nmt-train" "${TINY_MODEL[@]}" --model-dir x)
expect_fail 1 "${BARE[@]}" --train-src train.src --train-tgt train.tgt --valid valid.tsv --valid-src valid.src
expect_line "$ERR" "nmt-train: error: give either --valid-src/--valid-tgt or --valid, not both"
expect_fail 1 "${BARE[@]}" --train-src train.src --train-tgt train.tgt
expect_line "$ERR" "nmt-train: error: no validation data: give --valid-src/--valid-tgt or --valid"
expect_fail 1 "${BARE[@]}" --train-src nope.src --train-tgt train.tgt --valid valid.tsv
expect_line "$ERR" "nmt-train: error: cannot open $TMP/nope.src: No such file or directory"
head -599 train.tgt > short.tgt
expect_fail 1 "${BARE[@]}" --train-src train.src --train-tgt short.tgt --valid valid.tsv
expect_line "$ERR" "nmt-train: error: $TMP/train.src has 600 lines but $TMP/short.tgt has 599; source and target files must be line-aligned"
{ head -4 valid.src; printf 'caf\xe9\n'; tail -35 valid.src; } > badutf8.src
expect_fail 1 "${BARE[@]}" --train-src train.src --train-tgt train.tgt --valid-src badutf8.src --valid-tgt valid.tgt
expect_line "$ERR" "nmt-train: error: $TMP/badutf8.src:5: invalid UTF-8 at byte 4"
expect_fail 2 "${TRAIN[@]}" --model-dir x --precision fp8
expect_line "$ERR" "nmt-train: --precision must be fp32, bf16, fp16 or auto, not 'fp8' (see nmt-train --help)"
# NaN, infinities and negative values of the float options are refused in one line, before anything is made
for bad in "--min-lr -1|--min-lr must be a number of 0 or more" \
           "--lr-hold 1|--lr-hold must be in [0, 1)" \
           "--adam-beta2 nan|--adam-beta2 must be in (0, 1)" \
           "--clip-norm nan|--clip-norm must be a number of 0 or more (0: no clipping)" \
           "--max-time inf|--max-time must be a number of minutes, 0 or more (0: no limit)" \
           "--label-smoothing nan|--label-smoothing must be in [0, 1)" \
           "--teacher-forcing nan|--teacher-forcing and --teacher-forcing-min must be in [0, 1]"; do
  # shellcheck disable=SC2086
  expect_fail 1 "${TRAIN[@]}" --model-dir nan-run ${bad%%|*}
  expect_line "$ERR" "nmt-train: error: ${bad#*|}"
  [ ! -e nan-run ] || fail "${bad%%|*} left a model directory"
done
expect_fail 1 "$BIN/nmt-train" "${DATA[@]}" --device cpu --model-dir nan-run --dropout nan
expect_line "$ERR" "nmt-train: error: model config: dropout must be in [0, 1)"
expect_fail 1 "${TRAIN[@]}" --model-dir x --encoder lstm
expect_contains "$ERR" "encoder"
expect_fail 1 "${TRAIN[@]}" --model-dir run --max-steps 200
expect_line "$ERR" "nmt-train: error: run already holds a training run (run/last.pt); continue it with --resume or choose another --model-dir"
expect_fail 1 "$BIN/nmt-train" --model-dir empty --resume
expect_line "$ERR" "nmt-train: error: nothing to resume: empty/last.pt does not exist"
expect_fail 1 "$BIN/nmt-train" --model-dir run --resume --hidden-size 32 --layers 2
expect_line "$(tail -1 <<< "$ERR")" "nmt-train: error: cannot resume run: the options differ from its model in architecture (decoder-layers: 1 -> 2; hidden-size: 64 -> 32; layers: 1 -> 2)"
[ ! -e x/last.pt ] || fail "a failed run wrote a checkpoint"

# --- a non-finite loss stops training and keeps the last good checkpoint
cp run/last.pt good.pt
expect_fail 1 "$BIN/nmt-train" --model-dir run --resume --max-steps 400 --lr 1e30
expect_contains "$ERR" "is not finite"
expect_contains "$ERR" "the last checkpoint (step 120) is kept in run/last.pt; try a lower --lr"
cmp -s run/last.pt good.pt || fail "the last good checkpoint was overwritten"

# --- every preset in configs/ is accepted and trains (on the tiny data, one step)
for preset in "$(dirname "$0")"/../../configs/*.ini; do
  name=$(basename "$preset" .ini)
  expect_ok "$BIN/nmt-train" --config "$preset" "${DATA[@]}" --vocab-size 60 --max-steps 1 --max-length 40 \
    --device cpu --model-dir "preset-$name"
  expect_contains "$ERR" "nmt-train: done: reached --max-steps 1"
done

# --- SIGINT / SIGTERM: finish the step, save, exit non-zero; the run resumes
for sig in INT TERM; do
  "${TRAIN[@]}" --model-dir sig$sig --max-steps 100000 > /dev/null 2> sig$sig.err &
  pid=$!
  for ((i = 0; i < 300; i++)); do [ -s sig$sig/last.pt ] && break; sleep 0.1; done
  kill -$sig $pid
  wait $pid; rc=$?
  [ $rc -eq $((128 + $(kill -l $sig))) ] || fail "SIG$sig: exit $rc"
  expect_contains "$(cat sig$sig.err)" "nmt-train: stopped by SIG$sig at step"
  expect_contains "$(cat sig$sig.err)" "continue with: nmt-train --model-dir sig$sig --resume"
  stopped=$(grep -o 'stopped by SIG[A-Z]* at step [0-9]*' sig$sig.err | grep -o '[0-9]*$')
  expect_ok "$BIN/nmt-train" --model-dir sig$sig --resume --max-steps $((stopped + 2))
  expect_contains "$ERR" "resuming at step $stopped"
done

# --- kill -9 at any moment (here checkpoints are written every step) leaves a loadable one (no early
# stopping: a run that ended by itself before the kill would test nothing)
for delay in 0.3 0.55 0.8; do
  "$BIN/nmt-train" "${DATA[@]}" "${TINY_MODEL[@]}" --valid-every 1 --patience 0 --model-dir killed --max-steps 100000 \
    $([ -e killed/last.pt ] && echo --resume) > /dev/null 2>&1 &
  pid=$!
  for ((i = 0; i < 300; i++)); do [ -s killed/last.pt ] && break; sleep 0.1; done
  sleep $delay
  kill -9 $pid 2>/dev/null || fail "nmt-train ended before kill -9 (after ${delay} s): nothing was tested"
  wait $pid 2>/dev/null
  rc=$?
  [ $rc -eq 137 ] || fail "nmt-train killed with -9 exited $rc, expected 137"
done
expect_ok "$BIN/nmt-train" --model-dir killed --resume --max-steps 100000 --max-time 0.001
expect_contains "$ERR" "resuming at step"

# --- the runtime; asking for CUDA where there is none fails clearly (CUDA_VISIBLE_DEVICES= hides
# a GPU from LibTorch, so this runs on every machine; --cuda tests a GPU)
expect_ok "$BIN/nmt-train" --version
expect_contains "$OUT" "runtime: LibTorch "
expect_fail 1 env CUDA_VISIBLE_DEVICES= "${TRAIN_ON[@]}" --model-dir x --device cuda
expect_contains "$ERR" "nmt-train: error: device 'cuda' requested but CUDA is not available"
# bf16 on the CPU: trained through oneDNN where the CPU has bf16 instructions, refused in one line elsewhere
# (oneDNN's ISA limit below AVX512_CORE_BF16, as ONEDNN_MAX_CPU_ISA=AVX2 sets it, counts as lacking them)
isa=${ONEDNN_MAX_CPU_ISA:-${DNNL_MAX_CPU_ISA:-ALL}}
if grep -qwE 'avx512_bf16|amx_bf16' /proc/cpuinfo && [[ ${isa^^} =~ ^(ALL|DEFAULT|AVX512_CORE_BF16|AVX512_CORE_FP16|AVX512_CORE_AMX) ]]; then
  expect_ok "${TRAIN[@]}" --model-dir cpu-bf16 --precision bf16 --max-steps 120
  expect_contains "$ERR" "device: cpu, precision bf16"
  expect_contains "$ERR" "matrix products in bf16: oneDNN ("
  bleu=$(metric cpu-bf16/metrics.csv 120 6)
  numbers_hold 'b > 10' b="$bleu" || fail "CPU bf16: validation BLEU only $bleu"
  expect_ok "${TRAIN[@]}" --model-dir cpu-auto --precision auto --max-steps 1
  expect_contains "$ERR" "device: cpu, precision bf16"
else
  expect_fail 1 "${TRAIN[@]}" --model-dir x --precision bf16
  expect_contains "$ERR" "nmt-train: error: --precision bf16 needs a CUDA device or a CPU with AVX-512 BF16 or AMX instructions ("
  expect_ok "${TRAIN[@]}" --model-dir cpu-auto --precision auto --max-steps 1
  expect_contains "$ERR" "device: cpu, precision fp32"
fi

# float32 training on the CPU on 2 threads restarts itself with its idle threads asleep and gives LibTorch's
# pool both threads; where the user set OMP_WAIT_POLICY, or the config came through a pipe, it runs as it started
# (the thread counts checked where the BLAS is OpenBLAS, as Debian's LibTorch has it)
asleep="; idle threads sleep (OMP_WAIT_POLICY=passive)"
openblas() { [[ $ERR == *"matrix kernels: OpenBLAS"* ]]; }
expect_ok env -u OMP_WAIT_POLICY -u OPENBLAS_THREAD_TIMEOUT "${TRAIN[@]}" --model-dir asleep --threads 2 --max-steps 1
expect_contains "$ERR" "$asleep"
! openblas || expect_contains "$ERR" "threads: LibTorch intra-op 2, OpenBLAS threads 2$asleep"
expect_ok env OMP_WAIT_POLICY=active "${TRAIN[@]}" --model-dir spinning --threads 2 --max-steps 1
[[ $ERR != *"$asleep"* ]] || fail "OMP_WAIT_POLICY=active: $ERR"
! openblas || expect_contains "$ERR" "threads: LibTorch intra-op 1, OpenBLAS threads 2"
expect_ok env -u OMP_WAIT_POLICY "${TRAIN[@]}" --model-dir piped --config <(echo "threads = 2") --max-steps 1
[[ $ERR != *"$asleep"* ]] || fail "a config through a pipe: $ERR"
! openblas || expect_contains "$ERR" "threads: LibTorch intra-op 1, OpenBLAS threads 2"

finish
