#!/usr/bin/env bash
# check_nccl.sh: check.sh's nccl-two-ranks step (through check_steps.sh, which
# exports KIT, WORK, MODE, PYTHON, DATA): two cifar-train processes, one GPU
# each, on NCCL (issue 32):
#   clean  a short run: both ranks exit 0, and neither prints NCCL's "process
#          group has NOT been destroyed" warning (the group is shut down) or
#          any watchdog line;
#   fail   rank 1 is killed (SIGKILL) mid-epoch: rank 0 exits 1 within
#          --dist-timeout and a grace, with one error line naming the failure
#          ("distributed ... failed on rank 0 of 2: rank 1 ..."), not the
#          watchdog's abort or "exchanges did not match".
# Needs two GPUs: with fewer it writes why to $WORK/skip-nccl-two-ranks.txt
# and exits 77 (reported as skipped and unverified, not failed). In --cpu
# mode the CPU stands in: the same two checks on gloo.
set -uo pipefail
bin="$KIT/bin"
figures="$WORK/figures-nccl-two-ranks.md"
if [[ "$MODE" == gpu ]]; then
  gpus=$("$PYTHON" -c 'import torch; print(torch.cuda.device_count())' 2>/dev/null || echo 0)
  if ((gpus < 2)); then
    echo "needs 2 GPUs; this machine has $gpus" | tee "$WORK/skip-nccl-two-ranks.txt"
    exit 77
  fi
  device=cuda backend=NCCL
else
  device=cpu backend="gloo (CPU stand-in)"
fi
timeout_s=20
common=(--model net --batch-size 256 --device "$device" --data "$DATA" --no-tensorboard
  --seed 0 --dist-timeout "$timeout_s" --log-interval 0.5 --eval-every 100)
[[ "$device" == cpu ]] && common+=(--threads 1 --train-limit 5120 --test-limit 512)
problems=0
fail() { echo "FAIL: $*"; problems=$((problems + 1)); }
raw_crash='Exception raised from|frame #[0-9]|terminate called|Aborted|Segmentation|did not match'

# start NAME EPOCHS: ranks 0 and 1 in the background; their pids in $pids.
start() {
  local name=$1 epochs=$2 port=$((20000 + RANDOM % 20000)) rank
  pids=()
  for rank in 0 1; do
    env WORLD_SIZE=2 RANK=$rank LOCAL_RANK=$rank LOCAL_WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 \
      MASTER_PORT=$port "$bin/cifar-train" "${common[@]}" --epochs "$epochs" \
      --run-dir "$WORK/nccl-$name" --checkpoint "$WORK/nccl-$name.pt" \
      >"$WORK/nccl-$name.$rank" 2>&1 &
    pids+=($!)
  done
}

# --- clean --------------------------------------------------------------------
start clean 1
wait "${pids[0]}"; s0=$?
wait "${pids[1]}"; s1=$?
tail -n 5 "$WORK/nccl-clean.0" "$WORK/nccl-clean.1"
((s0 == 0 && s1 == 0)) || fail "clean run: the ranks exited $s0 and $s1"
if grep -Ei 'NOT been destroyed|destroy_process_group|watchdog|ProcessGroupNCCL' \
  "$WORK/nccl-clean.0" "$WORK/nccl-clean.1"; then
  fail "clean run: the process group was not shut down cleanly (the lines above)"
fi
grep -Eq "$raw_crash" "$WORK/nccl-clean.0" "$WORK/nccl-clean.1" && fail "clean run: a raw error"
clean=$([[ $problems == 0 ]] && echo passed || echo FAILED)
echo "| two ranks on $backend, 1 epoch: exit 0, no shutdown warning | $clean | |" >>"$figures"

# --- fail ---------------------------------------------------------------------
before=$problems
start fail 50
for _ in $(seq 600); do  # up to 60 s for rank 0 to be training
  grep -q "epoch 1/50" "$WORK/nccl-fail.0" 2>/dev/null && break
  sleep 0.1
done
grep -q "epoch 1/50" "$WORK/nccl-fail.0" || fail "fail run: rank 0 never started training"
kill -KILL "${pids[1]}"
t0=$(date +%s)
limit=$((timeout_s + 30))
while kill -0 "${pids[0]}" 2>/dev/null && (($(date +%s) - t0 < limit)); do sleep 0.2; done
if kill -0 "${pids[0]}" 2>/dev/null; then
  kill -KILL "${pids[0]}"
  fail "fail run: rank 0 still ran $limit s after rank 1 was killed (--dist-timeout $timeout_s)"
fi
wait "${pids[0]}"; s0=$?
took=$(($(date +%s) - t0))
wait "${pids[1]}" 2>/dev/null
tail -n 5 "$WORK/nccl-fail.0"
((s0 == 1)) || fail "fail run: rank 0 exited $s0, expected 1"
grep -q "error: distributed .* failed on rank 0 of 2: rank 1" "$WORK/nccl-fail.0" ||
  fail "fail run: rank 0's error does not name rank 1"
(($(grep -c "error:" "$WORK/nccl-fail.0") == 1)) || fail "fail run: not exactly one error line"
grep -Eq "$raw_crash" "$WORK/nccl-fail.0" && fail "fail run: a raw error or the wrong message"
result=$([[ $problems == "$before" ]] && echo passed || echo FAILED)
echo "| two ranks on $backend, rank 1 killed: rank 0 exit $s0 after $took s, one line | $result | |" \
  >>"$figures"
((problems == 0))
