#!/usr/bin/env bash
# check_reference.sh: check.sh's reference step (through check_steps.sh,
# which exports KIT, WORK, MODE, PYTHON, DATA, REPO): the published
# airbench94 (PyPI's airbench, in the kit's reference/) on the same files
# as configs/airbench94.toml and configs/speedrun.toml, both with
# --cuda-graph (the airbench94 step runs the first eagerly), over the same
# seeds, alternating.
#
# Reported per run: the test accuracy; the training time as each side
# measures it, both with the final evaluation (airbench: after its warm-up
# run, CUDA events around the training and the final evaluation;
# cifar-train: its epochs' training seconds in metrics.csv, the first one
# with cuDNN's autotuning, plus its last epoch's evaluation, the only one in
# both recipes (eval-every 8 of 8 epochs); and the same without the first
# epoch; the whitening's initialisation, which airbench times, is outside
# it); and the whole process's wall time. A seed that fails is
# reported as failed and the next one still runs. Without CUDA the data is
# converted and checked and airbench imported; the run is skipped (exit 77:
# airbench runs on CUDA only).
set -uo pipefail
bin="$KIT/bin"
step=reference
cd "$REPO" || exit 1
ref() { "$PYTHON" scripts/gpu/reference_airbench.py "$@"; }
since() {
  local ms=$((($(date +%s%N) - $1) / 1000000))
  printf '%d.%d' $((ms / 1000)) $((ms % 1000 / 100))
}

[[ -f "$KIT/reference/airbench/__init__.py" ]] ||
  { echo "no airbench in $KIT/reference: run prepare.sh"; exit 1; }
ref convert "$DATA" "$WORK/reference" || exit 1
ref probe "$KIT/reference" || { echo "the kit's airbench does not import"; exit 1; }
if [[ "$MODE" != gpu ]]; then
  echo "airbench94 runs on CUDA only: its data converted and checked, the run left to the GPU" \
    >"$WORK/skip-$step.txt"
  exit 77
fi
version=$(sed -n 's/^KIT_AIRBENCH=//p' "$KIT/kit.env")
figures="$WORK/figures-$step.md"
printf '| side | seed | test acc | training s | training s, epoch 1 left out | wall s |\n' >"$figures"
printf '|---|---:|---:|---:|---:|---:|\n' >>"$figures"
failed=0
# tool_run SEED CONFIG [FLAGS...]: one cifar-train run, its row in the table.
tool_run() {
  local seed=$1 config=$2 label run t0
  shift 2
  label="cifar-train $config${*:+ $*}"
  run="$WORK/ref-cpp-$(basename "$config" .toml)-$seed"
  t0=$(date +%s%N)
  if "$bin/cifar-train" --config "$config" --device "$DEVICE" --data "$DATA" --seed "$seed" \
    --run-dir "$run" --checkpoint "$run.pt" --no-tensorboard "$@"; then
    "$PYTHON" - "$run/metrics.csv" "$seed" "$(since "$t0")" "$label" >>"$figures" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
seconds = [float(r["seconds"]) for r in rows]
final_eval = float(rows[-1]["eval_seconds"])  # airbench's time has its final evaluation
print(f"| {sys.argv[4]} | {sys.argv[2]} | "
      f"{100 * float(rows[-1]['test_accuracy']):.2f}% | {sum(seconds) + final_eval:.2f} | "
      f"{sum(seconds[1:]) + final_eval:.2f} | {float(sys.argv[3]):.1f} |")
PY
  else
    echo "| $label | $seed | failed | | | |" >>"$figures"
    failed=1
  fi
}
for seed in 0 1 2; do
  t0=$(date +%s%N) # the whole Python process, as cifar-train's below
  if ref run "$KIT/reference" "$WORK/reference" --seeds "$seed" >"$WORK/ref-$seed.json"; then
    "$PYTHON" - "$WORK/ref-$seed.json" "$version" "$(since "$t0")" >>"$figures" <<'PY'
import json, sys
r = json.loads(open(sys.argv[1]).read().splitlines()[-1])
print(f"| airbench94 (PyPI airbench {sys.argv[2]}, after its warm-up) | {r['seed']} "
      f"| {100 * r['tta_val_acc']:.2f}% | {r['train_seconds']:.2f} | | {float(sys.argv[3]):.1f} |")
PY
  else
    echo "| airbench94 (PyPI airbench $version) | $seed | failed | | | |" >>"$figures"
    failed=1
  fi
  tool_run "$seed" configs/airbench94.toml --cuda-graph
  tool_run "$seed" configs/speedrun.toml --cuda-graph
done
# Each side's means over the seeds that ran: the issue's comparison.
"$PYTHON" - "$figures" >"$WORK/means-$step.md" <<'PY'
import sys
rows = [r.strip().strip("|").split("|") for r in open(sys.argv[1]).read().splitlines()[2:]]
sides = {}
for side, _seed, acc, train, rest, wall in ([c.strip() for c in r] for r in rows):
    if acc.endswith("%"):
        sides.setdefault(side, []).append((float(acc[:-1]), float(train), float(wall)))
print("\n| side (mean over its seeds) | runs | test acc | training s | wall s |")
print("|---|---:|---:|---:|---:|")
for side, runs in sides.items():
    n = len(runs)
    print(f"| {side} | {n} | {sum(r[0] for r in runs) / n:.2f}% "
          f"| {sum(r[1] for r in runs) / n:.2f} | {sum(r[2] for r in runs) / n:.1f} |")
PY
cat "$WORK/means-$step.md" >>"$figures"
cat "$figures"
exit $failed
