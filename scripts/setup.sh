#!/usr/bin/env bash
# Installs nmt's dependencies from Debian's packages, then configures and builds (Release, Ninja)
# into ./build. Safe to run again: installed packages are kept and the build is incremental.
set -euo pipefail

cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}

fail() { echo "setup: $*" >&2; exit 1; }

PACKAGES=(
  cmake ninja-build g++ pkg-config
  libtorch-dev libsentencepiece-dev libboost-program-options-dev libfmt-dev doctest-dev
  libopenblas0-pthread  # without it LibTorch falls back to reference BLAS, ~15x slower
  python3 bsdutils      # the end-to-end tests read CSV and SVG back with Python; script(1) gives a terminal
  libgloo-dev           # the headers of LibTorch's Gloo process group (training over several processes)
  libedit-dev           # nmt-translate's prompt: line editing and history (BSD licence)
  libboost-dev nlohmann-json3-dev                 # nmt-serve: connections (Boost.Asio/Beast) and JSON
  libcpp-httplib-dev                              # bench/serve_load.cpp's HTTP client
  pybind11-dev python3-dev python3-numpy python3-pytest  # import nmt (build/python) and its tests
  python3-pip python3-venv python3-setuptools python3-wheel  # pip install --no-build-isolation . (docs/python.md)
  chromium chromium-driver python3-selenium       # the test of nmt-serve's page in a real browser
)

if [ "$(id -u)" -eq 0 ]; then
  SUDO=()
elif command -v sudo >/dev/null 2>&1; then
  SUDO=(sudo)
else
  fail "installing packages needs root; run as root or install sudo"
fi

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  "${SUDO[@]}" apt-get update || fail "apt-get update failed"
  DEBIAN_FRONTEND=noninteractive "${SUDO[@]}" apt-get install -y "${missing[@]}" \
    || fail "apt-get install failed for: ${missing[*]}"
else
  echo "setup: all packages present"
fi

cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release "$@" || fail "cmake configure failed"
cmake --build "$BUILD_DIR" || fail "build failed"
echo "setup: built into $BUILD_DIR/bin"
