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
