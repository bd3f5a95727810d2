#!/usr/bin/env bash
# Writes what every way of decoding gives for one model, a file per way, so that a change to decode/
# can be shown to change nothing: run it with the programs before and after, then `diff -r` the two
# folders (docs/testing.md, "Decoding unchanged across a change").
#
#   scripts/decoding-outputs.sh --bin DIR --model DIR --input FILE --out DIR [--lines N] [--threads "1 2"]
#
#   --bin DIR       the programs' folder (build/bin, or a copy of it made before the change)
#   --model DIR     a model directory (with shortlist.bin for the shortlist's ways)
#   --input FILE    source sentences; the first --lines of them are decoded (default 200)
#   --out DIR       made afresh; one file per way, named after it
#   --threads LIST  thread counts to run each way at (default "1 2": one batch, then batches in parallel)
#
# Ways: greedy with scores; beam 5 with a 3-best list; each with the shortlist and int8 on and off;
# prefixes (greedy and beam); a glossary (beam); sampling with a seed (top-k and top-p; beam); no repeated
# 3-grams; word alignments; alternatives; forced decoding of the greedy output (nmt-attention
# --reference: its CSV files). Each file ends with the program's exit status. With nmt-serve in DIR, its JSON
# answers too: one request of each kind (greedy, attention, beam n-best, prefixes, glossary, sampling,
# no repeats, alignment, alternatives), then all of them at once, sharing batches as they happen to form
# (there only the pieces: the numbers are the same to float rounding).
set -euo pipefail

BIN="" MODEL="" INPUT="" OUT="" LINES=200 THREADS="1 2"
usage() { sed -n '6,12p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
  case $1 in
    --bin) BIN=$2; shift 2 ;;
    --model) MODEL=$2; shift 2 ;;
    --input) INPUT=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --lines) LINES=$2; shift 2 ;;
    --threads) THREADS=$2; shift 2 ;;
    *) usage ;;
  esac
done
[ -n "$BIN" ] && [ -n "$MODEL" ] && [ -n "$INPUT" ] && [ -n "$OUT" ] || usage
[ -x "$BIN/nmt-translate" ] || { echo "decoding-outputs: no nmt-translate in $BIN" >&2; exit 1; }

rm -rf "$OUT"
mkdir -p "$OUT/inputs"
head -n "$LINES" "$INPUT" > "$OUT/inputs/source.txt"
# every third line gets a prefix: its first two words of the greedy translation, and an unrelated one
"$BIN/nmt-translate" --model "$MODEL" --input "$OUT/inputs/source.txt" --threads 1 > "$OUT/inputs/greedy.txt"
awk 'NR % 3 == 1 {print $1 " " $2; next} NR % 3 == 2 {print "A"; next} {print ""}' "$OUT/inputs/greedy.txt" \
  > "$OUT/inputs/prefixes.txt"
printf 'Mann\tgentleman\nHund\tpuppy\nStraße\troad\n' > "$OUT/inputs/glossary.tsv"

# way NAME PROGRAM-ARGS...: nmt-translate's output at each thread count, then its exit status
way() {
  local name=$1; shift
  for t in $THREADS; do
    local file="$OUT/$name.threads$t.txt"
    local rc=0
    "$BIN/nmt-translate" --model "$MODEL" --input "$OUT/inputs/source.txt" --threads "$t" "$@" > "$file" 2>&1 || rc=$?
    echo "exit $rc" >> "$file"
  done
}

for list in on off; do
  for int8 in on off; do
    ways=(--shortlist "$list" --int8 "$int8")
    way "greedy.shortlist-$list.int8-$int8" "${ways[@]}" --scores
    way "beam5-nbest3.shortlist-$list.int8-$int8" "${ways[@]}" --beam 5 --nbest 3
  done
done
way greedy.prefixes --prefixes "$OUT/inputs/prefixes.txt" --scores
way beam4.prefixes --beam 4 --prefixes "$OUT/inputs/prefixes.txt" --scores
way beam5.glossary --beam 5 --glossary "$OUT/inputs/glossary.tsv"
way sampling-topk10.seed7 --sampling-topk 10 --seed 7 --scores
way sampling-topp0.9.seed3 --sampling-topk 0 --sampling-topp 0.9 --sampling-temperature 0.8 --seed 3 --scores
way beam4.sampling-topk0.seed5 --beam 4 --nbest 2 --sampling-topk 0 --seed 5 --scores
way greedy.no-repeat3 --no-repeat-ngram 3 --scores
way beam3.no-repeat2 --beam 3 --no-repeat-ngram 2
way greedy.alignment --alignment
way beam4.alignment-replace --beam 4 --alignment --alignment-threshold 0.2 --replace-unknowns
way greedy.max-ratio0.5 --max-ratio 0.5 --scores
way alternatives3 --alternatives 3 --prefixes "$OUT/inputs/prefixes.txt"

if [ -x "$BIN/nmt-attention" ]; then
  head -n 20 "$OUT/inputs/source.txt" > "$OUT/inputs/source20.txt"
  head -n 20 "$OUT/inputs/greedy.txt" > "$OUT/inputs/greedy20.txt"
  attention=$(realpath "$BIN/nmt-attention")
  model=$(realpath "$MODEL")
  # inside OUT, so that what it prints names the same folders whatever OUT is
  for kind in forced attention; do
    reference=()
    [ "$kind" = forced ] && reference=(--reference inputs/greedy20.txt)
    rc=0
    (cd "$OUT" && "$attention" --model "$model" --input inputs/source20.txt "${reference[@]}" --output-dir "$kind" \
       --threads 1 > "$kind.log" 2>&1) || rc=$?
    echo "exit $rc" >> "$OUT/$kind.log"
  done
fi
if [ -x "$BIN/nmt-serve" ]; then
  # nmt-serve's answers to one request of each kind (the first 40 sentences; alternatives for one), each
  # JSON answer without its timing; then the same requests all at once, so that they share batches
  head -n 40 "$OUT/inputs/source.txt" > "$OUT/inputs/source40.txt"
  head -n 40 "$OUT/inputs/prefixes.txt" > "$OUT/inputs/prefixes40.txt"
  python3 - "$BIN/nmt-serve" "$MODEL" "$OUT" <<'PY' > "$OUT/serve.log" 2>&1 || echo "exit $?" >> "$OUT/serve.log"
import concurrent.futures, http.client, json, re, subprocess, sys, tempfile, time
serve, model, out = sys.argv[1:4]
text = open(f"{out}/inputs/source40.txt", encoding="utf-8").read().splitlines()
prefix = open(f"{out}/inputs/prefixes40.txt", encoding="utf-8").read().splitlines()
requests = {
    "greedy": {},
    "greedy.attention": {"attention": True},
    "beam5-nbest3": {"beam": 5, "nbest": 3},
    "greedy.prefix": {"prefix": prefix},
    "beam4.prefix": {"beam": 4, "prefix": prefix},
    "beam5.glossary": {"beam": 5, "glossary": {"Mann": "gentleman", "Hund": "puppy"}},
    "sampling-topk10.seed7": {"sampling_topk": 10, "seed": 7},
    "greedy.no-repeat3": {"no_repeat_ngram": 3},
    "beam4.alignment": {"beam": 4, "alignment": True, "replace_unknowns": True},
    "alternatives3": {"alternatives": 3, "text": text[:1], "prefix": prefix[:1]},
}
with tempfile.TemporaryFile("w+") as log:
    server = subprocess.Popen([serve, "--model", model, "--port", "0", "--device", "cpu", "--threads", "1"],
                              stdout=subprocess.DEVNULL, stderr=log)
    try:
        port = None
        for _ in range(600):
            log.seek(0)
            found = re.search(r"on http://127\.0\.0\.1:(\d+)/", log.read())
            if found:
                port = int(found.group(1))
                break
            time.sleep(0.1)
        if port is None:
            sys.exit("nmt-serve did not start")
        def without(data, keys):  # the answer less these fields, wherever they are
            if isinstance(data, dict):
                return {k: without(v, keys) for k, v in data.items() if k not in keys}
            if isinstance(data, list):
                return [without(v, keys) for v in data]
            return data
        def ask(body, leave=("elapsed_ms",)):
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=300)
            connection.request("POST", "/v1/translate", json.dumps({"text": text, **body}))
            answer = connection.getresponse()
            data = without(json.loads(answer.read()), leave)
            return f"{answer.status} {json.dumps(data, ensure_ascii=False, sort_keys=True)}\n"
        for name, body in requests.items():
            open(f"{out}/serve.{name}.json", "w", encoding="utf-8").write(ask(body))
        # sharing batches as they happen to form, a sentence gets the same pieces, its numbers to float
        # rounding: only the pieces are compared
        with concurrent.futures.ThreadPoolExecutor(len(requests)) as pool:
            together = list(pool.map(lambda body: ask(body, ("elapsed_ms", "attention", "score")),
                                     requests.values()))
        open(f"{out}/serve.together.json", "w", encoding="utf-8").write("".join(together))
    finally:
        server.terminate()
        server.wait()
print("served")
PY
fi
echo "decoding-outputs: $(find "$OUT" -type f | wc -l) files in $OUT"
