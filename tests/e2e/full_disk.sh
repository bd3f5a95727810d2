#!/usr/bin/env bash
# End-to-end test of a file system that fills: on a small tmpfs (mounting one needs root; skipped,
# exit 77, where it cannot be mounted), every program exits 1 with one line naming the file and
# "No space left on device", leaves no half-written file, and keeps what was there.
# Usage: full_disk.sh BIN_DIR
set -u
BIN=$1
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/tiny_corpus.sh"
make_tiny_corpus "$TMP"
cd "$TMP"
mkdir fs
mount -t tmpfs -o size=64k tmpfs fs 2> /dev/null || skip "cannot mount a tmpfs here (needs root): the full-disk cases did not run"
trap 'umount "$TMP/fs" 2> /dev/null; rm -rf "$TMP"' EXIT
# remount FS KIB: an empty file system of that size
remount() { umount fs && mount -t tmpfs -o "size=${1}k" tmpfs fs || fail "cannot remount the tmpfs"; }
no_temporary_files() { [ -z "$(find fs -name '*.tmp*')" ] || fail "temporary files left: $(find fs -name '*.tmp*')"; }
DATA=("${TINY_DATA[@]}")
TRAIN=("$BIN/nmt-train" "${DATA[@]}" "${TINY_MODEL[@]}" --device cpu)
expect_ok "${TRAIN[@]}" --max-steps 30 --valid-every 15 --model-dir run
last_line() { tail -n 1 <<< "$1"; }

# --- translations into a full file system: the old file is kept whole
echo "old translations" > fs/out.txt
head -c 60000 /dev/zero > fs/filler
expect_fail 1 "$BIN/nmt-translate" --model run --input valid.src --output fs/out.txt
expect_line "$ERR" "nmt-translate: error: cannot write fs/out.txt: No space left on device"
expect_line "$(cat fs/out.txt)" "old translations"
no_temporary_files
expect_fail 1 "$BIN/nmt-attention" --model run --input valid.src --output-dir fs/attn --svg
expect_contains "$(last_line "$ERR")" ": No space left on device"
no_temporary_files

# --- a checkpoint that does not fit: one line, no last.pt.tmp, the previous last.pt untouched
remount $(( $(du -sk run | cut -f1) + $(stat -c %s run/last.pt) / 2048 ))
cp -a run fs/run
cp run/last.pt last.before
expect_fail 1 "$BIN/nmt-train" --model-dir fs/run --resume --max-steps 60 --device cpu
expect_line "$(last_line "$ERR")" "nmt-train: error: cannot write fs/run/last.pt: No space left on device"
cmp -s fs/run/last.pt last.before || fail "the previous last.pt changed"
no_temporary_files
expect_ok "$BIN/nmt-translate" --model fs/run --input valid.src --weights last.pt

# --- a prepared corpus that does not fit: one line, nothing under its name, the run resumes once there is room
size=$(stat -c %s run/data/train.bin)
rm -rf fs/run
kept=(run/source.model run/target.model run/last.pt run/config.ini)
remount $(( $(du -ck "${kept[@]}" | tail -1 | cut -f1) + size / 2048 + 8 ))
mkdir fs/run
cp -a "${kept[@]}" fs/run/
expect_fail 1 "$BIN/nmt-train" "${DATA[@]}" --model-dir fs/run --resume --max-steps 31 --device cpu
expect_line "$(last_line "$ERR")" "nmt-train: error: cannot write fs/run/data/train.bin: No space left on device"
[ ! -e fs/run/data/train.bin ] || fail "a partial fs/run/data/train.bin was left"
no_temporary_files

# --- BPE models that do not fit: one line, nothing under the final names
remount 100
expect_fail 1 "$BIN/nmt-bpe" train --input train.src --model-prefix fs/bpe --vocab-size 60
expect_line "$ERR" "nmt-bpe: error: cannot write fs/bpe.model: No space left on device"
[ -z "$(ls fs)" ] || fail "files left after a failed BPE training: $(ls fs)"
remount 300
expect_fail 1 "${TRAIN[@]}" --max-steps 4 --model-dir fs/m
expect_line "$(last_line "$ERR")" "nmt-train: error: cannot write fs/m/target.model: No space left on device"
[ ! -e fs/m/target.model ] || fail "a partial fs/m/target.model was left"
no_temporary_files
finish
