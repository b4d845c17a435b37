#!/usr/bin/env bash
# Nothing waits forever on a file: every file the tools read is checked
# before it is opened, so a FIFO (or a device) where a file should be is one
# clear line and exit 1 within seconds, never a tool blocked in open(2).
# (batches.meta.txt and the first bytes of --weights and --init-weights were
# opened unchecked, and a FIFO there blocked the tool.)
source "$(dirname "$0")/lib/common.bash"
BIN=$(cd "$(dirname "$TRAIN")" && pwd)
PREDICT=$BIN/cifar-predict
make_fake_data data
ok=(--data data --device cpu --train-limit 100 --epochs 1 --batch-size 50 -q)
limit=(timeout 30)  # a tool that blocks is killed (exit 124) and the test fails

expect 0 "" -- "$TRAIN" "${ok[@]}" --run-dir run --checkpoint net.pt

mkdir fifodata && cp -L data/*.bin fifodata/ && mkfifo fifodata/batches.meta.txt
expect 1 "batches.meta.txt is not a regular file" -- \
  "${limit[@]}" "$TRAIN" "${ok[@]}" --data fifodata --run-dir run2 --checkpoint net2.pt

mkfifo fifo.safetensors fifo.pt fifo.png fifo.toml
expect 1 "fifo.safetensors is not a regular file" -- \
  "${limit[@]}" "$TRAIN" "${ok[@]}" --init-weights fifo.safetensors --run-dir run3 --checkpoint net3.pt
expect 1 "fifo.safetensors is not a regular file" -- \
  "${limit[@]}" "$EVAL" --weights fifo.safetensors --model net --data data
expect 1 "fifo.pt is not a regular file" -- \
  "${limit[@]}" "$EVAL" --weights fifo.pt --model net --data data
expect 1 "fifo.pt is not a regular file" -- "${limit[@]}" "$EVAL" --checkpoint fifo.pt --data data
expect 1 "fifo.png is not a regular file" -- "${limit[@]}" "$PREDICT" --checkpoint net.pt fifo.png
expect 2 "fifo.toml: not a regular file" -- "${limit[@]}" "$TRAIN" --config fifo.toml
expect 1 "/dev/zero is not a regular file" -- "${limit[@]}" "$EVAL" --weights /dev/zero --model net --data data
