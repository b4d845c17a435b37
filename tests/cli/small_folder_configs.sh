#!/usr/bin/env bash
# Every shipped config trains on a small folder (issue 39, item 5): on a
# 200-image 2-class folder (train/ + val/), each configs/*.toml runs one
# epoch on the CPU without an error; a --batch-size larger than the
# training split is lowered to it, said once (airbench94's and speedrun's
# 2000, resnet18's 512), and the saved config.toml holds the batch the run
# used.
source "$(dirname "$0")/lib/common.bash"
write_folder small cat,dog train,val 100
configs=("$SRC"/configs/*.toml)
[[ ${#configs[@]} -ge 5 ]] || fail "found ${#configs[@]} shipped configs, expected at least 5"
for config in "${configs[@]}"; do
  name=$(basename "$config" .toml)
  batch=$(sed -n 's/^batch-size *= *\([0-9]*\).*/\1/p' "$config")
  "$TRAIN" --config "$config" --data small --device cpu --epochs 1 --steps 0 \
    --run-dir run-$name --checkpoint $name.pt >$name.out 2>$name.err ||
    { tail -20 $name.err; fail "configs/$name.toml failed on a 200-image folder"; }
  grep -qF "Accuracy of the network on the 20 test images" $name.out ||
    { cat $name.out; fail "configs/$name.toml: no report on val/'s 20 images"; }
  count=$(grep -c "is more than the 200 training images: lowered to 200" $name.err)
  if [[ ${batch:-0} -gt 200 ]]; then
    [[ $count == 1 ]] || { cat $name.err; fail "configs/$name.toml (batch $batch): the lowering is said $count times, not once"; }
    grep -qx "batch-size = 200" run-$name/config.toml ||
      { grep batch run-$name/config.toml; fail "configs/$name.toml: config.toml does not hold the batch of 200 used"; }
  else
    [[ $count == 0 ]] || { cat $name.err; fail "configs/$name.toml (batch $batch): a batch that fits was lowered"; }
  fi
  pass "configs/$name.toml (batch $batch) trains one epoch on a 200-image folder"
done

# Two processes (gloo, as torchrun starts them): the global batch is lowered to
# an equal share per process (199 images: 2 x 99), said once, by rank 0.
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
for r in 0 1; do
  env -u LOCAL_RANK -u TORCHELASTIC_USE_AGENT_STORE WORLD_SIZE=2 RANK=$r MASTER_ADDR=127.0.0.1 \
    MASTER_PORT="$port" OMP_NUM_THREADS=1 "$TRAIN" --config "$SRC/configs/airbench94.toml" \
    --data small --device cpu --epochs 1 --train-limit 199 --run-dir two --checkpoint two.pt \
    >two.$r.out 2>two.$r.err &
  pids[r]=$!
done
wait "${pids[0]}"; s0=$?
wait "${pids[1]}"; s1=$?
[[ $s0 -eq 0 && $s1 -eq 0 ]] || { tail two.*.err; fail "airbench94 on 2 processes exited $s0 and $s1"; }
grep -qF "is more than the 199 training images: lowered to 198, the most the data allows for an equal share per process" two.0.err ||
  { cat two.0.err; fail "2 processes: rank 0 does not say the batch was lowered to 2 x 99"; }
! grep -q "lowered" two.1.err || { cat two.1.err; fail "rank 1 said the lowering too (only rank 0 may)"; }
grep -qx "batch-size = 198" two/config.toml || { grep batch two/config.toml; fail "2 processes: config.toml does not hold 198"; }
pass "2 processes: --batch-size 2000 on 199 images lowered to 198 (2 x 99), said once"
