#!/usr/bin/env bash
# End-to-end test of nmt-score. Usage: nmt_score.sh BIN_DIR
set -u
BIN=$1
source "$(dirname "$0")/lib.sh"

printf 'The dog bit the man.\nIt was not unexpected.\nThe man bit him first.\n' > "$TMP/ref1"
printf 'The dog had bit the man.\nNo one was surprised.\nThe man had bitten the dog.\n' > "$TMP/ref2"
printf "The dog bit the man.\nIt wasn't surprising.\nThe man had just bitten him.\n" > "$TMP/hyp"

expect_ok "$BIN/nmt-score" --ref "$TMP/ref1" "$TMP/ref2" --hyp "$TMP/hyp"
expect_contains "$OUT" "BLEU = 48.53 "
expect_ok "$BIN/nmt-score" --ref "$TMP/ref1" --hyp "$TMP/ref1"
expect_line "$OUT" "BLEU = 100.00 100.0/100.0/100.0/100.0 (BP = 1.000 ratio = 1.000 hyp_len = 17 ref_len = 17)
chrF2 = 100.00"
expect_ok "$BIN/nmt-score" --ref "$TMP/ref1" --metrics chrf < "$TMP/ref1"
expect_line "$OUT" "chrF2 = 100.00"
expect_ok "$BIN/nmt-score" --ref "$TMP/ref1" --hyp "$TMP/hyp" --json
expect_contains "$OUT" '"name": "BLEU", "score": '
expect_contains "$OUT" '"name": "chrF2", "score": '
# JSON parses (python3 is optional on a user's machine, present here)
if command -v python3 > /dev/null; then
  echo "$OUT" | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d[0]["name"]=="BLEU" and len(d[0]["precisions"])==4' \
    || fail "--json output is not valid JSON: $OUT"
fi
tr 'a-z' 'A-Z' < "$TMP/ref1" > "$TMP/upper"
expect_ok "$BIN/nmt-score" --ref "$TMP/ref1" --hyp "$TMP/upper" --lowercase --metrics bleu
expect_contains "$OUT" "BLEU = 100.00"
printf '\n\n\n' > "$TMP/empty"
expect_ok "$BIN/nmt-score" --ref "$TMP/ref1" --hyp "$TMP/empty"
expect_contains "$OUT" "BLEU = 0.00 0.0/0.0/0.0/0.0 (BP = 0.000 ratio = 0.000 hyp_len = 0 ref_len = 17)"

printf 'a\nb\n' > "$TMP/two"
expect_fail 1 "$BIN/nmt-score" --ref "$TMP/ref1" --hyp "$TMP/two"
expect_line "$ERR" "nmt-score: error: $TMP/two has 2 lines but $TMP/ref1 has 3; hypotheses and references must be line-aligned"
expect_fail 1 "$BIN/nmt-score" --ref "$TMP/missing" --hyp "$TMP/hyp"
expect_line "$ERR" "nmt-score: error: cannot open $TMP/missing: No such file or directory"
printf 'ok\nbad \xc3\x28\nok\n' > "$TMP/bad"
expect_fail 1 "$BIN/nmt-score" --ref "$TMP/ref1" --hyp "$TMP/bad"
expect_line "$ERR" "nmt-score: error: $TMP/bad:2: invalid UTF-8 at byte 5"
expect_fail 2 "$BIN/nmt-score" --ref "$TMP/ref1" --metrics bleu,ter
expect_line "$ERR" "nmt-score: the argument ('bleu,ter') for option '--metrics' is invalid: expected bleu, chrf or both (see nmt-score --help)"
expect_fail 2 "$BIN/nmt-score" --hyp "$TMP/hyp"
expect_line "$ERR" "nmt-score: the option '--ref' is required but missing (see nmt-score --help)"
expect_ok "$BIN/nmt-score" --help
expect_contains "$OUT" "--lowercase"
finish
