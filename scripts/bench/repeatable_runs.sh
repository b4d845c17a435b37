#!/usr/bin/env bash
# repeatable_runs.sh: issue 21's check on the real data, with the default thread rule.
#
#   scripts/bench/repeatable_runs.sh [DATA_DIR] [BUILD_DIR]
#
# Net, batch 256, lr 0.05, seed 7, default threads: a straight 2-epoch run, a
# 1-epoch run resumed to 2, and a run at --threads fixed to the count the
# rule started at. Prints each run's thread lines and epochs, then whether the
# tensor bytes of each model.safetensors equal the straight run's. Run it on
# an idle machine (a busy one may move the count, which the log then says).
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
data=${1:-$here/../shared/cifar-10-batches-bin}
apps=${2:-$here/build/release}/apps
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
unset OMP_NUM_THREADS
c=(--data "$data" --device cpu --model net --batch-size 256 --lr 0.05 --seed 7 --log-interval 5)
tensors() { local n; n=$(od -An -t u8 -N 8 "$1" | tr -d ' '); tail -c +$((8 + n + 1)) "$1"; }
"$apps/cifar-train" "${c[@]}" --epochs 2 --checkpoint straight.pt --run-dir straight >/dev/null 2>straight.err
"$apps/cifar-train" "${c[@]}" --epochs 1 --checkpoint split.pt --run-dir split >/dev/null 2>split1.err
"$apps/cifar-train" "${c[@]}" --epochs 2 --resume split.pt --checkpoint split.pt --run-dir split \
  >/dev/null 2>split2.err
chosen=$(grep -o "device: cpu, [0-9]* thread" straight.err | head -1 | grep -o "[0-9]*")
"$apps/cifar-train" "${c[@]}" --epochs 2 --threads "${chosen:-2}" --checkpoint fixed.pt \
  --run-dir fixed >/dev/null 2>fixed.err
for f in straight.err split1.err split2.err fixed.err; do
  echo "== ${f%.err}"
  grep -E "device: cpu|threads: |epoch [12]/[12]:|error" "$f" | cut -c1-200
done
status=0
for r in split fixed; do
  if cmp -s <(tensors straight/model.safetensors) <(tensors $r/model.safetensors); then
    echo "$r: weights bit-identical to the straight run"
  else
    echo "$r: weights DIFFER from the straight run"
    status=1
  fi
done
exit $status
