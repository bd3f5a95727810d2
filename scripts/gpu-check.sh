#!/usr/bin/env bash
# gpu-check: one command for a machine with an NVIDIA GPU. Builds nmt against a CUDA LibTorch into
# build-cuda/, runs the test suite, trains both presets (RNN, Transformer encoder) for a few minutes
# on the GPU with bench/quality.sh, translates and scores test_2016_flickr, trains a few steps under
# torchrun (when installed), and prints one Markdown table: GPU, driver, CUDA, LibTorch, training
# tokens/s, translation sentences/s, peak GPU memory, BLEU. With --peer, also bench/vs-peer.sh against
# the Python peer and nmt-bench-gpu (host waits a greedy step, a decoder step as a CUDA graph).
# Dependencies come from the system, or from a folder of Debian packages (--debs DIR, filled by
# scripts/download-debs.sh; unpacked with dpkg -x, no root needed). Every step logs into
# BUILD/gpu-check/; a failure stops with the step's name and its log, and a non-zero exit code, except
# failing tests, after which the other steps still run (the exit code is non-zero all the same).
set -euo pipefail

usage() {
  cat << 'EOF'
usage: scripts/gpu-check.sh [options]
  --torch DIR|auto   LibTorch: a LibTorch folder (with share/cmake/Torch), a PyTorch install's
                     cmake prefix, or a folder holding TorchConfig.cmake; auto (default) asks
                     python3 for torch.utils.cmake_prefix_path
  --debs DIR         take SentencePiece, Boost, fmt, doctest and libedit from the .deb files in DIR
                     (see scripts/download-debs.sh) instead of the system's
  --data DIR         Multi30k: train, val and test_2016_flickr .de/.en (default: data/multi30k)
  --minutes M        training time per preset (default: 3)
  --build-dir DIR    build folder (default: build-cuda)
  --device D         cuda or cuda:N (default: cuda); cpu checks the script itself on a machine
                     without a GPU (no nvidia-smi, GPU reported as "none")
  --jobs N           parallel build and test jobs (default: the number of cores, at most 8)
  --skip-tests       do not run the test suite
  --peer FILE        the Python peer (torch_seq2seq.py): also run bench/vs-peer.sh --device cuda against
                     it, then nmt-bench-gpu on its nmt model and on the Transformer preset's
  --peer-steps N     training steps of each side in bench/vs-peer.sh (default: 300)
  --unpack-only      only unpack --debs into BUILD/debs-root and print the environment using it
  -h, --help         show this help
Writes BUILD/gpu-check/summary.md (the table) and one log per step beside it. Failing tests do not
stop the steps after them; the script then ends with a non-zero exit code, naming the tests' log.
EOF
}

die() { echo "gpu-check: $*" >&2; exit 1; }
usage_error() { echo "gpu-check: $*; see --help" >&2; exit 2; }
abs_path() { case $1 in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }

ROOT=$(cd "$(dirname "$0")/.." && pwd)
TORCH=auto DEBS="" DATA=$ROOT/data/multi30k MINUTES=3 BUILD=$ROOT/build-cuda DEVICE=cuda
JOBS="" SKIP_TESTS=no UNPACK_ONLY=no PEER="" PEER_STEPS=300 TESTS_FAILED=no

parse_args() {
  while [ $# -gt 0 ]; do
    case $1 in
      -h|--help) usage; exit 0 ;;
      --skip-tests) SKIP_TESTS=yes; shift; continue ;;
      --unpack-only) UNPACK_ONLY=yes; shift; continue ;;
      --torch|--debs|--data|--minutes|--build-dir|--device|--jobs|--peer|--peer-steps)
        [ $# -ge 2 ] || usage_error "$1 needs a value" ;;
      *) usage_error "unknown option '$1'" ;;
    esac
    case $1 in
      --torch) TORCH=$2 ;;
      --debs) DEBS=$(abs_path "$2") ;;
      --data) DATA=$(abs_path "$2") ;;
      --minutes) MINUTES=$2 ;;
      --build-dir) BUILD=$(abs_path "$2") ;;
      --device) DEVICE=$2 ;;
      --jobs) JOBS=$2 ;;
      --peer) PEER=$(abs_path "$2") ;;
      --peer-steps) PEER_STEPS=$2 ;;
    esac
    shift 2
  done
  [[ $DEVICE =~ ^(cpu|cuda|cuda:[0-9]+)$ ]] || usage_error "--device must be cuda, cuda:N or cpu, not '$DEVICE'"
  if ! [[ $MINUTES =~ ^[0-9]*\.?[0-9]+$ ]] || ! awk "BEGIN { exit !($MINUTES > 0) }"; then
    usage_error "--minutes must be a number above 0, not '$MINUTES'"
  fi
  [ -z "$JOBS" ] || [[ $JOBS =~ ^[1-9][0-9]*$ ]] || usage_error "--jobs must be a whole number above 0, not '$JOBS'"
  [ "$UNPACK_ONLY" = no ] || [ -n "$DEBS" ] || usage_error "--unpack-only needs --debs DIR"
  [[ $PEER_STEPS =~ ^[1-9][0-9]*$ ]] || usage_error "--peer-steps must be a whole number above 0, not '$PEER_STEPS'"
  [ -z "$PEER" ] || [ -f "$PEER" ] || usage_error "--peer: no file '$PEER'"
  [ "$TORCH" = auto ] || TORCH=$(abs_path "$TORCH")
  if [ -z "$JOBS" ]; then
    JOBS=$(nproc 2> /dev/null || echo 2)
    [ "$JOBS" -le 8 ] || JOBS=8
  fi
}

check_data() {
  local f
  for f in train.de train.en val.de val.en test_2016_flickr.de test_2016_flickr.en; do
    [ -f "$DATA/$f" ] || die "no Multi30k in $DATA (missing $f); pass --data DIR"
  done
}

find_torch() {  # sets TORCH_DIR, the folder holding TorchConfig.cmake
  local dir=$TORCH d
  if [ "$dir" = auto ]; then
    command -v python3 > /dev/null || die "no python3 to ask where PyTorch's LibTorch is; pass --torch DIR"
    dir=$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)' 2> /dev/null) \
      || die "python3 cannot import torch; pass --torch DIR (a LibTorch folder)"
  fi
  for d in "$dir" "$dir/Torch" "$dir/share/cmake/Torch"; do
    if [ -f "$d/TorchConfig.cmake" ]; then
      TORCH_DIR=$(cd "$d" && pwd)
      return
    fi
  done
  die "no LibTorch in $dir (no TorchConfig.cmake there, in Torch/ or in share/cmake/Torch/)"
}

# Unpacks every .deb of DEBS into ROOT_DIR (afresh) and points the pkg-config files and the CMake
# files that name /usr at the unpacked tree (Debian's doctest export hard-codes /usr).
unpack_debs() {  # unpack_debs DEBS ROOT_DIR
  local debs=$1 root=$2 deb count=0
  [ -d "$debs" ] || die "--debs $debs: no such folder"
  command -v dpkg > /dev/null || die "dpkg not found; --debs unpacks with dpkg -x"
  rm -rf "$root"
  mkdir -p "$root"
  for deb in "$debs"/*.deb; do
    [ -f "$deb" ] || continue
    dpkg -x "$deb" "$root" || die "cannot unpack $deb"
    count=$((count + 1))
  done
  [ "$count" -gt 0 ] || die "--debs $debs holds no .deb files (fill it with scripts/download-debs.sh $debs)"
  find "$root" -name '*.pc' -type f -exec sed -i -E "s#^([A-Za-z_]+)=/usr(/|\$)#\\1=$root/usr\\2#" {} +
  find "$root" -name '*.cmake' -type f \
    -exec sed -i "s#set(_IMPORT_PREFIX \"/usr\")#set(_IMPORT_PREFIX \"$root/usr\")#" {} +
  echo "gpu-check: unpacked $count packages from $debs into $root"
}

use_debs() {  # use_debs ROOT_DIR: the unpacked packages first for pkg-config, CMake and the loader
  local root=$1 lib=$1/usr/lib d
  for d in "$root"/usr/lib/*-linux-gnu*; do [ -d "$d" ] && lib=$d; done
  export PKG_CONFIG_PATH="$lib/pkgconfig:$root/usr/share/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
  export LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export CMAKE_PREFIX_PATH="$root/usr${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}"
}

# GPU_NAME and DRIVER from nvidia-smi. bench/quality.sh translates with --device auto, so for cuda:N
# the programs see only GPU N (as their cuda:0), and for the cpu dry run none.
check_gpu() {
  local index=0 out
  case $DEVICE in
    cpu) GPU_NAME=none DRIVER=none TORCH_DEVICE=cpu; export CUDA_VISIBLE_DEVICES=""; return ;;
    cuda:*) index=${DEVICE#cuda:}; export CUDA_DEVICE_ORDER=PCI_BUS_ID CUDA_VISIBLE_DEVICES=$index ;;
  esac
  TORCH_DEVICE=cuda
  command -v nvidia-smi > /dev/null || die "nvidia-smi not found: no NVIDIA driver here (--device cpu checks the script without a GPU)"
  if ! out=$(nvidia-smi -i "$index" --query-gpu=name,driver_version --format=csv,noheader 2>&1) || [ -z "$out" ]; then
    die "nvidia-smi sees no GPU $index: $(head -n1 <<< "$out")"
  fi
  out=$(head -n1 <<< "$out")
  GPU_NAME=${out%,*} DRIVER=${out##*, }
}

find_nvcc() {  # sets NVCC (may stay empty) and CUDA_VERSION
  NVCC=$(command -v nvcc || true)
  [ -n "$NVCC" ] || [ ! -x /usr/local/cuda/bin/nvcc ] || NVCC=/usr/local/cuda/bin/nvcc
  CUDA_VERSION=n/a
  if [ -n "$NVCC" ]; then
    CUDA_VERSION=$("$NVCC" --version | sed -n 's/.*release [0-9.]*, V\([0-9.]*\).*/\1 (nvcc)/p')
  elif [ "$DEVICE" != cpu ]; then
    CUDA_VERSION=$(nvidia-smi | sed -n 's/.*CUDA Version: *\([0-9.]*\).*/\1 (driver)/p')
    CUDA_VERSION=${CUDA_VERSION%%$'\n'*}
  fi
  CUDA_VERSION=${CUDA_VERSION:-n/a}
}

check_tools() {
  local t
  for t in cmake ninja pkg-config; do
    command -v "$t" > /dev/null || die "$t not found (the build needs cmake, ninja and pkg-config)"
  done
}

step() {  # step NAME COMMAND...: runs COMMAND, its output in LOGS/NAME.log; stops on failure
  local name=$1 log=$LOGS/$1.log
  shift
  echo "gpu-check: $name (log: $log)"
  if ! "$@" > "$log" 2>&1; then
    echo "gpu-check: $name failed; see $log, which ends:" >&2
    tail -n 20 "$log" >&2
    exit 1
  fi
}

configure_and_build() {
  # --debs first: LibTorch's prefix may hold other packages' CMake files (Debian's holds them all)
  local prefix
  prefix=$(dirname "$TORCH_DIR")  # CMake looks for PREFIX/Torch/TorchConfig.cmake
  [ -z "${CMAKE_PREFIX_PATH:-}" ] || prefix="${CMAKE_PREFIX_PATH//:/;};$prefix"
  local args=(-S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release
              "-DCMAKE_PREFIX_PATH=$prefix" "-DTorch_DIR=$TORCH_DIR")
  [ -z "$NVCC" ] || args+=("-DCMAKE_CUDA_COMPILER=$NVCC")
  # neither is the Python module (the machine's Python has no pybind11-dev)
  args+=(-DNMT_BUILD_PYTHON=OFF)
  # nmt-serve is not what this check is about: built where cpp-httplib and nlohmann/json are installed
  if ! pkg-config --exists cpp-httplib || ! [ -f /usr/include/nlohmann/json.hpp ]; then
    echo "gpu-check: no cpp-httplib or nlohmann/json here: building without nmt-serve (-DNMT_BUILD_SERVER=OFF)"
    args+=(-DNMT_BUILD_SERVER=OFF)
  fi
  step configure cmake "${args[@]}"
  step build cmake --build "$BUILD" -j "$JOBS"
}

# LIBTORCH from nmt-train --version's "runtime: LibTorch 2.11.0, CUDA build yes, CUDA devices 1";
# stops early when LibTorch cannot use the GPU (n/a where the line is missing).
check_runtime() {
  local version runtime
  version=$("$BUILD/bin/nmt-train" --version 2>&1) || die "$BUILD/bin/nmt-train --version failed: $version"
  runtime=$(sed -n 's/^runtime: //p' <<< "$version")
  LIBTORCH=$(sed -n 's/^LibTorch \([^,]*\),.*/\1/p' <<< "$runtime")
  LIBTORCH=${LIBTORCH:-n/a}
  [ "$DEVICE" != cpu ] || return 0
  case $runtime in
    *"CUDA build no"*) die "LibTorch in $TORCH_DIR is not a CUDA build ($runtime)" ;;
    *"CUDA devices 0") die "LibTorch sees no CUDA device ($runtime)" ;;
  esac
}

first_match() {  # first_match SED_EXPR FILE: the first line sed -n prints, or n/a
  local found
  found=$(sed -n "$1" "$2")
  found=${found%%$'\n'*}
  echo "${found:-n/a}"
}

# Trains, translates and scores one preset with bench/quality.sh, times one greedy translation,
# and adds the preset's row to ROWS.
run_preset() {  # run_preset rnn|transformer
  local enc=$1 out=$LOGS/$1 log=$LOGS/train-$1.log
  step "train-$enc" env NMT_BIN="$BUILD/bin" "$ROOT/bench/quality.sh" --encoder "$enc" --minutes "$MINUTES" \
    --data "$DATA" --out "$out" -- --device "$TORCH_DEVICE"
  local greedy beam steps tokens train_mem
  greedy=$(first_match 's/.* greedy *BLEU *\([0-9.]*\) .*/\1/p' "$log")
  beam=$(first_match 's/.* beam 5 *BLEU *\([0-9.]*\) .*/\1/p' "$log")
  if [ "$greedy" = n/a ] || [ "$beam" = n/a ]; then die "no BLEU lines from bench/quality.sh in $log"; fi
  steps=$(awk -F, 'NR > 1 { s = $1 } END { print s }' "$out/metrics.csv")
  tokens=$(awk -F, 'NR > 1 && $8 ~ /^[0-9.]+$/ { sum += $8; n++ } END { if (n) printf "%.0f", sum / n; else print "n/a" }' \
    "$out/metrics.csv")
  train_mem=$(first_match 's/.*peak GPU memory: \([0-9]*\) MiB.*/\1/p' "$out/train.log")

  local help sentences=n/a translate_mem=n/a stats_log=$LOGS/translate-$enc.log
  help=$("$BUILD/bin/nmt-translate" --help 2>&1) || die "$BUILD/bin/nmt-translate --help failed"
  if [[ $help == *--stats* ]]; then
    step "translate-$enc" "$BUILD/bin/nmt-translate" --model "$out" --input "$DATA/test_2016_flickr.de" \
      --output /dev/null --stats --device "$TORCH_DEVICE"
    sentences=$(first_match 's/^nmt-translate: .* \([0-9.]*\) sentences\/s.*/\1/p' "$stats_log")
    translate_mem=$(first_match 's/^nmt-translate: .*peak GPU memory \([0-9]*\) MiB.*/\1/p' "$stats_log")
  else
    echo "gpu-check: this nmt-translate has no --stats; translation speed n/a"
  fi
  local memory="$train_mem / $translate_mem MiB"
  [ "$memory" != "n/a / n/a MiB" ] || memory=n/a
  ROWS+=("| $enc | $MINUTES min | $steps | $tokens | $sentences | $memory | $greedy | $beam |")
}

# nmt-train started by torchrun (one worker on the device; the test suite's "CUDA: one worker's group"
# checks NCCL itself), and whether the build has NCCL for several GPUs. Sets MULTI.
run_torchrun() {
  local nccl=no torchrun
  grep -q "nmt: NCCL for training on several GPUs" "$LOGS/configure.log" && nccl=yes
  if ! torchrun=$(command -v torchrun); then
    echo "gpu-check: no torchrun on the PATH: torchrun not checked"
    MULTI="NCCL built: $nccl; torchrun: not found"
    return 0
  fi
  # --redirects/--tee: torchrun 1.13 under Python 3.11 fails without them; later ones take them too
  step torchrun "$torchrun" --standalone --nproc_per_node 1 --redirects 2 --tee 2 --log_dir "$LOGS/torchrun-logs" \
    --no_python "$BUILD/bin/nmt-train" --train-src "$DATA/val.de" --train-tgt "$DATA/val.en" \
    --valid-src "$DATA/val.de" --valid-tgt "$DATA/val.en" --vocab-size 2000 --max-steps 20 --valid-every 20 \
    --model-dir "$LOGS/torchrun" --device "$TORCH_DEVICE"
  MULTI="NCCL built: $nccl; torchrun --nproc_per_node 1: trained 20 steps"
}

# The test suite; a failure is reported and the later steps still run (the script ends non-zero).
run_tests() {
  echo "gpu-check: tests (log: $LOGS/tests.log)"
  if ! ctest --test-dir "$BUILD" --output-on-failure --timeout 150 -j "$JOBS" > "$LOGS/tests.log" 2>&1; then
    TESTS_FAILED=yes
    echo "gpu-check: tests failed; the other steps go on. $LOGS/tests.log ends:" >&2
    grep -A 30 "tests passed" "$LOGS/tests.log" >&2 || tail -n 20 "$LOGS/tests.log" >&2
  fi
}

# bench/vs-peer.sh against the Python peer on this device, then nmt-bench-gpu on its nmt model (the RNN
# reference configuration) and on the Transformer preset's. Sets PEER_TABLE and GPU_BENCH.
run_peer() {
  step vs-peer env NMT_BIN="$BUILD/bin" "$ROOT/bench/vs-peer.sh" --device "$TORCH_DEVICE" --steps "$PEER_STEPS" \
    --peer "$PEER" --data "$DATA" --out "$LOGS/vs-peer"
  PEER_TABLE=$(sed -n '/^vs-peer: configs/,$p' "$LOGS/vs-peer.log")
  GPU_BENCH="nmt-bench-gpu: not built (LibTorch without CUDA)"
  [ -x "$BUILD/bin/nmt-bench-gpu" ] || return 0
  # a measurement, not a check: a failure (a step that cannot be captured, say) is shown, not fatal
  local model log
  GPU_BENCH=""
  for model in vs-peer/nmt transformer; do
    log=$LOGS/bench-gpu-${model%%/*}.log
    echo "gpu-check: nmt-bench-gpu on $model (log: $log)"
    "$BUILD/bin/nmt-bench-gpu" --model "$LOGS/$model" --input "$DATA/test_2016_flickr.de" --device "$TORCH_DEVICE" \
      > "$log" 2>&1 || echo "nmt-bench-gpu on $model failed (exit code $?)" >> "$log"
    GPU_BENCH+=$(cat "$log")$'\n'
  done
}

write_summary() {
  {
    echo "| GPU | driver | CUDA | LibTorch | device |"
    echo "| --- | --- | --- | --- | --- |"
    echo "| $GPU_NAME | $DRIVER | $CUDA_VERSION | $LIBTORCH | $DEVICE |"
    echo
    echo "| preset | training | steps | train tokens/s | translate sentences/s (greedy) | peak GPU memory train / translate | BLEU greedy | BLEU beam 5 |"
    echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
    printf '%s\n' "${ROWS[@]}"
    echo
    echo "Several processes: $MULTI"
    if [ -n "$PEER" ]; then
      echo
      echo "$PEER_TABLE"
      echo
      echo "$GPU_BENCH"
    fi
  } > "$LOGS/summary.md"
  echo
  cat "$LOGS/summary.md"
  echo
  [ "$TESTS_FAILED" = yes ] || echo "gpu-check: all steps passed; the table is in $LOGS/summary.md"
}

parse_args "$@"
if [ "$UNPACK_ONLY" = yes ]; then
  unpack_debs "$DEBS" "$BUILD/debs-root"
  use_debs "$BUILD/debs-root"
  echo "export PKG_CONFIG_PATH=$PKG_CONFIG_PATH"
  echo "export CMAKE_PREFIX_PATH=$CMAKE_PREFIX_PATH"
  echo "export LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
  exit 0
fi
check_data
find_torch
echo "gpu-check: LibTorch from $TORCH_DIR"
if [ -n "$DEBS" ]; then
  unpack_debs "$DEBS" "$BUILD/debs-root"
  use_debs "$BUILD/debs-root"
fi
check_gpu
check_tools
find_nvcc
echo "gpu-check: GPU $GPU_NAME, driver $DRIVER, CUDA $CUDA_VERSION, device $DEVICE"

LOGS=$BUILD/gpu-check
mkdir -p "$LOGS"
configure_and_build
check_runtime
[ "$SKIP_TESTS" = yes ] || run_tests
ROWS=()
run_preset rnn
run_preset transformer
run_torchrun
[ -z "$PEER" ] || run_peer
write_summary
if [ "$TESTS_FAILED" = yes ]; then
  echo "gpu-check: the test suite failed; see $LOGS/tests.log" >&2
  exit 1
fi
