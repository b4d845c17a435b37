#!/usr/bin/env bash
# --resume with --steps: the length is the epochs --steps takes on the data,
# so a larger --steps trains further and the same one is refused naming
# --steps (not --epochs, which the user did not give); without --steps, or
# with an --epochs that takes more steps, the refusal names --epochs.
source "$(dirname "$0")/lib/common.bash"
write_folder pets cat,dog train,test 20
common=(--data pets --device cpu --batch-size 8 --run-dir run --checkpoint m.pt --no-tensorboard)
# More epochs than --epochs allows are refused, never capped to fewer steps.
expect 2 "--steps 1000000000 needs 200000000 epochs of 5 steps \(40 training images at batch 8\), past the limit of 1000000 epochs: ask for at most 5000000 steps" -- \
  "$TRAIN" "${common[@]}" --steps 1000000000
[[ ! -e run && ! -e m.pt ]] || fail "the refused --steps left files"
expect 0 "--steps 12: 3 epochs of 5 steps" -- "$TRAIN" "${common[@]}" --steps 12
expect 2 "m.pt has already trained 3 epochs, all that --steps 12 \(3 epochs of 5 steps\) asks for: pass --steps 16 or more to train further \(its weights for Python, .*: cifar-export --checkpoint m.pt --out model.safetensors\)" -- \
  "$TRAIN" "${common[@]}" --steps 12 --resume m.pt
expect 2 "m.pt has already trained 3 epochs, all that --epochs 3 asks for: pass --epochs 4 or more" -- \
  "$TRAIN" "${common[@]}" --epochs 3 --resume m.pt
# --epochs 3 take 15 steps, more than --steps 5: --epochs set the length, and the refusal names it.
expect 2 "m.pt has already trained 3 epochs, all that --epochs 3 asks for: pass --epochs 4 or more" -- \
  "$TRAIN" "${common[@]}" --epochs 3 --steps 5 --resume m.pt
expect 0 "epoch 4/4:" -- "$TRAIN" "${common[@]}" --steps 16 --resume m.pt
