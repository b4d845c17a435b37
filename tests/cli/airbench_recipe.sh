#!/usr/bin/env bash
# The airbench94 recipe end to end, small: a few steps of batch 150 on 600
# real images, evaluated on 300 test images, with the recipe's config (Muon +
# SGD groups, alternating flip, reflect translate, summed smoothed loss,
# whitening from the data); the same run interrupted mid-way and resumed (the
# four groups' state round-trips through the checkpoint) ends with the same
# weights; then cifar-eval, which takes the test-time augmentation level the
# checkpoint was trained with.
source "$(dirname "$0")/lib/common.bash"
need_real_data
common=(--config "$SRC/configs/airbench94.toml" --data "$REAL_DATA" --device cpu --threads 2
        --train-limit 600 --test-limit 300 --batch-size 150 --eval-batch-size 300 --seed 3 --tta 1
        --no-tensorboard)
"$TRAIN" "${common[@]}" -q --epochs 2 --eval-every 2 --checkpoint straight.pt --run-dir straight \
  >/dev/null 2>straight.err || { cat straight.err; fail "straight airbench94 run failed"; }
# Interrupted once the first progress line shows (SIGINT), then resumed.
"$TRAIN" "${common[@]}" --epochs 2 --eval-every 2 --log-interval 0.1 --checkpoint split.pt \
  --run-dir split >/dev/null 2>split.err &
pid=$!
for _ in $(seq 1 1200); do grep -q "epoch ./2 step" split.err && break; sleep 0.05; done
kill -INT $pid
wait $pid
status=$?
[[ $status -eq 130 ]] || { cat split.err; fail "exit status $status after SIGINT, expected 130"; }
grep -o "interrupted (signal 2) [a-z]* epoch [0-9] after step [0-9]*" split.err
"$TRAIN" "${common[@]}" -q --epochs 2 --eval-every 2 --resume split.pt --checkpoint split.pt \
  --run-dir split >/dev/null 2>resume.err || { cat resume.err; fail "resuming failed"; }

# 4 steps an epoch (600 / 150, the last partial batch dropped); the first
# epoch is not evaluated (--eval-every 2): its test columns stay empty.
rows=$(wc -l <straight/metrics.csv)
[[ $rows -eq 3 ]] || fail "metrics.csv should hold 2 epochs, has $((rows - 1))"
first=$(sed -n 2p straight/metrics.csv | cut -d, -f4,5)
[[ $first == "," ]] || fail "epoch 1 was not to be evaluated, yet metrics.csv has '$first'"

real_test_folder test300 300  # cifar-eval on 300 real test images, not all 10,000
"$EVAL" --checkpoint straight.pt --data test300 --device cpu --batch-size 300 --json -q \
  >straight.json || fail "cifar-eval on straight.pt failed"
echo "straight: $(cat straight.json)"
# The two runs' last evaluations (test loss and accuracy to 6 decimals).
straight_last=$(tail -1 straight/metrics.csv | cut -d, -f4,5)
split_last=$(tail -1 split/metrics.csv | cut -d, -f4,5)
echo "last epoch test loss,accuracy: straight $straight_last, interrupted + resumed $split_last"
grep -q '"tta": *1' straight.json || fail "cifar-eval did not use the checkpoint's TTA level 1"
grep -q '"model": *"airbench94"' straight.json || fail "the checkpoint's model is not airbench94"
[[ -n $straight_last && $straight_last == "$split_last" ]] ||
  fail "interrupted + --resume differs from the straight run"
acc=$(grep -o '"accuracy": *[0-9.]*' straight.json | grep -o '[0-9.]*$')
awk -v a="$acc" 'BEGIN { exit !(a > 0.2) }' || fail "accuracy $acc after 8 steps: not learning"
pass "airbench94: 8 steps learn ($acc), an interrupted run resumes to the same result, cifar-eval uses the checkpoint's TTA"
