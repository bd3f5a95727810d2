#!/usr/bin/env bash
# Fills DIR with the Debian 12 (bookworm) packages that `scripts/gpu-check.sh --debs DIR` builds
# with when a machine has no packages of its own for them: SentencePiece, Boost.Program_options,
# fmt, doctest and libedit (headers, libraries, pkg-config and CMake files). Run it on a Debian 12 machine
# with network (`apt-get download` needs no root), then copy DIR to the GPU machine.
#   scripts/download-debs.sh DIR
set -euo pipefail

# Worked out with `apt-cache depends` on bookworm: each -dev package with the runtime library it
# depends on. libsentencepiece0 carries its own protobuf-lite, so no protobuf package is needed.
PACKAGES=(
  libsentencepiece-dev libsentencepiece0
  libboost-program-options-dev libboost-program-options1.74-dev libboost-program-options1.74.0
  libboost1.74-dev
  libfmt-dev libfmt9
  doctest-dev
  libedit-dev libedit2  # nmt-translate's prompt; libedit2's own libbsd0 and libtinfo6 are on every system
)

# What the build reads, as `dpkg-deb -c` lists it (symlinks as "NAME -> TARGET").
NEEDED=(
  /pkgconfig/sentencepiece.pc
  "/libsentencepiece.so -> " /libsentencepiece.so.0
  "/libsentencepiece_train.so -> " /libsentencepiece_train.so.0
  /include/boost/program_options.hpp
  /cmake/Boost-1.74.0/BoostConfig.cmake
  /cmake/boost_headers-1.74.0/boost_headers-config.cmake
  /cmake/boost_program_options-1.74.0/boost_program_options-config.cmake
  "/libboost_program_options.so -> " /libboost_program_options.so.1.74.0
  /cmake/fmt/fmt-config.cmake
  "/libfmt.so -> " /libfmt.so.9
  /include/doctest/doctest.h
  /cmake/doctest/doctestConfig.cmake
  /pkgconfig/libedit.pc
  "/libedit.so -> " /libedit.so.2
  /include/editline/readline.h
)

die() { echo "download-debs: $*" >&2; exit 1; }
usage() { echo "usage: $0 DIR   (fetches the Debian 12 packages scripts/gpu-check.sh --debs DIR needs)"; }

check_debian12() {
  local codename=""
  # shellcheck disable=SC1091
  if [ -r /etc/os-release ]; then codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}"); fi
  [ "$codename" = bookworm ] \
    || die "the package list is Debian 12 (bookworm)'s; this machine is '${codename:-unknown}'"
  command -v apt-get > /dev/null || die "apt-get not found"
}

download() {  # download DIR: apt-get download of every package into DIR
  local log
  if ! log=$(cd "$1" && apt-get download "${PACKAGES[@]}" 2>&1); then
    die "apt-get download failed: $(grep -m1 '^E:' <<< "$log" || tail -n1 <<< "$log") (try apt-get update)"
  fi
}

deb_of() {  # deb_of DIR PACKAGE: the path of PACKAGE's .deb in DIR (the last version), or nothing
  local f found=""
  for f in "$1/${2}_"*.deb; do [ -f "$f" ] && found=$f; done
  echo "$found"
}

check_contents() {  # check_contents DIR: the packages hold every file in NEEDED
  local listing="" p deb
  for p in "${PACKAGES[@]}"; do
    deb=$(deb_of "$1" "$p")
    [ -n "$deb" ] || die "$p was not downloaded into $1"
    listing+=$(dpkg-deb -c "$deb")$'\n'
  done
  for p in "${NEEDED[@]}"; do
    grep -qF -- "$p" <<< "$listing" || die "no package holds '$p'; the package list needs updating"
  done
}

case ${1:-} in
  -h|--help) usage; exit 0 ;;
  "") usage >&2; exit 2 ;;
  -*) echo "download-debs: unknown option '$1'; usage: $0 DIR" >&2; exit 2 ;;
esac
[ $# -eq 1 ] || { usage >&2; exit 2; }
DIR=$1

check_debian12
mkdir -p "$DIR" || die "cannot create $DIR"
download "$DIR"
check_contents "$DIR"
echo "download-debs: fetched into $DIR:"
for p in "${PACKAGES[@]}"; do
  deb=$(deb_of "$DIR" "$p")
  printf '  %-60s %6d KiB\n' "$(basename "$deb")" $(( $(stat -c %s "$deb") / 1024 ))
done
echo "download-debs: next, on the GPU machine: scripts/gpu-check.sh --debs $DIR"
