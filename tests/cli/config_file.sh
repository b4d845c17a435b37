#!/usr/bin/env bash
# --config reads options from TOML; the command line overrides it; the run
# folder receives the resolved settings, which read back as a config.
source "$(dirname "$0")/lib/common.bash"
make_fake_data data
cat >my.toml <<'TOML'
model = "net"
epochs = 1
batch-size = 64
lr = 0.01
train-limit = 1000
device = "cpu"
TOML
"$TRAIN" --config my.toml --data data --batch-size 100 --run-dir run --checkpoint m.pt -q >/dev/null \
  || fail "training from a config failed"
grep -qx 'batch-size = 100' run/config.toml || fail "the flag did not override the file"
grep -qx 'epochs = 1' run/config.toml || fail "the file's epochs were not used"
grep -qx 'train-limit = 1000' run/config.toml || fail "the file's train-limit was not used"
grep -qx 'tf32 = true' run/config.toml || fail "a default flag was not kept"
pass "flags override the config file"
# The resolved settings read back as a config file.
"$TRAIN" --config run/config.toml --run-dir run2 --checkpoint m2.pt --data data -q >/dev/null \
  || fail "run/config.toml does not read back"
cmp <(grep -v '^run-dir\|^checkpoint' run/config.toml) <(grep -v '^run-dir\|^checkpoint' run2/config.toml) \
  || fail "reading config.toml back changed the settings"
pass "config.toml reads back unchanged"
# (The shipped configs are parsed and validated by the unit test
# "the shipped configs parse and validate".)
# A config file that is not one is refused at once, naming the problem.
expect 2 "--config /dev/zero: not a regular file" -- "$TRAIN" --config /dev/zero
head -c 3000 /dev/urandom | tr -d '\n' | head -c 2000 >binary.toml
expect 2 "holds binary data" -- "$TRAIN" --config binary.toml
printf '[train]\nepochs = 1\n' >section.toml
expect 2 "line 1 starts a section \\(\\[train\\]\\).*top level" -- "$TRAIN" --config section.toml
head -c 2000000 /dev/zero | tr '\0' '#' >huge.toml
expect 2 "larger than a config file can be" -- "$TRAIN" --config huge.toml

# --- paths TOML holds, CLI11's own reader did not -------------------------------
# A run folder, checkpoint and data folder whose names hold '#', both quotes,
# spaces, a tab, a newline and non-ASCII: trained, then resumed from
# RUN/config.toml alone (which names them all), into the same folder.
weird=$'runs/a #1 "dq" \'sq\' \ttab\nnewline é 日本'
wdata=$'data #"\'é'
ln -s "$PWD/data" "$wdata"
small=(--device cpu --train-limit 200 --batch-size 100 --log-interval 100 -q)
"$TRAIN" "${small[@]}" --data "$wdata" --epochs 1 --run-dir "$weird" --checkpoint "$weird/m #1.pt" \
  >/dev/null || fail "training with an odd --run-dir failed"
[[ -f "$weird/config.toml" && -f "$weird/m #1.pt" ]] || fail "the run folder or checkpoint is missing"
"$TRAIN" --config "$weird/config.toml" --epochs 2 --resume "$weird/last.pt" -q >/dev/null 2>resume.err \
  || { cat resume.err; fail "$weird/config.toml does not read back"; }
rows=$(grep -c '^[0-9]' "$weird/metrics.csv")
[[ $rows -eq 2 ]] || fail "the resumed run should add epoch 2 to $weird/metrics.csv (has $rows epochs)"
expect 0 '"accuracy"' -- "$EVAL" --checkpoint "$weird/m #1.pt" --data "$wdata" --device cpu --json -q
pass "--run-dir, --checkpoint and --data with # quotes tab newline and non-ASCII survive config.toml"

# Text TOML cannot hold (bytes that are not UTF-8) is refused at start, before
# the data is read: nothing is trained, no folder made.
expect 2 "--run-dir 'run\\\\xFF' is not UTF-8" -- "$TRAIN" "${small[@]}" --data nowhere --run-dir $'run\xff'
expect 2 "--checkpoint 'm\\\\xE9.pt' is not UTF-8" -- "$TRAIN" "${small[@]}" --data nowhere --checkpoint $'m\xe9.pt'
[[ ! -e $'run\xff' ]] || fail "a run folder was made for a name config.toml cannot hold"

# A UTF-8 byte-order mark (as some Windows editors write) is accepted: the
# first key is read (its bad value proves it), then a good file runs.
printf '\xef\xbb\xbfepochs = 0\n' >bom.toml
expect 2 "--epochs must be at least 1, got 0.*\\(--config bom.toml, line 1\\)" -- "$TRAIN" --config bom.toml
printf '\xef\xbb\xbfdevice = "cpu"\n' >bom.toml
expect 0 "cpu" -- "$TRAIN" --config bom.toml --list-devices

# Syntax errors name the file and the line, exit 2.
printf 'epochs = 1\n\nlr = 0.1.2\n' >syntax.toml
expect 2 "--config syntax.toml: line 3, column [0-9]+: " -- "$TRAIN" --config syntax.toml
printf 'epochs = 1\nrun-dir = "unclosed\n' >open.toml
expect 2 "--config open.toml: line 2" -- "$TRAIN" --config open.toml
