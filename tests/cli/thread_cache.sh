#!/usr/bin/env bash
# The thread cache as a user meets it: a default run remembers the count it
# measured in $XDG_CACHE_HOME/cifar-train/threads.json and the next run of
# the same case starts at it with no probes; a damaged file is ignored with a
# warning and rewritten; --thread-cache off, --threads N and --deterministic
# write nothing; --thread-cache FILE is used; cifar-eval fills it too.
source "$(dirname "$0")/lib/common.bash"
need_real_data
unset OMP_NUM_THREADS  # ctest sets it, which fixes the count; this test is about the default
export XDG_CACHE_HOME=$PWD/cache
file=$PWD/cache/cifar-train/threads.json
# 50 steps of batch 256: enough to pay for a round when the result is remembered
common=(--data "$REAL_DATA" --device cpu --model net --batch-size 256 --lr 0.05
        --train-limit 12800 --test-limit 100 --epochs 1 --no-tensorboard)
train() {  # train NAME [FLAGS...]: a run into folder NAME, its log in NAME.err
  local name=$1
  shift
  "$TRAIN" "${common[@]}" --run-dir "$name" --checkpoint "$name.pt" "$@" >/dev/null \
    2>"$name.err" || { tail "$name.err"; fail "run $name failed"; }
}

train a
grep -q "threads measured" a.err || { cat a.err; fail "the first run did not measure"; }
grep -q '"format": "cifar-train thread cache"' "$file" || fail "no thread cache at $file"
grep -q '"key": "train | .* | net | batch 256 | amp off | contiguous | LibTorch' "$file" \
  || { cat "$file"; fail "the cache lacks the run's case"; }
pass "a default run remembers its count in \$XDG_CACHE_HOME/cifar-train/threads.json"

train b
if grep -q "remembered for this case in $file" b.err; then
  grep -q "timing the first batch" b.err && { cat b.err; fail "remembered, yet probed first"; }
  # (a round later in the run is the load changing: the machine is shared)
  pass "the next run starts at the remembered count with no probes"
else
  # The cache keeps a count per load: another load is another entry.
  grep -q "threads measured" b.err || { cat b.err; fail "neither remembered nor measured"; }
  echo "note: the machine's load changed between the runs, so the second measured anew"
fi

echo "{ damaged" >"$file"
train c
grep -q "thread cache $file ignored (not JSON)" c.err || { cat c.err; fail "no warning for a damaged cache"; }
grep -q '"format": "cifar-train thread cache"' "$file" || fail "the damaged cache was not rewritten"
pass "a damaged cache is ignored with a warning and rewritten"

rm -rf cache
train d --thread-cache off
train e --threads 2
train f --deterministic
[[ -e $file ]] && fail "--thread-cache off, --threads or --deterministic wrote $file"
grep -q "remembered" d.err e.err f.err && fail "a run without the cache remembered a count"
pass "--thread-cache off, --threads N and --deterministic leave no cache"

train g --thread-cache "$PWD/mine.json"
grep -q '"format": "cifar-train thread cache"' mine.json || fail "--thread-cache FILE was not written"
[[ -e $file ]] && fail "--thread-cache FILE still wrote the default file"
pass "--thread-cache FILE is the cache"

"$EVAL" --checkpoint a.pt --data "$REAL_DATA" --device cpu >/dev/null 2>eval.err \
  || { tail eval.err; fail "cifar-eval failed"; }
grep -q '"key": "eval | .* | net | batch 100 ' "$file" \
  || { cat eval.err; fail "cifar-eval remembered no count"; }
pass "cifar-eval remembers its count in the same cache"
