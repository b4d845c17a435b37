# common.bash: helpers for the CLI tests (sourced, not run).
#
# Every test script is called as: script TRAIN EVAL SOURCE_DIR REAL_DATA_DIR
# and exits 0 (pass), 1 (fail) or 77 (skipped, with a message).
set -uo pipefail
TRAIN=$1
EVAL=$2
SRC=$3
REAL_DATA=$4
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"

fail() { echo "FAIL: $*" >&2; exit 1; }
pass() { echo "ok: $*"; }

need_real_data() {
  if [[ ! -f "$REAL_DATA/test_batch.bin" ]]; then
    echo "SKIPPED: the real CIFAR-10 is not at $REAL_DATA (put it at ../shared/cifar-10-batches-bin beside the clone, or set CIFAR10_DIR when configuring)"
    exit 77
  fi
}

# wait_for_log PATTERN FILE PID: until FILE (a run's stderr) matches the
# basic regex PATTERN; fails, showing FILE, if PID ends or a minute passes first.
wait_for_log() {
  for _ in $(seq 1 600); do
    grep -q "$1" "$2" && return 0
    kill -0 "$3" 2>/dev/null || break
    sleep 0.1
  done
  cat "$2"
  fail "the run never logged /$1/"
}

# expect STATUS PATTERN -- command...: runs the command, checks its exit status
# and that its combined output matches the (extended) regex PATTERN.
expect() {
  local want=$1 pattern=$2
  shift 3
  local out status
  out=$("$@" 2>&1)
  status=$?
  if [[ $status -ne $want ]]; then
    echo "$out" | tail -20 >&2
    fail "'$*' exited $status, expected $want"
  fi
  if ! grep -Eq -- "$pattern" <<<"$out"; then
    echo "$out" | tail -20 >&2
    fail "'$*' output does not match /$pattern/"
  fi
  if grep -Eq 'Exception raised from|frame #[0-9]|Segmentation|terminate called' <<<"$out"; then
    echo "$out" | tail -20 >&2
    fail "'$*' printed a raw C++ error or crash"
  fi
  pass "$(basename "$1") ${*:2} -> $status: $(grep -Eo -- "$pattern" <<<"$out" | head -1)"
}

# json_field FILE KEY: a top-level number from cifar-eval --json output.
json_field() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$1" "$2"; }

# A full-size data set in the real format whose images are random and whose
# labels follow the image's brightest row band (learnable), for tests that
# must not depend on the real data. Small: symlinks one file six times.
make_fake_data() {
  local dir=$1
  mkdir -p "$dir"
  python3 - "$dir" <<'PY'
import os, random, sys
d = sys.argv[1]
random.seed(0)
dim = bytes(v % 60 for v in range(256))
bright = bytes(v % 60 + 120 for v in range(256))
rec = bytearray()
for i in range(10000):
    label = i % 10
    img = bytearray(random.randbytes(3072).translate(dim))
    for c in range(3):
        lo = c * 1024 + 3 * label * 32
        img[lo:lo + 96] = img[lo:lo + 96].translate(bright)
    rec.append(label)
    rec += img
with open(os.path.join(d, "data_batch_1.bin"), "wb") as f:
    f.write(rec)
for name in ["data_batch_2.bin", "data_batch_3.bin", "data_batch_4.bin", "data_batch_5.bin", "test_batch.bin"]:
    os.symlink("data_batch_1.bin", os.path.join(d, name))
PY
}
