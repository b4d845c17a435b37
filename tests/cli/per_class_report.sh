#!/usr/bin/env bash
# cifar-train ends with the tutorial's per-class lines; cifar-eval prints the
# table and the confusion matrix, or one JSON object with --json.
source "$(dirname "$0")/lib/common.bash"
make_fake_data data
"$TRAIN" --data data --device cpu --epochs 1 --batch-size 50 --lr 0.01 --train-limit 2000 \
  --run-dir run --checkpoint m.pt -q >train.out || fail "training failed"
grep -Eq '^Accuracy of the network on the 10000 test images: [0-9.]+ %$' train.out || fail "no overall line"
[[ $(grep -Ec '^Accuracy for class: [a-z]+ +is [0-9.]+ %$' train.out) -eq 10 ]] || fail "not ten class lines"
pass "cifar-train prints the overall and ten per-class lines"
"$EVAL" --checkpoint m.pt --data data --device cpu >eval.out 2>/dev/null || fail "cifar-eval failed"
grep -q '^Confusion matrix' eval.out || fail "no confusion matrix"
[[ $(grep -Ec '^[0-9] (airplane|automobile|bird|cat|deer|dog|frog|horse|ship|truck)( +[0-9]+){10}$' eval.out) -eq 10 ]] \
  || fail "confusion matrix does not have ten rows of ten counts"
grep -Eq '^ +0 +1 +2 +3 +4 +5 +6 +7 +8 +9$' eval.out || fail "confusion matrix has no column numbers"
awk 'length > 80 {exit 1}' eval.out || fail "the confusion matrix is wider than 80 columns"
pass "cifar-eval prints the confusion matrix"
"$EVAL" --checkpoint m.pt --data data --device cpu --json >eval.json 2>/dev/null || fail "cifar-eval --json failed"
python3 - eval.json <<'PY' || fail "bad JSON report"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["model"] == "net" and r["device"] == "cpu" and r["total"] == 10000, r
assert 0 <= r["accuracy"] <= 1 and r["correct"] == round(r["accuracy"] * 10000)
assert sorted(r["per_class"]) == sorted(["airplane", "automobile", "bird", "cat", "deer", "dog", "frog", "horse", "ship", "truck"])
assert all(0 <= v <= 1 for v in r["per_class"].values())
PY
pass "cifar-eval --json is one well-formed object"
