#!/usr/bin/env bash
# On the CPU with a fixed seed, 2 epochs straight and 1 epoch + --resume for
# the second end at the same test accuracy (within 0.1%).
source "$(dirname "$0")/lib/common.bash"
need_real_data
common=(--data "$REAL_DATA" --device cpu --threads 2 --model net --batch-size 32 --lr 0.01
        --train-limit 10000 --seed 7 --augment --schedule constant -q)
"$TRAIN" "${common[@]}" --epochs 2 --checkpoint straight.pt --run-dir straight >/dev/null \
  || fail "straight run failed"
"$TRAIN" "${common[@]}" --epochs 1 --checkpoint split.pt --run-dir split >/dev/null \
  || fail "first half failed"
"$TRAIN" "${common[@]}" --epochs 2 --resume split.pt --checkpoint split.pt --run-dir split \
  >/dev/null || fail "resumed half failed"
a=$(awk -F, 'END { print $5 }' straight/metrics.csv)
b=$(awk -F, 'END { print $5 }' split/metrics.csv)
rows=$(wc -l <split/metrics.csv)
echo "straight: $a, resumed: $b (split metrics.csv has $rows lines)"
[[ $rows -eq 3 ]] || fail "the resumed run's metrics.csv should hold 2 epochs"
python3 -c "import sys; a, b = map(float, sys.argv[1:]); assert abs(a - b) <= 0.001, (a, b)" "$a" "$b" \
  || fail "accuracies differ: $a vs $b"
pass "resume reproduces the straight run ($a vs $b)"
