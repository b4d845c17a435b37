#!/usr/bin/env bash
# An output replaces only a file that is its tool's own output (issue 30,
# item 1). Each of these was replaced, silently: --checkpoint (-o) onto a
# character device or a FIFO, onto the --config file, onto a file of another
# run's folder; cifar-export --out onto a run's best.pt or a file it did not
# write; --resume A/last.pt --run-dir B onto B's results; a second run onto
# the -o of a run still training. And --overwrite removed the old run's
# files before it found the new run's unwritable. Each is now refused
# before anything is written, naming what the file is, and stays as it was.
# A checkpoint of another run that a run does replace is named, with the run
# folder that keeps that run's best.pt.
source "$(dirname "$0")/lib/common.bash"
EXPORT=$(cd "$(dirname "$TRAIN")" && pwd)/cifar-export
make_fake_data data
ok=(--data data --device cpu --train-limit 100 --test-limit 100 --epochs 1 --batch-size 50 -q)

# unchanged FILE SUM: the file still has the checksum taken before.
sum() { sha256sum "$1" | cut -d' ' -f1; }

# --- cifar-train's --checkpoint ---------------------------------------------------
mkfifo fifo
expect 2 "--checkpoint fifo is a FIFO, not a checkpoint file; cifar-train replaces only its own checkpoints" -- \
  "$TRAIN" "${ok[@]}" --run-dir r-fifo -o fifo
[[ -p fifo && ! -e r-fifo/config.toml ]] || fail "the FIFO was replaced, or the run wrote files"
if mknod chr c 1 3 2>/dev/null; then  # a copy of /dev/null's node, inside the test folder
  expect 2 "--checkpoint chr is a character device" -- "$TRAIN" "${ok[@]}" --run-dir r-chr -o chr
  [[ -c chr ]] || fail "the character device was replaced"
fi
ln -s gone/x.pt dangling.pt  # a link to nothing: said, not "does not exist"
expect 2 "--checkpoint dangling.pt is a symbolic link to gone/x.pt, which is missing, not a checkpoint file" -- \
  "$TRAIN" "${ok[@]}" --run-dir r-dangling -o dangling.pt
expect 2 "--out dangling.pt is a symbolic link to gone/x.pt, which is missing, not a weights file" -- \
  "$EXPORT" --weights nothing.pt --model net --out dangling.pt
[[ -L dangling.pt ]] || fail "the dangling link was replaced"
printf 'epochs = 1\n' >exp.toml
before=$(sum exp.toml)
expect 2 "--checkpoint exp.toml is the same file as --config exp.toml: writing it would destroy that input" -- \
  "$TRAIN" --config exp.toml "${ok[@]}" --run-dir r-exp -o exp.toml
[[ $(sum exp.toml) == "$before" ]] || fail "the config file was overwritten"

expect 0 "" -- "$TRAIN" "${ok[@]}" --run-dir A -o a.pt
expect 2 "--checkpoint A/best.pt is a file of run folder A, another run's output" -- \
  "$TRAIN" "${ok[@]}" --run-dir r-other -o A/best.pt
expect 0 "replacing a.pt .* written by another run; its run folder /.*/A keeps that run's best.pt" -- \
  "$TRAIN" "${ok[@]}" --run-dir A2 -o a.pt

# --- cifar-export's --out -----------------------------------------------------------
best=$(sum A/best.pt)
expect 2 "--out A/best.pt is a file of run folder A, that run's output; cifar-export replaces only weights files it wrote" -- \
  "$EXPORT" --checkpoint a.pt --out A/best.pt
[[ $(sum A/best.pt) == "$best" ]] || fail "cifar-export replaced the run's best.pt"
mkfifo fifo.pt
expect 2 "--out fifo.pt is a FIFO, not a weights file" -- "$EXPORT" --checkpoint a.pt --out fifo.pt
[[ -p fifo.pt ]] || fail "cifar-export replaced the FIFO"
printf 'not weights' >notmine.safetensors
expect 2 "--out notmine.safetensors holds something cifar-export did not write" -- \
  "$EXPORT" --checkpoint a.pt --out notmine.safetensors
: >empty.safetensors  # an empty file (touch, mktemp) holds nothing to lose
expect 0 "wrote empty.safetensors" -- "$EXPORT" --checkpoint a.pt --out empty.safetensors
for ext in safetensors pt; do  # its own output it replaces
  expect 0 "wrote mine.$ext" -- "$EXPORT" --checkpoint a.pt --out mine.$ext
  expect 0 "wrote mine.$ext" -- "$EXPORT" --checkpoint a.pt --out mine.$ext
done

# --- --resume into another run's folder ---------------------------------------------
expect 0 "" -- "$TRAIN" "${ok[@]}" --run-dir B -o b.pt
b_last=$(sum B/last.pt) b_config=$(sum B/config.toml) b_metrics=$(sum B/metrics.csv)
expect 2 "--run-dir B holds another run's results .*not those of the run being resumed .*; continue the folder's own run with --config B/config.toml --resume B/last.pt --checkpoint NEW.pt, continue A/last.pt in a new folder with --run-dir NEW_DIR" -- \
  "$TRAIN" "${ok[@]}" --epochs 2 --resume A/last.pt --run-dir B -o c.pt
[[ $(sum B/last.pt) == "$b_last" && $(sum B/config.toml) == "$b_config" &&
   $(sum B/metrics.csv) == "$b_metrics" ]] || fail "B's files changed"
expect 0 "" -- "$TRAIN" "${ok[@]}" --epochs 2 --resume A/last.pt --run-dir A -o a.pt

# --- two runs on one -o ---------------------------------------------------------------
# The long run is a.pt's run (started in A) resumed into long: the folder
# that writes shared.pt is long, not the one its run id names.
"$TRAIN" "${ok[@]}" --epochs 100000 --resume a.pt --run-dir long -o shared.pt >long.log 2>&1 &
long=$!
for _ in $(seq 300); do [[ -s shared.pt ]] && break; sleep 0.1; done
[[ -s shared.pt ]] || { kill "$long"; fail "the long run wrote no checkpoint in 30 s"; }
expect 2 "--checkpoint shared.pt is being written by another run, still training \(run folder .*long\)" -- \
  "$TRAIN" "${ok[@]}" --run-dir second -o shared.pt
# The same run resumed from it into another folder, while it trains: the
# two would replace each other's checkpoint too (its run id is the same).
expect 2 "--checkpoint shared.pt is being written by another run, still training \(run folder .*long\)" -- \
  timeout 120 "$TRAIN" "${ok[@]}" --epochs 100000 --resume shared.pt --run-dir third -o shared.pt
[[ ! -e third ]] || fail "the refused resume left its run folder"
kill -TERM "$long"
wait "$long"

# --- --overwrite checks the new run's outputs before it removes the old ---------------
expect 1 "cannot write /proc/x.pt" -- "$TRAIN" "${ok[@]}" --run-dir B --overwrite -o /proc/x.pt
[[ $(sum B/last.pt) == "$b_last" && -e B/best.pt && -e B/metrics.csv ]] ||
  fail "--overwrite removed B's results before the run could write its own"
