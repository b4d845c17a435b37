#!/usr/bin/env bash
# The splits users lay out (issue 39, items 1, 2 and 7): an image folder's
# val/ is its validation split (best.pt chosen on it, the epoch lines call
# it val); test/ is scored at the end; train/ + val/ alone has val/ serve as
# the test split too, said once in the log and in the report; --val-split
# beside a val/ is refused; a missing split's error lists the folders there;
# val/ or test/ classes that train/ lacks are refused before anything is
# written. cifar-eval takes a data set (its test split; --split val|test|
# train) or a plain folder of class folders, refusing classes the
# checkpoint lacks, naming both lists.
source "$(dirname "$0")/lib/common.bash"
quick=(--device cpu --epochs 2 --batch-size 20 --lr 0.05)

# train_logs WHAT DATA OUT LINE...: trains on DATA (log OUT.err, report
# OUT.out, checkpoint OUT.pt, run folder run-OUT) and checks the log has
# every LINE.
train_logs() {
  local what=$1 data=$2 out=$3
  shift 3
  "$TRAIN" --data "$data" "${quick[@]}" --run-dir "run-$out" --checkpoint "$out.pt" >"$out.out" \
    2>"$out.err" || { cat "$out.err"; fail "training on $what failed"; }
  local line
  for line in "$@"; do
    grep -qF "$line" "$out.err" || { cat "$out.err"; fail "$what: the log lacks '$line'"; }
  done
}

# --- train/ + val/: val/ is the validation split and serves as the test split ---
write_folder photos cat,dog train,val
train_logs "train/ + val/" photos photos \
  "photos (folder, 2 classes: 80 training, 20 validation, 20 test images)" \
  "photos has no test/ folder: val/ serves as the test split too" \
  "best.pt: chosen by validation accuracy on the 20 images of val/"
mv photos.out train.out && mv photos.err train.err
count=$(grep -c "serves as the test split" train.err)
[[ $count == 1 ]] || { cat train.err; fail "the log says val/ serves as the test split $count times, not once"; }
grep -Eq "epoch 2/2: train .* val [0-9.]+ [0-9.]+%" train.err || { cat train.err; fail "no val figure in the epoch lines"; }
grep -qF "The test split is photos/val (the data has no test/ folder)" train.out ||
  { cat train.out; fail "the report does not say val/ is the test split"; }
final=$(grep -Eo "Accuracy of the network on the 20 test images: [0-9.]+ %" train.out) ||
  { cat train.out; fail "no final figure on val/'s 20 images"; }
pass "train/ + val/ trains: val/ validates and serves as the test split, said once in the log and in the report"

# cifar-eval: the data set's test split (val/ here), val/ itself, a class folder, --split.
expect 0 "photos has no test/ folder: its val/ serves as the test split" -- \
  "$EVAL" --checkpoint photos.pt --data photos --device cpu
"$EVAL" --checkpoint photos.pt --data photos --device cpu 2>/dev/null | grep -qF "$final" ||
  fail "cifar-eval --data photos does not give the training run's '$final'"
"$EVAL" --checkpoint photos.pt --data photos/val --device cpu >val.out 2>val.err ||
  { cat val.err; fail "cifar-eval --data photos/val (a folder of class folders) failed"; }
grep -qF "$final" val.out || { cat val.out; fail "cifar-eval --data photos/val does not give '$final'"; }
"$EVAL" --checkpoint photos.pt --data photos/val --dataset folder --device cpu 2>/dev/null | grep -qF "$final" ||
  fail "cifar-eval --data photos/val --dataset folder does not give '$final'"
pass "cifar-eval --data photos and --data photos/val agree with the training run: $final"
expect 0 "Accuracy of the network on the 80 training images" -- \
  "$EVAL" --checkpoint photos.pt --data photos --split train --device cpu
expect 0 "Accuracy of the network on the 20 validation images" -- \
  "$EVAL" --checkpoint photos.pt --data photos --split val --device cpu
mkdir -p onlycat && cp -r photos/val/cat onlycat/
expect 0 "Accuracy of the network on the 10 test images" -- \
  "$EVAL" --checkpoint photos.pt --data onlycat --device cpu
mkdir -p zoo && cp -r photos/val/cat zoo/ && cp -r photos/val/dog zoo/emu
expect 1 "zoo holds class folder\(s\) 'emu' that checkpoint photos.pt does not know: the folder's classes are 'cat', 'emu', the model's 'cat', 'dog'" -- \
  "$EVAL" --checkpoint photos.pt --data zoo --device cpu
expect 2 "--split train names a split of a data set, but photos/val is a folder of class folders" -- \
  "$EVAL" --checkpoint photos.pt --data photos/val --split train --device cpu
expect 2 "error: --split must be test, val or train, got 'dev'; see cifar-eval --help" -- \
  "$EVAL" --checkpoint photos.pt --data photos --split dev --device cpu

# --- train/ + val/ + test/: val/ chooses best.pt, test/ is scored ---------------
write_folder full cat,dog train,val,test
train_logs "train/ + val/ + test/" full full \
  "full (folder, 2 classes: 80 training, 20 validation, 20 test images)" \
  "best.pt: chosen by validation accuracy on the 20 images of val/"
grep -Eq "epoch 2/2: train .* val [0-9.]+ [0-9.]+% test [0-9.]+ [0-9.]+%" full.err ||
  { cat full.err; fail "the epoch lines lack the val and test figures"; }
! grep -q "serves as the test split" full.err full.out || fail "val/ said to serve as the test split beside a test/"
head -1 run-full/metrics.csv | grep -q "val_accuracy" || { head -1 run-full/metrics.csv; fail "metrics.csv has no validation column"; }
pass "train/ + val/ + test/: val/ validates, test/ is the test split"
expect 2 "--val-split 10 holds out training images for validation, but full has a val/ folder" -- \
  "$TRAIN" --data full "${quick[@]}" --val-split 10 --run-dir run3 --checkpoint r3.pt

# --- a missing split's error lists the folders that are there --------------------
write_folder trainonly cat,dog train
expect 1 "trainonly has no test/ folder \(it holds train/\), so there are no test images" -- \
  "$TRAIN" --data trainonly "${quick[@]}" --run-dir run4 --checkpoint r4.pt
[[ ! -e trainonly/.cifar-cache ]] || fail "a run refused for its missing test/ decoded and cached train/ first"
expect 1 "trainonly has no val/ folder \(it holds train/\), so there are no validation images" -- \
  "$EVAL" --checkpoint photos.pt --data trainonly --split val --device cpu
make_fake_data bin
expect 2 "bin \(cifar10\) has no validation split of its own.*cifar-train --val-split N" -- \
  "$EVAL" --checkpoint photos.pt --data bin --split val --device cpu

# --- val/ or test/ classes that train/ lacks: refused before anything is written --
for split in val test; do
  write_folder extra-$split cat,dog train
  write_folder extra-$split cat,dog,emu $split
  expect 1 "extra-$split/$split holds class folder\(s\) 'emu' that extra-$split/train lacks" -- \
    "$TRAIN" --data extra-$split "${quick[@]}" --run-dir run-$split --checkpoint $split.pt
  [[ ! -e run-$split && ! -e $split.pt && ! -e extra-$split/.cifar-cache ]] ||
    fail "a refused run on extra-$split left files behind (run folder, checkpoint or image cache)"
done
pass "val/ and test/ classes that train/ lacks are refused before anything is written"

# --- valid/ (Roboflow's) and validation/ are the validation split as val/ is ----
cp -r photos roboflow && rm -rf roboflow/.cifar-cache && mv roboflow/val roboflow/valid
train_logs "train/ + valid/" roboflow r5 \
  "roboflow (folder, 2 classes: 80 training, 20 validation, 20 test images)" \
  "roboflow has no test/ folder: valid/ serves as the test split too" \
  "best.pt: chosen by validation accuracy on the 20 images of valid/"
grep -qF "The test split is roboflow/valid" r5.out || { cat r5.out; fail "the report does not name valid/"; }
cp -r full named && rm -rf named/.cifar-cache && mv named/val named/validation
"$TRAIN" --data named "${quick[@]}" --run-dir run6 --checkpoint r6.pt >r6.out 2>r6.err ||
  { cat r6.err; fail "training on train/ + validation/ + test/ failed"; }
grep -qF "best.pt: chosen by validation accuracy on the 20 images of validation/" r6.err ||
  { cat r6.err; fail "train/ + validation/ + test/: best.pt not chosen on validation/"; }
expect 0 "Accuracy of the network on the 20 validation images" -- \
  "$EVAL" --checkpoint r6.pt --data named --split val --device cpu
cp -r named/validation named/val
expect 1 "named has both val/ and validation/: each is read as the validation split" -- \
  "$TRAIN" --data named "${quick[@]}" --run-dir run7 --checkpoint r7.pt
[[ ! -e run7 && ! -e r7.pt ]] || fail "a run refused for two validation folders wrote files"
pass "valid/ and validation/ serve as val/ does, named in the log; two of them refused, naming both"
# A split's folder given as the data: the data set it belongs to is named.
for split in train valid; do
  expect 1 "roboflow/$split holds no data set cifar-train knows .*It is the $split split of the data set in /.*/roboflow: give --data /.*/roboflow\$" -- \
    "$TRAIN" --data roboflow/$split "${quick[@]}" --run-dir run9 --checkpoint r9.pt
done
pass "--data DIR/train or DIR/valid: the refusal names DIR"

# A photo run's default checkpoint is named after its folder, not only its model.
"$TRAIN" --data roboflow/ "${quick[@]}" --run-dir run8 >r8.out 2>r8.err ||
  { cat r8.err; fail "training without --checkpoint failed"; }
[[ -f roboflow-net.pt && ! -e net.pt ]] || { ls; fail "a run on roboflow/ without --checkpoint did not write roboflow-net.pt"; }
pass "a photo run's default checkpoint is DIR-MODEL.pt"

# --- a run folder inside the image folder: refused before it is made ----------------
expect 2 "--run-dir photos/train/runs is inside the image folder --data photos: the next run would read it as data" -- \
  "$TRAIN" --data photos "${quick[@]}" --run-dir photos/train/runs --checkpoint inside.pt
[[ ! -e photos/train/runs && ! -e inside.pt ]] || fail "the refused run made its folder or checkpoint"
expect 2 "--run-dir photos/validation is inside the image folder" -- \
  "$TRAIN" --data photos "${quick[@]}" --run-dir photos/validation --checkpoint inside.pt
# So is a checkpoint (the next run took photos/train/a/x.jpg for a broken image).
cls=$(ls photos/train | head -1)
expect 2 "--checkpoint photos/train/$cls/x.jpg is inside the image folder --data photos: the next run would read it as data .*choose a --checkpoint outside its splits" -- \
  "$TRAIN" --data photos "${quick[@]}" --run-dir outside --checkpoint "photos/train/$cls/x.jpg"
[[ ! -e photos/train/$cls/x.jpg && ! -e outside ]] || fail "the refused run wrote its checkpoint or folder"
# Beside the splits, as the default runs/ of `cd photos && cifar-train --data .`: read by nothing.
(cd photos && "$TRAIN" --data . "${quick[@]}" --epochs 1 --checkpoint ../beside.pt >/dev/null 2>../beside.err) ||
  { cat beside.err; fail "a run folder beside the splits was refused"; }
rm -rf photos/runs
pass "a --run-dir in the image folder's splits is refused, one beside them is not"

# --- links that would read the split's images twice, or train on the held-out ones ----
write_folder loops cat,dog train,val
ln -s .. loops/train/cat/all
expect 1 "loops/train/cat/all leads back to .*loops/train, a folder that holds loops/train/cat: its images would be read again under cat; remove the link" -- \
  "$TRAIN" --data loops "${quick[@]}" --run-dir run-loops --checkpoint loops.pt
rm loops/train/cat/all && rm -rf loops/val && ln -s train loops/val
expect 1 "loops/val is the folder loops/train itself \(a link\): its images are trained on, so they cannot measure the model" -- \
  "$TRAIN" --data loops "${quick[@]}" --run-dir run-loops --checkpoint loops.pt
[[ ! -e run-loops && ! -e loops.pt ]] || fail "a refused run wrote its folder or checkpoint"
pass "a link back into the split, and a val/ that is train/, are refused"
