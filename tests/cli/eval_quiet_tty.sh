#!/usr/bin/env bash
# cifar-eval -q on a terminal is as quiet as cifar-train -q: no progress bar.
# The control: the same evaluation without -q draws one ("evaluating NN%|").
# Inside tmux, everything the terminal receives is recorded (pipe-pane), so a
# bar that is drawn and cleared again is seen too.
source "$(dirname "$0")/lib/common.bash"
command -v tmux >/dev/null || { echo "SKIPPED: tmux is not installed (scripts/setup.sh installs it)"; exit 77; }
sock="cifar-eval-q-$$"
trap 'for n in bar quiet; do tmux -L "$sock-$n" kill-server 2>/dev/null; done; rm -rf "$WORK"' EXIT
make_fake_data data
"$TRAIN" --data data --device cpu --epochs 1 --train-limit 200 --batch-size 100 --checkpoint m.pt \
  --run-dir run -q >/dev/null || fail "could not train a checkpoint"

# run_in_tmux NAME [FLAGS]: cifar-eval on a 100-column terminal, one image per
# batch on one thread (--threads 1, whatever $OMP_NUM_THREADS says; the
# thread rule would take every free core), six test-time views each (well
# past the bar's 2 s delay); prints all
# the terminal received.
run_in_tmux() {
  local name=$1 flags=${2:-}
  tmux -L "$sock-$name" -u new-session -d -x 100 -y 20 -s eval "sleep 0.5; \
    '$EVAL' --checkpoint m.pt --data data --device cpu --batch-size 1 --threads 1 --tta 2 $flags; echo EXITED \$?; sleep 30"
  tmux -L "$sock-$name" pipe-pane -t eval -o "cat >>'$WORK/$name.log'"
  for _ in $(seq 1 600); do
    sleep 0.2
    grep -q "EXITED" "$name.log" 2>/dev/null && break
  done
  tmux -L "$sock-$name" kill-server 2>/dev/null
  cat "$name.log"
}

bar=$(run_in_tmux bar)
grep -q "EXITED 0" <<<"$bar" || { tail -5 <<<"$bar"; fail "cifar-eval failed on the terminal"; }
grep -Eq 'evaluating +[0-9]+%\|' <<<"$bar" || { tail -5 <<<"$bar"; fail "no progress bar without -q (the control)"; }
pass "without -q, cifar-eval draws its bar on a terminal"

quiet=$(run_in_tmux quiet -q)
grep -q "EXITED 0" <<<"$quiet" || { tail -5 <<<"$quiet"; fail "cifar-eval -q failed on the terminal"; }
grep -q "Accuracy of the network" <<<"$quiet" || fail "cifar-eval -q printed no results"
if grep -q "evaluating" <<<"$quiet"; then
  grep -a "evaluating" <<<"$quiet" | head -2
  fail "cifar-eval -q drew a progress bar"
fi
grep -q "info:" <<<"$quiet" && fail "cifar-eval -q logged at info level"
pass "cifar-eval -q on a terminal: results only, no bar, no info lines"
