#!/usr/bin/env bash
# cifar-train on a terminal (inside tmux, 100 and then 50 columns wide) shows
# the tqdm-like bar: label, percent, bar, step/steps, elapsed<remaining,
# img/s, loss; on the narrow terminal the line shortens instead of wrapping.
source "$(dirname "$0")/lib/common.bash"
command -v tmux >/dev/null || { echo "SKIPPED: tmux is not installed (scripts/setup.sh installs it)"; exit 77; }
sock="cifar-test-$$"
# One tmux server per width: reusing a socket right after kill-server races
# with the old server's exit ("server exited unexpectedly").
trap 'for c in 100 50; do tmux -L "$sock-$c" kill-server 2>/dev/null; done; rm -rf "$WORK"' EXIT
make_fake_data data

# run_in_tmux COLUMNS: trains in a detached tmux window that wide and prints
# the screen (wrapped lines joined) once the progress line shows up, or at the end.
run_in_tmux() {
  local cols=$1 screen=""
  tmux -L "$sock-$cols" -u new-session -d -x "$cols" -y 20 -s bar \
    "'$TRAIN' --data data --device cpu --epochs 1 --batch-size 10 --train-limit 20000 \
       --run-dir run$cols --checkpoint m$cols.pt --threads 1; echo EXITED \$?; sleep 30"
  for _ in $(seq 1 300); do
    sleep 0.2
    screen=$(tmux -L "$sock-$cols" capture-pane -p -J -t bar)
    if grep -Eq 'epoch 1/1 +[0-9]+%|EXITED' <<<"$screen"; then break; fi
  done
  tmux -L "$sock-$cols" kill-server 2>/dev/null
  printf '%s\n' "$screen"
}

screen=$(run_in_tmux 100)
line=$(grep -E 'epoch 1/1 ' <<<"$screen" | grep -Ev 'info:' | tail -1)
if ! grep -Eq '^epoch 1/1 +[0-9]+%\|' <<<"$line"; then
  printf '%s\n' "$screen" | tail -5
  fail "no progress bar line on the terminal"
fi
echo "100 columns: $line"
grep -Eq '^epoch 1/1 +[0-9]+%\|.+\| [0-9]+/2000 \[[0-9:]+<[0-9:?]+, [0-9.?]+ img/s, loss [0-9.]+' <<<"$line" ||
  fail "the bar lacks a field: '$line'"
(($(wc -m <<<"$line") - 1 <= 99)) || fail "the bar is wider than the terminal less one column"
pass "the bar shows label, percent, bar, steps, elapsed<remaining, img/s and loss"

screen=$(run_in_tmux 50)
line=$(grep -E 'epoch 1/1 ' <<<"$screen" | grep -Ev 'info:' | tail -1)
echo "50 columns: $line"
[[ -n "$line" ]] || fail "no progress line on a 50-column terminal"
(($(wc -m <<<"$line") - 1 <= 49)) || fail "the line wraps on a 50-column terminal: '$line'"
grep -Eq '^epoch 1/1 +[0-9]+%' <<<"$line" || fail "the narrow line lost the percent: '$line'"
pass "on 50 columns the line shortens instead of wrapping"
