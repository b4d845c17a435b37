#!/usr/bin/env bash
# No output is the same file as an input or another output of the same run,
# however it is spelled (folder links, hard links, "a/../a"), and a planted
# link never makes the tool write through it: each is refused before any
# file is written, naming both options, and the files stay as they were.
source "$(dirname "$0")/lib/common.bash"
BIN=$(cd "$(dirname "$TRAIN")" && pwd)
EXPORT=$BIN/cifar-export
make_fake_data data
ok=(--data data --device cpu --train-limit 100 --epochs 1 --batch-size 50 -q)

# --- cifar-train: --checkpoint against the run folder's own files ---------------
expect 2 "--checkpoint r1/best.pt is the same file as the run's best.pt r1/best.pt" -- \
  "$TRAIN" "${ok[@]}" --run-dir r1 --checkpoint r1/best.pt
[[ ! -e r1/best.pt && ! -e r1/config.toml ]] || fail "a refused run wrote into r1"
expect 2 "--checkpoint r1/config.toml is the same file as the run's config.toml" -- \
  "$TRAIN" "${ok[@]}" --run-dir r1 --checkpoint r1/config.toml
expect 2 "--checkpoint r1/.cifar-train.lock is the same file as the run's .cifar-train.lock" -- \
  "$TRAIN" "${ok[@]}" --run-dir r1 --checkpoint r1/.cifar-train.lock
# Spelled differently: a link to the folder, and a detour through "..".
"$TRAIN" "${ok[@]}" --run-dir r2 --checkpoint r2.pt >/dev/null 2>&1 || fail "could not train r2"
cp r2/best.pt best-before.pt
ln -s r2 r2link
expect 2 "--checkpoint r2link/best.pt is the same file as the run's best.pt r2/best.pt" -- \
  "$TRAIN" "${ok[@]}" --epochs 2 --resume r2/last.pt --run-dir r2 --checkpoint r2link/best.pt
expect 2 "--checkpoint r2/../r2/metrics.csv is the same file as the run's metrics.csv" -- \
  "$TRAIN" "${ok[@]}" --epochs 2 --resume r2/last.pt --run-dir r2 --checkpoint r2/../r2/metrics.csv
cmp -s r2/best.pt best-before.pt || fail "r2/best.pt changed"
# The data is an input: no output may replace it.
expect 2 "--checkpoint data/test_batch.bin is the same file as --data's data_batch_1.bin data/data_batch_1.bin: writing it would destroy that input" -- \
  "$TRAIN" "${ok[@]}" --run-dir r3 --checkpoint data/test_batch.bin
# Resuming into the files it was resumed from is still the normal way on.
expect 0 "" -- "$TRAIN" "${ok[@]}" --epochs 2 --resume r2/last.pt --run-dir r2 --checkpoint r2/../r2.pt

# --- cifar-export: --out must not be the checkpoint it reads ---------------------
cp r2.pt ck.pt && cp ck.pt ck-before.pt
expect 2 "--out ck.pt is the same file as --checkpoint ck.pt: writing it would destroy that input" -- \
  "$EXPORT" --checkpoint ck.pt --out ck.pt
ln ck.pt hard.pth
expect 2 "--out hard.pth is the same file as --checkpoint ck.pt" -- "$EXPORT" --checkpoint ck.pt --out hard.pth
ln -s ck.pt soft.pt
expect 2 "--out ./soft.pt is the same file as --checkpoint ck.pt" -- "$EXPORT" --checkpoint ck.pt --out ./soft.pt
cmp -s ck.pt ck-before.pt || fail "ck.pt changed"
expect 0 "wrote ck.safetensors" -- "$EXPORT" --checkpoint ck.pt --out ck.safetensors

# --- a link planted as the run folder's lock file is never followed --------------
mkdir r4 && printf 'precious\n' >victim.txt && ln -s ../victim.txt r4/.cifar-train.lock
expect 1 "its lock file r4/.cifar-train.lock is a symbolic link, which cifar-train never follows" -- \
  "$TRAIN" "${ok[@]}" --run-dir r4 --checkpoint r4.pt
[[ $(cat victim.txt) == precious ]] || fail "the lock file's link target was overwritten: $(cat victim.txt)"
rm r4/.cifar-train.lock && ln victim.txt r4/.cifar-train.lock
expect 1 "its lock file r4/.cifar-train.lock is not a regular file of its own" -- \
  "$TRAIN" "${ok[@]}" --run-dir r4 --checkpoint r4.pt
[[ $(cat victim.txt) == precious ]] || fail "the lock file's hard link target was overwritten"
# A planted link where the atomic write puts its temporary file is not followed either:
# every run writes its files whole, in place of whatever name was there.
rm r4/.cifar-train.lock && ln -s ../victim.txt r4/config.toml
expect 0 "" -- "$TRAIN" "${ok[@]}" --run-dir r4 --checkpoint r4.pt --overwrite
[[ $(cat victim.txt) == precious && ! -L r4/config.toml ]] || fail "config.toml was written through a link"
echo "all output-overlap checks passed"
