#!/usr/bin/env bash
# Every tool's --help fits 80 columns and shows --config's argument; a
# mistyped option gets the closest real one ("did you mean --epochs?"),
# exit 2, instead of CLI11's "arguments were not expected".
source "$(dirname "$0")/lib/common.bash"
bin=$(dirname "$TRAIN")
for tool in cifar-train cifar-eval cifar-export cifar-predict; do
  "$bin/$tool" --help >"$tool.help" || fail "$tool --help failed"
  wide=$(awk 'length > 80 {n++} END {print n + 0}' "$tool.help")
  [[ $wide -eq 0 ]] || { awk 'length > 80' "$tool.help" | head -5; fail "$tool --help has $wide lines over 80 columns"; }
done
pass "--help of the four tools fits 80 columns"
grep -Eq -- '--config FILE' cifar-train.help || fail "--config does not show its argument"
grep -Eq -- '--epochs' cifar-train.help || fail "--help lost --epochs"
pass "--config shows its argument"

make_fake_data data
expect 2 "unknown option --epoch: did you mean --epochs\?; see cifar-train --help" -- \
  "$TRAIN" --data data --device cpu --epoch 3
expect 2 "unknown option --lrr: did you mean --lr\?" -- "$TRAIN" --data data --lrr=0.1
expect 2 "unknown option --batch: did you mean --batch-size\?" -- "$TRAIN" --data data --batch 8
expect 2 "unknown option --frobnicate; see cifar-train --help" -- "$TRAIN" --frobnicate
expect 2 "unknown option --checkpiont: did you mean --checkpoint\?" -- "$EVAL" --checkpiont m.pt
pass "mistyped options get the closest real one"

# --help wins over a value the tool would refuse (CLI11 checks values first).
expect 0 "Usage:" -- "$TRAIN" --help --epochs 0
expect 0 "Usage:" -- "$EVAL" --batch-size 0 --help
pass "--help beside a refused value prints the help"

# --quiet and --verbose: the command line's over the config file's; both at
# once refused.
expect 2 "--quiet and --verbose ask for opposite logging: give one of them" -- \
  "$TRAIN" --data data -q -v
printf 'verbose = true\nepochs = 1\n' >verbose.toml
out=$("$TRAIN" --config verbose.toml -q --data missing 2>&1) && fail "a missing --data passed"
grep -q "error: data folder missing does not exist" <<<"$out" || fail "no error: $out"
! grep -q "info:" <<<"$out" || fail "-q did not override the config file's verbose: $out"
pass "-q on the command line overrides the config file's verbose = true"
printf 'verbose = true\nquiet = true\n' >both.toml
expect 2 "opposite logging \(both set by --config both.toml\)" -- "$TRAIN" --config both.toml
