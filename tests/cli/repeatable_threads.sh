#!/usr/bin/env bash
# The thread rule never makes a run's numbers depend on how it was run. With
# the default settings (no --threads: the physical cores other processes
# leave free), 2 epochs straight and 1 epoch + --resume end with
# bit-identical weights, and so does a run with --threads N, N the count the
# default's first step ran at. A difference is accepted (reported as
# skipped) only when the logs say the count changed because the machine was
# busy: a change after the first step ("threads: A -> B at ..."), or runs
# whose first steps ran at different counts. No run leaves a file behind
# outside its outputs (there is no thread cache).
source "$(dirname "$0")/lib/common.bash"
need_real_data
unset OMP_NUM_THREADS  # ctest sets it, which fixes the count; this test is about the default
export XDG_CACHE_HOME=$PWD/cache  # where a cache would go; it must stay empty
common=(--data "$REAL_DATA" --device cpu --model net --batch-size 256 --lr 0.05 --momentum 0.9
        --train-limit 5000 --seed 7 --augment --log-interval 0.2 --eval-batch-size 1000)

# The tensors of a safetensors file: its bytes after the header (which holds metadata).
tensor_bytes() {
  local n
  n=$(od -An -t u8 -N 8 "$1" | tr -d ' ')
  tail -c +$((8 + n + 1)) "$1"
}
same_weights() { cmp -s <(tensor_bytes "$1/model.safetensors") <(tensor_bytes "$2/model.safetensors"); }
# The count a run's first step ran at: the plan's, or the one the load set before step 0.
first_count() {
  local at0
  at0=$(grep -oE "threads: [0-9]+ -> [0-9]+ at step 0:" "$1" | grep -oE "[0-9]+ at" | grep -oE "[0-9]+")
  [[ -n $at0 ]] && { echo "$at0"; return; }
  grep -oE "device: cpu, [0-9]+ thread" "$1" | grep -oE "[0-9]+"
}

"$TRAIN" "${common[@]}" --epochs 2 --checkpoint straight.pt --run-dir straight >/dev/null \
  2>straight.err || { tail straight.err; fail "straight run failed"; }
grep -q "threads: the physical cores other processes leave free" straight.err || {
  cat straight.err
  fail "the default run does not follow the thread rule: this test is about it"
}
"$TRAIN" "${common[@]}" --epochs 1 --checkpoint split.pt --run-dir split >/dev/null \
  2>split1.err || { tail split1.err; fail "first half failed"; }
"$TRAIN" "${common[@]}" --epochs 2 --resume split.pt --checkpoint split.pt --run-dir split \
  >/dev/null 2>split2.err || { tail split2.err; fail "resumed half failed"; }
n=$(first_count straight.err)
"$TRAIN" "${common[@]}" --epochs 2 --threads "$n" --checkpoint fixed.pt --run-dir fixed \
  >/dev/null 2>fixed.err || { tail fixed.err; fail "run at --threads $n failed"; }
grep -qE "leave free|threads: [0-9]+ ->" fixed.err && fail "--threads $n still followed the load"
[[ -e cache ]] && fail "a run wrote $(find cache -type f | head -1): no run may keep a thread cache"
pass "no run wrote a thread cache, and --threads $n stays fixed"

echo "first steps at: straight $(first_count straight.err), split $(first_count split1.err)," \
  "resumed $(first_count split2.err)"
busy() {  # the logs say the count changed: after a first step, or the runs started differently
  grep -hE "threads: [0-9]+ -> [0-9]+ at" straight.err split1.err split2.err | grep -qv "at step 0:" \
    && return 0
  [[ $(for f in straight.err split1.err split2.err; do first_count $f; done | sort -u | wc -l) -gt 1 ]]
}
check() {  # check NAME DIR: DIR's weights are the straight run's
  if same_weights straight "$2"; then
    pass "$1: bit-identical weights to 2 epochs straight (default threads)"
  elif busy; then
    grep -h "threads: [0-9]* ->" ./*.err
    echo "SKIPPED: $1 differs, and the logs say the thread count changed: the machine was busy"
    exit 77
  else
    fail "$1 differs from the straight run, and no log says the thread count changed"
  fi
}
check "1 epoch + --resume" split
check "--threads $n (the count the default started at)" fixed
