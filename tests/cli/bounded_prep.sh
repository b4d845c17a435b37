#!/usr/bin/env bash
# Memory bounded by the output, not by the input's shape (issue 47, class
# 1): images of extreme aspect ratio, far under the pixel cap (a 664-byte
# PNG of 1 x 200,000 pixels made cifar-predict resize it to 36 x 7,200,000
# floats, 4 GB, for a 32 x 32 centre), go through every preparation path
# under an address-space cap: cifar-predict on files and on a folder (centre
# crop and squash), cifar-eval on a folder of classes, and cifar-train on an
# image folder (evaluation crops, whole images kept at 2N for random resized
# crops, images prepared without augmentation; the cache written and read).
# Each runs within the cap and a time limit, or is refused with a message
# naming the file; none of these shapes needs refusing.
source "$(dirname "$0")/lib/common.bash"
BIN=$(cd "$(dirname "$TRAIN")" && pwd)
PREDICT=$BIN/cifar-predict

# The tools map about 2.6 GB of libraries (LibTorch's CUDA ones among them):
# the cap leaves about 0.9 GB for the work itself.
CAP_KB=3500000
capped() { timeout 120 bash -c "ulimit -v $CAP_KB && exec \"\$@\"" capped "$@"; }

python3 - <<'PY'
import os, struct, zlib
def png(path, w, h, seed):
    row = bytes((seed * 37 + x * 11) % 256 for x in range(3 * w))
    data = zlib.compress(b"".join(b"\0" + row for _ in range(h)), 9)
    chunk = lambda t, d: struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))
    open(path, "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)) +
                           chunk(b"IDAT", data) + chunk(b"IEND", b""))
shapes = {"w1x200000": (200000, 1), "t200000x1": (1, 200000), "w2x100000": (100000, 2),
          "t100000x2": (2, 100000), "w1x4000000": (4000000, 1)}
os.makedirs("odd", exist_ok=True)
for i, (name, (w, h)) in enumerate(shapes.items()):
    png(f"odd/{name}.png", w, h, i)
for split in ("train", "val"):
    for c, cls in enumerate(("a", "b")):
        os.makedirs(f"photos/{split}/{cls}", exist_ok=True)
        for i in range(4):
            png(f"photos/{split}/{cls}/n{i}.png", 40 + i, 30, 60 * c + i)
        for i, (name, (w, h)) in enumerate(shapes.items()):
            if i % 2 == c:
                png(f"photos/{split}/{cls}/{name}.png", w, h, i)
PY
odd=(odd/*.png)

# ok_or_named WHAT STATUS OUTPUT: the run worked, or was refused naming an
# extreme file (never killed by the cap or the clock, never a raw error).
ok_or_named() {
  local what=$1 status=$2 out=$3
  if [[ $status -ne 0 ]]; then
    echo "$out" | tail -15 >&2
    [[ $status -ne 124 ]] || fail "$what: still running after 120 s"
    grep -Eq 'w1x200000|t200000x1|w2x100000|t100000x2|w1x4000000' <<<"$out" && ! grep -qi "out of memory" <<<"$out" ||
      fail "$what exited $status under a ${CAP_KB} KB address space, naming no file"
    pass "$what: refused naming the file"
    return
  fi
  if grep -Eq 'Exception raised from|terminate called|Segmentation' <<<"$out"; then
    echo "$out" | tail -15 >&2
    fail "$what printed a raw error"
  fi
  pass "$what: within ${CAP_KB} KB"
}

# Models to predict with: centre crop (an image folder's default) and squash.
for mode in center squash; do
  "$TRAIN" --data photos --model net --device cpu --threads 2 --epochs 1 --batch-size 4 --crop-mode "$mode" \
    --train-limit 8 --test-limit 8 --checkpoint "$mode.pt" --run-dir "run-$mode" -q >/dev/null 2>"$mode.err" ||
    { cat "$mode.err"; fail "training the $mode model on ordinary images failed"; }
done

for mode in center squash; do
  for file in "${odd[@]}"; do
    out=$(capped "$PREDICT" --checkpoint "$mode.pt" "$file" 2>&1)
    ok_or_named "cifar-predict ($mode) $file" $? "$out"
    [[ $out == *"$(basename "$file")"* ]] || fail "cifar-predict ($mode) $file: no line for it: $out"
  done
  out=$(capped "$PREDICT" --checkpoint "$mode.pt" --csv "$mode.csv" odd 2>&1)
  ok_or_named "cifar-predict ($mode) on the folder" $? "$out"
  out=$(capped "$EVAL" --checkpoint "$mode.pt" --data photos/val --device cpu --threads 2 2>&1)
  ok_or_named "cifar-eval ($mode) on a folder of classes" $? "$out"
done
[[ $(grep -c '\.png' center.csv) -eq 5 ]] || { cat center.csv; fail "the CSV has no row for each of the 5 images"; }

# cifar-train on the folder: every split read whole (no limit), so the cache
# is written, then read; with and without augmentation, either crop mode.
for run in "--augment --crop-mode center" "--augment --crop-mode squash" "--crop-mode center" "--augment --crop-mode center"; do
  # shellcheck disable=SC2086
  out=$(capped "$TRAIN" --data photos --model net --device cpu --threads 2 --epochs 1 --batch-size 4 $run \
    --checkpoint t.pt --run-dir "run-t$RANDOM" 2>&1)
  ok_or_named "cifar-train $run" $? "$out"
done
grep -q "read from the cache" <<<"$out" || { echo "$out" | tail; fail "the last training run did not read the cache"; }
