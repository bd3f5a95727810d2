#!/usr/bin/env bash
# What less arithmetic per piece buys and costs on one trained model: test_2016_flickr translated
# plainly, with --shortlist on, with --int8 and with both, one after another, ROUNDS times (greedy,
# then beam K), each line with its pieces/s (nmt-translate --stats) and cased BLEU. --no-int8 leaves
# int8 out (a LibTorch without a fast int8 engine). With --lists "K:N ...", the model's shortlist is
# remade with each per-source/frequent pair first (nmt-shortlist; the model's own is restored).
#   bench/fast-decoding.sh --model DIR [--data DIR] [--rounds 2] [--beam 5] [--threads 2] [--lists "20:200 10:100"] [--no-int8]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${NMT_BIN:-$ROOT/build/bin}
MODEL="" DATA=$ROOT/data/multi30k ROUNDS=2 BEAM=5 THREADS=2 LISTS="" INT8=yes
while [ $# -gt 0 ]; do
  case $1 in
    --model) MODEL=$2; shift 2 ;;
    --data) DATA=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --beam) BEAM=$2; shift 2 ;;
    --threads) THREADS=$2; shift 2 ;;
    --lists) LISTS=$2; shift 2 ;;
    --no-int8) INT8=no; shift ;;
    *) echo "usage: $0 --model DIR [--data DIR] [--rounds N] [--beam K] [--threads N] [--lists \"K:N ...\"] [--no-int8]" >&2; exit 2 ;;
  esac
done
[ -n "$MODEL" ] || { echo "$0: --model DIR is required" >&2; exit 2; }
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
[ -z "$LISTS" ] || cp "$MODEL/shortlist.bin" "$OUT/own.bin"

measure() {  # measure LABEL nmt-translate options...
  local label=$1; shift
  "$BIN/nmt-translate" --model "$MODEL" --input "$DATA/test_2016_flickr.de" --threads "$THREADS" --stats "$@" \
    > "$OUT/hyp" 2> "$OUT/err"
  local speed bleu
  speed=$(grep -o '[0-9.]* pieces/s' "$OUT/err" | cut -d' ' -f1)
  bleu=$("$BIN/nmt-score" --ref "$DATA/test_2016_flickr.en" --hyp "$OUT/hyp" --metrics bleu | awk '{ print $3 }')
  printf '%-44s %8s pieces/s  BLEU %6s\n' "$label" "$speed" "$bleu"
}

echo "# $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $THREADS threads; $("$BIN/nmt-translate" --model "$MODEL" --verbose < /dev/null 2>&1 | sed -n 2p | sed 's/^nmt-translate: //')"
for list in ${LISTS:-own}; do
  if [ "$list" != own ]; then
    "$BIN/nmt-shortlist" --model "$MODEL" --per-source "${list%%:*}" --frequent "${list##*:}" 2>&1 | sed 's/^nmt-shortlist: /# /'
  fi
  for round in $(seq "$ROUNDS"); do
    for search in greedy "beam $BEAM"; do
      options=()
      [ "$search" == greedy ] || options=(--beam "$BEAM")
      measure "$search (round $round)" "${options[@]}" --shortlist off --int8 off
      measure "$search, shortlist $list (round $round)" "${options[@]}" --shortlist on --int8 off
      if [ "$INT8" == yes ]; then
        measure "$search, int8 (round $round)" "${options[@]}" --shortlist off --int8 on
        measure "$search, shortlist $list + int8 (round $round)" "${options[@]}" --shortlist on --int8 on
      fi
    done
  done
done
[ -z "$LISTS" ] || cp "$OUT/own.bin" "$MODEL/shortlist.bin"
