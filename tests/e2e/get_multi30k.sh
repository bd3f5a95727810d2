#!/usr/bin/env bash
# data/get-multi30k.sh copying from a local folder (plain and gzipped files), and its errors.
set -u
SCRIPT=$1
source "$(dirname "$0")/lib.sh"

mkdir -p "$TMP/src"
for split in train val test_2016_flickr; do
  printf 'a\nb\nc\n' > "$TMP/src/$split.de"
  printf 'x\ny\nz\n' | gzip -c > "$TMP/src/$split.en.gz"
  printf 'u\nv\nw\n' > "$TMP/src/$split.fr"
done
expect_ok bash "$SCRIPT" "$TMP/dest" "$TMP/src"
expect_line "$OUT" "Multi30k in $TMP/dest: 3 train, 3 val, 3 test pairs"
[ "$(cat "$TMP/dest/val.en")" == "$(printf 'x\ny\nz')" ] || fail "gzipped file not unpacked"

printf 'x\ny\n' > "$TMP/src/val.fr"
expect_fail 1 bash "$SCRIPT" "$TMP/dest2" "$TMP/src"
expect_line "$ERR" "$SCRIPT: val files in $TMP/dest2 have different line counts"
rm "$TMP/src/train.de"
expect_fail 1 bash "$SCRIPT" "$TMP/dest3" "$TMP/src"
expect_line "$ERR" "$SCRIPT: $TMP/src has neither train.de nor train.de.gz"
expect_fail 2 bash "$SCRIPT"
finish
