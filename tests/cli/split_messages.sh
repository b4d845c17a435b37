#!/usr/bin/env bash
# Empty is not absent, and each message fits its tool (issue 40, classes 6
# and 7). A split folder holding no class folder (only hidden entries or
# other files) is an error naming it and what it holds, in cifar-train
# (also with --val-split) and cifar-eval, as a missing one is; each tool's
# hint names only its own options (expect checks every --option a message
# names against the tool's --help); an option a tool ignores is named
# once, by cifar-eval as by cifar-train; ignored files are named; a split
# folder named in another case is named with its rename, and a folder of
# images (one class's) as holding images rather than class folders.
source "$(dirname "$0")/lib/common.bash"
make_fake_data bin
write_folder pets cat,dog train,test
quick=(--device cpu --epochs 1 --batch-size 20)
"$TRAIN" --data pets "${quick[@]}" --run-dir seed -o pets.pt -q >seed.log 2>&1 ||
  { cat seed.log; fail "could not train pets.pt"; }

# --- a split folder with nothing in it but hidden entries / other files ---------
cp -r pets hidden && rm -rf hidden/test/* hidden/.cifar-cache && touch hidden/test/.DS_Store
expect 1 "hidden/test holds no class folder \(it holds 1 hidden entry \('.DS_Store'\)\)" -- \
  "$TRAIN" --data hidden "${quick[@]}" --run-dir r1 -o r1.pt
expect 1 "hidden/test holds no class folder \(it holds 1 hidden entry \('.DS_Store'\)\).*or remove the folder, or hold out training images for evaluation with --val-split N" -- \
  "$TRAIN" --data hidden "${quick[@]}" --val-split 10 --run-dir r2 -o r2.pt
expect 1 "hidden/test holds no class folder \(it holds 1 hidden entry \('.DS_Store'\)\)" -- \
  "$EVAL" --data hidden --device cpu --checkpoint pets.pt
[[ ! -e r1 && ! -e r2 ]] || fail "a refused run left a run folder"
cp -r pets other && rm -rf other/test/* && printf 'x' >other/test/notes.txt && mkdir other/test/.git
expect 1 "other/test holds no class folder \(it holds 1 hidden entry \('.git'\) and 1 other file \('notes.txt'\)\)" -- \
  "$EVAL" --data other --device cpu --checkpoint pets.pt
mkdir -p empty/train && cp -r pets/test empty/ && touch empty/train/.keep
expect 1 "empty/train holds 0 class folder\(s\) \(it holds 1 hidden entry \('.keep'\)\)" -- \
  "$TRAIN" --data empty "${quick[@]}" --run-dir r3 -o r3.pt

# --- a missing test/: each tool's own way round it ----------------------------------
cp -r pets notest && rm -rf notest/test notest/.cifar-cache
expect 1 "notest has no test/ folder.*--val-split N" -- "$TRAIN" --data notest "${quick[@]}" --run-dir r4 -o r4.pt
expect 1 "notest has no test/ folder \(it holds train/\), so there are no test images: add test/<class>/\.\.\. beside train/" -- \
  "$EVAL" --data notest --device cpu --checkpoint pets.pt

# --- split folders named in another case (Kaggle's Train/, Test/): the rename said ----
mkdir kaggle && cp -r pets/train kaggle/Train && cp -r pets/test kaggle/Test
expect 1 "kaggle holds no data set .*it holds Test/, Train/; names are case-sensitive: rename Test/ to test/, Train/ to train/" -- \
  "$TRAIN" --data kaggle "${quick[@]}" --run-dir r6 -o r6.pt
mkdir capval && cp -r pets/train capval/ && cp -r pets/test capval/Val
expect 1 "capval has no test/ folder \(it holds Val/, train/; names are case-sensitive: rename Val/ to val/\)" -- \
  "$EVAL" --data capval --device cpu --checkpoint pets.pt

# --- one class's folder given as the data: images, not class folders, said ----------
expect 1 "pets/test/cat holds no data set .*It holds images themselves, where a data set's images are in class folders" -- \
  "$EVAL" --data pets/test/cat --device cpu --checkpoint pets.pt

# --- an option that does nothing here is named once, by either tool ----------------
"$TRAIN" --data bin "${quick[@]}" --train-limit 40 --test-limit 20 --labels coarse --skip-bad-images \
  --run-dir r5 -o r5.pt >r5.log 2>&1 || { cat r5.log; fail "training with --labels coarse failed"; }
"$EVAL" --data bin --device cpu --checkpoint r5.pt --labels coarse --skip-bad-images >eval.log 2>&1 ||
  { cat eval.log; fail "cifar-eval with --labels coarse failed"; }
for log in r5.log eval.log; do
  for option in "--labels coarse" --skip-bad-images; do
    count=$(grep -c -- "$option does nothing here" $log)
    [[ $count == 1 ]] || { cat $log; fail "$log names '$option does nothing here' $count times, not once"; }
  done
done
pass "--labels and --skip-bad-images on CIFAR-10: named once by cifar-train and by cifar-eval"

# --- ignored files are named --------------------------------------------------------
cp -r pets notes && rm -rf notes/.cifar-cache && printf 'about\n' >notes/test/cat/README.txt &&
  touch notes/test/dog/.hidden.png
expect 0 "notes/test: ignored 1 hidden entry \(names starting with '\.': dog/\.hidden\.png\) and 1 other file\(s\) \(only \.png, \.jpg and \.jpeg files are read: cat/README\.txt\)" -- \
  "$EVAL" --data notes --device cpu --checkpoint pets.pt
