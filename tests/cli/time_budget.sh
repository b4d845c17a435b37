#!/usr/bin/env bash
# --time MINUTES (issue 53): the epochs are fitted to the budget after each
# epoch, the log says each fit, metrics.csv has a row for each epoch of the
# last fit's count, and the run folder's config.toml holds that count with
# --time dropped (a resume continues to it); --time with --resume is refused.
source "$(dirname "$0")/lib/common.bash"
write_folder small cat,dog train,val 100
start=$(date +%s.%N)
"$TRAIN" --config "$SRC/configs/photos.toml" --data small --device cpu --time 0.2 \
  --run-dir run --checkpoint small.pt >run.out 2>run.err || { tail -20 run.err; fail "--time 0.2 failed"; }
wall=$(echo "$(date +%s.%N) - $start" | bc)
fits=$(grep -c -- "--time 0.2 min: [0-9]* epochs fit it" run.err)
[[ $fits -ge 1 ]] || { cat run.err; fail "--time: no fit in the log"; }
epochs=$(grep -o -- "--time 0.2 min: [0-9]* epochs" run.err | tail -1 | grep -o "[0-9]* epochs" | cut -d' ' -f1)
# photos.toml's own 8 epochs of 200 images take a few seconds: 12 s fit more.
[[ $epochs -gt 8 ]] || { cat run.err; fail "--time 0.2 fitted $epochs epochs, no more than photos.toml's 8"; }
rows=$(($(wc -l <run/metrics.csv) - 1))
[[ $rows == "$epochs" ]] || fail "metrics.csv has $rows epochs, the last fit said $epochs"
grep -qx "epochs = $epochs" run/config.toml || { cat run/config.toml; fail "config.toml does not hold the $epochs epochs fitted"; }
grep -qx "time = 0.0" run/config.toml || { grep time run/config.toml; fail "config.toml keeps --time (a resume would fit again)"; }
# A loose bound (the test shares the machine): the run stops near its 12 s.
(($(echo "$wall < 30" | bc))) || fail "--time 0.2 (12 s) took $wall s"
pass "--time 0.2: $epochs epochs fitted in $fits fit(s), ended after $wall s; config.toml holds them"

expect 2 "drop --time" -- "$TRAIN" --config run/config.toml --data small --device cpu --time 1 \
  --resume run/last.pt
pass "--time with --resume is refused"
