#!/usr/bin/env bash
# --cuda-graph and the recipes (issue 32): what a captured step cannot run
# (airbench94's four parameter groups) is refused on every device before
# anything starts, so the CPU, where --cuda-graph only warns, fails where a
# GPU run would; the recipe the GPU kit's graph step uses
# (configs/resnet18.toml) is accepted and trains (eagerly, on the CPU).
source "$(dirname "$0")/lib/common.bash"
make_fake_data data
for device in cpu cuda auto; do
  expect 2 "--cuda-graph captures one SGD parameter group.*airbench94 recipe trains four" -- \
    "$TRAIN" --config "$SRC/configs/airbench94.toml" --cuda-graph --device "$device" \
    --data data --run-dir refused --checkpoint refused.pt
done
[[ ! -e refused && ! -e refused.pt ]] || fail "a refused run left files behind: $(ls)"
pass "nothing was written"
expect 0 "--cuda-graph needs a CUDA device; training eagerly on cpu" -- \
  "$TRAIN" --config "$SRC/configs/resnet18.toml" --cuda-graph --device cpu --amp off --data data \
  --epochs 1 --train-limit 64 --test-limit 64 --batch-size 32 --eval-batch-size 64 --threads 2 \
  --run-dir graph --checkpoint graph.pt --no-tensorboard
