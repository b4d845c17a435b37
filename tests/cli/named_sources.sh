#!/usr/bin/env bash
# Every refusal and every ignored setting named the same way (issue 47, class
# 5): a value is checked with its source named (a config file's line, an
# environment variable), a config value has its option's type exactly, an
# option that does nothing for the data and recipe given is named once, and
# an output's folder must exist (as torch.save, cp and tee expect), a folder
# given for an output file refused naming the option.
source "$(dirname "$0")/lib/common.bash"
BIN=$(cd "$(dirname "$TRAIN")" && pwd)
PREDICT=$BIN/cifar-predict
EXPORT=$BIN/cifar-export
make_fake_data data
write_folder pics cat,dog train,test 8
quick=(--data data --device cpu --threads 1 --epochs 1 --train-limit 200 --test-limit 100
  --batch-size 100 --no-tensorboard)

# --- a config file's values: its line, whichever check refuses them -------------
# file_refused LINE_TEXT PATTERN: LINE_TEXT on line 2 of a config file is
# refused naming PATTERN and "(--config bad.toml, line 2)"; typed as a flag
# instead, the same check refuses it without the file's place.
file_refused() {
  local line=$1 pattern=$2
  shift 2
  printf '# line 1\n%s\n' "$line" >bad.toml
  expect 2 "$pattern.*\(--config bad.toml, line 2\)" -- "$TRAIN" --config bad.toml "${quick[@]}" \
    --run-dir r --checkpoint r.pt "$@"
  [[ ! -e r && ! -e r.pt ]] || fail "$line: something was written"
}
# flag_refused PATTERN ARGS...: refused naming PATTERN, and no config file.
flag_refused() {
  local pattern=$1
  shift
  expect 2 "$pattern" -- "$TRAIN" "$@"
  "$TRAIN" "$@" 2>&1 | grep -q -- "(--config" && fail "$*: a config file is named"
  return 0
}
# A value refused on the command line beside a config file is not put on the file.
printf 'lr = 0.01\n' >good.toml
expect 2 "error: --momentum must be in \[0, 1\), got 2; see cifar-train --help$" -- \
  "$TRAIN" --config good.toml --momentum 2
file_refused 'crop-pct = 0.2' "--crop-pct must be 0 \(the data set's\) or from 0.25 to 1"
file_refused 'image-size = 4' "--image-size must be 0 \(the data set's own size\) or from 8"
file_refused 'momentum = 1.0' "--momentum must be in \[0, 1\), got 1"
file_refused 'freeze-body = true' "--freeze-body fine-tunes the body of weights trained before"
file_refused 'nesterov = true' "--nesterov needs --momentum above 0" --momentum 0
# Types are exact: a quoted number, a number for a flag or a text, a float
# for a whole number.
file_refused 'crop-pct = "0.5"' '--crop-pct must be a number, unquoted \(crop-pct = 0.5\), not a string: crop-pct = "0.5"'
file_refused 'epochs = 2.0' "--epochs must be a whole number, unquoted .*not a float: epochs = 2.0"
file_refused 'augment = "true"' "--augment must be true or false .*not a string"
file_refused 'model = 3' '--model must be a quoted string \(model = "3"\), not an integer'
# The same values as flags: refused, no file named.
flag_refused "--crop-pct must be 0 \(the data set's\) or from 0.25 to 1" "${quick[@]}" --crop-pct 0.2
flag_refused "--image-size must be 0 \(the data set's own size\) or from 8 to 1024 px, got 4" \
  "${quick[@]}" --image-size 4
# A refusal about several options names the lines of those the file set.
printf 'momentum = 0.0\n' >zero.toml
expect 2 "--nesterov needs --momentum above 0.*\(--config zero.toml: momentum at line 1\)$" -- \
  "$TRAIN" --config zero.toml "${quick[@]}" --nesterov
printf 'model = "net"\nepochs = 1\nimage-size = 64\n' >two.toml
expect 2 "--model net .* 64x64.*\(--config two.toml: model at line 1, image-size at line 3\)$" -- \
  "$TRAIN" --config two.toml "${quick[@]}"
expect 2 "--model net .* 64x64.*\(--config two.toml: image-size at line 3\)$" -- \
  "$TRAIN" --config two.toml "${quick[@]}" --model net
pass "a config file's refused values name its line, whichever check refuses them"

# --- $OMP_NUM_THREADS: a value that is not a count is refused, named -----------
"$TRAIN" "${quick[@]}" --model net --run-dir m --checkpoint m.pt -q >/dev/null 2>&1 ||
  fail "could not train a checkpoint"
for value in abc 0 -1 " 1" "2,1" "1.5"; do
  for tool in train eval predict; do
    case $tool in
    train) cmd=("$TRAIN" "${quick[@]}" --run-dir o --checkpoint o.pt) ;;
    eval) cmd=("$EVAL" --checkpoint m.pt --data data --device cpu) ;;
    predict) cmd=("$PREDICT" --checkpoint m.pt pics/test/cat/000.png) ;;
    esac
    OMP_NUM_THREADS=$value expect 2 "\\\$OMP_NUM_THREADS is '$value', not a whole number of threads above 0" -- "${cmd[@]}"
  done
done
OMP_NUM_THREADS=2,1 expect 2 "a list of nested levels" -- "$EVAL" --checkpoint m.pt --data data --device cpu
OMP_NUM_THREADS= expect 0 "Accuracy of the network" -- "$EVAL" --checkpoint m.pt --data data --device cpu
[[ ! -e o && ! -e o.pt ]] || fail "a refused run wrote its outputs"
pass "\$OMP_NUM_THREADS that is not a count is refused by cifar-train, cifar-eval and cifar-predict"

# --- --data from $CIFAR10_DIR: a failure about it says so ------------------------
mkdir empty
CIFAR10_DIR=nowhere expect 1 "data folder nowhere does not exist.*\(--data from \\\$CIFAR10_DIR=nowhere\)$" -- \
  "$TRAIN" --device cpu --epochs 1 --run-dir e1 --checkpoint e1.pt
CIFAR10_DIR=empty expect 1 "empty holds no data set.*\(--data from \\\$CIFAR10_DIR=empty\)$" -- \
  "$EVAL" --checkpoint m.pt --device cpu
CIFAR10_DIR=data expect 1 "data folder elsewhere does not exist[^$]*$" -- \
  "$TRAIN" --data elsewhere --device cpu --epochs 1 --run-dir e2 --checkpoint e2.pt
pass "a failure about the data folder \$CIFAR10_DIR gave names the variable; --data given, not"

# --- an option that does nothing here is named once -----------------------------
# ignored_once WHAT TEXT ARGS...: the run succeeds and says TEXT once.
ignored_once() {
  local what=$1 pattern=$2
  shift 2
  "$TRAIN" --device cpu --threads 1 --epochs 1 --batch-size 16 --no-tensorboard \
    --run-dir "i-$what" --checkpoint "i-$what.pt" "$@" >"$what.out" 2>"$what.log" ||
    { cat "$what.log"; fail "$what: the run failed"; }
  local n
  n=$(grep -cF -- "$pattern" "$what.log")
  [[ $n -eq 1 ]] || { cat "$what.log"; fail "$what: /$pattern/ said $n times, expected once"; }
}
cifar=(--data data --train-limit 200 --test-limit 100)
ignored_once cifar_flag "--crop-scale 0.5 does nothing here: only image folders are trained on random resized crops, and data is cifar10" \
  "${cifar[@]}" --augment --crop-scale 0.5
printf 'crop-scale = 0.3\naugment = true\n' >scale.toml
ignored_once cifar_file "--crop-scale 0.3 does nothing here: only image folders" --config scale.toml "${cifar[@]}"
ignored_once airbench_cifar "--crop-scale 0.5 does nothing here: only image folders" \
  "${cifar[@]}" --recipe airbench94 --crop-scale 0.5
ignored_once folder_plain "--crop-scale 0.5 does nothing here: random resized crops augment training images, and the classic recipe does not augment them in this run (--augment turns it on)" \
  --data pics --crop-scale 0.5
"$TRAIN" --device cpu --threads 1 --epochs 1 --batch-size 16 --no-tensorboard --data pics \
  --augment --crop-scale 0.5 --run-dir used --checkpoint used.pt >used.out 2>used.log ||
  { cat used.log; fail "--crop-scale on an augmented folder run failed"; }
grep -q "crop-scale.*does nothing" used.log &&
  { cat used.log; fail "--crop-scale was called ignored where it is used"; }
grep -q "random resized crops of 0.5 to 1 of the area" used.log || { cat used.log; fail "the crops were not cut"; }
pass "--crop-scale where no resized crop is cut is named once (flag and config file); where used, not"

# --- outputs: the folder must exist, a folder is no file --------------------------
mkdir out
expect 2 "--csv out is a folder, not a file: name a file inside it \(out/predictions.csv\)" -- \
  "$PREDICT" --checkpoint m.pt --csv out pics/test/cat/000.png
expect 1 "cannot write missing/p.csv: .*\(its folder missing does not exist\); choose a writable --csv" -- \
  "$PREDICT" --checkpoint m.pt --csv missing/p.csv pics/test/cat/000.png
[[ ! -e missing ]] || fail "cifar-predict made the --csv folder"
expect 2 "--out out is a folder, not a weights file; .*choose another --out" -- \
  "$EXPORT" --checkpoint m.pt --out out
expect 1 "cannot write missing/x.safetensors: .*\(its folder missing does not exist\); choose a writable --out" -- \
  "$EXPORT" --checkpoint m.pt --out missing/x.safetensors
expect 1 "cannot write missing/c.pt: .*\(its folder missing does not exist\); choose a writable --checkpoint" -- \
  "$TRAIN" "${quick[@]}" --run-dir rc --checkpoint missing/c.pt
expect 2 "--checkpoint out is a folder, not a checkpoint file; .*choose another --checkpoint" -- \
  "$TRAIN" "${quick[@]}" --run-dir rd --checkpoint out
expect 2 "--checkpoint c.safetensors: a checkpoint is cifar-train.s own format, not .safetensors: name it .pt" -- \
  "$TRAIN" "${quick[@]}" --run-dir rs --checkpoint c.safetensors
[[ ! -e c.safetensors && ! -e rs ]] || fail "a refused --checkpoint c.safetensors wrote something"
[[ ! -e missing ]] || fail "a tool made an output's folder"
pass "outputs: a missing folder is refused naming the option and the folder (exit 1), a folder named as a file as a usage error (exit 2) in every tool"
