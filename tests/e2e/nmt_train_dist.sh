#!/usr/bin/env bash
# End-to-end test of nmt-train over several processes (c10d Gloo on loopback), on the tiny task.
# Usage: nmt_train_dist.sh BIN_DIR [WITH_GLOO (1, or 0 for a build without Gloo: skipped, exit 77)]
set -u
BIN=$1
source "$(dirname "$0")/lib.sh"
[ "${2:-1}" != 0 ] || skip "this build has no Gloo (libgloo-dev), the transport for the CPU"
source "$(dirname "$0")/tiny_corpus.sh"
make_tiny_corpus "$TMP"
cd "$TMP"
# no dropout: every worker's rows see the same network, so N workers must equal one process
MODEL=("${TINY_MODEL[@]}")
for i in "${!MODEL[@]}"; do [ "${MODEL[$i]}" != --dropout ] || MODEL[i + 1]=0; done
TRAIN=("$BIN/nmt-train" --train-src train.src --train-tgt train.tgt --valid-src valid.src --valid-tgt valid.tgt
       "${MODEL[@]}" --max-length 40 --device cpu --threads 1)
RUN=("${TRAIN[@]}" --valid-every 10 --log-every 5 --dist-timeout 20)  # short runs
LONG=("${TRAIN[@]}" --max-steps 100000 --valid-every 100000)  # runs that are stopped

# metrics.csv's rows as "step loss valid_loss", losses to 4 decimals (the stated tolerance)
losses() { awk -F, 'NR > 1 { printf "%s %.4f %s\n", $1, $3, ($4 == "" ? "-" : sprintf("%.4f", $4)) }' "$1/metrics.csv"; }
port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# --- 2 workers give what 1 process gives on the same global batches
expect_ok "${RUN[@]}" --max-steps 30 --model-dir one
validations=$(grep -c 'validation:' <<< "$ERR")
expect_ok "${RUN[@]}" --max-steps 30 --model-dir two --processes 2
expect_contains "$ERR" "starting 2 workers on this machine"
expect_contains "$ERR" "each shared by 2 workers (c10d gloo)"
expect_contains "$ERR" "tokens/s (2 workers)"  # the log line off a terminal: global tokens/s
[ "$(grep -c 'validation:' <<< "$ERR")" -eq "$validations" ] || fail "rank 0 alone should report: $ERR"
expect_line "$(losses two)" "$(losses one)"
expect_line "$(cut -d, -f10 two/metrics.csv | sort -u | tr '\n' ' ')" "2 workers "  # every row, and the header
expect_contains "$(cat two/config.ini)" "; 2 workers"
for f in best.pt last.pt source.model target.model config.ini; do [ -s "two/$f" ] || fail "two/$f missing"; done
T=("$BIN/nmt-translate" --input valid.src --scores --device cpu --int8 off)  # float32: scores within 1e-3
expect_ok "${T[@]}" --model one; single=$OUT
expect_ok "${T[@]}" --model two
expect_translations "$OUT" "$single"  # the gradients' sums in another order

# --- resume across worker counts: 2 workers then 1 process, 1 process then 2 workers
expect_ok "${RUN[@]}" --max-steps 20 --model-dir a --processes 2
expect_ok "${RUN[@]}" --max-steps 30 --model-dir a --resume
expect_line "$(losses a)" "$(losses one)"
expect_ok "${RUN[@]}" --max-steps 20 --model-dir b
expect_ok "${RUN[@]}" --max-steps 30 --model-dir b --resume --processes 2
expect_line "$(losses b)" "$(losses one)"

# --- the torchrun way: two processes started by hand with the environment variables
P=$(port)
MASTER_ADDR=127.0.0.1 MASTER_PORT=$P WORLD_SIZE=2 RANK=1 LOCAL_RANK=1 "${RUN[@]}" --max-steps 30 --model-dir env \
  > r1.out 2> r1.err &
r1=$!
expect_ok env MASTER_ADDR=127.0.0.1 MASTER_PORT=$P WORLD_SIZE=2 RANK=0 "${RUN[@]}" --max-steps 30 --model-dir env
wait $r1 || fail "rank 1 failed: $(cat r1.err)"
[ ! -s r1.err ] || fail "rank 1 should say nothing: $(cat r1.err)"
expect_line "$(losses env)" "$(losses one)"

# --- SIGTERM to --processes: every worker stops at one step, rank 0 saves, and the run resumes
"${LONG[@]}" --model-dir stop --processes 2 > stop.out 2> stop.err &
launcher=$!
for _ in $(seq 300); do grep -q "training:" stop.err && break; sleep 0.1; done
sleep 1
kill -TERM $launcher
wait $launcher; code=$?
[ "$code" -eq 143 ] || fail "--processes after SIGTERM exited $code: $(cat stop.err)"
expect_contains "$(cat stop.err)" "stopped by SIGTERM at step"
[ -s stop/last.pt ] || fail "no checkpoint after SIGTERM"
stopped=$(grep -o 'stopped by SIGTERM at step [0-9]*' stop.err | grep -o '[0-9]*$')
expect_ok "${TRAIN[@]}" --max-steps $((stopped + 2)) --model-dir stop --resume --processes 2
expect_contains "$ERR" "resuming at step $stopped"

# --- a worker killed with kill -9: the other stops with an error within --dist-timeout
P=$(port)
W=(env MASTER_ADDR=127.0.0.1 MASTER_PORT=$P WORLD_SIZE=2)
"${W[@]}" RANK=1 "${LONG[@]}" --dist-timeout 5 --model-dir killed \
  > k1.out 2> k1.err &
victim=$!
"${W[@]}" RANK=0 "${LONG[@]}" --dist-timeout 5 --model-dir killed \
  > k0.out 2> k0.err &
survivor=$!
for _ in $(seq 300); do grep -q "training:" k0.err && break; sleep 0.1; done
sleep 1
start=$(date +%s)
kill -9 $victim
wait $victim 2> /dev/null
wait $survivor; code=$?
took=$(( $(date +%s) - start ))
[ "$code" -eq 1 ] || fail "the surviving worker exited $code: $(cat k0.err)"
[ "$took" -le 20 ] || fail "the surviving worker took $took s to notice"
expect_contains "$(tail -1 k0.err)" "nmt-train: error: rank 0: "
expect_contains "$(tail -1 k0.err)" "(rank 1 stopped, hung or is unreachable)"

# --- bad settings: one line each
expect_fail 1 env WORLD_SIZE=2 RANK=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=29999 "${TRAIN[@]}" --max-steps 1 --model-dir bad
expect_line "$ERR" "nmt-train: error: RANK 2 is not below WORLD_SIZE 2"
expect_fail 1 env WORLD_SIZE=2 RANK=1 MASTER_PORT=29999 "${TRAIN[@]}" --max-steps 1 --model-dir bad
expect_line "$ERR" "nmt-train: error: MASTER_ADDR is not set (a distributed run needs MASTER_ADDR, MASTER_PORT, RANK and WORLD_SIZE)"
expect_fail 1 env WORLD_SIZE=2 RANK=1 MASTER_ADDR=10.255.255.1 MASTER_PORT=29999 "${TRAIN[@]}" --max-steps 1 \
  --model-dir bad --dist-timeout 2
# (LibTorch 1.13's TCPStore connects later, 2.x at once: either message names the address)
grep -Eq "^nmt-train: error: rank 1: (cannot meet the other workers|the 2 workers did not all join) at 10.255.255.1:29999" \
  <<< "$ERR" || fail "unreachable MASTER_ADDR: $ERR"
[ "$(wc -l <<< "$ERR")" -eq 1 ] || fail "expected one line: $ERR"
python3 -c 'import socket, time; s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(); print(s.getsockname()[1], flush=True); time.sleep(60)' > busy.port &
holder=$!
for _ in $(seq 50); do [ -s busy.port ] && break; sleep 0.1; done
expect_fail 1 env WORLD_SIZE=2 RANK=0 MASTER_ADDR=127.0.0.1 MASTER_PORT="$(cat busy.port)" "${TRAIN[@]}" --max-steps 1 \
  --model-dir bad --dist-timeout 2
kill $holder
expect_contains "$ERR" "nmt-train: error: rank 0: cannot meet the other workers at 127.0.0.1:$(cat busy.port)"
expect_fail 2 "${TRAIN[@]}" --max-steps 1 --model-dir bad --processes 0
expect_line "$ERR" "nmt-train: --processes must be at least 1 (see nmt-train --help)"
finish
