#!/usr/bin/env bash
# gpu_data.sh (ctest gpu_kit.data): the whole data set's way to the GPU
# machine (scripts/gpu/data_pack.py) and the kit's data step
# (scripts/gpu/check_steps.sh data), on a small made set in CIFAR-10's
# binary layout:
# - packed into several parts and unpacked, every file comes back byte for
#   byte; a part missing or damaged is named and nothing is unpacked;
#   `current` tells parts made from these files from parts of other files;
# - the data step unpacks the parts when they are there, and otherwise
#   refuses the kit's subset unless asked (SUBSET=1, check.sh --subset):
#   no figure on fewer images than the whole set without a word;
# - the reference step (the published airbench94) converts and checks its
#   data, imports the kit's airbench, and without CUDA skips its run (77).
#
#   tests/gpu_data.sh SOURCE_DIR     (exit 77: no Python with torch here)
set -uo pipefail
source_dir="$1"
source "$source_dir/scripts/gpu/kit_lib.bash"
PYTHON=$(kit_python 2>/dev/null) || exit 77
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
pack() { "$PYTHON" "$source_dir/scripts/gpu/data_pack.py" "$@"; }

# A made set: 6 files of 60 records (label, then 3 x 32 x 32 smooth pixels).
mkdir -p "$tmp/data"
"$PYTHON" - "$tmp/data" <<'PY'
import sys, torch
torch.manual_seed(0)
names = [f"data_batch_{i}.bin" for i in range(1, 6)] + ["test_batch.bin"]
for i, name in enumerate(names):
    n = 60
    labels = torch.randint(0, 10, (n, 1), dtype=torch.uint8)
    base = torch.rand(n, 3, 4, 4) * 255
    images = torch.nn.functional.interpolate(base, size=32, mode="bilinear")
    images = (images + torch.randn(n, 3, 32, 32) * 8).clamp(0, 255).to(torch.uint8)
    data = torch.cat([labels, images.view(n, -1)], dim=1).contiguous()
    open(f"{sys.argv[1]}/{name}", "wb").write(bytes(data.flatten().tolist()))
PY

# Packed in parts of 40 KiB: several parts, and each file back byte for byte.
pack pack "$tmp/data" "$tmp/parts" --part-mib 0.04 || fail "pack"
n_parts=$(ls "$tmp/parts"/cifar10.xz.part-* | wc -l)
((n_parts >= 3)) || fail "expected several parts, got $n_parts"
pack unpack "$tmp/parts" "$tmp/out" || fail "unpack"
for f in "$tmp/data"/*.bin; do
  cmp "$f" "$tmp/out/$(basename "$f")" || fail "$(basename "$f") differs after the round trip"
done
pack current "$tmp/data" "$tmp/parts" || fail "current: parts of these files not recognised"

# A part missing: named, nothing unpacked.
mv "$tmp/parts/cifar10.xz.part-2" "$tmp/part-2"
out=$(pack unpack "$tmp/parts" "$tmp/out2" 2>&1) && fail "unpack without part 2 succeeded"
[[ "$out" == *"cifar10.xz.part-2"* && ! -e "$tmp/out2/test_batch.bin" ]] ||
  fail "a missing part is not named, or files were written: $out"
[[ "$(pack missing "$tmp/parts")" == cifar10.xz.part-2 ]] || fail "missing does not list part 2"
pack current "$tmp/data" "$tmp/parts" && fail "current with a part missing"
mv "$tmp/part-2" "$tmp/parts/cifar10.xz.part-2"

# A part damaged: named.
cp "$tmp/parts/cifar10.xz.part-1" "$tmp/part-1"
printf 'x' | dd of="$tmp/parts/cifar10.xz.part-1" bs=1 seek=100 conv=notrunc 2>/dev/null
out=$(pack unpack "$tmp/parts" "$tmp/out3" 2>&1) && fail "unpack of a damaged part succeeded"
[[ "$out" == *"cifar10.xz.part-1 is damaged"* ]] || fail "a damaged part is not named: $out"
cp "$tmp/part-1" "$tmp/parts/cifar10.xz.part-1"

# Other files than the packed ones: not current.
printf 'y' | dd of="$tmp/data/test_batch.bin" bs=1 seek=7 conv=notrunc 2>/dev/null
pack current "$tmp/data" "$tmp/parts" && fail "current after the data changed"

# The data step: a kit with a subset, and a repository with or without the parts.
mkdir -p "$tmp/kit/data" "$tmp/repo/scripts" "$tmp/subset"
ln -s "$source_dir/scripts/gpu" "$tmp/repo/scripts/gpu"
head -c $((20 * 3073)) "$tmp/data/data_batch_1.bin" >"$tmp/subset/train.bin"
head -c $((10 * 3073)) "$tmp/data/test_batch.bin" >"$tmp/subset/test.bin"
tar -C "$tmp/subset" -cJf "$tmp/kit/data/cifar10-subset.tar.xz" train.bin test.bin
printf 'KIT_TRAIN_IMAGES=20\nKIT_TEST_IMAGES=10\n' >"$tmp/kit/kit.env"
step() {  # step DATA_DIR [VAR=VALUE...]: check_steps.sh data, its output in $tmp/step.txt
  local data="$1"
  shift
  env -u CIFAR10_DIR KIT="$tmp/kit" WORK="$tmp" DEVICE=cpu MODE=gpu PYTHON="$PYTHON" \
    DATA="$data" REPO="$tmp/repo" "$@" bash "$source_dir/scripts/gpu/check_steps.sh" data \
    >"$tmp/step.txt" 2>&1
}
step "$tmp/d1" SUBSET=0 && fail "the subset was taken without --subset: $(cat "$tmp/step.txt")"
grep -q "^refused: the kit holds 20 real training images" "$tmp/step.txt" ||
  fail "the refusal does not say why: $(cat "$tmp/step.txt")"
[[ ! -e "$tmp/d1/data_batch_1.bin" ]] || fail "refused, yet data was written"
step "$tmp/d2" SUBSET=1 || fail "--subset: $(cat "$tmp/step.txt")"
grep -q "^data: the subset (--subset): 20 real training images" "$tmp/step.txt" ||
  fail "the subset is not said: $(cat "$tmp/step.txt")"
cp -r "$tmp/parts" "$tmp/repo/.gpu-data"
step "$tmp/d3" SUBSET=0 || fail "the parts: $(cat "$tmp/step.txt")"
grep -q "^data: 300 training and 60 test images (the whole set)" "$tmp/step.txt" ||
  fail "the whole set is not said: $(cat "$tmp/step.txt")"
cmp "$tmp/out/data_batch_5.bin" "$tmp/d3/data_batch_5.bin" || fail "the step's files differ"
rm "$tmp/repo/.gpu-data/cifar10.xz.part-3"
step "$tmp/d4" SUBSET=1 && fail "a part missing, yet the step passed"
grep -q "cifar10.xz.part-3" "$tmp/step.txt" || fail "the missing part is not named"
# The reference step without CUDA: airbench's data converted and checked, the
# kit's airbench imported, the run skipped (77) with its reason.
mkdir -p "$tmp/kit/reference"
airbench=$("$PYTHON" -c 'import airbench, os; print(os.path.dirname(airbench.__file__))') ||
  fail "no airbench in $PYTHON's environment: run scripts/setup.sh"
ln -s "$airbench" "$tmp/kit/reference/airbench"
env KIT="$tmp/kit" WORK="$tmp" DEVICE=cpu MODE=cpu PYTHON="$PYTHON" DATA="$tmp/d3" \
  REPO="$tmp/repo" bash "$source_dir/scripts/gpu/check_steps.sh" reference >"$tmp/step.txt" 2>&1
rc=$?
((rc == 77)) || fail "the reference step without CUDA: exit $rc, not 77: $(cat "$tmp/step.txt")"
grep -q "runs on CUDA only" "$tmp/skip-reference.txt" || fail "no reason for the skip"
grep -q "reference data: .*train.pt, 300 images, checked" "$tmp/step.txt" ||
  fail "the reference's data is not converted: $(cat "$tmp/step.txt")"
echo "ok: $n_parts parts round-trip; missing, damaged and stale parts named; the subset refused unless asked; the reference data converted, its run skipped without CUDA"
