#!/usr/bin/env bash
# Builds and tests nmt inside a Debian 13 (trixie) root file system, to check the project against the
# next Debian release's packages (LibTorch 2.6, SentencePiece 0.2, OpenBLAS 0.3.29) from a Debian 12 host.
#
#   scripts/check-debian13.sh [--root DIR] [--mirror URL] [--fresh] [--clean-build] [-- CTEST_ARGS...]
#
#   --root DIR     where the root file system lives (default /var/cache/nmt-debian13/rootfs); it is kept
#                  between runs as a cache: made once with debootstrap, its installed packages reused
#   --mirror URL   Debian mirror for debootstrap (default: the one the host's apt sources use)
#   --fresh        throw the cached root file system away and make a new one (its build with it)
#   --clean-build  throw the cached build away and build everything again
#   -- ARGS        passed on to ctest
#
# Needs root. Each run brings the working tree's project files (tracked and untracked-not-ignored; never
# build/) into DIR/src/nmt, mounts /proc, /sys and /dev (with /dev/pts and /dev/shm) inside, copies
# /etc/resolv.conf, and runs the README's two commands there, as .ci/run does natively:
#   scripts/setup.sh && ctest --test-dir build --output-on-failure -j"$(nproc)"
# DIR/src/nmt and its build/ stay between runs as the build's cache: a file whose content is unchanged keeps
# its old time there, so Ninja compiles again only what changed (a full build there takes about 25 minutes
# on 2 cores); files gone from the tree are removed.
# Everything mounted is unmounted on any exit. The exit status is the test command's (or setup's, when
# setup fails).
set -euo pipefail

SUITE=trixie
ROOT=/var/cache/nmt-debian13/rootfs
MIRROR=""
FRESH=0
CLEAN_BUILD=0
CTEST_ARGS=()
REPO=$(cd "$(dirname "$0")/.." && pwd)
MARKER=.nmt-rootfs-complete # written last by make_root: a root without it is half-made and is redone
SRC_IN_ROOT=/src/nmt
ROOT_PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
CHILD="" # process group of the command running inside the root
ROOT_STATE=""

log() { echo "check-debian13: $*"; }
die() { echo "check-debian13: error: $*" >&2; exit 1; }
usage() { sed -n '5,12p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
duration() { printf '%dm%02ds' $(($1 / 60)) $(($1 % 60)); }

parse_args() {
  while [ $# -gt 0 ]; do
    case $1 in
      --root) [ $# -ge 2 ] || usage; ROOT=$2; shift 2 ;;
      --mirror) [ $# -ge 2 ] || usage; MIRROR=$2; shift 2 ;;
      --fresh) FRESH=1; shift ;;
      --clean-build) CLEAN_BUILD=1; shift ;;
      --) shift; CTEST_ARGS=("$@"); break ;;
      -h|--help) usage ;;
      *) echo "check-debian13: unknown argument '$1'" >&2; usage ;;
    esac
  done
  case $ROOT in *[[:space:]]*) die "refusing --root with white space in it: '$ROOT'" ;; esac
  ROOT=$(realpath -m "$ROOT")
  # rm -rf runs on this path: only a directory at least three levels deep, and not in the project
  [ "$(echo "$ROOT" | tr -cd / | wc -c)" -ge 3 ] || die "refusing --root $ROOT (use a directory at least three levels deep)"
  case $ROOT/ in "$REPO"/*) die "refusing --root $ROOT inside the project" ;; esac
}

# The first Debian (non-security) archive URI in the host's apt sources, deb822 or one-line format.
host_mirror() {
  local uri
  uri=$({ grep -hs '^URIs:' /etc/apt/sources.list.d/*.sources | awk '{for (i = 2; i <= NF; i++) print $i}'
          grep -hsE '^deb[[:space:]]' /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
            | sed -E 's/\[[^]]*\]//' | awk '{print $2}'; } | grep -E '/debian/?$' | head -n 1 || true)
  echo "${uri:-http://deb.debian.org/debian}"
}

# Mount points at or below ROOT, deepest first.
mounts_under_root() {
  awk -v r="$ROOT" '$5 == r || index($5, r "/") == 1 {print $5}' /proc/self/mountinfo | sort -r
}

unmount_all() {
  local m
  for m in $(mounts_under_root); do
    umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true
  done
  if [ -n "$(mounts_under_root)" ]; then
    echo "check-debian13: error: still mounted under $ROOT: $(mounts_under_root | tr '\n' ' ')" >&2
    return 1
  fi
}

# Deletes the root file system, but only once nothing is mounted inside it (/dev above all).
remove_root() {
  unmount_all || die "not deleting $ROOT while something is mounted inside it"
  rm -rf --one-file-system "$ROOT"
}

ensure_debootstrap() {
  command -v debootstrap >/dev/null 2>&1 && return
  log "installing debootstrap"
  { DEBIAN_FRONTEND=noninteractive apt-get install -y debootstrap >/dev/null 2>&1 \
    || { apt-get update >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y debootstrap >/dev/null 2>&1; }; } \
    || die "debootstrap is not installed and 'apt-get install debootstrap' failed"
}

# Makes ROOT with debootstrap unless a complete one is there (and --fresh was not given).
make_root() {
  if [ "$FRESH" -eq 0 ] && [ -f "$ROOT/$MARKER" ]; then
    log "reusing root file system $ROOT (made $(cat "$ROOT/$MARKER"))"
    ROOT_STATE=reused
    return
  fi
  if [ -e "$ROOT" ]; then
    log "removing $([ "$FRESH" -eq 1 ] && echo "old" || echo "incomplete") root file system $ROOT"
    remove_root
  fi
  ensure_debootstrap
  [ -n "$MIRROR" ] || MIRROR=$(host_mirror)
  local logfile t0=$SECONDS
  logfile="$(dirname "$ROOT")/debootstrap.log"
  log "debootstrap --variant=minbase $SUITE $ROOT $MIRROR (log: $logfile)"
  mkdir -p "$ROOT"
  if ! run_child debootstrap --variant=minbase "$SUITE" "$ROOT" "$MIRROR" >"$logfile" 2>&1; then
    tail -n 15 "$logfile" >&2
    die "debootstrap of $SUITE from $MIRROR failed (full log: $logfile)"
  fi
  # no services start inside the chroot when packages are installed
  printf '#!/bin/sh\nexit 101\n' >"$ROOT/usr/sbin/policy-rc.d"
  chmod 755 "$ROOT/usr/sbin/policy-rc.d"
  date -u '+%Y-%m-%d %H:%M UTC from '"$MIRROR" >"$ROOT/$MARKER"
  ROOT_STATE=made
  log "root file system made in $(duration $((SECONDS - t0)))"
}

# The project files as they are now (git's view: tracked and untracked-not-ignored, files deleted from the
# working tree left out, build/ never) into DIR/src/nmt, whose build/ is kept: unpacked beside it, then only
# the files whose content differs moved in (with the time of now, so that Ninja sees them as changed), and
# what the tree no longer has (a test's leftovers too) removed.
sync_tree() {
  local dest=$ROOT$SRC_IN_ROOT staged=$ROOT$SRC_IN_ROOT.incoming lists=$ROOT$SRC_IN_ROOT.lists
  rm -rf --one-file-system "$staged" "$lists"
  [ "$CLEAN_BUILD" -eq 0 ] || rm -rf --one-file-system "$dest"
  local kept_build=no
  [ -d "$dest/build" ] && kept_build=yes
  mkdir -p "$dest" "$staged" "$lists"
  git -c safe.directory="$REPO" -C "$REPO" ls-files -co --exclude-standard -z \
    | while IFS= read -r -d '' f; do
        case $f in build/*|build) continue ;; esac
        if [ -e "$REPO/$f" ] || [ -L "$REPO/$f" ]; then printf '%s\0' "$f"; fi
      done \
    | tar -C "$REPO" --null -T - -cf - | tar -C "$staged" --no-same-owner --touch -xf - \
    || die "copying the working tree of $REPO into $staged failed"
  # "sha1  path" lines; a line of the incoming tree not among the present ones is a changed or new file
  (cd "$staged" && find . -type f -printf '%P\0' | xargs -0r sha1sum) >"$lists/incoming"
  (cd "$dest" && find . -path ./build -prune -o -type f -printf '%P\0' | xargs -0r sha1sum) >"$lists/present"
  awk 'FILENAME == ARGV[1] {have[$0] = 1; next} !($0 in have) {print substr($0, 43)}' "$lists/present" "$lists/incoming" \
    >"$lists/changed"
  awk 'FILENAME == ARGV[1] {have[substr($0, 43)] = 1; next} !(substr($0, 43) in have) {print substr($0, 43)}' \
    "$lists/incoming" "$lists/present" >"$lists/removed"
  tar -C "$staged" --verbatim-files-from -T "$lists/changed" -cf - | tar -C "$dest" --no-same-owner --touch -xf - \
    || die "moving the changed files from $staged into $dest failed"
  (cd "$dest" && tr '\n' '\0' <"$lists/removed" | xargs -0r rm -f --)
  log "brought $(wc -l <"$lists/changed") changed files (of $(wc -l <"$lists/incoming")) from $REPO ($(git -c safe.directory="$REPO" -C "$REPO" rev-parse --short HEAD 2>/dev/null || echo '?')$(git -c safe.directory="$REPO" -C "$REPO" diff --quiet HEAD 2>/dev/null || echo ', with uncommitted changes')) to $dest, removed $(wc -l <"$lists/removed"); $([ "$kept_build" = yes ] && echo "its build kept" || echo "building afresh")"
  rm -rf --one-file-system "$staged" "$lists"
}

# proc, sys, and /dev with its submounts (pts, shm); slave propagation so that nothing done to the
# copies (unmounting included) reaches the host's /dev.
mount_all() {
  unmount_all || die "leftover mounts under $ROOT could not be removed"
  mount -t proc proc "$ROOT/proc" || die "cannot mount proc on $ROOT/proc"
  mount --bind /sys "$ROOT/sys" || die "cannot bind-mount /sys on $ROOT/sys"
  mount --rbind /dev "$ROOT/dev" || die "cannot bind-mount /dev on $ROOT/dev"
  mount --make-rslave "$ROOT/dev" || die "cannot make $ROOT/dev a slave mount"
  [ -e "$ROOT/dev/pts/ptmx" ] || die "no devpts at $ROOT/dev/pts (is /dev/pts mounted on the host?)"
  rm -f "$ROOT/etc/resolv.conf"
  cp -L /etc/resolv.conf "$ROOT/etc/resolv.conf" || die "cannot copy /etc/resolv.conf into $ROOT"
}

# Runs a command as a process group of its own (setsid), waited for in the background, so that a
# signal to this script can stop all of it (stop_child) before the file systems are unmounted.
run_child() {
  setsid "$@" &
  CHILD=$!
  wait "$CHILD"
}

# Runs a command in the copied tree inside the root, with a clean environment.
in_root() {
  run_child chroot "$ROOT" /usr/bin/env -i PATH="$ROOT_PATH" HOME=/root LANG=C.UTF-8 TERM="${TERM:-dumb}" \
    DEBIAN_FRONTEND=noninteractive /bin/bash -c 'cd "$0" && exec "$@"' "$SRC_IN_ROOT" "$@"
}

stop_child() {
  [ -n "$CHILD" ] && kill -0 -- "-$CHILD" 2>/dev/null || return 0
  log "stopping the command inside the root"
  kill -TERM -- "-$CHILD" 2>/dev/null || true
  local i
  for i in 1 2 3 4 5 6 7 8 9 10; do
    kill -0 -- "-$CHILD" 2>/dev/null || return 0
    sleep 1
  done
  kill -KILL -- "-$CHILD" 2>/dev/null || true
  sleep 1
}

report_versions() {
  log "packages inside:"
  in_root dpkg-query -W -f='${db:Status-Abbrev} ${Package} ${Version}\n' \
      'libtorch*' 'libopenblas0*' 'libsentencepiece*' g++ cmake 2>/dev/null \
    | awk '$1 == "ii" {printf "  %-28s %s\n", $2, $3}' || true
  log "$(in_root build/bin/nmt-train --version 2>&1 | grep -m1 'runtime:' || echo 'runtime: (nmt-train --version failed)')"
}

cleanup() {
  local rc=$?
  trap - EXIT
  trap "" INT TERM # cleaning up is not to be interrupted
  stop_child
  unmount_all || rc=1
  exit "$rc"
}

main() {
  parse_args "$@"
  [ "$(id -u)" -eq 0 ] || die "must run as root (debootstrap, mount and chroot need it)"
  command -v git >/dev/null || die "git is needed to list the project's files"
  mkdir -p "$(dirname "$ROOT")"
  exec 9>"$ROOT.lock"
  flock -n 9 || die "another check is using $ROOT (lock $ROOT.lock)"

  trap cleanup EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM

  local t0 t rootfs_s setup_s test_s setup_rc=0 test_rc=0
  t0=$SECONDS
  make_root
  rootfs_s=$((SECONDS - t0))
  sync_tree
  mount_all

  t=$SECONDS
  log "running scripts/setup.sh inside Debian $SUITE"
  in_root scripts/setup.sh || setup_rc=$?
  setup_s=$((SECONDS - t))
  if [ "$setup_rc" -ne 0 ]; then
    log "scripts/setup.sh failed (exit $setup_rc) after $(duration "$setup_s")"
    exit "$setup_rc"
  fi
  in_root apt-get clean || true # the cache keeps the installed packages, not their .debs
  report_versions

  t=$SECONDS
  log "running ctest --test-dir build --output-on-failure -j$(nproc) ${CTEST_ARGS[*]}"
  in_root ctest --test-dir build --output-on-failure -j"$(nproc)" "${CTEST_ARGS[@]}" || test_rc=$?
  test_s=$((SECONDS - t))

  log "root file system $(duration "$rootfs_s") ($ROOT_STATE), setup $(duration "$setup_s"), tests $(duration "$test_s"), total $(duration $((SECONDS - t0)))"
  log "cached root file system: $(du -sh --one-file-system --exclude="$ROOT$SRC_IN_ROOT" "$ROOT" 2>/dev/null | cut -f1) in $ROOT (without the tree and its build)"
  log "Debian $SUITE: tests $([ "$test_rc" -eq 0 ] && echo passed || echo "FAILED (ctest exit $test_rc)")"
  exit "$test_rc"
}

main "$@"
