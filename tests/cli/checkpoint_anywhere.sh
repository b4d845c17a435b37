#!/usr/bin/env bash
# A checkpoint trained on GPUs loads on any machine (issue 32): its archive
# names cuda:0 and cuda:1 as its tensors' devices (rewritten from a CPU run's
# by cifar-relocate-checkpoint, this machine having no GPU), and every tool
# that reads a checkpoint takes it on the CPU: cifar-eval (--checkpoint and
# --weights), cifar-export, cifar-predict, cifar-train --resume (optimiser
# state and --amp fp16's loss scale included) and --init-weights. The
# relocated file evaluates exactly as the original.
source "$(dirname "$0")/lib/common.bash"
BIN=$(cd "$(dirname "$TRAIN")" && pwd)
RELOCATE=${CIFAR_RELOCATE_CHECKPOINT:?set by ctest: the cifar-relocate-checkpoint helper}
make_fake_data data
python3 - img.png <<'PY'
import struct, sys, zlib
def chunk(t, d): return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))
rows = b"".join(b"\0" + bytes([200, 50, 50] * 4) for _ in range(4))
open(sys.argv[1], "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 4, 4, 8, 2, 0, 0, 0)) +
                              chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))
PY
run=(--data data --device cpu --threads 2 --model net --batch-size 50 --train-limit 200
     --test-limit 200 --seed 1)
"$TRAIN" "${run[@]}" -q --epochs 1 --amp fp16 --run-dir r1 --checkpoint cpu.pt >/dev/null 2>&1 ||
  fail "could not train a checkpoint"
"$RELOCATE" cpu.pt gpu.pt cuda:0,cuda:1 || fail "cifar-relocate-checkpoint failed"

expect 0 "Accuracy of the network" -- "$EVAL" --checkpoint gpu.pt --data data --device cpu
"$EVAL" --checkpoint cpu.pt --data data --device cpu --json -q >cpu.json || fail "cifar-eval cpu.pt"
"$EVAL" --checkpoint gpu.pt --data data --device cpu --json -q >gpu.json || fail "cifar-eval gpu.pt"
cmp -s cpu.json gpu.json || fail "gpu.pt evaluates differently from cpu.pt: $(cat cpu.json) vs $(cat gpu.json)"
pass "gpu.pt evaluates exactly as the CPU original"
expect 0 "Accuracy of the network" -- "$EVAL" --weights gpu.pt --data data --device cpu
expect 0 "" -- "$BIN/cifar-export" --checkpoint gpu.pt --out gpu.safetensors
expect 0 "img.png: [a-z]+ [0-9.]+%" -- "$BIN/cifar-predict" --checkpoint gpu.pt img.png
expect 0 "img.png: [a-z]+ [0-9.]+%" -- "$BIN/cifar-predict" --checkpoint gpu.pt --device cpu img.png
expect 0 "loss scale [0-9.e+]+ continued" -- \
  "$TRAIN" "${run[@]}" --epochs 2 --amp fp16 --resume gpu.pt --checkpoint resumed.pt --run-dir r2
expect 0 "init weights: gpu.pt" -- \
  "$TRAIN" "${run[@]}" --epochs 1 --init-weights gpu.pt --checkpoint init.pt --run-dir r3
