#!/usr/bin/env bash
# Text as people send it, through nmt-translate's defaults, against the same model with text preparation
# off (--split-sentences off --protect-spans off --restore-case off --cut-loops off): a line a figure.
#   bench/real-text.sh MODEL_DIR [--data DIR] [--spans FILE] [--beam K] [-- extra nmt-translate options]
# - paragraphs: test_2016_flickr joined three sentences a line (source and reference alike), against the
#   same sentences translated one a line and joined;
# - capitals: the first 500 test sentences upper-cased, BLEU lowercased, against the same 500 as written;
# - spans: bench/data/real-text/spans.de.tsv (sentence TAB spans ||| ...; written for this, from no test
#   set): spans that come out verbatim, lines with every span;
# - loops: lines of every output above that repeat a word or a run of up to four words three times in a row;
# - the plain test set: BLEU and whole-process seconds, defaults against preparation off.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${NMT_BIN:-$ROOT/build/bin}
[ $# -ge 1 ] || { echo "usage: $0 MODEL_DIR [--data DIR] [--spans FILE] [--beam K] [-- nmt-translate options]" >&2; exit 2; }
MODEL=$1; shift
DATA=$ROOT/data/multi30k SPANS=$ROOT/bench/data/real-text/spans.de.tsv BEAM=1
while [ $# -gt 0 ]; do
  case $1 in
    --data) DATA=$2; shift 2 ;;
    --spans) SPANS=$2; shift 2 ;;
    --beam) BEAM=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "$0: unknown option $1" >&2; exit 2 ;;
  esac
done
[ -f "$DATA/test_2016_flickr.de" ] || "$ROOT/data/get-multi30k.sh" "$DATA"
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
OFF=(--split-sentences off --protect-spans off --restore-case off --cut-loops off)
translate() { "$BIN/nmt-translate" --model "$MODEL" --beam "$BEAM" "$@"; }
bleu() { "$BIN/nmt-score" --ref "$1" --hyp "$2" --metrics bleu "${@:3}" | awk '{ print $3 }'; }
lines() { python3 - "$@"; }

# the inputs
lines "$DATA" "$OUT" "$SPANS" <<'PY'
import sys
data, out, spans = sys.argv[1:4]
de = open(f"{data}/test_2016_flickr.de", encoding="utf-8").read().splitlines()
en = open(f"{data}/test_2016_flickr.en", encoding="utf-8").read().splitlines()
def join3(xs): return [" ".join(xs[i:i + 3]) for i in range(0, len(xs), 3)]
open(f"{out}/para.de", "w", encoding="utf-8").write("\n".join(join3(de)) + "\n")
open(f"{out}/para.en", "w", encoding="utf-8").write("\n".join(join3(en)) + "\n")
open(f"{out}/caps.de", "w", encoding="utf-8").write("\n".join(s.upper() for s in de[:500]) + "\n")
open(f"{out}/first500.de", "w", encoding="utf-8").write("\n".join(de[:500]) + "\n")
open(f"{out}/first500.en", "w", encoding="utf-8").write("\n".join(en[:500]) + "\n")
rows = [l.split("\t") for l in open(spans, encoding="utf-8").read().splitlines() if l.strip()]
open(f"{out}/spans.de", "w", encoding="utf-8").write("\n".join(r[0] for r in rows) + "\n")
PY

seconds() { local start end; start=$(date +%s.%N); "$@"; end=$(date +%s.%N); echo "$end - $start" | bc; }
for mode in defaults off; do
  opts=(); [ "$mode" = off ] && opts=("${OFF[@]}")
  translate "${opts[@]}" "$@" --input "$OUT/para.de" --output "$OUT/para.$mode.en"
  translate "${opts[@]}" "$@" --input "$OUT/caps.de" --output "$OUT/caps.$mode.en"
  translate "${opts[@]}" "$@" --input "$OUT/spans.de" --output "$OUT/spans.$mode.en"
  s=$(seconds translate "${opts[@]}" "$@" --input "$DATA/test_2016_flickr.de" --output "$OUT/test.$mode.en")
  echo "$s" > "$OUT/test.$mode.seconds"
done
translate "${OFF[@]}" "$@" --input "$OUT/first500.de" --output "$OUT/first500.off.en"
# the sentences one a line (as written, preparation off), joined three a line
lines "$OUT" <<'PY'
import sys
out = sys.argv[1]
t = open(f"{out}/test.off.en", encoding="utf-8").read().splitlines()
open(f"{out}/sentences-joined.en", "w", encoding="utf-8").write("\n".join(" ".join(t[i:i + 3]) for i in range(0, len(t), 3)) + "\n")
PY

echo "real-text: $MODEL, beam $BEAM"
printf 'paragraphs (3 sentences a line)   BLEU %6s defaults  %6s preparation off  %6s sentences one a line, joined\n' \
  "$(bleu "$OUT/para.en" "$OUT/para.defaults.en")" "$(bleu "$OUT/para.en" "$OUT/para.off.en")" \
  "$(bleu "$OUT/para.en" "$OUT/sentences-joined.en")"
printf 'capitals (first 500, lowercased)  BLEU %6s defaults  %6s preparation off  %6s as written\n' \
  "$(bleu "$OUT/first500.en" "$OUT/caps.defaults.en" --lowercase)" "$(bleu "$OUT/first500.en" "$OUT/caps.off.en" --lowercase)" \
  "$(bleu "$OUT/first500.en" "$OUT/first500.off.en" --lowercase)"
lines "$OUT" "$SPANS" <<'PY'
import re, sys
out, spans = sys.argv[1:3]
rows = [l.split("\t") for l in open(spans, encoding="utf-8").read().splitlines() if l.strip()]
def loops(line):
    words = line.split()
    for n in range(1, 5):
        for i in range(len(words) - 3 * n + 1):
            if words[i:i + n] == words[i + n:i + 2 * n] == words[i + 2 * n:i + 3 * n]:
                return True
    return re.search(r"(\w)\1{4,}", line) is not None
for mode in ("defaults", "off"):
    hyps = open(f"{out}/spans.{mode}.en", encoding="utf-8").read().splitlines()
    kept = total = whole = 0
    for (sentence, wanted), hyp in zip(rows, hyps):
        ss = wanted.split(" ||| ")
        k = sum(1 for s in ss if s in hyp)
        kept += k; total += len(ss); whole += k == len(ss)
    print(f"spans ({len(rows)} sentences)          {mode:>8}: {kept} of {total} spans verbatim ({100 * kept / total:.1f}%), "
          f"{whole} of {len(rows)} lines whole")
for mode in ("defaults", "off"):
    n = total = 0
    for name in ("para", "caps", "spans", "test"):
        for line in open(f"{out}/{name}.{mode}.en", encoding="utf-8").read().splitlines():
            total += 1; n += loops(line)
    print(f"looping lines                     {mode:>8}: {n} of {total}")
PY
printf 'test_2016_flickr                  BLEU %6s defaults  %6s preparation off; whole process %s s against %s s\n' \
  "$(bleu "$DATA/test_2016_flickr.en" "$OUT/test.defaults.en")" "$(bleu "$DATA/test_2016_flickr.en" "$OUT/test.off.en")" \
  "$(cat "$OUT/test.defaults.seconds")" "$(cat "$OUT/test.off.seconds")"
