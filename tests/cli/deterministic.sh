#!/usr/bin/env bash
# --deterministic: the thread count is fixed (it does not follow the load),
# the log says so once, config.toml keeps it (and --config reads it back), and
# two runs give bit-identical weights.
source "$(dirname "$0")/lib/common.bash"
need_real_data
unset OMP_NUM_THREADS  # ctest sets it, which fixes the count anyway; this is about the default
common=(--data "$REAL_DATA" --device cpu --model net --batch-size 256 --train-limit 2000
        --epochs 1 --seed 3 --augment --eval-batch-size 1000)
tensor_bytes() {  # a safetensors file's tensors, without its header (metadata)
  local n
  n=$(od -An -t u8 -N 8 "$1" | tr -d ' ')
  tail -c +$((8 + n + 1)) "$1"
}

"$TRAIN" "${common[@]}" --deterministic --checkpoint a.pt --run-dir a >/dev/null 2>a.err \
  || { tail a.err; fail "--deterministic run failed"; }
grep -q "threads: the physical cores, fixed by --deterministic" a.err || { cat a.err; fail "the thread plan does not say --deterministic fixed the count"; }
grep -qE "leave free|threads: [0-9]+ ->" a.err && { cat a.err; fail "--deterministic still follows the load"; }
[[ $(grep -c "deterministic: the thread count fixed, deterministic algorithms only" a.err) -eq 1 ]] \
  || { cat a.err; fail "the log does not say once what --deterministic turned off"; }
pass "--deterministic: fixed thread count, said once"
grep -qx "deterministic = true" a/config.toml || { cat a/config.toml; fail "config.toml lacks deterministic = true"; }
pass "config.toml keeps deterministic = true"

"$TRAIN" --config a/config.toml --data "$REAL_DATA" --checkpoint b.pt --run-dir b >/dev/null \
  2>b.err || { tail b.err; fail "run from a/config.toml failed"; }
grep -q "fixed by --deterministic" b.err || { cat b.err; fail "--config did not read deterministic back"; }
cmp -s <(tensor_bytes a/model.safetensors) <(tensor_bytes b/model.safetensors) \
  || fail "two --deterministic runs of the same settings differ"
pass "--config reads it back, and the two runs' weights are bit-identical"

# Without it, the default run follows the load (the control for the checks above).
"$TRAIN" "${common[@]}" --checkpoint c.pt --run-dir c >/dev/null 2>c.err || fail "default run failed"
grep -q "threads: the physical cores other processes leave free" c.err \
  || { cat c.err; fail "the default run does not follow the load"; }
grep -q "deterministic" c.err && { cat c.err; fail "a default CPU run mentions deterministic"; }
grep -qx "deterministic = false" c/config.toml || fail "config.toml lacks deterministic = false"
pass "the default run follows the load and saves deterministic = false"
