# Helpers for end-to-end tests of the programs. Each check prints what went wrong and exits 1.
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# not exported, whatever the caller had exported under these names: a program's whole output in the
# environment of the next command can exceed the system's limit (E2BIG)
unset OUT ERR
OUT="" ERR="" CHECKS=0

fail() { echo "FAIL: $*" >&2; exit 1; }

# A test that cannot run here says why and exits 77, which CTest counts as skipped (SKIP_RETURN_CODE).
skip() { echo "skipped: $*"; exit 77; }

# Runs a command, keeping its stdout in $OUT and stderr in $ERR.
run() {
  "$@" > "$TMP/.out" 2> "$TMP/.err"
  local rc=$?
  OUT=$(cat "$TMP/.out"); ERR=$(cat "$TMP/.err")
  return $rc
}

expect_ok() {
  run "$@" || fail "'$*' exited $? (stderr: $ERR)"
  CHECKS=$((CHECKS + 1))
}

# expect_fail CODE COMMAND...: exits with CODE.
expect_fail() {
  local code=$1; shift
  run "$@"
  local rc=$?
  [ "$rc" -eq "$code" ] || fail "'$*' exited $rc, expected $code (stderr: $ERR)"
  CHECKS=$((CHECKS + 1))
}

expect_contains() {
  [[ "$1" == *"$2"* ]] || fail "expected to find '$2' in: $1"
  CHECKS=$((CHECKS + 1))
}

# The text is exactly this one line.
expect_line() {
  [ "$1" == "$2" ] || fail "expected exactly: $2
got: $1"
  CHECKS=$((CHECKS + 1))
}

# expect_translations GOT EXPECTED: nmt-translate --scores lines (N ||| text ||| score), the same
# texts with scores within 1e-3: where the order of float sums differs, so do the last digits.
expect_translations() {
  awk -F' [|][|][|] ' 'NR == FNR { text[FNR] = $1 "|" $2; score[FNR] = $3; n = FNR; next }
                       { m = FNR; if ($1 "|" $2 != text[FNR] || (score[FNR] - $3) ^ 2 >= 1e-6) bad = 1 }
                       END { exit bad || m != n }' <(echo "$2") <(echo "$1") ||
    fail "expected these translations (scores within 1e-3): $2
got: $1"
  CHECKS=$((CHECKS + 1))
}

# Whether the programs in $BIN see a CUDA device (their --version names the runtime: "runtime:
# LibTorch 1.13.0, CUDA build no, CUDA devices 0"). A --version that fails, or that names no device
# count, fails the test: it must not read as "no GPU" and skip the CUDA checks.
cuda_available() {
  local version
  version=$("$BIN/nmt-train" --version 2>&1) || fail "'$BIN/nmt-train --version' exited $?: $version"
  [[ $version =~ CUDA\ devices\ ([0-9]+) ]] || fail "'$BIN/nmt-train --version' names no CUDA device count: $version"
  [ "${BASH_REMATCH[1]}" -gt 0 ]
}

# The tests' --cuda mode: skipped (77) where there is no GPU.
require_cuda() { cuda_available || skip "CUDA is not available"; }

# numbers_hold CONDITION NAME=VALUE...: each VALUE is a decimal number (an empty or other text
# fails) and the awk CONDITION on the NAMEs holds, compared as numbers: awk compares an empty
# value as text, so that '"" < "" / 2' would hold.
numbers_hold() {
  local condition=$1 assignment program="BEGIN { "; shift
  local values=()
  for assignment in "$@"; do
    [[ ${assignment#*=} =~ ^[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$ ]] || return 1
    values+=(-v "$assignment")
    program+="${assignment%%=*} += 0; "
  done
  awk "${values[@]}" "$program exit !($condition) }"
}

# metric FILE STEP N: column N of a metrics.csv at STEP.
metric() { awk -F, -v s="$2" -v c="$3" 'NR > 1 && $1 == s { print $c }' "$1"; }

finish() { echo "$(basename "$0"): $CHECKS checks passed"; }
