#!/usr/bin/env bash
# dist_train.sh: cifar-train itself in two processes (gloo, 1 thread each).
#  - Equivalence: the net model (no BatchNorm), no augmentation, seed 3, global
#    batch 32: 1 process and 2 processes (plain RANK/WORLD_SIZE variables) end
#    with the same weights within 1e-5 and the same test accuracy. This is
#    what proves that averaging, sharding and the initial broadcast are right.
#  - ResNet-18 through the real training step (cifar_dist_driver train): both
#    ranks end with bit-identical parameters and BatchNorm buffers.
source "$(dirname "$0")/lib/common.bash"
source "$(dirname "$0")/lib/dist.bash"
PYTHON=$VENV_BIN/python
[[ -x $PYTHON ]] || { echo "SKIPPED: no torch venv python at $PYTHON"; exit 77; }
make_fake_data data
common=(--data data --device cpu --threads 1 --model net --batch-size 32 --lr 0.002
        --momentum 0.9 --train-limit 2048 --epochs 1 --seed 3 --schedule constant)

"$TRAIN" "${common[@]}" --run-dir one --checkpoint one.pt >one.log 2>&1 ||
  { tail one.log; fail "the single-process run failed"; }
port=$(free_port)
for r in 0 1; do
  env -u LOCAL_RANK -u TORCHELASTIC_USE_AGENT_STORE WORLD_SIZE=2 RANK=$r \
    MASTER_ADDR=127.0.0.1 MASTER_PORT="$port" \
    "$TRAIN" "${common[@]}" --run-dir two --checkpoint two.pt >two.$r.log 2>&1 &
  pids[r]=$!
done
wait "${pids[0]}"; s0=$?
wait "${pids[1]}"; s1=$?
[[ $s0 -eq 0 && $s1 -eq 0 ]] || { tail two.*.log; fail "the 2-process run exited $s0 and $s1"; }
grep -q "2 processes (gloo): global batch 32 = 2 x 16" two.0.log ||
  { cat two.0.log; fail "rank 0 does not say how the global batch is split"; }
[[ ! -s two.1.log ]] || { cat two.1.log; fail "rank 1 printed at info level (only rank 0 may)"; }
[[ $(grep -c "steps" two/metrics.csv) -le 1 && $(wc -l <two/metrics.csv) -eq 2 ]] ||
  fail "two/metrics.csv should hold one epoch written once"

# Without --run-dir, rank 0 makes the run's folder and the other rank takes its name.
port=$(free_port)
for r in 0 1; do
  env -u LOCAL_RANK -u TORCHELASTIC_USE_AGENT_STORE WORLD_SIZE=2 RANK=$r \
    MASTER_ADDR=127.0.0.1 MASTER_PORT="$port" \
    "$TRAIN" "${common[@]}" --train-limit 256 --checkpoint default.pt >default.$r.log 2>&1 &
  pids[r]=$!
done
wait "${pids[0]}"; s0=$?
wait "${pids[1]}"; s1=$?
[[ $s0 -eq 0 && $s1 -eq 0 ]] || { tail default.*.log; fail "the 2-process run without --run-dir exited $s0 and $s1"; }
[[ $(ls runs) == *-net && -s runs/$(ls runs)/metrics.csv ]] ||
  fail "the 2-process run did not write one default run folder: $(ls -R runs)"

diff=$("$PYTHON" - one/model.safetensors two/model.safetensors <<'PY'
import sys
from safetensors.torch import load_file
a, b = load_file(sys.argv[1]), load_file(sys.argv[2])
assert a.keys() == b.keys(), (sorted(a), sorted(b))
print(max((a[k].double() - b[k].double()).abs().max().item() for k in a))
PY
) || fail "could not compare the weights"
acc() { python3 -c "import csv,sys; print(list(csv.DictReader(open(sys.argv[1])))[-1]['test_accuracy'])" "$1"; }
acc1=$(acc one/metrics.csv)
acc2=$(acc two/metrics.csv)
echo "1 process vs 2 processes after 64 steps: max |weight diff| $diff; test accuracy $acc1 vs $acc2"
python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) <= 1e-5 else 1)" "$diff" ||
  fail "the weights differ by $diff (more than 1e-5)"
python3 -c "import sys; sys.exit(0 if abs(float(sys.argv[1]) - float(sys.argv[2])) <= 0.1 else 1)" \
  "$acc1" "$acc2" || fail "test accuracy $acc1 (1 process) vs $acc2 (2 processes)"
pass "1 and 2 processes at global batch 32 agree: weights within $diff, accuracy $acc1 vs $acc2"

two_ranks resnet train --model resnet18 --steps 3 >/dev/null
d0=$(grep -o "parameters .*" resnet.0)
d1=$(grep -o "parameters .*" resnet.1)
echo "rank 0: $d0"
echo "rank 1: $d1"
[[ -n $d0 && $d0 == "$d1" ]] || fail "the ranks' ResNet-18 parameters or buffers differ"
grep -q "updated" <<<"$d0" || fail "the BatchNorm buffers never changed: the test proves nothing"
pass "ResNet-18 after 3 steps: both ranks hold identical parameters and BatchNorm buffers"
