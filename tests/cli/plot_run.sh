#!/usr/bin/env bash
# scripts/plot-run on a run folder that cifar-train wrote (plus a confusion.csv
# as the trainer writes it) makes a PNG of sensible size; without a run folder
# it says what is wrong.
source "$(dirname "$0")/lib/common.bash"
PY=${CIFAR_VENV_PYTHON:-}
if [[ -z "$PY" || ! -x "$PY" ]] || ! "$PY" -c 'import matplotlib' 2>/dev/null; then
  echo "SKIPPED: matplotlib is not importable by the project's Python ($PY); run scripts/setup.sh"
  exit 77
fi
# plot-run finds that same Python by itself (XDG_CACHE_HOME or ~/.cache).
make_fake_data data
"$TRAIN" --data data --device cpu --epochs 2 --batch-size 50 --lr 0.01 --train-limit 1000 \
  --run-dir run --checkpoint m.pt -q >/dev/null 2>train.err || { cat train.err; fail "training failed"; }
[[ -f run/metrics.csv ]] || fail "cifar-train wrote no run/metrics.csv"
if [[ ! -f run/confusion.csv ]]; then  # until the trainer writes it: from cifar-eval's table
  "$EVAL" --checkpoint m.pt --data data --device cpu 2>/dev/null |
    awk '/^Confusion matrix/ {on = 1; getline; next} on && NF == 11' >table.txt
  [[ $(wc -l <table.txt) -eq 10 ]] || fail "could not read cifar-eval's confusion matrix"
  { printf 'true\\predicted'; awk '{printf ",%s", $1}' table.txt; echo
    awk '{$1 = $1; gsub(/ /, ","); print}' table.txt; } >run/confusion.csv
fi
expect 0 'plots.png' -- "$SRC/scripts/plot-run" run
"$PY" - run/plots.png <<'PY' || fail "plots.png is not a PNG of sensible size"
import struct, sys
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
width, height = struct.unpack(">II", data[16:24])
print(f"plots.png: {width}x{height}, {len(data)} bytes")
assert 800 <= width <= 4000 and 600 <= height <= 4000, (width, height)
assert len(data) > 50_000, "too small to hold four panels"  # a blank 1400x1100 PNG is ~10 kB
PY
pass "plot-run drew run/plots.png"
# plots.png planted as links to the files plot-run reads: replaced, never written through.
cp run/metrics.csv metrics-before.csv
ln -sf metrics.csv run/plots.png
expect 0 'plots.png' -- "$SRC/scripts/plot-run" run
cmp -s run/metrics.csv metrics-before.csv || fail "plot-run wrote through a plots.png linked to metrics.csv"
rm run/plots.png && ln run/metrics.csv run/plots.png
expect 0 'plots.png' -- "$SRC/scripts/plot-run" run
cmp -s run/metrics.csv metrics-before.csv || fail "plot-run wrote through a plots.png hard-linked to metrics.csv"
[[ ! -L run/plots.png ]] && head -c 8 run/plots.png | grep -q PNG || fail "run/plots.png is not the plot"
pass "a plots.png linked to metrics.csv is replaced, metrics.csv unchanged"
expect 2 'metrics.csv does not exist' -- "$SRC/scripts/plot-run" data
expect 2 'usage' -- "$SRC/scripts/plot-run"

# With --tensorboard and --eval-every 2: the per-step loss panel is drawn from
# the event file, the settings go in the title, skipped epochs leave gaps.
"$TRAIN" --data data --device cpu --epochs 3 --eval-every 2 --batch-size 50 --lr 0.01 \
  --train-limit 1000 --tensorboard --run-dir board --checkpoint b.pt -q >/dev/null 2>board.err ||
  { cat board.err; fail "training with --tensorboard failed"; }
"$PY" - "$SRC/scripts" board <<'PY' || fail "plot-run's running-loss series or settings title is wrong"
import sys
sys.path.insert(0, sys.argv[1])
import plot_run
steps, losses = plot_run.read_running_loss(sys.argv[2])
print(f"running loss: {len(steps)} points, steps {steps[0]}..{steps[-1]}")
assert len(steps) >= 4 and steps == sorted(steps) and steps[-1] <= 60, steps
title = plot_run.read_settings(sys.argv[2])
print(f"title: {title}")
assert "model net" in title and "batch 50" in title and "epochs 3" in title, title
assert plot_run.read_running_loss("data") is None  # no event file: no series
PY
expect 0 'plots.png' -- "$SRC/scripts/plot-run" board
pass "plot-run: per-step loss from the event file, settings in the title, --eval-every gaps"
