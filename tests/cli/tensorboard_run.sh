#!/usr/bin/env bash
# The event file of a real cifar-train run, read by TensorBoard's own reader
# (EventAccumulator): the epoch scalars equal metrics.csv (same epochs, same
# values, validation included), per-class accuracies and the confusion heat
# map at each epoch, the running loss, the config text. Then a run killed with
# SIGKILL in its second epoch: the reader accepts its file and finds epoch 1,
# and the epoch's running loss so far; resumed, each step is there once.
source "$(dirname "$0")/lib/common.bash"
PY=${CIFAR_VENV_PYTHON:-}
if [[ -z "$PY" || ! -x "$PY" ]] || ! "$PY" -c 'import tensorboard' 2>/dev/null; then
  echo "SKIPPED: tensorboard is not importable by the project's Python ($PY); run scripts/setup.sh"
  exit 77
fi
make_fake_data data
common=(--data data --device cpu --threads 1 --model net --batch-size 32 --lr 0.002
        --val-split 1000 --train-limit 6000 --seed 2 --log-interval 0.2)

cat >check.py <<'PY'
import csv, sys
from tensorboard.backend.event_processing import event_accumulator as ea

run, epochs = sys.argv[1], int(sys.argv[2])
acc = ea.EventAccumulator(run, size_guidance={ea.SCALARS: 0, ea.IMAGES: 0, ea.TENSORS: 0})
acc.Reload()
scalars = lambda tag: [(e.step, e.value) for e in acc.Scalars(tag)]
rows = list(csv.DictReader(open(f"{run}/metrics.csv")))
assert [int(r["epoch"]) for r in rows] == list(range(1, epochs + 1)), rows
cols = ["train_loss", "train_accuracy", "val_loss", "val_accuracy", "test_loss", "test_accuracy",
        "lr", "images_per_second", "seconds", "eval_seconds"]
for col in cols:
    got = scalars(f"epoch/{col}")
    assert [s for s, _ in got] == [int(r["epoch"]) for r in rows], (col, got)
    for (_, g), r in zip(got, rows):
        # metrics.csv rounds some columns (images/s to 0.1): allow half its last digit.
        text = r[col]
        places = len(text.split(".")[1]) if "." in text else 0
        tol = 0.5 * 10 ** -places + 1e-6 * max(1, abs(g))
        assert abs(g - float(text)) <= tol, (col, g, text)
print(f"{run}: epoch scalars equal metrics.csv: {len(rows)} epochs x {len(cols)} columns")
classes = [t for t in acc.Tags()["scalars"] if t.startswith("test_class_accuracy/")]
assert len(classes) == 10 and all(len(scalars(t)) == epochs for t in classes), classes
heat = acc.Images("test/confusion_matrix")
assert [i.step for i in heat] == list(range(1, epochs + 1)), heat
running = scalars("train/running_loss")
assert len(running) >= 2 and all(a < b for (a, _), (b, _) in zip(running, running[1:])), running
assert "config" in acc.PluginTagToContent("text")
print(f"{run}: 10 per-class curves, {len(heat)} heat maps, {len(running)} running-loss points, config text")
PY

"$TRAIN" "${common[@]}" --epochs 2 --run-dir whole --checkpoint whole.pt >whole.log 2>&1 ||
  { tail whole.log; fail "the training run failed"; }
"$PY" check.py whole 2 || fail "TensorBoard's reader disagrees with metrics.csv of a real run"
pass "a real run's event file: scalars equal metrics.csv, per-class accuracies, heat maps, text"

# Epochs of 20,000 images (seconds long), so that the kill lands in epoch 2.
"$TRAIN" "${common[@]}" --train-limit 20000 --epochs 3 --run-dir killed --checkpoint killed.pt \
  >killed.log 2>&1 &
pid=$!
# Three progress lines into epoch 2 (--log-interval 0.2: the records reach
# the file at each), then SIGKILL.
for _ in $(seq 1 1200); do
  [[ $(grep -c "epoch 2/3 step" killed.log) -ge 3 ]] && break
  kill -0 $pid 2>/dev/null || break
  sleep 0.1
done
grep -q "epoch 2/3 step" killed.log || { kill -9 $pid; cat killed.log; fail "epoch 2 never started"; }
kill -0 $pid 2>/dev/null && ! grep -q "epoch 2/3: train\|epoch 3/3" killed.log ||
  { cat killed.log; fail "the run got past epoch 2 before the kill (a machine this fast needs longer epochs)"; }
kill -KILL $pid
wait $pid 2>/dev/null
"$PY" check.py killed 1 || fail "the event file of a SIGKILLed run is not readable up to epoch 1"
per=$(grep -o "epoch 2/3 step [0-9]*/[0-9]*" killed.log | head -1 | cut -d/ -f3)
[[ -n $per ]] || { cat killed.log; fail "no progress line with the epoch's steps"; }
cat >steps.py <<'PY'
import sys
from tensorboard.backend.event_processing import event_accumulator as ea
acc = ea.EventAccumulator(sys.argv[1], size_guidance={ea.SCALARS: 0}, purge_orphaned_data=False)
acc.Reload()
print(" ".join(str(e.step) for e in acc.Scalars("train/running_loss")))
PY
read -ra live <<<"$("$PY" steps.py killed)"
(( ${live[-1]} > per )) || fail "no running loss of epoch 2 reached the file before the kill: ${live[*]}"
pass "a run's running loss reaches its event file during the epoch (last step ${live[-1]} > $per)"

# Resumed, the run drops the steps past its checkpoint (epoch 1's end) from
# the killed run's file: every step once, with TensorBoard's purging off.
"$TRAIN" --config killed/config.toml --resume killed/last.pt >resumed.log 2>&1 ||
  { tail resumed.log; fail "the resumed run failed"; }
grep -q "TensorBoard: dropped [0-9]* records past step $per " resumed.log ||
  { cat resumed.log; fail "the resumed run did not say it dropped the killed run's later steps"; }
read -ra all <<<"$("$PY" steps.py killed)"
for ((i = 1; i < ${#all[@]}; i++)); do
  (( all[i] > all[i - 1] )) || fail "step ${all[i]} after ${all[i - 1]}: a step written twice"
done
(( all[-1] > 2 * per )) || fail "the resumed run's steps are missing: ${all[*]}"
"$PY" check.py killed 3 || fail "the resumed run's event files disagree with metrics.csv"
pass "a run killed in epoch 2 and resumed: each running-loss step once, scalars equal metrics.csv"

# --eval-every 2 over 3 epochs: training scalars at every epoch, test scalars
# only where the test set was evaluated (2 and 3), so the training curves have no gap.
"$TRAIN" "${common[@]}" --epochs 3 --eval-every 2 --run-dir sparse --checkpoint sparse.pt \
  >sparse.log 2>&1 || { tail sparse.log; fail "the --eval-every 2 run failed"; }
"$PY" - sparse <<'PY' || fail "an --eval-every run's event file misses training scalars"
import sys
from tensorboard.backend.event_processing import event_accumulator as ea
acc = ea.EventAccumulator(sys.argv[1], size_guidance={ea.SCALARS: 0})
acc.Reload()
steps = lambda tag: [e.step for e in acc.Scalars(tag)]
for tag in ("epoch/train_loss", "epoch/train_accuracy", "epoch/lr", "epoch/seconds"):
    assert steps(tag) == [1, 2, 3], (tag, steps(tag))
for tag in ("epoch/test_accuracy", "epoch/test_loss", "epoch/val_accuracy", "epoch/eval_seconds"):
    assert steps(tag) == [2, 3], (tag, steps(tag))
print("train scalars at 1, 2, 3; test scalars at 2, 3")
PY
pass "--eval-every 2: training scalars every epoch, test scalars on evaluated epochs"
