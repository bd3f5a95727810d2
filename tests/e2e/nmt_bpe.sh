#!/usr/bin/env bash
# End-to-end test of nmt-bpe as a user runs it. Usage: nmt_bpe.sh BIN_DIR
set -u
BIN=$1
source "$(dirname "$0")/lib.sh"

python_free_corpus() {  # a few hundred lines with umlauts, accents, quotes and digits
  local words=(Ein Mann fährt über die Straße mit Fahrrad Café naïve élève „Guten Tag“ '"Hallo"' 1999 42 3.5 Hund dog street the)
  local i k n line
  for ((i = 0; i < 300; i++)); do
    n=$((3 + i % 9)); line=""
    for ((k = 0; k < n; k++)); do line+="${words[$(((i * 7 + k * 13) % ${#words[@]}))]} "; done
    echo "${line% }"
  done
}
python_free_corpus > "$TMP/train.txt"

# --help and --version
expect_ok "$BIN/nmt-bpe" --help
expect_contains "$OUT" "Commands:"
expect_ok "$BIN/nmt-bpe" train --help
expect_contains "$OUT" "Training options"
expect_contains "$OUT" "--vocab-size arg (=8000)"
expect_ok "$BIN/nmt-bpe" --version
expect_contains "$OUT" "nmt-bpe (nmt) "

# train, then encode and decode round trip
expect_ok "$BIN/nmt-bpe" train --input "$TMP/train.txt" --model-prefix "$TMP/m" --vocab-size 80
[ -s "$TMP/m.model" ] && [ -s "$TMP/m.vocab" ] || fail "model files not written"
printf 'Ein Mann fährt über die Straße.\n\n„Guten Tag“ 1999\n' > "$TMP/in.txt"
"$BIN/nmt-bpe" encode --model "$TMP/m.model" < "$TMP/in.txt" > "$TMP/pieces.txt" || fail "encode failed"
[ "$(wc -l < "$TMP/pieces.txt")" -eq 3 ] || fail "encode must give one line per input line"
grep -q '▁' "$TMP/pieces.txt" || fail "pieces should carry the word-boundary mark"
"$BIN/nmt-bpe" decode --model "$TMP/m.model" < "$TMP/pieces.txt" > "$TMP/back.txt" || fail "decode failed"
cmp -s "$TMP/in.txt" "$TMP/back.txt" || fail "pieces round trip changed the text: $(cat "$TMP/back.txt")"
"$BIN/nmt-bpe" encode --model "$TMP/m.model" --ids < "$TMP/in.txt" > "$TMP/ids.txt" || fail "encode --ids failed"
grep -qE '^[0-9]+( [0-9]+)*$' <(head -1 "$TMP/ids.txt") || fail "ids line malformed: $(head -1 "$TMP/ids.txt")"
"$BIN/nmt-bpe" decode --model "$TMP/m.model" --ids < "$TMP/ids.txt" > "$TMP/back2.txt" || fail "decode --ids failed"
cmp -s "$TMP/in.txt" "$TMP/back2.txt" || fail "ids round trip changed the text"

# bad options and input: one line on stderr, non-zero exit
expect_fail 2 "$BIN/nmt-bpe"
expect_line "$ERR" "nmt-bpe: missing command: train, encode or decode (see nmt-bpe --help)"
expect_fail 2 "$BIN/nmt-bpe" tokenize
expect_line "$ERR" "nmt-bpe: unknown command 'tokenize': expected train, encode or decode (see nmt-bpe --help)"
expect_fail 2 "$BIN/nmt-bpe" train --input "$TMP/train.txt" --model-prefix "$TMP/x" --vocab-size lots
expect_line "$ERR" "nmt-bpe: the argument ('lots') for option '--vocab-size' is invalid (see nmt-bpe --help)"
expect_fail 2 "$BIN/nmt-bpe" encode
expect_line "$ERR" "nmt-bpe: the option '--model' is required but missing (see nmt-bpe --help)"
expect_fail 2 "$BIN/nmt-bpe" encode --model "$TMP/m.model" --bogus
expect_line "$ERR" "nmt-bpe: unrecognised option '--bogus' (see nmt-bpe --help)"
expect_fail 1 "$BIN/nmt-bpe" encode --model "$TMP/none.model" < /dev/null
expect_line "$ERR" "nmt-bpe: error: cannot open BPE model $TMP/none.model"
printf 'gut\nschlecht \xfc\n' > "$TMP/bad.txt"
expect_fail 1 "$BIN/nmt-bpe" encode --model "$TMP/m.model" < "$TMP/bad.txt"
expect_line "$ERR" "nmt-bpe: error: <stdin>:2: invalid UTF-8 at byte 10"
expect_fail 1 "$BIN/nmt-bpe" decode --model "$TMP/m.model" --ids <<< "5 99999"
expect_line "$ERR" "nmt-bpe: error: <stdin>:1: '99999' is not a piece id of $TMP/m.model (0..79)"
expect_fail 1 "$BIN/nmt-bpe" train --input "$TMP/missing.txt" --model-prefix "$TMP/y"
expect_line "$ERR" "nmt-bpe: error: cannot open BPE training input $TMP/missing.txt"

finish
