#!/usr/bin/env bash
# cifar-eval --split val of a run that held validation images out of its
# training split (cifar-train --val-split N): the same N images, chosen
# again from the checkpoint's settings, give the run's last validation loss
# and accuracy, of an image folder (photos prepared by random resized crops
# for training) and of CIFAR's files (with --train-limit); a training split
# that changed since is refused, as is --split val of CIFAR's files for a
# run that held none out; --split train of such a run says it is the whole
# split, not what the run trained on.
source "$(dirname "$0")/lib/common.bash"

# last_val METRICS: "loss accuracy" of the last row of a run's metrics.csv.
last_val() { tail -1 "$1" | awk -F, '{printf "%.4f %.4f\n", $11, $12}'; }
# eval_val JSON: the same figures of cifar-eval --json.
eval_val() {
  python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(f\"{j['loss']:.4f} {j['accuracy']:.4f}\")" "$1"
}

write_folder pets cat,dog,emu train 60 48
"$TRAIN" --data pets --model net --amp off --crop-mode center --crop-scale 0.25 --val-split 45 \
  --seed 3 --epochs 3 --batch-size 16 --lr 0.01 --device cpu --threads 2 --run-dir run \
  --checkpoint pets.pt >/dev/null 2>train.err || { cat train.err; fail "training with --val-split failed"; }
"$EVAL" --checkpoint pets.pt --data pets --split val --device cpu --json >val.json 2>eval.err ||
  { cat eval.err; fail "cifar-eval --split val of a --val-split run failed"; }
grep -q "validation split: the 45 images the run held out of pets's training split (--val-split 45, --seed 3)" eval.err ||
  { cat eval.err; fail "the log does not say which images are evaluated"; }
[[ $(eval_val val.json) == "$(last_val run/metrics.csv)" ]] ||
  fail "cifar-eval --split val gave $(eval_val val.json), the run's last epoch $(last_val run/metrics.csv)"
[[ $(json_field val.json total) -eq 45 && $(json_field val.json split) == val ]] || fail "evaluated $(json_field val.json total) images of split $(json_field val.json split), not 45 of val"
pass "an image folder's held-out images evaluated again: $(eval_val val.json), as the run's last epoch"

# --split train is the whole split: said, since the run trained on less of it.
expect 0 "warning: --split train evaluates all of pets's training split, but the run of checkpoint pets.pt trained on 135 of its images and held 45 out for validation \(cifar-train --val-split 45\): --split val evaluates those alone" -- \
  "$EVAL" --checkpoint pets.pt --data pets --split train --device cpu

cp pets/train/cat/000.png pets/train/cat/new.png
expect 1 "pets's training split now holds 181 images, but the run of checkpoint pets.pt held 45 out of 180: .*drop --split" -- \
  "$EVAL" --checkpoint pets.pt --data pets --split val --device cpu
pass "a training split that changed since the run is refused"

make_fake_data bin
"$TRAIN" --data bin --train-limit 500 --test-limit 100 --val-split 200 --seed 5 --epochs 1 \
  --batch-size 50 --lr 0.05 --device cpu --threads 2 --run-dir runc --checkpoint c.pt \
  >/dev/null 2>trainc.err || { cat trainc.err; fail "training CIFAR-10 with --val-split failed"; }
"$EVAL" --checkpoint c.pt --data bin --split val --device cpu --json >valc.json 2>evalc.err ||
  { cat evalc.err; fail "cifar-eval --split val of CIFAR-10 failed"; }
[[ $(eval_val valc.json) == "$(last_val runc/metrics.csv)" ]] ||
  fail "CIFAR-10 --split val gave $(eval_val valc.json), the run's $(last_val runc/metrics.csv)"
pass "CIFAR-10's held-out images evaluated again: $(eval_val valc.json), as the run's"
expect 0 "warning: --split train evaluates all of bin's training split, but the run of checkpoint c.pt trained on 500 of its images \(cifar-train --train-limit 500\) and held 200 out" -- \
  "$EVAL" --checkpoint c.pt --data bin --split train --device cpu

"$TRAIN" --data bin --train-limit 500 --test-limit 100 --epochs 1 --batch-size 50 --device cpu \
  --threads 2 --run-dir run0 --checkpoint none.pt >/dev/null 2>&1 || fail "training without --val-split failed"
expect 2 "bin \(cifar10\) has no validation split of its own.*--val-split N\), and the run of checkpoint none.pt held none out" -- \
  "$EVAL" --checkpoint none.pt --data bin --split val --device cpu
pass "--split val of a run that held none out is refused"
