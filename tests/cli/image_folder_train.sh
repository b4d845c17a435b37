#!/usr/bin/env bash
# Image folders through the tools (issue 29): detected from train/, trained
# with the folder's classes and measured normalisation, evaluated and
# exported; the second run reads the decoded cache; a model evaluated on a
# folder whose classes differ is refused naming both; no test/ trains with
# --val-split and is refused without it; cifar-eval on a folder that is not
# there names the folder the model was trained on.
source "$(dirname "$0")/lib/common.bash"
BIN=$(cd "$(dirname "$TRAIN")" && pwd)
EXPORT=$BIN/cifar-export

write_folder pets cat,dog,emu train,test

"$TRAIN" --data pets --device cpu --epochs 2 --batch-size 20 --lr 0.05 --run-dir run \
  --checkpoint pets.pt >train.out 2>train.err || { cat train.err; fail "training on an image folder failed"; }
grep -q "pets (folder, 3 classes: 120 training, 0 validation, 30 test images)" train.err ||
  { cat train.err; fail "the log does not say the folder's data set"; }
grep -Eq "^Accuracy for class: emu +is [0-9.]+ %$" train.out || { cat train.out; fail "no per-class line for emu"; }
grep -q "no --config or --model: the folder trains on the tutorial's defaults; for photos, --config /.*/configs/photos.toml" train.err ||
  { cat train.err; fail "a folder trained on the bare defaults does not name the photo configs"; }
pass "cifar-train on an image folder: 3 classes from its folder names; the photo configs named"

"$TRAIN" --data pets --device cpu --epochs 1 --batch-size 20 --run-dir run2 --checkpoint p2.pt >/dev/null 2>again.err ||
  fail "the second run failed"
grep -q "read from the cache" again.err || { cat again.err; fail "the second run decoded the images again"; }
pass "the second run reads the decoded images from the cache"

expect 0 "Accuracy of the network on the 30 test images" -- "$EVAL" --checkpoint pets.pt --data pets --device cpu
# A --data that is not there (as CIFAR-10's default folder may not be): the
# error names the folder the model was trained on.
expect 1 "data folder nowhere does not exist: pets.pt was trained on the image folder /.*/pets, so evaluate it there with --data /.*/pets, or give --data any folder" -- \
  "$EVAL" --checkpoint pets.pt --data nowhere --device cpu
"$EXPORT" --checkpoint pets.pt --out pets.safetensors 2>/dev/null || fail "cifar-export failed"
python3 - pets.safetensors <<'PY' || fail "the weights' metadata does not carry the folder's data set"
import json, struct, sys
raw = open(sys.argv[1], "rb").read()
meta = json.loads(raw[8:8 + struct.unpack("<Q", raw[:8])[0]])["__metadata__"]
assert meta["dataset"] == "folder" and json.loads(meta["classes"]) == ["cat", "dog", "emu"], meta
assert json.loads(meta["mean"]) != [0.4914, 0.4822, 0.4465], meta  # measured, not CIFAR-10's
PY
pass "cifar-eval and cifar-export: the folder's classes and measured normalisation"

write_folder zoo cat,dog,gnu train,test
expect 1 "checkpoint pets.pt was trained on 3 classes \(cat, dog, emu\), but zoo \(folder\) holds 3 classes \(cat, dog, gnu\): class 2 is 'emu' in one and 'gnu'" -- \
  "$EVAL" --checkpoint pets.pt --data zoo --device cpu
# Training from those weights on other classes, as many: a new head, said
# (was refused, with no way to ask for one: "use the data it was trained on").
"$TRAIN" --data zoo --device cpu --epochs 1 --batch-size 20 --init-weights pets.safetensors \
  --run-dir run-zoo --checkpoint zoo.pt >zoo.out 2>&1 || { cat zoo.out; fail "--init-weights on other classes failed"; }
grep -qF "warning: --init-weights pets.safetensors: its head (fc3) was trained on 3 classes (cat, dog, emu), the data holds others (cat, dog, gnu): the body is loaded, and a new 3-class head starts from --seed 0" zoo.out ||
  { cat zoo.out; fail "the new head for other classes is not said"; }
"$TRAIN" --data pets --device cpu --epochs 1 --batch-size 20 --init-weights pets.safetensors \
  --run-dir run-same --checkpoint same.pt >same.out 2>&1 || { cat same.out; fail "--init-weights on its own classes failed"; }
grep -q "new .*head" same.out && { cat same.out; fail "the same classes got a new head"; }
pass "--init-weights naming other classes than the data's (as many): a new head, with a warning"

write_folder notest cat,dog train
"$TRAIN" --data notest --device cpu --epochs 1 --batch-size 20 --val-split 20 --run-dir run3 \
  --checkpoint n.pt >notest.out 2>&1 || { cat notest.out; fail "no test/ with --val-split failed"; }
for line in "notest (folder, 2 classes: 60 training, 20 validation, 0 test images)" \
  "notest has no test images: each epoch is judged on the 20 validation images only" \
  "No test images: the data has no test split"; do
  grep -qF "$line" notest.out || { cat notest.out; fail "no test/: the output lacks '$line'"; }
done
pass "no test/ trains with --val-split, and says there are no test images"
expect 1 "notest has no test/ folder.*--val-split N" -- \
  "$TRAIN" --data notest --device cpu --epochs 1 --run-dir run4 --checkpoint n4.pt
