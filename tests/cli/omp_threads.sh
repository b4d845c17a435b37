#!/usr/bin/env bash
# $OMP_NUM_THREADS fixes the CPU thread count of cifar-eval and cifar-predict
# as it does cifar-train's (torchrun sets 1), when --threads is not given;
# --threads N wins over it, and without either the thread rule chooses. The
# three tools say it in the same lines (resolve/machine.h).
# (cifar-eval and cifar-predict once read no $OMP_NUM_THREADS: the rule took
# every free core beside processes that had each been told to take one.)
source "$(dirname "$0")/lib/common.bash"
BIN=$(cd "$(dirname "$TRAIN")" && pwd)
PREDICT=$BIN/cifar-predict
make_fake_data data
write_folder pics cat train 1

OMP_NUM_THREADS=1 "$TRAIN" --data data --device cpu --epochs 1 --train-limit 200 --test-limit 100 \
  --batch-size 100 --run-dir run --checkpoint m.pt >/dev/null 2>train.err ||
  { tail train.err; fail "could not train a checkpoint"; }
grep -q "device: cpu, 1 thread$" train.err || { cat train.err; fail "cifar-train did not take OMP_NUM_THREADS=1"; }
grep -q 'threads: \$OMP_NUM_THREADS$' train.err || { cat train.err; fail "cifar-train's log does not say where its count came from"; }
pass "cifar-train: OMP_NUM_THREADS=1 -> one thread (the control)"

eval=("$EVAL" --checkpoint m.pt --data data --device cpu)
OMP_NUM_THREADS=1 "${eval[@]}" >/dev/null 2>eval.err || { tail eval.err; fail "cifar-eval failed"; }
grep -q "device: cpu, 1 thread$" eval.err && grep -qE 'threads: \$OMP_NUM_THREADS(;|$)' eval.err || { cat eval.err; fail "cifar-eval did not take OMP_NUM_THREADS=1"; }
grep -qE "leave free|threads: [0-9]+ ->" eval.err && { cat eval.err; fail "cifar-eval at OMP_NUM_THREADS=1 still follows the load"; }
pass "cifar-eval: OMP_NUM_THREADS=1 -> one thread, fixed"
OMP_NUM_THREADS=2 "${eval[@]}" --threads 1 >/dev/null 2>eval_threads.err || fail "cifar-eval --threads 1 failed"
grep -q "device: cpu, 1 thread$" eval_threads.err && grep -qE 'threads: --threads(;|$)' eval_threads.err || { cat eval_threads.err; fail "--threads 1 did not win over OMP_NUM_THREADS=2"; }
pass "cifar-eval: --threads 1 wins over OMP_NUM_THREADS=2"
(unset OMP_NUM_THREADS; "${eval[@]}" >/dev/null 2>eval_rule.err) || fail "cifar-eval without OMP_NUM_THREADS failed"
grep -q "the physical cores other processes leave free" eval_rule.err || { cat eval_rule.err; fail "cifar-eval without OMP_NUM_THREADS does not follow the rule"; }
pass "cifar-eval: without either, the thread rule"

OMP_NUM_THREADS=1 "$PREDICT" --checkpoint m.pt --device cpu -v pics/train/cat/000.png >/dev/null \
  2>predict.err || { tail predict.err; fail "cifar-predict failed"; }
grep -q "device: cpu, 1 thread$" predict.err && grep -qE 'threads: \$OMP_NUM_THREADS(;|$)' predict.err || { cat predict.err; fail "cifar-predict did not take OMP_NUM_THREADS=1"; }
pass "cifar-predict: OMP_NUM_THREADS=1 -> one thread"
