#!/usr/bin/env bash
# End-to-end test of where output goes: only a regular file (or a new path) is written under a
# temporary name and renamed; a link's file is replaced and the link stays; a device, a FIFO and
# /proc/self/fd/N are written in place. nmt-translate's --output, nmt-attention's --output-dir and
# nmt-bpe's --model-prefix. Usage: output_paths.sh BIN_DIR [--devices]
# --devices: character devices made with mknod in a temporary folder (never the system's own /dev
# nodes: a broken build must not damage the machine); needs root, skipped (77) without it.
set -u
BIN=$1
MODE=${2:-}
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/tiny_corpus.sh"
make_tiny_corpus "$TMP"
cd "$TMP"

if [ "$MODE" == --devices ]; then
  # /dev/null is character device 1:3, /dev/full 1:7 (writes fail with ENOSPC)
  mknod null c 1 3 2> /dev/null && mknod full c 1 7 || skip "mknod needs root: the character-device cases did not run"
fi

"$BIN/nmt-train" "${TINY_DATA[@]}" "${TINY_MODEL[@]}" --max-length 40 --max-steps 60 --valid-every 60 --model-dir run \
  > /dev/null 2>&1 || fail "training the test model failed"
T=("$BIN/nmt-translate" --model run --input valid.src)
expect_ok "${T[@]}" --output plain.txt
[ "$(wc -l < plain.txt)" -eq 40 ] || fail "40 lines in, $(wc -l < plain.txt) out"
no_temporary_files() { [ -z "$(find . -name '*.tmp')" ] || fail "temporary files left: $(find . -name '*.tmp')"; }

if [ "$MODE" == --devices ]; then
  expect_ok "${T[@]}" --output null
  [ -c null ] || fail "null is no longer a character device: $(ls -l null)"
  expect_fail 1 "${T[@]}" --output full
  expect_line "$ERR" "nmt-translate: error: cannot write full: No space left on device"
  [ -c full ] || fail "full is no longer a character device: $(ls -l full)"
  expect_ok "$BIN/nmt-attention" --model run --input valid.src --output-dir att --svg
  ln -sf "$TMP/null" att/000001.csv  # an attention file that is a device
  expect_ok "$BIN/nmt-attention" --model run --input valid.src --output-dir att --svg
  [ -L att/000001.csv ] && [ -c null ] || fail "the device under att/000001.csv was replaced"
  no_temporary_files
  echo "PASS: output to character devices ($CHECKS checks)"
  exit 0
fi

# a FIFO with a reader: the reader gets every line, and it stays a FIFO
mkfifo fifo
timeout 60 cat fifo > from-fifo.txt &  # a FIFO replaced by a file would leave it waiting
reader=$!
expect_ok "${T[@]}" --output fifo
wait $reader || fail "the FIFO's reader failed"
cmp -s from-fifo.txt plain.txt || fail "the FIFO's reader got other lines: $(diff from-fifo.txt plain.txt | head)"
[ -p fifo ] || fail "fifo is no longer a FIFO: $(ls -l fifo)"

# a symbolic link: the file it points to gets the lines, and it stays a link (relative, in another
# folder; and a link to a file not there yet)
mkdir elsewhere links
echo "old" > elsewhere/target.txt
chmod 600 elsewhere/target.txt
ln -s ../elsewhere/target.txt links/out.txt
expect_ok "${T[@]}" --output links/out.txt
[ -L links/out.txt ] || fail "links/out.txt is no longer a link: $(ls -l links/out.txt)"
cmp -s elsewhere/target.txt plain.txt || fail "the link's target did not get the translations"
[ "$(stat -c %a elsewhere/target.txt)" == 600 ] || fail "the replaced file lost its permissions: $(stat -c %a elsewhere/target.txt)"
ln -s elsewhere/new.txt dangling.txt
expect_ok "${T[@]}" --output dangling.txt
[ -L dangling.txt ] && cmp -s elsewhere/new.txt plain.txt || fail "a link to a new file: the file was not written through it"

# /proc/self/fd/1 and /dev/stdout: standard output gets the lines, through a pipe or into a file,
# appended where the shell appends
expect_ok "${T[@]}" --output /proc/self/fd/1
[ "$OUT" == "$(cat plain.txt)" ] || fail "--output /proc/self/fd/1: standard output did not get the translations"
"${T[@]}" --output /dev/stdout | cat > piped.txt || fail "--output /dev/stdout into a pipe failed"
cmp -s piped.txt plain.txt || fail "--output /dev/stdout through a pipe: other lines"
echo "first line" > appended.txt
"${T[@]}" --output /proc/self/fd/1 >> appended.txt || fail "--output /proc/self/fd/1 appended to a file failed"
cmp -s appended.txt <(echo "first line"; cat plain.txt) || fail "--output /proc/self/fd/1 >> FILE did not append"
# a descriptor that is not open (closed here whatever the caller left open; a high number, which no file the
# program itself opens takes: those get the lowest free one)
expect_fail 1 "${T[@]}" --output /proc/self/fd/987 987>&-
expect_line "$ERR" "nmt-translate: error: cannot write /proc/self/fd/987: Bad file descriptor"
expect_fail 1 "${T[@]}" --output elsewhere
expect_line "$ERR" "nmt-translate: error: cannot write elsewhere: Is a directory"

# nmt-attention: an output folder holding a link (the link's file gets the matrix) or being one
expect_ok "$BIN/nmt-attention" --model run --input valid.src --output-dir att --svg
mkdir att-linked
echo "old" > kept.csv
ln -s ../kept.csv att-linked/000001.csv
expect_ok "$BIN/nmt-attention" --model run --input valid.src --output-dir att-linked --svg
[ -L att-linked/000001.csv ] || fail "att-linked/000001.csv is no longer a link"
cmp -s kept.csv att/000001.csv || fail "the link's file did not get the attention matrix"
ln -s att-linked att-dir-link
expect_ok "$BIN/nmt-attention" --model run --input valid.src --output-dir att-dir-link
[ -L att-dir-link ] && [ -L att-linked/000001.csv ] || fail "--output-dir through a link replaced a link"

# nmt-bpe: the model prefix's files through links (and the prefix's folder through a link)
mkdir bpe-real
ln -s ../bpe-real/m.model links/m.model
ln -s ../bpe-real/m.vocab links/m.vocab
expect_ok "$BIN/nmt-bpe" train --input train.src --model-prefix links/m --vocab-size 40
[ -L links/m.model ] && [ -L links/m.vocab ] || fail "nmt-bpe replaced the links to its model files"
[ -s bpe-real/m.model ] && [ -s bpe-real/m.vocab ] || fail "nmt-bpe did not write through the links"
run "$BIN/nmt-bpe" encode --model links/m.model < valid.src || fail "encoding with the model written through a link failed: $ERR"
[ "$(wc -l <<< "$OUT")" -eq 40 ] || fail "the BPE model written through a link does not encode"
ln -s bpe-real bpe-dir-link
expect_ok "$BIN/nmt-bpe" train --input train.src --model-prefix bpe-dir-link/n --vocab-size 40
[ -L bpe-dir-link ] && [ -s bpe-real/n.model ] || fail "nmt-bpe through a linked folder"

no_temporary_files
echo "PASS: output paths ($CHECKS checks)"
