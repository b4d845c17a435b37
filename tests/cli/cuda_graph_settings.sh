#!/usr/bin/env bash
# --cuda-graph and the recipes: what a captured step cannot run (an
# optimiser without an update at a device-scalar rate) is refused on every
# device before anything starts, so the CPU, where --cuda-graph only warns,
# fails where a GPU run would; the configs the GPU kit captures
# (resnet18.toml, and airbench94.toml and speedrun.toml with their four
# parameter groups and resolution schedule) are accepted and train
# (eagerly, on the CPU).
source "$(dirname "$0")/lib/common.bash"
make_fake_data data
for device in cpu cuda auto; do
  expect 2 "--cuda-graph captures the update of --optimizer sgd.*not that of --optimizer adamw" -- \
    "$TRAIN" --optimizer adamw --cuda-graph --device "$device" \
    --data data --run-dir refused --checkpoint refused.pt
done
[[ ! -e refused && ! -e refused.pt ]] || fail "a refused run left files behind: $(ls)"
pass "nothing was written"
small=(--device cpu --amp off --data data --epochs 1 --train-limit 64 --test-limit 64
  --batch-size 32 --eval-batch-size 64 --threads 2 --no-tensorboard)
for config in resnet18 airbench94 speedrun; do
  expect 0 "--cuda-graph needs a CUDA device; training eagerly on cpu" -- \
    "$TRAIN" --config "$SRC/configs/$config.toml" --cuda-graph "${small[@]}" \
    --run-dir "graph-$config" --checkpoint "graph-$config.pt"
done
