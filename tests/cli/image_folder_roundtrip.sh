#!/usr/bin/env bash
# scripts/python/cifar_to_folder.py writes binary CIFAR files out as an image
# folder of PNGs, and the image-folder reader reads it back to exactly the
# binary files' images and labels (in the folder's order: by class, each
# class in the files' order), with the same class names:
#   - CIFAR-10: the first 1,500 training and 1,500 test images of the real data;
#     a second read comes from the cache and gives the same bytes;
#   - CIFAR-100 (fine and coarse labels): small train.bin/test.bin this test writes;
#   - a class name that cannot be a folder name is refused by the script.
source "$(dirname "$0")/lib/common.bash"
PY=${CIFAR_VENV_PYTHON:-}
DUMP=${CIFAR_IMAGE_FOLDER_DUMP:-}
TOOL=$SRC/scripts/python/cifar_to_folder.py
[[ -x "$DUMP" ]] || { echo "SKIPPED: CIFAR_IMAGE_FOLDER_DUMP (set by CMake) is not a program"; exit 77; }
if [[ -z "$PY" || ! -x "$PY" ]] || ! "$PY" -c 'import numpy' 2>/dev/null; then
  echo "SKIPPED: numpy is not importable by the project's Python ($PY); run scripts/setup.sh"
  exit 77
fi
need_real_data

# expected.py BIN_FILE RECORD LABEL_BYTE N OUT: the first N records of
# BIN_FILE as (label byte + pixels), stably sorted by label: the folder's order.
cat >expected.py <<'PY'
import sys
import numpy as np
path, record, label_byte, n, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
r = np.fromfile(path, np.uint8).reshape(-1, record)[:n]
labels = r[:, label_byte]
order = np.argsort(labels, kind="stable")
np.concatenate([labels[order, None], r[order, record - 3072:]], 1).tofile(out)
PY

# --- CIFAR-10, from the real files ---
"$PY" "$TOOL" "$REAL_DATA" f10 --limit 1500 >tool.log 2>&1 || { cat tool.log; fail "cifar_to_folder.py failed on CIFAR-10"; }
grep -q "CIFAR-10 train: 1500 images in 10 classes" tool.log || { cat tool.log; fail "no summary line"; }
for split in train test; do
  n=1500 file=data_batch_1.bin dir=f10
  [[ $split == test ]] && file=test_batch.bin
  "$DUMP" $dir $split got.bin >first.log 2>&1 || { cat first.log; fail "reading the $split folder"; }
  grep -q "decoding $n images" first.log || { cat first.log; fail "the first read did not decode"; }
  "$PY" expected.py "$REAL_DATA/$file" 3073 0 $n want.bin || fail "expected.py"
  cmp -s got.bin want.bin || fail "CIFAR-10 $split: the folder's images or labels differ from $file"
  diff <(tr -d '\r' <"$REAL_DATA/batches.meta.txt" | grep -v '^$') got.bin.names >/dev/null ||
    fail "CIFAR-10 $split: class names differ: $(tr '\n' ' ' <got.bin.names)"
  pass "CIFAR-10 $split: $n images and labels read back byte for byte"
  "$DUMP" $dir $split again.bin >second.log 2>&1 || { cat second.log; fail "second read"; }
  grep -q "$n images read from the cache" second.log || { cat second.log; fail "the second read did not use the cache"; }
  cmp -s got.bin again.bin || fail "CIFAR-10 $split: the cached read differs from the first"
  pass "CIFAR-10 $split: the second read comes from the cache, the same bytes"
done

# --- CIFAR-100, from files written here: 300 training, 120 test records ---
mkdir c100
"$PY" - c100 <<'PY' || fail "writing the CIFAR-100 files"
import sys
import numpy as np
d = sys.argv[1]
rng = np.random.default_rng(0)
for name, n in (("train", 300), ("test", 120)):
    fine = (np.arange(n) * 7) % 100
    r = np.concatenate([(fine % 20)[:, None], fine[:, None], rng.integers(0, 256, (n, 3072))], 1)
    r.astype(np.uint8).tofile(f"{d}/{name}.bin")
open(f"{d}/fine_label_names.txt", "w").write("".join(f"f{i:03d}\n" for i in range(100)))
open(f"{d}/coarse_label_names.txt", "w").write("".join(f"c{i:02d}\n" for i in range(20)))
PY
for labels in fine coarse; do
  "$PY" "$TOOL" c100 f100$labels --labels $labels >tool.log 2>&1 || { cat tool.log; fail "cifar_to_folder.py --labels $labels"; }
  byte=1 classes=100
  [[ $labels == coarse ]] && byte=0 classes=20
  for split in train test; do
    n=300; [[ $split == test ]] && n=120
    "$DUMP" f100$labels $split got.bin >dump.log 2>&1 || { cat dump.log; fail "reading CIFAR-100 $labels $split"; }
    "$PY" expected.py c100/$split.bin 3074 $byte $n want.bin || fail "expected.py"
    cmp -s got.bin want.bin || fail "CIFAR-100 $labels $split: images or labels differ"
    diff c100/${labels}_label_names.txt got.bin.names >/dev/null || fail "CIFAR-100 $labels: class names differ"
  done
  pass "CIFAR-100 --labels $labels: $classes classes, every image and label read back"
done

# --- a class name that cannot be a folder name ---
printf 'f%03d\n' $(seq 0 98) >c100/fine_label_names.txt
echo "a/b" >>c100/fine_label_names.txt
expect 1 "class name 'a/b' .*cannot be a folder name" -- "$PY" "$TOOL" c100 bad
# --- class names that do not sort in label order: the folder's indices would differ ---
printf 'f%03d\n' $(seq 99 -1 0) >c100/fine_label_names.txt
expect 1 "names do not sort in label order \('f099' is label 0, but sorts as 99\)" -- "$PY" "$TOOL" c100 bad
pass "the script refuses names that are no folder name, and names out of label order"
