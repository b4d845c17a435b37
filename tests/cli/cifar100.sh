#!/usr/bin/env bash
# CIFAR-100 end to end on small files in the official binary layout (no copy
# of CIFAR-100 is on the project machines): detected from the folder, trained
# with 100 fine or 20 coarse classes, reported with top-5 and the best and
# worst classes, evaluated, exported with its data set, classes and
# normalisation, and predicted with the checkpoint's names; a model evaluated
# on data whose classes differ, and a folder holding two data sets, are refused.
source "$(dirname "$0")/lib/common.bash"
BIN=$(cd "$(dirname "$TRAIN")" && pwd)
PREDICT=$BIN/cifar-predict
EXPORT=$BIN/cifar-export

# train.bin 2,000 records, test.bin 500; the fine label is written into the
# image (a bright row at its position), the coarse label is fine % 20.
mkdir c100
python3 - c100 <<'PY'
import random, sys
d = sys.argv[1]
random.seed(1)
def records(n):
    out = bytearray()
    for i in range(n):
        fine = i % 100
        img = bytearray(random.randbytes(3072).translate(bytes(v % 50 for v in range(256))))
        for c in range(3):
            row = c * 1024 + (fine % 32) * 32
            img[row:row + 32] = bytes([200 + fine // 32 * 10]) * 32
        out += bytes([fine % 20, fine]) + img
    return out
open(f"{d}/train.bin", "wb").write(records(2000))
open(f"{d}/test.bin", "wb").write(records(500))
open(f"{d}/fine_label_names.txt", "w").write("".join(f"fine{i:02d}\n" for i in range(100)))
open(f"{d}/coarse_label_names.txt", "w").write("".join(f"coarse{i:02d}\n" for i in range(20)))
PY
make_fake_data c10

"$TRAIN" --data c100 --device cpu --epochs 1 --batch-size 50 --lr 0.05 --run-dir run \
  --checkpoint m.pt >train.out 2>train.err || { cat train.err; fail "training on CIFAR-100 failed"; }
grep -q "cifar100, 100 classes: 2000 training" train.err || { cat train.err; fail "the log does not say the data set"; }
grep -Eq '^Accuracy of the network on the 500 test images: top-1 [0-9.]+ %, top-5 [0-9.]+ %$' train.out ||
  { cat train.out; fail "no top-1 and top-5 line"; }
[[ $(grep -c '^  fine[0-9][0-9] ' train.out) -eq 10 ]] || { cat train.out; fail "not 5 best and 5 worst classes"; }
[[ $(wc -l <run/confusion.csv) -eq 101 ]] || fail "confusion.csv is not 100 rows and a header"
head -1 run/metrics.csv | grep -q ',test_top5_accuracy$' || fail "metrics.csv has no top-5 column"
[[ $(tail -1 run/metrics.csv | tr ',' '\n' | wc -l) -eq 13 ]] || fail "metrics.csv's row has no top-5 value"
pass "cifar-train on CIFAR-100: 100 classes, top-5, the best and worst classes, confusion.csv, metrics.csv"

"$EVAL" --checkpoint m.pt --data c100 --device cpu --json >eval.json 2>eval.err || { cat eval.err; fail "cifar-eval failed"; }
python3 - eval.json <<'PY' || fail "bad JSON report"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["total"] == 500 and len(r["per_class"]) == 100, r
assert 0 <= r["accuracy"] <= r["top5_accuracy"] <= 1, r
assert r["top5_correct"] >= r["correct"], r
PY
"$EVAL" --checkpoint m.pt --data c100 --device cpu >eval.out 2>/dev/null || fail "cifar-eval (tables) failed"
grep -q "top-5" eval.out || fail "cifar-eval does not print top-5"
awk 'length > 100 {exit 1}' eval.out || fail "cifar-eval's report is wider than 100 columns"
pass "cifar-eval on CIFAR-100: top-1, top-5 and 100 classes in --json"

expect 1 "checkpoint m.pt was trained on 100 classes \(fine00, fine01, .*but .*c10.* holds 10 classes \(airplane" -- \
  "$EVAL" --checkpoint m.pt --data c10 --device cpu
# --labels against the label set the model was trained on: refused naming
# both (issue 54: a coarse model's --labels fine was ignored without a word).
expect 2 "--labels coarse: m.pt was trained on CIFAR-100's fine labels \(100 classes\) and is evaluated on them: drop --labels" -- \
  "$EVAL" --checkpoint m.pt --data c100 --labels coarse --device cpu
expect 1 "--resume m.pt was trained on 100 classes.*holds 20 classes" -- \
  "$TRAIN" --data c100 --labels coarse --device cpu --epochs 2 --resume m.pt --run-dir run2 --checkpoint m2.pt

"$TRAIN" --config run/config.toml --epochs 2 --resume m.pt --checkpoint m2.pt >resumed.out 2>&1 ||
  { cat resumed.out; fail "--resume on CIFAR-100 failed"; }
[[ $(grep -c '^2,' run/metrics.csv) -eq 1 ]] || fail "the resumed run did not add epoch 2 to metrics.csv"
pass "--resume continues a CIFAR-100 run in its folder"

"$TRAIN" --data c100 --labels coarse --device cpu --epochs 1 --batch-size 50 --train-limit 500 \
  --run-dir runc --checkpoint coarse.pt -q >coarse.out 2>&1 || { cat coarse.out; fail "--labels coarse failed"; }
grep -q "top-5" coarse.out || fail "no top-5 with 20 classes"
# cifar-eval takes the label set from the checkpoint: no --labels needed.
"$EVAL" --checkpoint coarse.pt --data c100 --device cpu --json >coarse.json 2>coarse.err \
  || { cat coarse.err; fail "cifar-eval of a coarse-label checkpoint without --labels failed"; }
grep -q '"coarse00"' coarse.json || fail "cifar-eval did not evaluate on the coarse labels"
expect 2 "--labels fine: coarse.pt was trained on CIFAR-100's coarse labels \(20 classes\)" -- \
  "$EVAL" --checkpoint coarse.pt --data c100 --labels fine --device cpu
"$EVAL" --checkpoint coarse.pt --data c100 --labels coarse --device cpu --json >restated.json 2>restated.err ||
  { cat restated.err; fail "cifar-eval --labels coarse on a coarse checkpoint (restated) failed"; }
pass "--labels coarse trains on the 20 superclasses; cifar-eval takes them from the checkpoint, refuses --labels fine"

"$EXPORT" --checkpoint m.pt --out m.safetensors 2>/dev/null || fail "cifar-export failed"
python3 - m.safetensors <<'PY' || fail "the weights' metadata does not carry the data set"
import json, struct, sys
raw = open(sys.argv[1], "rb").read()
meta = json.loads(raw[8:8 + struct.unpack("<Q", raw[:8])[0]])["__metadata__"]
assert meta["dataset"] == "cifar100", meta
assert len(json.loads(meta["classes"])) == 100
assert json.loads(meta["mean"]) == [0.5071, 0.4865, 0.4409], meta["mean"]
assert json.loads(meta["std"]) == [0.2673, 0.2564, 0.2762], meta["std"]
PY
"$EVAL" --weights m.safetensors --data c100 --device cpu --json >w.json 2>/dev/null || fail "cifar-eval --weights failed"
cmp <(python3 -c "import json,sys; print(json.load(open('eval.json'))['correct'])") \
  <(python3 -c "import json,sys; print(json.load(open('w.json'))['correct'])") ||
  fail "the exported weights do not evaluate as the checkpoint"
pass "cifar-export carries the data set, its 100 classes and CIFAR-100's normalisation"

python3 - img.png <<'PY'
import struct, sys, zlib
def chunk(t, d): return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))
rows = b"".join(b"\0" + bytes([30, 30, 30] * 32) for _ in range(32))
open(sys.argv[1], "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 32, 32, 8, 2, 0, 0, 0)) +
                              chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))
PY
expect 0 "img.png: fine[0-9]+ [0-9.]+%" -- "$PREDICT" --checkpoint m.pt --top-k 3 img.png

cp -L c10/data_batch_1.bin c100/
expect 1 "holds files of more than one data set: cifar10 \(data_batch_1.bin\) and cifar100" -- \
  "$EVAL" --checkpoint m.pt --data c100 --device cpu
expect 0 "Accuracy of the network on the 500 test images" -- \
  "$EVAL" --checkpoint m.pt --data c100 --dataset cifar100 --device cpu
mkdir none && touch none/notes.txt
expect 1 "none holds no data set .*notes.txt.*cifar10 needs.*cifar100 needs.*folder needs" -- \
  "$TRAIN" --data none --device cpu
expect 2 "unknown --dataset 'imagenet'" -- "$TRAIN" --data c100 --dataset imagenet --device cpu
