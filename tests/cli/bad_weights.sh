#!/usr/bin/env bash
# Weights files that cannot be right are refused at load, naming the file and
# what is wrong (issue 22): pickles nested past any state dict, or inflating
# past what a state dict of the model can hold; never a crash, never gigabytes
# read into memory.
source "$(dirname "$0")/lib/common.bash"
PREDICT=$(cd "$(dirname "$TRAIN")" && pwd)/cifar-predict
PY=python3

# A 4x4 PNG to predict on.
"$PY" - img.png <<'PY'
import struct, sys, zlib
def chunk(t, d): return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))
rows = b"".join(b"\0" + bytes([200, 50, 50] * 4) for _ in range(4))
open(sys.argv[1], "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 4, 4, 8, 2, 0, 0, 0)) +
                              chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))
PY

# peak_mb COMMAND...: runs it, prints its exit status and peak memory (MB).
peak_mb() {
  "$PY" -c 'import resource, subprocess, sys
rc = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
print(rc, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024)' "$@"
}

# --- the unpickler's limits ------------------------------------------------------
for kind in deep inflate stride0 bigpickle; do
  "$PY" "$SRC/tests/cli/lib/hostile_pt.py" "$kind" "$kind.pt" || fail "writing $kind.pt"
done
# 400 KB of lists nested 200,000 deep: was SIGSEGV (recursion when freed).
expect 1 "weights file deep.pt: the pickle nests containers more than 32 deep" -- \
  "$PREDICT" --weights deep.pt --model net img.png
# 1 MB that inflates to a 1 GiB storage, a tensor of stride 0 seen as 1 GiB,
# and a data.pkl that inflates to 1 GiB: were read into memory (2.4 GB peak).
expect 1 "weights file inflate.pt: its tensors need more memory than a weights file for this model can \(the storage data/0 would take 1073741824 bytes.*state dict of [0-9]+ values" -- \
  "$PREDICT" --weights inflate.pt --model net img.png
expect 1 "weights file stride0.pt: its tensors need more memory .*a tensor of size \[268435456\]" -- \
  "$PREDICT" --weights stride0.pt --model net img.png
expect 1 "weights file bigpickle.pt: its data.pkl inflates to 1073741836 bytes, more than the 67108864" -- \
  "$PREDICT" --weights bigpickle.pt --model net img.png
for kind in inflate stride0 bigpickle; do
  read -r rc mb < <(peak_mb "$PREDICT" --weights "$kind.pt" --model net img.png)
  echo "$kind.pt: exit $rc, peak memory $mb MB"
  [[ $rc -eq 1 && $mb -lt 1000 ]] || fail "$kind.pt: exit $rc, peak $mb MB (expected 1, under 1000 MB; the old reader took 2.4 GB)"
done
# The same limits for cifar-eval --weights and --init-weights.
make_fake_data data
expect 1 "weights file deep.pt: the pickle nests" -- "$EVAL" --weights deep.pt --model net --data data --device cpu
expect 1 "weights file inflate.pt: its tensors need more memory" -- \
  "$TRAIN" --init-weights inflate.pt --model net --data data --device cpu --epochs 1 --train-limit 100 -q
pass "hostile weights files are refused"
