#!/usr/bin/env bash
# resume_settings.sh: --resume compares the settings that shape the run with
# those saved in the checkpoint (each option's role in the table decides):
#  - mid-epoch, another --batch-size (or --seed) is refused, naming the
#    option, both values and the way out; nothing is trained or written
#    (it once logged an epoch of "train loss 0.0000 ... 0 img/s" into metrics.csv);
#  - another --recipe (or --optimizer) is refused at any point, naming what changed;
#  - the images restated as they were resolved (32 px, squash 1) are no change;
#  - any other change (here --lr mid-epoch, --batch-size between epochs) is
#    continued and named in one line.
source "$(dirname "$0")/lib/common.bash"
make_fake_data data
args=(--data data --device cpu --threads 1 --epochs 2 --batch-size 4 --train-limit 8000
      --run-dir run --checkpoint mid.pt --log-interval 0.2)

# A checkpoint written mid-epoch: SIGINT once the first progress line shows.
"$TRAIN" "${args[@]}" >mid.out 2>mid.err &
pid=$!
for _ in $(seq 1 600); do
  grep -q "epoch 1/2 step" mid.err && break
  kill -0 $pid 2>/dev/null || break
  sleep 0.1
done
kill -INT $pid
wait $pid
status=$?
[[ $status -eq 130 ]] || { cat mid.err; fail "exit status $status after SIGINT, expected 130"; }
step=$(grep -o "interrupted (signal 2) in epoch 1 after step [0-9]*" mid.err | grep -o '[0-9]*$')
[[ -n $step ]] || { cat mid.err; fail "the interrupt did not land in epoch 1"; }
cp mid.pt mid.keep
cp run/config.toml mid.toml  # the later resumes rewrite run/config.toml
rows_before=$(wc -l <run/metrics.csv)

expect 2 "--resume mid.pt stopped in epoch 1 after step $step, .*\(--batch-size 4 -> 64\).* Resume with --batch-size 4 " -- \
  "$TRAIN" --config run/config.toml --resume mid.pt --batch-size 64
[[ $(wc -l <run/metrics.csv) -eq $rows_before ]] || { cat run/metrics.csv; fail "the refused resume wrote to metrics.csv"; }
cmp -s mid.pt mid.keep || fail "the refused resume changed mid.pt"
expect 2 "stopped in epoch 1 after step $step, .*\(--seed 0 -> 5\)" -- \
  "$TRAIN" --config run/config.toml --resume mid.pt --seed 5
expect 2 "--resume mid.pt cannot continue with --recipe classic -> airbench94: .* Resume with --recipe classic" -- \
  "$TRAIN" --config run/config.toml --resume mid.pt --recipe airbench94
# --pretrained chooses a run's first weights: a resumed run has its own.
expect 2 "--pretrained chooses the weights a run starts from, but --resume mid.pt goes on from its checkpoint's, of a run started without it: drop --pretrained" -- \
  "$TRAIN" --config run/config.toml --resume mid.pt --pretrained
# Named by what changed, not blamed on the model or recipe (issue 54).
expect 2 "--resume mid.pt cannot continue with --optimizer sgd -> adamw: .* Resume with --optimizer sgd" -- \
  "$TRAIN" --config run/config.toml --resume mid.pt --optimizer adamw

# Restating the images the run was trained on (its log's "32 px", whole
# images: squash 1) is no change, though its config.toml said 0 and auto (issue 54).
cp mid.keep restate.pt
"$TRAIN" --config mid.toml --resume restate.pt --checkpoint restate.pt --run-dir restate --epochs 1 \
  --image-size 32 --crop-mode squash --crop-pct 1 >restate.out 2>restate.err ||
  { cat restate.err; fail "resuming with the images it was trained on restated was refused"; }
! grep -E "settings changed.*(image-size|crop)" restate.err || fail "the restated images were named as changed"
grep -qx "image-size = 32" restate/config.toml || { cat restate/config.toml; fail "config.toml does not hold the 32 px that ran"; }
pass "--image-size 32 --crop-mode squash --crop-pct 1 restated: resumed, nothing named"

# Another --lr mid-epoch: continued, and said in one line (only what changed).
"$TRAIN" --config run/config.toml --resume mid.pt --lr 0.01 --epochs 1 >lr.out 2>lr.err ||
  { cat lr.err; fail "resuming with another --lr failed"; }
grep -E "warning: resuming mid.pt with settings changed since it was written: --epochs 2 -> 1, --lr 0.001 -> 0.01$" lr.err ||
  { cat lr.err; fail "the changed --lr and --epochs are not named in one line"; }
pass "mid-epoch with another --lr: $(grep -o 'resuming mid.pt with .*' lr.err)"

# Between epochs (mid.pt now ends epoch 1), --batch-size may change: named, and trained.
"$TRAIN" --config run/config.toml --resume mid.pt --batch-size 64 --epochs 2 --lr 0.01 \
  >bs.out 2>bs.err || { cat bs.err; fail "resuming at an epoch boundary with another --batch-size failed"; }
grep -q "settings changed since it was written: .*--batch-size 4 -> 64" bs.err ||
  { cat bs.err; fail "the changed --batch-size is not named"; }
python3 - run/metrics.csv <<'PY' || fail "metrics.csv's epoch 2 row is not a real epoch"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
last = rows[-1]
print("epoch 2 row:", {k: last[k] for k in list(last)[:6]})
assert last["epoch"] == "2", last
speed = next(v for k, v in last.items() if "img" in k or "images" in k)
assert float(speed) > 0 and float(last["seconds"]) > 0, last  # steps were trained
PY
pass "between epochs, --batch-size 4 -> 64 is continued and named"

# A schedule that counts steps goes on from the same epoch at the new pace:
# with 8 steps an epoch instead of 100, epochs 3 and 4 of a cosine schedule
# once ran past its end, at a learning rate of 0 (nothing trained).
cos=(--data data --device cpu --threads 1 --train-limit 400 --schedule cosine --lr 0.01)
"$TRAIN" "${cos[@]}" --epochs 2 --batch-size 4 --run-dir cos --checkpoint cos.pt >/dev/null 2>&1 ||
  fail "the cosine run failed"
"$TRAIN" --config cos/config.toml --resume cos.pt --epochs 4 --batch-size 50 >cos.out 2>cos.err ||
  { cat cos.err; fail "resuming the cosine run with another --batch-size failed"; }
grep -q "resume: an epoch is 8 steps now, not 100 as before: the schedule goes on from the end of epoch 2" cos.err ||
  { cat cos.err; fail "the new pace is not said"; }
python3 - cos/metrics.csv <<'PY' || fail "epoch 3's learning rate is not the cosine's at 3 of 4 epochs"
import csv, math, sys
rows = {r["epoch"]: r for r in csv.DictReader(open(sys.argv[1]))}
# The rate of epoch 3's last step: step 23 of 32 (8 an epoch).
lr3, want = float(rows["3"]["lr"]), 0.01 * (1 + math.cos(math.pi * 23 / 32)) / 2
print(f"epoch 3 lr {lr3:.6g}, the cosine's {want:.6g}")
assert abs(lr3 - want) < 1e-3 * want, lr3
PY
pass "another steps per epoch on resume: the schedule goes on from the same epoch"
# Without --config, the options not given take their defaults: the warning
# names the file that keeps the run's.
"$TRAIN" --data data --device cpu --threads 1 --resume cos.pt --epochs 5 --train-limit 400 \
  --batch-size 50 --run-dir cos5 >cos5.out 2>cos5.err || { cat cos5.err; fail "resuming without --config failed"; }
grep -q "settings changed since it was written: .*--schedule cosine -> .* (options not given take their defaults: --config .*/cos/config.toml keeps the run's)" cos5.err ||
  { cat cos5.err; fail "resumed without --config, the warning does not name the run's config.toml"; }
pass "resumed without --config: the warning names the run's config.toml"

# The same settings (the run's config.toml) resume without a word of change.
cp mid.keep again.pt
"$TRAIN" --config mid.toml --resume again.pt --checkpoint again.pt --run-dir again >same.out 2>same.err ||
  { cat same.err; fail "resuming with the saved settings failed"; }
! grep -q "settings changed" same.err || { cat same.err; fail "unchanged settings reported as changed"; }
pass "the saved settings resume silently"

# The resumed run's own folder, deleted (here with --config naming it): made
# again, and said, as its history starts there at the checkpoint's epoch.
"$TRAIN" --data data --device cpu --threads 1 --train-limit 200 --epochs 1 --run-dir gone \
  --checkpoint gone.pt >/dev/null 2>&1 || fail "the run to delete failed"
cp gone/config.toml gone.toml && rm -r gone
"$TRAIN" --config gone.toml --resume gone.pt --epochs 2 >gone.out 2>gone.err ||
  { cat gone.err; fail "resuming into the deleted folder failed"; }
grep -q "warning: the resumed run's folder .*gone is gone: made again, its metrics.csv and TensorBoard history start at epoch 2" gone.err ||
  { cat gone.err; fail "the deleted run folder was made again without a word"; }
[[ $(cut -d, -f1 gone/metrics.csv | xargs) == "epoch 2" ]] || fail "gone/metrics.csv: $(cat gone/metrics.csv)"
pass "the resumed run's deleted folder is made again, and said"
