#!/usr/bin/env bash
# configs/speedrun.toml end to end, small: 3 epochs of batch 150 on 600 real
# images with a resolution schedule of its own (epoch 1 at 24 px, 2 at 28, 3 at
# 32); the same run interrupted in epoch 2 and resumed writes the same
# weights, byte for byte; cifar-eval takes the selective test-time
# augmentation level (3) the checkpoint was trained with.
source "$(dirname "$0")/lib/common.bash"
need_real_data
common=(--config "$SRC/configs/speedrun.toml" --data "$REAL_DATA" --device cpu --threads 2
        --train-limit 600 --test-limit 300 --batch-size 150 --eval-batch-size 300 --seed 4
        --resolution-schedule 24,28 --epochs 3 --eval-every 3 --no-tensorboard)
"$TRAIN" "${common[@]}" --checkpoint straight.pt --run-dir straight >/dev/null 2>straight.err ||
  { cat straight.err; fail "straight speedrun run failed"; }
grep -q "epoch 1: training at 24 px" straight.err || fail "epoch 1 did not train at 24 px"
grep -q "epoch 2: training at 28 px" straight.err || fail "epoch 2 did not train at 28 px"
grep -q "epoch 3: training at" straight.err && fail "epoch 3 should train at the images' 32 px"
# Interrupted once epoch 2 (28 px) shows progress (SIGINT), then resumed.
"$TRAIN" "${common[@]}" --log-interval 0.1 --checkpoint split.pt --run-dir split >/dev/null \
  2>split.err &
pid=$!
wait_for_log "epoch 2/3 step" split.err $pid
kill -INT $pid
wait $pid
status=$?
[[ $status -eq 130 ]] || { cat split.err; fail "exit status $status after SIGINT, expected 130"; }
grep -o "interrupted (signal 2) [a-z]* epoch [0-9] after step [0-9]*" split.err
"$TRAIN" "${common[@]}" -q --resume split.pt --checkpoint split.pt >/dev/null 2>resume.err ||
  { cat resume.err; fail "resuming failed"; }
cmp straight/model.safetensors split/model.safetensors ||
  fail "interrupted + --resume wrote other weights than the straight run"

real_test_folder test300 300  # cifar-eval on 300 real test images, not all 10,000
"$EVAL" --checkpoint straight.pt --data test300 --device cpu --batch-size 300 --json -q \
  >straight.json || fail "cifar-eval on straight.pt failed"
echo "straight: $(cat straight.json)"
grep -q '"tta": *3' straight.json || fail "cifar-eval did not use the checkpoint's TTA level 3"
acc=$(grep -o '"accuracy": *[0-9.]*' straight.json | grep -o '[0-9.]*$')
awk -v a="$acc" 'BEGIN { exit !(a > 0.2) }' || fail "accuracy $acc after 12 steps: not learning"
pass "speedrun: 24, 28 then 32 px; an interrupted run resumes to the same weights; cifar-eval uses TTA 3 ($acc)"
