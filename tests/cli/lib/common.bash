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
  check_hint_options "$out" "$@"
  pass "$(basename "$1") ${*:2} -> $status: $(grep -Eo -- "$pattern" <<<"$out" | head -1)"
}

# tool_options TOOL: the options TOOL's --help declares (each "--name" at the
# start of a help line, after "-x," if any, and the names after it:
# "--pretrained,--no-pretrained"), one per line; remembered per tool.
declare -A TOOL_OPTIONS=()
tool_options() {
  local tool=$1 name
  name=$(basename "$tool")
  if [[ -z ${TOOL_OPTIONS[$name]+set} ]]; then
    TOOL_OPTIONS[$name]=$("$tool" --help 2>/dev/null |
      grep -Eo -- '^ +(-[a-zA-Z], ?)?--[a-z][a-z0-9-]*(,--[a-z][a-z0-9-]*)*' |
      grep -Eo -- '--[a-z][a-z0-9-]*' | sort -u)
  fi
  printf '%s\n' "${TOOL_OPTIONS[$name]}"
}

# check_hint_options OUTPUT COMMAND...: every --option a cifar tool's messages
# name is one of its own options (per its --help), or one the user typed
# (a typo it points out), or one named with its tool ("cifar-train --resume").
# Issue 40: cifar-eval once suggested --val-split, which only cifar-train has.
check_hint_options() {
  local out=$1 tool=$2 word known
  shift 2
  [[ $(basename "$tool") =~ ^cifar-(train|eval|predict|export)$ ]] || return 0
  local arg
  for arg in "$@"; do [[ $arg == --help || $arg == -h ]] && return 0; done
  known=$(tool_options "$tool")
  [[ -n $known ]] || fail "$(basename "$tool") --help lists no options"
  # A command named with its tool ("cifar-export --checkpoint m.pt --out
  # w.safetensors", up to a ')' or ';') holds that tool's options: checked
  # against its --help, and left out of the rest.
  local command other
  while read -r command; do
    [[ -z $command ]] && continue
    other=$(dirname "$tool")/$(grep -Eo '^cifar-[a-z]+' <<<"$command")
    for word in $(grep -Eo -- ' --[a-z][a-z0-9-]*' <<<"$command"); do
      grep -qxF -- "$word" <<<"$(tool_options "$other")" ||
        fail "$(basename "$tool") names $(basename "$other") $word, which is not one of its options"
    done
  done < <(grep -Eo 'cifar-(train|eval|predict|export)( [^;)]*)?' <<<"$out")
  while read -r word; do
    [[ -z $word ]] && continue
    grep -qxF -- "$word" <<<"$known" && continue
    for arg in "$@"; do [[ ${arg%%=*} == "$word" ]] && continue 2; done
    echo "$out" | grep -F -- "$word" | head -3 >&2
    fail "$(basename "$tool") names $word, which is not one of its options"
  done < <(sed -E 's/cifar-(train|eval|predict|export)( [^;)]*)?//g' <<<"$out" |
    grep -Eo -- '(^|[^a-zA-Z0-9_-])--[a-z][a-z0-9-]*[a-z0-9]' | grep -Eo -- '--[a-z][a-z0-9-]*' |
    sort -u)
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

# real_test_folder DIR N: the first N images of the real CIFAR-10 test split
# ($REAL_DATA/test_batch.bin) as DIR/<class>/<i>.png, 32x32 RGB PNGs of the
# same pixels (zlib alone), so cifar-eval can judge a checkpoint on a few
# hundred real images rather than all 10,000.
real_test_folder() {
  python3 - "$REAL_DATA" "$@" <<'PY'
import os, struct, sys, zlib
data, root, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
names = [l.strip() for l in open(os.path.join(data, "batches.meta.txt")) if l.strip()]
raw = open(os.path.join(data, "test_batch.bin"), "rb").read(3073 * n)
chunk = lambda t, d: struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))
for i in range(n):
    rec = raw[3073 * i:3073 * (i + 1)]
    r, g, b = rec[1:1025], rec[1025:2049], rec[2049:3073]
    rows = b"".join(b"\0" + bytes(v for p in range(32 * y, 32 * y + 32) for v in (r[p], g[p], b[p]))
                    for y in range(32))
    folder = os.path.join(root, names[rec[0]])
    os.makedirs(folder, exist_ok=True)
    open(os.path.join(folder, f"{i:05d}.png"), "wb").write(
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 32, 32, 8, 2, 0, 0, 0)) +
        chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))
PY
}

# write_folder DIR CLASSES SPLITS [N]: DIR/train/<class>/*.png (N each,
# default 40) and DIR/<split>/<class>/*.png for the other splits (10 each),
# 8-bit RGB PNGs of 32x32 whose class is a bright row band (learnable),
# written with zlib alone. CLASSES and SPLITS are comma-separated (cat,dog
# train,val,test); an optional fifth argument is the images' side (32).
write_folder() {
  python3 - "$@" <<'PY'
import random, struct, sys, zlib, os
root, classes = sys.argv[1], sys.argv[2].split(",")
splits = sys.argv[3].split(",")
per_class = int(sys.argv[4]) if len(sys.argv) > 4 else 40
side = int(sys.argv[5]) if len(sys.argv) > 5 else 32
random.seed(3)
# noise[v]: a random byte b becomes v + (b mod 40), at most 255.
noise = {v: bytes(min(255, v + b % 40) for b in range(256)) for v in (0, 220)}
def png(path, label):
    rows = b""
    for y in range(side):
        v = 220 if y * 32 // side // 4 == label % 8 else 0
        rows += b"\0" + random.randbytes(3 * side).translate(noise[v])
    chunk = lambda t, d: struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))
    open(path, "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", side, side, 8, 2, 0, 0, 0)) +
                           chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))
for split in splits:
    for label, name in enumerate(classes):
        os.makedirs(f"{root}/{split}/{name}", exist_ok=True)
        for i in range(per_class if split == "train" else 10):
            png(f"{root}/{split}/{name}/{i:03d}.png", label)
PY
}
