#!/usr/bin/env bash
# A teacher distilled into a student (nmt-distill), and one table of both on test_2016_flickr: cased BLEU,
# greedy and beam K, with the defaults (the shortlist and int8 where the model has them), and speed with the
# defaults at 1 and 2 threads: in process (the test set twice over less once, best of --rounds, as
# bench/vs-ct2.sh --in-process counts) and as whole processes, in source words a second.
# A last line gives the ratio at one thread in process by nmt-bench-translate (median of --rounds, alternated),
# steadier than the difference of whole-process times.
#   bench/distill.sh --teacher DIR [--student DIR] [--minutes 60] [--rounds 3] [--beam 5] [--data DIR]
#                    [--ct2 on|off] [-- nmt-distill options]
# --teacher DIR   the teacher's model directory (the 60-minute full-Transformer preset's run, for the issue's row)
# --student DIR   the student's (default runs/distill-student-MINUTESmin); distilled and trained there unless it
#                 holds best.pt already (then only measured)
# --minutes M     the student's training budget (--max-time; default 60)
# --ct2 on|off   last, CTranslate2 on the student (bench/vs-ct2.sh --in-process in STUDENT-vs-ct2/, rounds as
#                 --rounds, 1 and 2 threads), its greedy in-process rows for CTranslate2 int8 and nmt's defaults;
#                 default on where `bench/vs-ct2.sh --check` finds what it needs (the peer ../shared/peers/ct2,
#                 its converter's python3-torch, ...), else a line says why it was left out. About five minutes more.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${NMT_BIN:-$ROOT/build/bin}
TEACHER="" STUDENT="" MINUTES=60 ROUNDS=3 BEAM=5 DATA=$ROOT/data/multi30k CT2=auto
while [ $# -gt 0 ]; do
  case $1 in
    --teacher) TEACHER=$2; shift 2 ;;
    --student) STUDENT=$2; shift 2 ;;
    --minutes) MINUTES=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --beam) BEAM=$2; shift 2 ;;
    --data) DATA=$2; shift 2 ;;
    --ct2) CT2=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "usage: $0 --teacher DIR [--student DIR] [--minutes M] [--rounds N] [--beam K] [--data DIR] [--ct2 on|off] [-- nmt-distill options]" >&2; exit 2 ;;
  esac
done
[ -n "$TEACHER" ] || { echo "$0: --teacher DIR is required" >&2; exit 2; }
case $CT2 in on | off | auto) ;; *) echo "$0: --ct2 is on or off, not '$CT2'" >&2; exit 2 ;; esac
STUDENT=${STUDENT:-$ROOT/runs/distill-student-${MINUTES}min}
[ -f "$DATA/test_2016_flickr.de" ] || "$ROOT/data/get-multi30k.sh" "$DATA"
SRC=$DATA/test_2016_flickr.de REF=$DATA/test_2016_flickr.en
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cat "$SRC" "$SRC" > "$WORK/twice.de"
WORDS=$(wc -w < "$SRC")

if [ ! -f "$STUDENT/best.pt" ]; then
  echo "distill.sh: distilling $TEACHER into $STUDENT ($MINUTES minutes of training) ..." >&2
  "$BIN/nmt-distill" --teacher "$TEACHER" --model-dir "$STUDENT" --max-time "$MINUTES" "$@" 2> "$STUDENT.log"
fi

bleu() { "$BIN/nmt-score" --ref "$REF" --hyp "$1" --metrics bleu | awk '{ print $3 }'; }
seconds() { local s e; s=$(date +%s.%N); "$@" > /dev/null; e=$(date +%s.%N); echo "$e - $s" | bc; }
min() { printf '%s\n' "$@" | sort -g | head -1; }

declare -A ONCE TWICE
for t in 1 2; do
  for round in $(seq "$ROUNDS"); do  # rounds alternate the two models, so that a slower minute hurts both
    for who in teacher student; do
      dir=$TEACHER; [ $who = student ] && dir=$STUDENT
      ONCE[$who$t]+=" $(seconds "$BIN/nmt-translate" --model "$dir" --input "$SRC" --threads "$t")"
      TWICE[$who$t]+=" $(seconds "$BIN/nmt-translate" --model "$dir" --input "$WORK/twice.de" --threads "$t")"
    done
  done
done

printf '| model | BLEU greedy | BLEU beam %s | threads | in process s | words/s in process | whole process s | words/s whole |\n' "$BEAM"
printf '| --- | --- | --- | --- | --- | --- | --- | --- |\n'
declare -A IN
for who in teacher student; do
  dir=$TEACHER; [ $who = student ] && dir=$STUDENT
  "$BIN/nmt-translate" --model "$dir" --input "$SRC" --output "$WORK/$who.greedy"
  "$BIN/nmt-translate" --model "$dir" --input "$SRC" --output "$WORK/$who.beam" --beam "$BEAM"
  g=$(bleu "$WORK/$who.greedy") b=$(bleu "$WORK/$who.beam")
  for t in 1 2; do
    once=$(min ${ONCE[$who$t]}) twice=$(min ${TWICE[$who$t]})
    IN[$who$t]=$(echo "$twice - $once" | bc -l)
    printf '| %s (%s) | %s | %s | %s | %.3f | %.0f | %.3f | %.0f |\n' "$who" "$dir" "$g" "$b" "$t" "${IN[$who$t]}" \
      "$(echo "$WORDS / ${IN[$who$t]}" | bc -l)" "$once" "$(echo "$WORDS / $once" | bc -l)"
  done
done
for t in 1 2; do
  printf 'the student against the teacher at %s thread(s): %.2fx in process\n' "$t" "$(echo "${IN[teacher$t]} / ${IN[student$t]}" | bc -l)"
done
# The same ratio at one thread without process start-up in it: nmt-bench-translate's greedy time with the
# defaults (the test set in one process), alternated, the median of --rounds each. (At two threads it runs one
# batch at a time on both, not nmt-translate's batches side by side: not the defaults, so not shown.)
greedy() { "$BIN/nmt-bench-translate" --model "$1" --input "$SRC" --threads 1 --latency 1 2>&1 | awk '/greedy \(batch/ { print $4 }'; }
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
BT=() BS=()
for round in $(seq "$ROUNDS"); do
  BT+=("$(greedy "$TEACHER")")
  BS+=("$(greedy "$STUDENT")")
done
mt=$(median "${BT[@]}") ms=$(median "${BS[@]}")
printf 'nmt-bench-translate at 1 thread, median of %s: teacher %s s, student %s s: %.2fx\n' "$ROUNDS" "$mt" "$ms" \
  "$(echo "$mt / $ms" | bc -l)"

# CTranslate2's int8 on the student, timed by bench/vs-ct2.sh the same way (in process: twice over less once).
if [ "$CT2" = auto ]; then  # on where bench/vs-ct2.sh finds what it needs
  if why=$("$ROOT/bench/vs-ct2.sh" --model "$STUDENT" --check 2>&1); then CT2=on
  else CT2=off; echo "CTranslate2: left out (${why#vs-ct2: })"; fi
fi
if [ "$CT2" = on ]; then
  "$ROOT/bench/vs-ct2.sh" --model "$STUDENT" --work "$STUDENT-vs-ct2" --rounds "$ROUNDS" --threads "1 2" --in-process \
    > "$STUDENT-vs-ct2.log" 2>&1 || { echo "CTranslate2: bench/vs-ct2.sh failed: $STUDENT-vs-ct2.log" >&2; exit 1; }
  echo "CTranslate2 on the student, greedy, in process (bench/vs-ct2.sh; its whole report: $STUDENT-vs-ct2/summary.txt):"
  awk '/^\| threads \| decoding \| system \| whole process/ { table = 1 }
       table && (/^\| (threads|---)/ || /\| greedy \| (CTranslate2 int8( inter)?|nmt defaults) \| /)' "$STUDENT-vs-ct2/summary.txt"
fi
