#!/usr/bin/env bash
# Errors name their cause (issue 30, item 7): --init-weights with an
# imagenet-stem ResNet-18 takes the stem from the file's metadata (the
# default --stem cifar overrode it and the load failed on a shape), and a
# --stem that does not fit the file says so; cifar-export into a missing
# folder names --out (it said "choose a writable --checkpoint or
# --run-dir", options it does not have); a weights file whose empty tensor
# has sizes that overflow LibTorch's strides names the file and the tensor
# (it ended with LibTorch's "Stride calculation overflowed").
source "$(dirname "$0")/lib/common.bash"
EXPORT=$(cd "$(dirname "$TRAIN")" && pwd)/cifar-export
make_fake_data data
ok=(--data data --device cpu --train-limit 64 --test-limit 64 --epochs 1 --batch-size 32 -q)

# --- the stem of --init-weights --------------------------------------------------
expect 0 "" -- "$TRAIN" "${ok[@]}" --model resnet18 --stem imagenet --run-dir r18 --checkpoint r18.pt
expect 0 "" -- "$TRAIN" "${ok[@]}" --init-weights r18/model.safetensors --run-dir from-meta \
  --checkpoint from-meta.pt
grep -q '^stem = "imagenet"' from-meta/config.toml || fail "the run did not take the file's stem"
pass "--init-weights takes the imagenet stem from the file's metadata"
expect 1 "the file is a resnet18 with the imagenet stem \(its metadata says imagenet\), and --stem cifar was given: pass --stem imagenet or leave --stem out" -- \
  "$TRAIN" "${ok[@]}" --init-weights r18/model.safetensors --stem cifar --run-dir given \
  --checkpoint given.pt

# --- --mean and --std with --init-weights ---------------------------------------
# Over what the file records (a torchvision .pth records nothing), said in a
# warning; recorded in the run's weights; refused without --init-weights.
out=$("$TRAIN" "${ok[@]}" --init-weights r18/model.safetensors --mean 0.5,0.5,0.5 \
  --std 0.25,0.25,0.25 --run-dir normed --checkpoint normed.pt 2>&1) || fail "the run failed: $out"
grep -q "warning: .*--mean 0.5,0.5,0.5 --std 0.25,0.25,0.25 given, over what" <<<"$out" ||
  fail "no warning that --mean/--std override the file's: $out"
python3 - normed/model.safetensors <<'PY' || fail "the run's weights do not record --mean/--std"
import json, struct, sys
with open(sys.argv[1], "rb") as f:
    meta = json.loads(f.read(struct.unpack("<Q", f.read(8))[0]))["__metadata__"]
assert json.loads(meta["mean"]) == [0.5] * 3 and json.loads(meta["std"]) == [0.25] * 3, meta
PY
pass "--init-weights with --mean and --std: the run normalises and records them"
# config.toml names the weights and normalisation the run started from, so
# that --config repeats it; a resume goes on from its checkpoint's weights.
grep -qx "init-weights = \"$PWD/r18/model.safetensors\"" normed/config.toml &&
  grep -qx 'mean = "0.5,0.5,0.5"' normed/config.toml ||
  fail "config.toml does not name --init-weights and --mean: $(cat normed/config.toml)"
expect 0 "" -- "$TRAIN" --config normed/config.toml --run-dir again --checkpoint again.pt -q
cmp <(grep -v -e "^run-dir" -e "^checkpoint" normed/config.toml) \
  <(grep -v -e "^run-dir" -e "^checkpoint" again/config.toml) ||
  fail "the repeat's settings differ: $(diff normed/config.toml again/config.toml)"
python3 - again/model.safetensors <<'PY' || fail "the repeat did not start from the weights"
import json, struct, sys
with open(sys.argv[1], "rb") as f:
    meta = json.loads(f.read(struct.unpack("<Q", f.read(8))[0]))["__metadata__"]
assert json.loads(meta["mean"]) == [0.5] * 3 and meta["model"] == "resnet18", meta
PY
expect 0 "" -- "$TRAIN" --config normed/config.toml --resume normed.pt --epochs 2 -q
expect 0 "" -- "$TRAIN" "${ok[@]}" --resume normed.pt --epochs 3
pass "--config RUN/config.toml repeats an --init-weights run, and resumes it"
expect 2 "--init-weights chooses the weights a run starts from, but --resume normed.pt goes on from its checkpoint's, of a run started from $PWD/r18/model.safetensors: drop --init-weights" -- \
  "$TRAIN" "${ok[@]}" --resume normed.pt --init-weights from-meta/model.safetensors --epochs 4
expect 2 "whose settings name no --init-weights: drop --init-weights \(or drop --resume to start a new run from r18/model.safetensors\)" -- \
  "$TRAIN" "${ok[@]}" --resume r18.pt --init-weights r18/model.safetensors --epochs 2
expect 2 "--mean and --std say how an --init-weights file's weights normalise their images" -- \
  "$TRAIN" "${ok[@]}" --mean 0.5,0.5,0.5 --std 0.25,0.25,0.25
expect 2 "--mean and --std go together: give --std too" -- \
  "$TRAIN" "${ok[@]}" --init-weights r18/model.safetensors --mean 0.5,0.5,0.5

# --- cifar-export into a folder that does not exist ------------------------------
expect 0 "" -- "$TRAIN" "${ok[@]}" --run-dir net --checkpoint net.pt
out=$("$EXPORT" --checkpoint net.pt --out nowhere/net.safetensors 2>&1)
status=$?
[[ $status -eq 1 ]] || fail "cifar-export into a missing folder exited $status: $out"
grep -q "cannot write nowhere/net.safetensors: .*(its folder nowhere does not exist); choose a writable --out" <<<"$out" ||
  fail "cifar-export's message does not name the folder and --out: $out"
! grep -q -- "--run-dir" <<<"$out" || fail "cifar-export names --run-dir, which it does not have: $out"
[[ ! -e nowhere ]] || fail "cifar-export made the folder"
pass "cifar-export into a missing folder: $out"

# --- an empty tensor whose sizes overflow ------------------------------------------
python3 - huge.safetensors <<'PY'
import json, struct, sys
header = json.dumps({"fc.weight": {"dtype": "F32", "shape": [0, 1 << 40, 1 << 40],
                                   "data_offsets": [0, 0]}}).encode()
open(sys.argv[1], "wb").write(struct.pack("<Q", len(header)) + header)
PY
expect 1 "huge.safetensors.*entry 'fc.weight' has a shape too large to hold" -- \
  "$EVAL" --weights huge.safetensors --model net --data data
