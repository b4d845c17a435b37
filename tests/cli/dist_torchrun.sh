#!/usr/bin/env bash
# dist_torchrun.sh: the driver under the venv's torchrun (its agent serves the
# store; TORCHELASTIC_USE_AGENT_STORE=True): 2 processes on one node, then
# two single-process "nodes" joined by c10d rendezvous on 127.0.0.1.
source "$(dirname "$0")/lib/common.bash"
source "$(dirname "$0")/lib/dist.bash"
TORCHRUN=$VENV_BIN/torchrun
if [[ ! -x $TORCHRUN ]]; then
  echo "SKIPPED: no torchrun at $TORCHRUN (scripts/setup.sh installs the venv)"
  exit 77
fi

port=$(free_port)
out_avg=$("$TORCHRUN" --no-python --nproc-per-node 2 --master-addr 127.0.0.1 --master-port "$port" \
  "$DRIVER" average --model net 2>&1) || { echo "$out_avg" | tail; fail "torchrun average"; }
echo "$out_avg" | grep "\[rank"
[[ $(grep -c "store served by torchrun's agent" <<<"$out_avg") -eq 2 ]] ||
  fail "under torchrun both ranks must be clients of the agent's store"
out=$("$TORCHRUN" --no-python --nproc-per-node 2 --master-addr 127.0.0.1 --master-port "$(free_port)" \
  "$DRIVER" broadcast --model resnet18 2>&1) || { echo "$out" | tail; fail "torchrun broadcast"; }
[[ $(grep -c "broadcast: 0 of [1-9][0-9]* tensors differ" <<<"$out") -eq 2 ]] ||
  { echo "$out" | tail; fail "both ranks must hold rank 0's ResNet-18 under torchrun"; }
[[ $(grep -c "average of 2 ranks" <<<"$out_avg") -eq 2 ]] || fail "both ranks must average under torchrun"
pass "torchrun --nproc-per-node 2: average and broadcast"

# A failing process's one-line error is torchrun's "root cause": cifar-train
# writes it to $TORCHELASTIC_ERROR_FILE as torch's error handler does, so the
# summary's traceback line shows it rather than "To enable traceback see ...".
out=$("$TORCHRUN" --no-python --nproc-per-node 1 --master-addr 127.0.0.1 --master-port "$(free_port)" \
  "$TRAIN" --data "$WORK/no-such-dir" --epochs 1 --run-dir "$WORK/failed-run" 2>&1) &&
  fail "torchrun with a missing data folder exited 0"
cause=$(grep -A8 "Root Cause" <<<"$out" | grep "traceback :")
echo "torchrun's summary: $cause"
grep -q "no-such-dir" <<<"$cause" || { echo "$out" | tail -25; fail "torchrun's root cause must be cifar-train's error"; }
pass "torchrun's failure summary names cifar-train's error"

port=$(free_port)
for node in 0 1; do
  "$TORCHRUN" --no-python --nnodes 2 --nproc-per-node 1 --rdzv-backend c10d \
    --rdzv-endpoint "127.0.0.1:$port" --rdzv-id dist-test "$DRIVER" average --model net \
    >node$node.log 2>&1 &
  pids[node]=$!
done
wait "${pids[0]}"; s0=$?
wait "${pids[1]}"; s1=$?
cat node0.log node1.log | grep -E "average|error" 
[[ $s0 -eq 0 && $s1 -eq 0 ]] || fail "two-node torchrun exited $s0 and $s1"
[[ $(cat node0.log node1.log | grep -c "average of 2 ranks") -eq 2 ]] || fail "two-node average"
pass "two torchrun --nnodes 2 launches (c10d rendezvous on 127.0.0.1)"
