#!/usr/bin/env bash
# Every bad input gets one clear line and a non-zero exit: 2 for usage errors,
# 1 for runtime errors; never a crash or a raw C++ stack trace.
source "$(dirname "$0")/lib/common.bash"
make_fake_data data
ok=(--data data --device cpu --train-limit 100 --epochs 1 --batch-size 50 -q)

# --- data ---------------------------------------------------------------------
expect 1 "nope does not exist.*folder of your images \(train/<class>/\*.jpg.*download_cifar10.sh" -- \
  "$TRAIN" --data nope --device cpu
mkdir empty
expect 1 "empty holds no data set .*it holds nothing.*data_batch_1.bin" -- "$TRAIN" --data empty --device cpu
touch afile
expect 1 "afile is not a directory" -- "$TRAIN" --data afile --device cpu
mkdir -p noperm/sub && cp -rL data/. noperm/sub/ && chmod 000 noperm/sub
if [[ $(id -u) -ne 0 ]]; then
  expect 1 "cannot open|Permission denied|missing" -- "$TRAIN" --data noperm/sub --device cpu
fi
chmod 755 noperm/sub
# A split that does not fit the free memory once resized (50,000 images at
# 1024 px: 146.5 GiB) is refused before the allocation, not with LibTorch's
# "can't allocate memory" (or, smaller, the system's out-of-memory killer).
# (Capped at 8 GB of address space, so that a larger machine refuses it too.)
expect 1 "50000 images at 1024 px take 146.5 GiB in memory, more than the [0-9.]+ [GM]iB free for this process: a smaller image size, or fewer images, would fit" -- \
  bash -c 'ulimit -v 8000000 && exec "$@"' big "$TRAIN" --data data --model resnet18 --image-size 1024 --device cpu --epochs 1 --run-dir big --checkpoint big.pt
[[ ! -e big && ! -e big.pt ]] || fail "the refused run wrote files"
# batches.meta.txt: a name twice is refused naming both lines; another count
# than ten is said, and the standard names used; an escape sequence is shown
# as text, never sent to the terminal.
mkdir names && cp -L data/*.bin names/
printf 'a\nb\nc\nd\ne\nf\ng\nh\ni\na\n' >names/batches.meta.txt
expect 1 "names/batches.meta.txt: the class name 'a' is there twice \(lines 1 and 10\): each class needs a name of its own" -- \
  "$TRAIN" "${ok[@]}" --data names --run-dir names-run --checkpoint names.pt
printf 'a\nb\nc\n' >names/batches.meta.txt
expect 0 "names/batches.meta.txt lists 3 names, not CIFAR-10's 10: its standard class names are used" -- \
  "$TRAIN" "${ok[@]}" --data names --run-dir names-run --checkpoint names.pt
printf 'a\nb\nc\nd\ne\nf\ng\nh\ni\nj\033[31mRED\n' >names/batches.meta.txt
out=$("$EVAL" --checkpoint names.pt --data names --device cpu 2>&1)
grep -q $'\033' <<<"$out" && fail "an escape sequence in a class name reached the terminal"
grep -q 'j\\x1B\[31mRED' <<<"$out" || { echo "$out"; fail "the escape sequence was not shown as text"; }
mkdir part && cp -L data/data_batch_1.bin data/data_batch_2.bin part/
expect 1 "data_batch_3.bin is missing from part" -- "$TRAIN" --data part --device cpu
mkdir trunc && cp -L data/* trunc/ && truncate -s 20000000 trunc/data_batch_4.bin
expect 1 "data_batch_4.bin is 20000000 bytes, expected 30730000.*truncated" -- "$TRAIN" --data trunc --device cpu
mkdir big && cp -L data/* big/ && printf 'x' >>big/test_batch.bin
expect 1 "test_batch.bin is 30730001 bytes.*not a CIFAR-10 binary batch file" -- "$TRAIN" --data big --device cpu
mkdir badlabel && cp -L data/* badlabel/ && printf '\x0c' | dd of=badlabel/data_batch_2.bin bs=1 seek=$((5 * 3073)) conv=notrunc status=none
expect 1 "data_batch_2.bin: record 5 has label 12, outside 0-9" -- "$TRAIN" --data badlabel --device cpu
mkdir zero && cp -L data/* zero/ && : >zero/test_batch.bin
expect 1 "test_batch.bin is 0 bytes" -- "$TRAIN" --data zero --device cpu

# --- options ------------------------------------------------------------------
expect 2 "model: vgg not in \{net,resnet18\}|unknown model 'vgg'" -- "$TRAIN" "${ok[@]}" --model vgg
expect 2 "--device 'tpu' is not a device" -- "$TRAIN" "${ok[@]}" --device tpu
expect 2 "unknown schedule 'exponential'" -- "$TRAIN" "${ok[@]}" --schedule exponential
expect 2 "unknown --amp 'fp8'" -- "$TRAIN" "${ok[@]}" --amp fp8
expect 2 "unknown --labels 'medium': choose fine or coarse" -- "$TRAIN" "${ok[@]}" --labels medium
expect 2 "unknown --optimizer 'adam': choose sgd, adamw or lion" -- "$TRAIN" "${ok[@]}" --optimizer adam
expect 2 "unknown ResNet stem 'big': choose cifar or imagenet" -- "$TRAIN" "${ok[@]}" --stem big
expect 2 "--resolution-schedule '24x3,12': '12' is not a size from 16 to 1024 px" -- \
  "$TRAIN" "${ok[@]}" --resolution-schedule 24x3,12
expect 2 "unknown --recipe 'fast': choose classic or airbench94" -- "$TRAIN" "${ok[@]}" --recipe fast
expect 2 "--amp fp16 cannot be used with --cuda-graph.*use --amp bf16 with --cuda-graph" -- \
  "$TRAIN" "${ok[@]}" --amp fp16 --cuda-graph
expect 2 "--epochs must be at least 1, got 0" -- "$TRAIN" "${ok[@]}" --epochs 0
expect 2 "--epochs must be at least 1, got -2" -- "$TRAIN" "${ok[@]}" --epochs -2
expect 2 "--batch-size must be at least 1, got 0" -- "$TRAIN" "${ok[@]}" --batch-size 0
expect 2 "--batch-size must be at least 1, got -8" -- "$TRAIN" "${ok[@]}" --batch-size -8
expect 2 "--lr must be positive, got 0" -- "$TRAIN" "${ok[@]}" --lr 0
expect 2 "--lr must be positive, got -0.1" -- "$TRAIN" "${ok[@]}" --lr -0.1
expect 2 "--threads must be at least 0, got -1" -- "$TRAIN" "${ok[@]}" --threads -1
expect 2 "--epochs:? must be at most 1000000, got 99999999999999999999" -- "$TRAIN" "${ok[@]}" --epochs 99999999999999999999
expect 2 "--seed must be at least 0, got -1" -- "$TRAIN" "${ok[@]}" --seed -1
# Found only as the data is read, refused as the settings' (resolve/run_spec.cpp).
expect 2 "a validation split of 50000 images is impossible: the training set holds 50000" -- \
  "$TRAIN" "${ok[@]}" --val-split 50000
# A batch larger than the training split is lowered to it (issue 39), also for
# a recipe that drops a partial batch (once refused: "an epoch would take no step").
expect 0 "--batch-size 2000 is more than the 100 training images: lowered to 100, the most the data allows" -- \
  "$TRAIN" --data data --device cpu --recipe airbench94 --train-limit 100 --test-limit 100 \
  --batch-size 2000 --epochs 1 -q --run-dir nostep --checkpoint nostep.pt
expect 2 "--lr must be in \\(0, 1e\\+30\\], got 1e308" -- "$TRAIN" "${ok[@]}" --lr 1e308
expect 2 "--momentum must be in \\[0, 1\\), got 1.5" -- "$TRAIN" "${ok[@]}" --momentum 1.5
expect 0 "--batch-size 60000 is more than the 100 training images: lowered to 100, the most the data allows" -- "$TRAIN" "${ok[@]}" --batch-size 60000 --run-dir run-big --checkpoint big.pt
expect 0 "--threads 1000 capped at the [0-9]+ hardware threads" -- "$TRAIN" "${ok[@]:0:${#ok[@]}-1}" --threads 1000 --run-dir run-threads --checkpoint threads.pt
expect 2 "--lr must be a number in decimal or scientific notation \\(e.g. 0.01 or 1e-3\\), got 'abc'" -- "$TRAIN" "${ok[@]}" --lr abc
# Numbers are read in base 10 as typed (CLI11 read 010 as 8 and ' -1' as 2^64-1).
expect 2 "--seed must be a whole number in base 10 \\(digits only, e.g. 10\\), got ' -1'" -- "$TRAIN" "${ok[@]}" --seed ' -1'
expect 2 "--epochs must be a whole number in base 10 .*got '0x10'" -- "$TRAIN" "${ok[@]}" --epochs 0x10
expect 0 "epoch 10/10" -- "$TRAIN" "${ok[@]:0:${#ok[@]}-1}" --epochs 010 --run-dir run-010 --checkpoint e010.pt
expect 2 "The following argument was not expected: --bogus|bogus" -- "$TRAIN" "${ok[@]}" --bogus
expect 2 "--batch-size must be at least 1, got 0" -- "$EVAL" --checkpoint x.pt --batch-size 0
expect 2 "give --checkpoint FILE .* or --weights FILE" -- "$EVAL"

# --- config files ---------------------------------------------------------------
expect 2 "--config missing.toml: no such file$" -- "$TRAIN" --config missing.toml
expect 2 "^\[.*\] error: --epochs needs a value \(INT:in \[1, 1000000\]\) after it; see cifar-train --help$" -- \
  "$TRAIN" --epochs
ln -s /nowhere/cfg.toml dangling.toml
expect 2 "--config dangling.toml: no such file \(it is a symbolic link to /nowhere/cfg.toml, which is missing\)$" -- \
  "$TRAIN" --config dangling.toml
expect 2 "--config must not be empty: name a TOML file" -- "$TRAIN" --config ''
# Twice (it aborted with CLI11's raw exception, exit 134), with --help too.
printf 'lr = 0.01\n' >one.toml
printf 'lr = 0.02\n' >two.toml
expect 2 "--config is given 2 times \(one.toml, two.toml\): give one file" -- \
  "$TRAIN" --config one.toml --config=two.toml
expect 2 "--config is given 2 times" -- "$TRAIN" --config one.toml --config two.toml --help
# A shipped config's name alone: the message names the tools' own file.
expect 2 "--config photos.toml: no such file: the tools' own photos.toml is /.*/configs/photos.toml$" -- \
  "$TRAIN" --config photos.toml
# (Config files are TOML, read by toml++: syntax errors and unknown keys give
# the file and the line; CLI11's own reader said "unreadable line" instead.)
printf 'this is not toml\n' >broken.toml
expect 2 "--config broken.toml: line 1, column [0-9]+: .*expected '='" -- "$TRAIN" --config broken.toml "${ok[@]}"
printf 'momentum = 0.9.1\n' >badsyntax.toml
expect 2 "--config badsyntax.toml: line 1, column [0-9]+: " -- "$TRAIN" --config badsyntax.toml "${ok[@]}"
printf 'momentum = "0.9.1"\n' >badvalue.toml
# A quoted value for a number is refused as such (types are exact, issue 47).
expect 2 "--momentum must be a number, unquoted .*not a string: momentum = \"0.9.1\" \\(--config badvalue.toml, line 1\\)" -- "$TRAIN" --config badvalue.toml "${ok[@]}"
printf 'epochs = 1\nlearning-rate = 0.1\n' >unknown.toml
expect 2 "--config unknown.toml: line 2: unknown key 'learning-rate'" -- "$TRAIN" --config unknown.toml "${ok[@]}"

# --- checkpoints ----------------------------------------------------------------
expect 1 "checkpoint missing.pt does not exist" -- "$EVAL" --checkpoint missing.pt --data data
: >empty.pt
expect 1 "empty.pt: the file is empty" -- "$EVAL" --checkpoint empty.pt --data data
head -c 5000 /dev/urandom >garbage.pt
expect 1 "garbage.pt: not a cifar-train checkpoint" -- "$EVAL" --checkpoint garbage.pt --data data
"$TRAIN" "${ok[@]}" --checkpoint good.pt --run-dir run >/dev/null 2>&1 || fail "could not train a checkpoint"
head -c 3000 good.pt >truncated.pt
expect 1 "truncated.pt is damaged: .*truncated" -- "$EVAL" --checkpoint truncated.pt --data data
python3 - <<'PY'
import struct
b = bytearray(open("good.pt", "rb").read())
b[8:12] = struct.pack("<I", 99)
open("newer.pt", "wb").write(b)
PY
expect 1 "newer.pt is damaged: its format version field reads 99" -- "$EVAL" --checkpoint newer.pt --data data
printf 'PK\003\004 a zip file, not ours' >foreign.pt
expect 1 "foreign.pt: not a cifar-train checkpoint" -- "$EVAL" --checkpoint foreign.pt --data data
expect 2 "holds a net model, but --model is resnet18" -- "$TRAIN" "${ok[@]}" --epochs 2 --resume good.pt --model resnet18
expect 2 "already trained 1 epoch," -- "$TRAIN" "${ok[@]}" --resume good.pt
expect 1 "checkpoint run is a directory, not a file; pass the file inside it \(it holds best.pt, last.pt, model.safetensors\)" -- \
  "$EVAL" --checkpoint run --data data
# Said before the data is read: without --data (no data/ here) too.
expect 1 "checkpoint run is a directory, not a file; pass the file inside it \(it holds best.pt" -- \
  "$EVAL" --checkpoint run

# --- outputs: found unwritable before training starts ----------------------------
touch blocker
start=$(date +%s)
expect 1 "cannot create directory blocker" -- "$TRAIN" "${ok[@]}" --run-dir blocker/run
# --checkpoint's folder is not made (issue 47): a file on its way is named.
expect 1 "cannot write blocker/x.pt: .*\\(a name on the way to it is a file, not a folder\\); choose a writable --checkpoint" -- \
  "$TRAIN" "${ok[@]}" --run-dir run3 --checkpoint blocker/x.pt
expect 2 "--checkpoint run is a folder, not a checkpoint file" -- "$TRAIN" "${ok[@]}" --run-dir run4 --checkpoint run
[[ ! -e run3/metrics.csv ]] || fail "training started although the checkpoint path was unwritable"
pass "unwritable outputs are refused before any training ($(( $(date +%s) - start ))s for three runs)"

# --- out of memory: the advice names the batch size (address space capped at 6 GB) --
# A training step this large is refused by the memory forecast before the
# first step (train/step_memory.h).
expect 1 "a training step at batch 20000 and 32 px would hold about [0-9.]+ GiB \([0-9.]+ MiB an image\), more than the [0-9.]+ [GM]iB free for this process: lower --batch-size to [0-9]+ or less" -- \
  bash -c 'ulimit -v 6000000 && exec "$@"' oom "$TRAIN" --data data --device cpu --model resnet18 \
  --batch-size 20000 --train-limit 20000 --epochs 1 --run-dir run6 --checkpoint oom.pt -q
# (A training batch beyond the data is lowered to it before the run starts, so
# such a run is the one above: --batch-size 20000.)
# So is an evaluation batch this large, before the first epoch trains; the
# allocation's own advice is cifar-eval's, below.
expect 1 "an evaluation batch of 10000 images at 32 px would hold about [0-9.]+ GiB \([0-9.]+ [MK]iB an image\), more than the [0-9.]+ [GM]iB free for this process: lower --eval-batch-size to [0-9]+ or less" -- \
  bash -c 'ulimit -v 6000000 && exec "$@"' oom "$TRAIN" --data data --device cpu --model resnet18 \
  --batch-size 2 --train-limit 2 --eval-batch-size 10000 --epochs 1 --run-dir run7 --checkpoint oom.pt -q
[[ ! -e run7 && ! -e oom.pt ]] || fail "a run refused for its evaluation batch wrote files"
# cifar-eval under a 3.2 GB cap: batch 1000 fits (the control), batch 10000 does not.
expect 0 '"accuracy"' -- bash -c 'ulimit -v 3200000 && exec "$@"' oom "$EVAL" --checkpoint good.pt \
  --data data --device cpu --batch-size 1000 --json
expect 1 "out of memory on cpu at --batch-size 10000 with model net: try --batch-size 5000" -- \
  bash -c 'ulimit -v 3200000 && exec "$@"' oom "$EVAL" --checkpoint good.pt --data data --device cpu \
  --batch-size 10000

# --- a loss that diverges stops training and keeps the last good checkpoint -------
cp good.pt keep.pt
expect 1 "loss became (NaN|\\+inf|-inf) in epoch 2.*checkpoints of earlier epochs are kept.*Lower --lr" -- \
  "$TRAIN" "${ok[@]}" --epochs 3 --resume keep.pt --checkpoint keep.pt --run-dir run5 --lr 1e12 --log-interval 0.01
cmp -s good.pt keep.pt || fail "the last good checkpoint was overwritten by a diverged run"
"$EVAL" --checkpoint keep.pt --data data --device cpu --json >/dev/null 2>&1 || fail "the kept checkpoint does not load"
pass "a diverged run leaves the last good checkpoint untouched"
