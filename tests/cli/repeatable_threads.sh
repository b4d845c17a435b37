#!/usr/bin/env bash
# Measuring thread counts never changes a run's numbers. With the default
# settings (no --threads: the thread tuner probes 1 and 2 threads), 2 epochs
# straight and 1 epoch + --resume end with bit-identical weights, and so does
# a run with --threads N, N being the count the tuner chose. A difference is
# accepted (reported as skipped) only when the logs say the count changed
# because the machine was busy: a re-check that moved it, or runs whose first
# choices differ. The thread cache starts empty in the test's folder: the
# straight run measures and remembers its count, the later runs start at it
# (when the load is about the same) with no probes, and the weights must not
# show it.
source "$(dirname "$0")/lib/common.bash"
need_real_data
unset OMP_NUM_THREADS  # ctest sets it, which fixes the count; this test is about the default
export XDG_CACHE_HOME=$PWD/cache  # an empty thread cache (the user's stays untouched)
common=(--data "$REAL_DATA" --device cpu --model net --batch-size 256 --lr 0.05 --momentum 0.9
        --train-limit 5000 --seed 7 --augment --log-interval 0.2 --eval-batch-size 1000)

# The tensors of a safetensors file: its bytes after the header (which holds metadata).
tensor_bytes() {
  local n
  n=$(od -An -t u8 -N 8 "$1" | tr -d ' ')
  tail -c +$((8 + n + 1)) "$1"
}
same_weights() { cmp -s <(tensor_bytes "$1/model.safetensors") <(tensor_bytes "$2/model.safetensors"); }
# The counts chosen: measured ("using N until"), remembered ("threads: N,
# remembered") or kept for want of time to measure ("threads: N without a round").
choices() {
  grep -hoE "using [0-9]+ until|threads: [0-9]+(, remembered| without a round)" "$@" \
    | grep -oE "[0-9]+" | tr '\n' ' '
}

"$TRAIN" "${common[@]}" --epochs 2 --checkpoint straight.pt --run-dir straight >/dev/null \
  2>straight.err || { tail straight.err; fail "straight run failed"; }
grep -q "threads measured: 1 -> .*, 2 -> " straight.err || {
  cat straight.err
  fail "the default run did not measure 1 and 2 threads: this test needs the tuner on"
}
"$TRAIN" "${common[@]}" --epochs 1 --checkpoint split.pt --run-dir split >/dev/null \
  2>split1.err || { tail split1.err; fail "first half failed"; }
"$TRAIN" "${common[@]}" --epochs 2 --resume split.pt --checkpoint split.pt --run-dir split \
  >/dev/null 2>split2.err || { tail split2.err; fail "resumed half failed"; }
n=$(choices straight.err | cut -d' ' -f1)
"$TRAIN" "${common[@]}" --epochs 2 --threads "$n" --checkpoint fixed.pt --run-dir fixed \
  >/dev/null 2>fixed.err || { tail fixed.err; fail "run at --threads $n failed"; }
grep -q "threads measured" fixed.err && fail "--threads $n still measured thread counts"
[[ -s cache/cifar-train/threads.json ]] || fail "the default run remembered no thread count"
grep -q "remembered" split1.err split2.err && echo "the later runs started at the remembered count"

echo "choices: straight $(choices straight.err)| split $(choices split1.err)| resumed $(choices split2.err)"
grep -h "thread probes:" straight.err split1.err split2.err | sed 's/.*thread probes/thread probes/'
busy() {  # the logs say the count changed: a re-check moved it, or the runs chose differently
  grep -q "a re-check moved training" straight.err split1.err split2.err && return 0
  [[ $(choices straight.err split1.err split2.err | tr ' ' '\n' | sort -u | grep -c .) -gt 1 ]]
}
check() {  # check NAME DIR: DIR's weights are the straight run's
  if same_weights straight "$2"; then
    pass "$1: bit-identical weights to 2 epochs straight (default threads, tuner on)"
  elif busy; then
    grep -h "re-check moved" ./*.err
    echo "SKIPPED: $1 differs, and the logs say the thread count changed: the machine was busy"
    exit 77
  else
    fail "$1 differs from the straight run, and no log says the thread count changed"
  fi
}
check "1 epoch + --resume" split
check "--threads $n (the count the tuner chose)" fixed
