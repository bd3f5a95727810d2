#!/usr/bin/env bash
# scripts/gpu-check.sh and scripts/download-debs.sh: options, the early errors, and unpacking a
# folder of .deb files (a fake package built here) with its pkg-config and CMake prefixes fixed.
# Needs no GPU, no network and no build. Usage: gpu_check.sh SCRIPTS_DIR
set -u
SCRIPTS=$1
source "$(dirname "$0")/lib.sh"
CHECK=$SCRIPTS/gpu-check.sh

expect_ok bash "$CHECK" --help
expect_contains "$OUT" "usage: scripts/gpu-check.sh"
expect_contains "$OUT" "--debs DIR"
expect_contains "$OUT" "--device D"
expect_fail 2 bash "$CHECK" --bogus
expect_line "$ERR" "gpu-check: unknown option '--bogus'; see --help"
expect_fail 2 bash "$CHECK" --torch
expect_line "$ERR" "gpu-check: --torch needs a value; see --help"
expect_fail 2 bash "$CHECK" --device tpu
expect_line "$ERR" "gpu-check: --device must be cuda, cuda:N or cpu, not 'tpu'; see --help"
expect_fail 2 bash "$CHECK" --minutes 0
expect_line "$ERR" "gpu-check: --minutes must be a number above 0, not '0'; see --help"
expect_fail 2 bash "$CHECK" --jobs x
expect_line "$ERR" "gpu-check: --jobs must be a whole number above 0, not 'x'; see --help"
expect_fail 2 bash "$CHECK" --unpack-only
expect_line "$ERR" "gpu-check: --unpack-only needs --debs DIR; see --help"

# Everything the checks before the build look at, faked: Multi30k files, a LibTorch folder.
mkdir -p "$TMP/data" "$TMP/libtorch/share/cmake/Torch" "$TMP/empty" "$TMP/bin"
for f in train val test_2016_flickr; do touch "$TMP/data/$f.de" "$TMP/data/$f.en"; done
touch "$TMP/libtorch/share/cmake/Torch/TorchConfig.cmake"
ARGS=(--data "$TMP/data" --build-dir "$TMP/build" --device cpu)

expect_fail 1 bash "$CHECK" "${ARGS[@]}" --data "$TMP/nodata"
expect_line "$ERR" "gpu-check: no Multi30k in $TMP/nodata (missing train.de); pass --data DIR"
expect_fail 1 bash "$CHECK" "${ARGS[@]}" --torch /nonexistent
expect_line "$ERR" "gpu-check: no LibTorch in /nonexistent (no TorchConfig.cmake there, in Torch/ or in share/cmake/Torch/)"
expect_fail 1 bash "$CHECK" "${ARGS[@]}" --torch "$TMP/libtorch" --debs "$TMP/nodebs"
expect_line "$ERR" "gpu-check: --debs $TMP/nodebs: no such folder"
expect_fail 1 bash "$CHECK" "${ARGS[@]}" --torch "$TMP/libtorch" --debs "$TMP/empty"
expect_line "$ERR" "gpu-check: --debs $TMP/empty holds no .deb files (fill it with scripts/download-debs.sh $TMP/empty)"

# A GPU asked for where nvidia-smi sees none (a stand-in nvidia-smi, first on PATH)
printf '#!/bin/sh\necho "No devices were found"\nexit 6\n' > "$TMP/bin/nvidia-smi"
chmod +x "$TMP/bin/nvidia-smi"
expect_fail 1 env PATH="$TMP/bin:$PATH" bash "$CHECK" "${ARGS[@]}" --torch "$TMP/libtorch" --device cuda:1
expect_line "$ERR" "gpu-check: nvidia-smi sees no GPU 1: No devices were found"
[ ! -e "$TMP/build/gpu-check" ] || fail "an early error left a build behind"

# A fake -dev package: a pkg-config file and a CMake export that name /usr, a header, a library.
PKG=$TMP/pkg
mkdir -p "$PKG/DEBIAN" "$PKG/usr/include" "$PKG/usr/lib/x86_64-linux-gnu/pkgconfig" "$PKG/usr/lib/cmake/fake"
printf 'Package: fake-dev\nVersion: 1.0\nArchitecture: all\nMaintainer: nmt <nmt@example.org>\nDescription: fake\n' \
  > "$PKG/DEBIAN/control"
printf 'prefix=/usr\nexec_prefix=/usr\nlibdir=${exec_prefix}/lib/x86_64-linux-gnu\nincludedir=${prefix}/include\n\nName: fake\nDescription: fake\nVersion: 1.0\nLibs: -L${libdir} -lfake\nCflags: -I${includedir}\n' \
  > "$PKG/usr/lib/x86_64-linux-gnu/pkgconfig/fake.pc"
printf 'set(_IMPORT_PREFIX "/usr")\nset(FAKE_INCLUDE "${_IMPORT_PREFIX}/include")\n' > "$PKG/usr/lib/cmake/fake/fakeTargets.cmake"
echo '#define FAKE 1' > "$PKG/usr/include/fake.h"
touch "$PKG/usr/lib/x86_64-linux-gnu/libfake.so.1"
mkdir -p "$TMP/debs"
expect_ok dpkg-deb --root-owner-group --build "$PKG" "$TMP/debs/fake-dev_1.0_all.deb"

ROOT_DIR=$TMP/build/debs-root
LIB=$ROOT_DIR/usr/lib/x86_64-linux-gnu
for round in first again; do  # unpacking again starts afresh: no prefix rewritten twice
  expect_ok bash "$CHECK" --unpack-only --debs "$TMP/debs" --build-dir "$TMP/build"
  expect_line "$OUT" "gpu-check: unpacked 1 packages from $TMP/debs into $ROOT_DIR
export PKG_CONFIG_PATH=$LIB/pkgconfig:$ROOT_DIR/usr/share/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
export CMAKE_PREFIX_PATH=$ROOT_DIR/usr${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}
export LD_LIBRARY_PATH=$LIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  [ -f "$ROOT_DIR/usr/include/fake.h" ] && [ -f "$LIB/libfake.so.1" ] || fail "$round: files not unpacked"
  expect_line "$(head -n 4 "$LIB/pkgconfig/fake.pc")" "prefix=$ROOT_DIR/usr
exec_prefix=$ROOT_DIR/usr
libdir=\${exec_prefix}/lib/x86_64-linux-gnu
includedir=\${prefix}/include"
  expect_line "$(head -n 1 "$ROOT_DIR/usr/lib/cmake/fake/fakeTargets.cmake")" "set(_IMPORT_PREFIX \"$ROOT_DIR/usr\")"
done
if command -v pkg-config > /dev/null; then
  expect_ok env PKG_CONFIG_PATH="$LIB/pkgconfig" pkg-config --cflags --libs fake
  expect_line "$(sed 's/ *$//' <<< "$OUT")" "-I$ROOT_DIR/usr/include -L$LIB -lfake"
fi

DOWNLOAD=$SCRIPTS/download-debs.sh
expect_fail 2 bash "$DOWNLOAD"
expect_line "$ERR" "usage: $DOWNLOAD DIR   (fetches the Debian 12 packages scripts/gpu-check.sh --debs DIR needs)"
expect_fail 2 bash "$DOWNLOAD" "$TMP/a" "$TMP/b"
expect_fail 2 bash "$DOWNLOAD" --bogus
expect_line "$ERR" "download-debs: unknown option '--bogus'; usage: $DOWNLOAD DIR"
expect_ok bash "$DOWNLOAD" --help
expect_contains "$OUT" "usage: "
finish
