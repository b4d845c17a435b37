#!/usr/bin/env bash
# dist_train_signals.sh: cifar-train in two processes when something stops it.
#  - SIGINT to torchrun (--nproc-per-node 2) in epoch 2: the agent passes it
#    on, both ranks stop at the same step and exit 130, one checkpoint is
#    written; resuming it with one process (another world size) says so and
#    finishes the run.
#  - SIGKILL to rank 1 (plain variables) in epoch 2: rank 0 exits non-zero
#    within 10 s naming rank 1; the epoch-1 checkpoint loads, and a two-"node"
#    torchrun launch (c10d rendezvous on 127.0.0.1) resumes and finishes it.
source "$(dirname "$0")/lib/common.bash"
source "$(dirname "$0")/lib/dist.bash"
TORCHRUN=$VENV_BIN/torchrun
[[ -x $TORCHRUN ]] || { echo "SKIPPED: no torchrun at $TORCHRUN (scripts/setup.sh installs it)"; exit 77; }
make_fake_data data
common=(--data data --device cpu --threads 1 --model net --batch-size 32 --lr 0.02
        --train-limit 16384 --epochs 2 --seed 5 --schedule constant --log-interval 0.2)

# wait_for PATTERN FILE: up to 120 s for the line to show up.
wait_for() {
  for _ in $(seq 1 1200); do grep -q "$1" "$2" && return 0; sleep 0.1; done
  cat "$2"; fail "'$1' never showed up in $2"
}

# --- SIGINT to the launcher --------------------------------------------------
# torchrun itself exits 1 (Python's SignalException); to see each rank's own
# status, every rank runs under a wrapper that passes the agent's signal on to
# cifar-train and records how it exited.
cat >rank.sh <<'SH'
#!/usr/bin/env bash
"$@" &
child=$!
trap 'kill -INT $child' INT TERM
wait $child
status=$?
while kill -0 $child 2>/dev/null; do wait $child; status=$?; done
echo "rank $RANK exited $status" >>statuses
exit $status
SH
chmod +x rank.sh
"$TORCHRUN" --no-python --nproc-per-node 2 --master-addr 127.0.0.1 --master-port "$(free_port)" \
  ./rank.sh "$TRAIN" "${common[@]}" --run-dir int --checkpoint int.pt >int.log 2>&1 &
pid=$!
wait_for "epoch 2/2 step" int.log
kill -INT $pid
t0=$(now)
wait $pid
status=$?
took=$(elapsed "$t0" "$(now)")
grep -E "interrupted|exitcode|Signal" int.log | head -5
echo "torchrun exited $status ${took} s after SIGINT"
[[ $status -ne 0 ]] || fail "torchrun exited 0 after SIGINT"
[[ $(grep -c "interrupted (signal [0-9]*) in epoch 2 after step" int.log) -eq 1 ]] ||
  { cat int.log; fail "expected exactly one 'interrupted ... in epoch 2' line (rank 0's)"; }
for _ in $(seq 1 100); do [[ $(wc -l <statuses) -eq 2 ]] && break; sleep 0.1; done
cat statuses
[[ $(grep -c "exited 130" statuses) -eq 2 ]] || fail "both ranks must exit 130"
step=$(grep -o "in epoch 2 after step [0-9]*" int.log | grep -o '[0-9]*$')
"$EVAL" --checkpoint int.pt --data data --device cpu -q --json >int.json ||
  fail "the checkpoint written on SIGINT does not load"
pass "SIGINT to torchrun: both ranks stopped after step $step of epoch 2, one checkpoint, ${took} s"

"$TRAIN" "${common[@]}" --resume int.pt --run-dir int --checkpoint int.pt >resume1.log 2>&1 ||
  { tail resume1.log; fail "resuming the 2-process checkpoint with 1 process failed"; }
grep -q "trained by 2 process(es), this run has 1" resume1.log ||
  { cat resume1.log; fail "no note that the world size changed"; }
[[ $(wc -l <int/metrics.csv) -eq 3 ]] || fail "int/metrics.csv should hold 2 epochs"
pass "the 2-process checkpoint resumed in 1 process from step $step and finished epoch 2"

# --- SIGKILL to one rank -----------------------------------------------------
port=$(free_port)
for r in 0 1; do
  env -u LOCAL_RANK -u TORCHELASTIC_USE_AGENT_STORE WORLD_SIZE=2 RANK=$r \
    MASTER_ADDR=127.0.0.1 MASTER_PORT="$port" \
    "$TRAIN" "${common[@]}" --run-dir kill --checkpoint kill.pt >kill.$r.log 2>&1 &
  pids[r]=$!
done
wait_for "epoch 2/2 step" kill.0.log
kill -KILL "${pids[1]}"
t0=$(now)
for _ in $(seq 1 300); do kill -0 "${pids[0]}" 2>/dev/null || break; sleep 0.1; done
took=$(elapsed "$t0" "$(now)")
kill -0 "${pids[0]}" 2>/dev/null && { kill -KILL "${pids[0]}"; fail "rank 0 still runs 30 s after rank 1 was killed"; }
wait "${pids[0]}"
status=$?
grep "error" kill.0.log
[[ $status -ne 0 && $status -ne 130 ]] || fail "rank 0 exited $status after rank 1 was killed"
python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) <= 10 else 1)" "$took" ||
  fail "rank 0 took $took s to notice (more than 10 s)"
grep -q "rank 1 stopped answering" kill.0.log || { cat kill.0.log; fail "rank 0 does not name rank 1"; }
pass "SIGKILL rank 1 in epoch 2: rank 0 exited $status after $took s naming rank 1"

"$EVAL" --checkpoint kill.pt --data data --device cpu -q --json >kill.json ||
  fail "the last checkpoint does not load after the kill"
port=$(free_port)
for node in 0 1; do
  "$TORCHRUN" --no-python --nnodes 2 --nproc-per-node 1 --rdzv-backend c10d \
    --rdzv-endpoint "127.0.0.1:$port" --rdzv-id resume-test \
    "$TRAIN" "${common[@]}" --resume kill.pt --run-dir kill --checkpoint kill.pt >node$node.log 2>&1 &
  pids[node]=$!
done
wait "${pids[0]}"; s0=$?
wait "${pids[1]}"; s1=$?
[[ $s0 -eq 0 && $s1 -eq 0 ]] || { tail node*.log; fail "the two-node resume exited $s0 and $s1"; }
cat node*.log | grep -E "resuming|epoch 2/2 .*test"
[[ $(wc -l <kill/metrics.csv) -eq 3 ]] || fail "kill/metrics.csv should hold 2 epochs"
pass "the epoch-1 checkpoint loads, and two torchrun 'nodes' resumed it to the end"
