#!/usr/bin/env bash
# End-to-end test of nmt-train started by PyTorch's own launcher, torchrun (2 workers on loopback):
# with torchrun's rendezvous (--standalone) and with its static one, where the agent runs the store
# the workers meet at (TORCHELASTIC_USE_AGENT_STORE=True). Either must train what one process
# trains. Skipped where torchrun (Debian's python3-torch) is not installed, or cannot start its own
# store (Debian 13's): exit 77.
# Usage: nmt_train_torchrun.sh BIN_DIR [WITH_GLOO (1, or 0 for a build without Gloo: skipped, exit 77)]
set -u
BIN=$1
source "$(dirname "$0")/lib.sh"
[ "${2:-1}" != 0 ] || skip "this build has no Gloo (libgloo-dev), the transport for the CPU"
source "$(dirname "$0")/tiny_corpus.sh"
TORCHRUN=$(command -v torchrun) || skip "torchrun not found (Debian's python3-torch has it)"
make_tiny_corpus "$TMP"
cd "$TMP"
MODEL=("${TINY_MODEL[@]}")
for i in "${!MODEL[@]}"; do [ "${MODEL[$i]}" != --dropout ] || MODEL[i + 1]=0; done  # N workers == 1 process
TRAIN=("$BIN/nmt-train" --train-src train.src --train-tgt train.tgt --valid-src valid.src --valid-tgt valid.tgt
       "${MODEL[@]}" --max-length 40 --device cpu --threads 1 --valid-every 10 --log-every 5 --dist-timeout 20
       --max-steps 30)
losses() { awk -F, 'NR > 1 { printf "%s %.4f %s\n", $1, $3, ($4 == "" ? "-" : sprintf("%.4f", $4)) }' "$1/metrics.csv"; }
port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
# Options in torchrun 1.13's spelling (2.x takes it too). Its "--redirects 0" default fails under
# Python 3.11 (Debian 12) before a worker starts; redirecting stderr to files and teeing it works.
LAUNCH=("$TORCHRUN" --nproc_per_node 2 --redirects 2 --tee 2 --no_python)
# torchrun 2.4+ asks for c10d's libuv store by default; USE_LIBUV=0 turns that off where torchrun reads it
export USE_LIBUV=0
NO_LIBUV="PyTorch was build without libuv support"

expect_ok "${TRAIN[@]}" --model-dir one

# the static rendezvous: the agent runs the store the workers meet at (TORCHELASTIC_USE_AGENT_STORE=True)
if ! run "${LAUNCH[@]}" --log_dir logs-static --nnodes 1 --node_rank 0 --master_addr 127.0.0.1 \
    --master_port "$(port)" "${TRAIN[@]}" --model-dir static; then
  # Debian 13's torchrun 2.6: its PyTorch has no libuv, yet torchrun's own stores ask for it whatever
  # USE_LIBUV says, so it starts no worker at all
  [[ $ERR == *"$NO_LIBUV"* ]] && skip "torchrun cannot start its rendezvous store here ($NO_LIBUV)"
  fail "torchrun with --master_addr exited non-zero (stderr: $ERR)"
fi
CHECKS=$((CHECKS + 1))
expect_line "$(losses static)" "$(losses one)"
# rank 0 alone speaks; rank 1's stderr (torchrun keeps it in a file) is empty
rank1=$(find logs-static -path '*/1/stderr.log')
[ -n "$rank1" ] || fail "no stderr file of rank 1 under logs-static: $(find logs-static)"
[ ! -s "$rank1" ] || fail "rank 1 should say nothing: $(cat "$rank1")"
for f in best.pt last.pt source.model target.model config.ini; do [ -s "static/$f" ] || fail "static/$f missing"; done

# torchrun's own rendezvous
expect_ok "${LAUNCH[@]}" --log_dir logs-standalone --standalone "${TRAIN[@]}" --model-dir standalone
expect_contains "$OUT$ERR" "each shared by 2 workers (c10d gloo)"
expect_line "$(losses standalone)" "$(losses one)"
expect_line "$(cut -d, -f10 standalone/metrics.csv | sort -u | tr '\n' ' ')" "2 workers "
finish
