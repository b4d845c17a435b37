#!/usr/bin/env bash
# A run without a test split (an image folder with train/ only, trained with
# --val-split) invents no test figure (issue 39): the epoch lines and
# metrics.csv have no test figures (the columns empty, never 0), the
# TensorBoard events hold the validation scalars and no test_* scalar,
# class accuracy or heat map, no confusion.csv is written, best.pt is chosen
# on validation, the final report and plot-run's title say there is no test
# split.
source "$(dirname "$0")/lib/common.bash"
PY=${CIFAR_VENV_PYTHON:-}
if [[ -z "$PY" || ! -x "$PY" ]] || ! "$PY" -c 'import tensorboard, matplotlib' 2>/dev/null; then
  echo "SKIPPED: tensorboard or matplotlib is not importable by the project's Python ($PY); run scripts/setup.sh"
  exit 77
fi
write_folder notest cat,dog train
"$TRAIN" --data notest --device cpu --epochs 2 --batch-size 20 --lr 0.05 --val-split 20 \
  --tensorboard --run-dir run --checkpoint n.pt >train.out 2>train.err ||
  { cat train.err; fail "training without a test split failed"; }
grep -q "No test images: the data has no test split" train.out ||
  { cat train.out; fail "the final report does not say there is no test split"; }
grep -E "^.*epoch [0-9]/2: " train.err | grep -q " test " &&
  { cat train.err; fail "an epoch line shows a test figure"; }
[[ -f run/best.pt ]] || fail "no best.pt: the validation accuracy chose none"
[[ ! -e run/confusion.csv ]] || fail "confusion.csv written without a test split"

"$PY" - run <<'PY' || fail "a figure of the run without a test split is invented or missing"
import csv, sys
from tensorboard.backend.event_processing import event_accumulator as ea
run = sys.argv[1]
rows = list(csv.DictReader(open(f"{run}/metrics.csv", newline="")))
assert [r["epoch"] for r in rows] == ["1", "2"], rows
for r in rows:
    assert r["test_loss"] == "" and r["test_accuracy"] == "", r  # empty, not 0
    assert float(r["val_accuracy"]) > 0 and float(r["val_loss"]) > 0, r
acc = ea.EventAccumulator(run, size_guidance={ea.SCALARS: 0, ea.IMAGES: 0})
acc.Reload()
tags = acc.Tags()
test_tags = [t for t in tags["scalars"] + tags["images"] if "test" in t]
assert not test_tags, test_tags
for tag in ("epoch/val_accuracy", "epoch/val_loss", "epoch/eval_seconds"):
    assert [e.step for e in acc.Scalars(tag)] == [1, 2], (tag, tags["scalars"])
print("metrics.csv: test columns empty, validation filled; events:", sorted(tags["scalars"]))
PY
pass "metrics.csv and TensorBoard: no test figure, the validation figures"

expect 0 'plots.png' -- "$SRC/scripts/plot-run" run
"$PY" - "$SRC/scripts" run <<'PY' || fail "plot-run's title does not say there is no test split"
import sys
sys.path.insert(0, sys.argv[1])
import plot_run
rows = plot_run.read_metrics(f"{sys.argv[2]}/metrics.csv")
assert not plot_run.has_test_split(rows)
title = plot_run.describe_result(rows, plot_run.has_test_split(rows))
print("title:", title)
assert title.startswith("no test split, validation accuracy ") and "(epoch 2)" in title, title
PY
pass "plot-run: no test split, the validation accuracy in the title"
