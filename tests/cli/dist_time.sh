#!/usr/bin/env bash
# dist_time.sh: --time with two processes (issue 53). Each process fits the
# epochs to the budget from its own clock; rank 1 starts 4 s after rank 0,
# so rank 0's clock has spent 4 s more when they fit, and alone they would
# fit different counts: then one rank would train an epoch the other never
# joins. Every rank takes rank 0's count (a broadcast), so both end, after
# the same epochs, and the run folder holds that count.
source "$(dirname "$0")/lib/common.bash"
source "$(dirname "$0")/lib/dist.bash"
write_folder small cat,dog train,val 100
args=(--config "$SRC/configs/photos.toml" --data small --device cpu --threads 1 --epochs 2
      --steps 0 --time 0.25 --dist-timeout 20 --run-dir run --checkpoint small.pt)
port=$(free_port)
for r in 0 1; do
  ((r == 1)) && sleep 4
  env -u LOCAL_RANK -u TORCHELASTIC_USE_AGENT_STORE WORLD_SIZE=2 RANK=$r \
    MASTER_ADDR=127.0.0.1 MASTER_PORT="$port" "$TRAIN" "${args[@]}" >out.$r 2>err.$r &
  pids[r]=$!
done
wait "${pids[0]}"; s0=$?
wait "${pids[1]}"; s1=$?
[[ $s0 -eq 0 && $s1 -eq 0 ]] || { tail -5 err.0 err.1; fail "--time with 2 processes exited $s0 and $s1"; }
epochs=$(grep -o -- "--time 0.25 min: [0-9]* epochs" err.0 | tail -1 | grep -o "[0-9]* epochs" | cut -d' ' -f1)
[[ -n $epochs && $epochs -gt 2 ]] || { cat err.0; fail "rank 0 fitted no count above --epochs 2"; }
rows=$(($(wc -l <run/metrics.csv) - 1))
[[ $rows == "$epochs" ]] || fail "metrics.csv has $rows epochs, rank 0's last fit said $epochs"
grep -qx "epochs = $epochs" run/config.toml || fail "config.toml does not hold the $epochs epochs fitted"
pass "--time 0.25 with 2 processes started 4 s apart: both ran rank 0's $epochs epochs"
