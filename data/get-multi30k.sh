#!/usr/bin/env bash
# Gets Multi30k task 1 (de, en, fr: train, val, test_2016_flickr) into DEST.
#   data/get-multi30k.sh DEST            download from the public multi30k/dataset repository
#   data/get-multi30k.sh DEST FOLDER     copy from a local folder that already holds the files
set -euo pipefail

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
  echo "usage: $0 DEST [LOCAL_FOLDER]" >&2
  exit 2
fi
DEST=$1
SOURCE=${2:-}
BASE_URL=${MULTI30K_URL:-https://raw.githubusercontent.com/multi30k/dataset/master/data/task1/raw}
SPLITS=(train val test_2016_flickr)
LANGS=(de en fr)

mkdir -p "$DEST"
for split in "${SPLITS[@]}"; do
  for lang in "${LANGS[@]}"; do
    name=$split.$lang
    if [ -n "$SOURCE" ]; then
      if [ -f "$SOURCE/$name" ]; then
        cp "$SOURCE/$name" "$DEST/$name"
      elif [ -f "$SOURCE/$name.gz" ]; then
        gunzip -c "$SOURCE/$name.gz" > "$DEST/$name"
      else
        echo "$0: $SOURCE has neither $name nor $name.gz" >&2
        exit 1
      fi
    else
      command -v curl >/dev/null || { echo "$0: curl is needed to download; or give a local folder" >&2; exit 1; }
      curl -fsSL "$BASE_URL/$name.gz" | gunzip -c > "$DEST/$name.tmp" \
        || { echo "$0: download of $BASE_URL/$name.gz failed" >&2; rm -f "$DEST/$name.tmp"; exit 1; }
      mv "$DEST/$name.tmp" "$DEST/$name"
    fi
  done
done

# The three languages of a split must be line-aligned.
for split in "${SPLITS[@]}"; do
  counts=$(for lang in "${LANGS[@]}"; do wc -l < "$DEST/$split.$lang"; done | sort -u | wc -l)
  [ "$counts" -eq 1 ] || { echo "$0: $split files in $DEST have different line counts" >&2; exit 1; }
done
echo "Multi30k in $DEST: $(wc -l < "$DEST/train.de") train, $(wc -l < "$DEST/val.de") val, $(wc -l < "$DEST/test_2016_flickr.de") test pairs"
