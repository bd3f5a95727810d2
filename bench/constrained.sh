#!/usr/bin/env bash
# Terminology by constrained beam search, measured with oracle terms: for the first N sentences of
# test_2016_flickr, 1 or 2 words of each reference that plain beam search did not write become the
# sentence's glossary terms (an entry whose source term is the whole sentence). Prints BLEU and
# seconds of plain and constrained beam search, and the share of terms the translations hold.
#   bench/constrained.sh --model DIR [--sentences 200] [--beam 5] [--terms 2] [--work DIR]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${NMT_BIN:-$ROOT/build/bin}
DATA=$ROOT/data/multi30k MODEL="" N=200 BEAM=5 TERMS=2 WORK=""
while [ $# -gt 0 ]; do
  case $1 in
    --model) MODEL=$2; shift 2 ;;
    --sentences) N=$2; shift 2 ;;
    --beam) BEAM=$2; shift 2 ;;
    --terms) TERMS=$2; shift 2 ;;
    --work) WORK=$2; shift 2 ;;
    *) echo "usage: $0 --model DIR [--sentences N] [--beam K] [--terms 1|2] [--work DIR]" >&2; exit 2 ;;
  esac
done
[ -n "$MODEL" ] || { echo "$0: --model DIR is required" >&2; exit 2; }
WORK=${WORK:-$(mktemp -d)}
mkdir -p "$WORK"
head -"$N" "$DATA/test_2016_flickr.de" > "$WORK/src"
head -"$N" "$DATA/test_2016_flickr.en" > "$WORK/ref"

seconds() {  # seconds OUTPUT COMMAND...: the command's wall time, its stdout into OUTPUT
  local start end
  start=$(date +%s.%N)
  "${@:2}" > "$1" 2> "$1.err"
  end=$(date +%s.%N)
  awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", b - a }'
}
bleu() { "$BIN/nmt-score" --ref "$WORK/ref" --hyp "$1" --metrics bleu | awk '{ print $3 }'; }

plain_s=$(seconds "$WORK/plain" "$BIN/nmt-translate" --model "$MODEL" --input "$WORK/src" --beam "$BEAM")
# oracle terms: the longest words (4 letters or more) of the reference that the plain translation lacks
paste "$WORK/src" "$WORK/ref" "$WORK/plain" | awk -F'\t' -v terms="$TERMS" '
  { delete have; n = split(tolower($3), hyp, /[^[:alpha:]]+/); for (i = 1; i <= n; i++) have[hyp[i]] = 1
    m = split($2, words, /[^[:alpha:]-]+/); picked = 0; delete used
    for (k = 0; k < terms; k++) {
      best = ""
      for (i = 1; i <= m; i++) { w = words[i]; if (length(w) >= 4 && !(tolower(w) in have) && !(w in used) && length(w) > length(best)) best = w }
      if (best == "") break
      used[best] = 1; print $1 "\t" best; picked++
    }
  }' > "$WORK/glossary.tsv"
terms=$(wc -l < "$WORK/glossary.tsv")
constrained_s=$(seconds "$WORK/constrained" "$BIN/nmt-translate" --model "$MODEL" --input "$WORK/src" --beam "$BEAM" \
  --glossary "$WORK/glossary.tsv")
held=$(paste <(cut -f1 "$WORK/glossary.tsv") <(cut -f2 "$WORK/glossary.tsv") | awk -F'\t' -v out="$WORK/constrained" -v src="$WORK/src" '
  BEGIN { i = 0; while ((getline s < src) > 0) { getline t < out; line[s] = t } }
  { if (index(" " line[$1] " ", $2) > 0) held++ } END { print held + 0 }')
echo "constrained beam search, $N sentences of test_2016_flickr, beam $BEAM, $terms oracle terms (up to $TERMS a sentence, words of the reference plain beam search lacks); model $MODEL"
printf '%-22s BLEU %6s  %7s s\n' "plain beam $BEAM" "$(bleu "$WORK/plain")" "$plain_s"
printf '%-22s BLEU %6s  %7s s  (%.2fx plain)  terms held: %d of %d (%.1f%%)\n' "constrained beam $BEAM" \
  "$(bleu "$WORK/constrained")" "$constrained_s" "$(awk -v a="$constrained_s" -v b="$plain_s" 'BEGIN { print a / b }')" \
  "$held" "$terms" "$(awk -v a="$held" -v b="$terms" 'BEGIN { print b ? 100 * a / b : 100 }')"
grep -c "is not in the translation" "$WORK/constrained.err" | awk '{ print "warnings (length limit first): " $1 }'
