#!/usr/bin/env bash
# Ctrl-C or SIGTERM during cifar-eval or cifar-predict: the work stops after
# the current batch (or image), a line says so, the exit status is 130 (as
# cifar-train's), and cifar-predict writes no output; a second signal later
# exits at once. Without the tools' InterruptGuard they died silently by the
# signal (143 after SIGTERM, 129 after SIGHUP).
source "$(dirname "$0")/lib/common.bash"
PREDICT=$(cd "$(dirname "$TRAIN")" && pwd)/cifar-predict
make_fake_data data
# A ResNet-18 evaluated in batches of 4 on one thread: minutes for the
# 10,000 test images, so every signal lands mid-evaluation.
"$TRAIN" --data data --device cpu --threads 2 --model resnet18 --epochs 1 --batch-size 8 \
  --train-limit 16 --test-limit 8 --run-dir run --checkpoint r18.pt >/dev/null 2>train.err \
  || { cat train.err; fail "training the ResNet-18 failed"; }
eval_args=(--checkpoint r18.pt --data data --device cpu --threads 1 --batch-size 4)

for signal in TERM INT HUP; do
  "$EVAL" "${eval_args[@]}" >eval.out 2>eval.err &
  pid=$!
  wait_for_log "test-time augmentation" eval.err $pid
  sleep 0.5
  kill -$signal $pid
  wait $pid
  status=$?
  [[ $status -eq 130 ]] || { cat eval.err; fail "cifar-eval: exit status $status after SIG$signal, expected 130"; }
  grep -q "interrupted during evaluation" eval.err || { cat eval.err; fail "cifar-eval: SIG$signal was not reported"; }
  [[ ! -s eval.out ]] || fail "cifar-eval printed a report after SIG$signal"
done
pass "cifar-eval stops after its batch with exit 130 on SIGTERM, SIGINT and SIGHUP"

# A second signal, later than the first: exit at once (the first is ignored
# while the process is stopped, so the work cannot end in between).
"$EVAL" "${eval_args[@]}" >/dev/null 2>eval2.err &
pid=$!
wait_for_log "test-time augmentation" eval2.err $pid
kill -STOP $pid; kill -TERM $pid; kill -CONT $pid
sleep 0.7
kill -TERM $pid 2>/dev/null
wait $pid
status=$?
[[ $status -eq 130 ]] || { cat eval2.err; fail "cifar-eval: exit status $status after two signals"; }
pass "cifar-eval: two signals exit 130"

# cifar-predict: 600 images of the model's side, one at a time.
python3 - images <<'PY'
import os, random, struct, sys, zlib
d = sys.argv[1]
os.makedirs(d, exist_ok=True)
def png(path, w, h, rgb):
    raw = b"".join(b"\x00" + bytes(rgb) * w for _ in range(h))
    chunk = lambda t, b: struct.pack(">I", len(b)) + t + b + struct.pack(">I", zlib.crc32(t + b))
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
random.seed(0)
for i in range(600):
    png(f"{d}/{i:04d}.png", 32, 32, [random.randrange(256) for _ in range(3)])
PY
"$PREDICT" --checkpoint r18.pt --device cpu --threads 1 --batch-size 1 --csv out.csv images \
  >predict.out 2>predict.err &
pid=$!
wait_for_log "cifar-predict\|r18.pt\|600" predict.err $pid
sleep 1
kill -TERM $pid
wait $pid
status=$?
[[ $status -eq 130 ]] || { cat predict.err; fail "cifar-predict: exit status $status after SIGTERM, expected 130"; }
grep -Eq "interrupted \(signal 15\) after [0-9]+ of 600 images: nothing was written" predict.err \
  || { cat predict.err; fail "cifar-predict: SIGTERM was not reported"; }
[[ ! -e out.csv && ! -s predict.out ]] || fail "cifar-predict wrote output after SIGTERM"
pass "cifar-predict stops between images with exit 130 and writes nothing"
