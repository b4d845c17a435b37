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
  "$TRAIN" --config "$config" --data small --device cpu --epochs 1 \
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
