#!/usr/bin/env bash
# cifar-predict on a data set's test/ or val/ folder reads it through the
# data set's decode cache, as cifar-eval and training do: the cache training
# wrote serves it (nothing decoded), a missing cache is written once and
# serves the next call; its answers equal those for the files named one by
# one (decoded each). A folder that cannot be read so (an unreadable image)
# is decoded file by file, each file with its own answer or error line.
source "$(dirname "$0")/lib/common.bash"
PREDICT=$(cd "$(dirname "$TRAIN")" && pwd)/cifar-predict

write_folder pets cat,dog,emu train,test
"$TRAIN" --data pets --device cpu --epochs 1 --batch-size 20 --lr 0.05 --run-dir run \
  --checkpoint m.pt --no-tensorboard >train.out 2>&1 || { cat train.out; fail "training failed"; }
[[ -f pets/.cifar-cache/test.bin ]] || fail "training wrote no cache of test/"
mapfile -t files < <(find pets/test -name '*.png' | sort)

"$PREDICT" --checkpoint m.pt --top-k 2 pets/test >hit.out 2>hit.err || { cat hit.err; fail "predict failed"; }
grep -q "30 images read from the cache" hit.err || { cat hit.err; fail "the cache training wrote was not read"; }
"$PREDICT" --checkpoint m.pt --top-k 2 "${files[@]}" >files.out 2>files.err || fail "predict on files failed"
grep -q "cache" files.err && { cat files.err; fail "files named one by one went through a cache"; }
cmp -s hit.out files.out || { diff hit.out files.out; fail "the cached answers differ from the files'"; }
[[ $(wc -l <hit.out) -eq 30 ]] || fail "expected 30 answers"
pass "the cache training wrote serves cifar-predict, with the files' own answers"

rm pets/.cifar-cache/test.bin
"$PREDICT" --checkpoint m.pt --top-k 2 pets/test/ >miss.out 2>miss.err || fail "predict failed"
grep -q "decoding 30 images (once" miss.err || { cat miss.err; fail "no decoding once"; }
[[ -f pets/.cifar-cache/test.bin ]] || fail "the cache was not written"
"$PREDICT" --checkpoint m.pt --top-k 2 pets/test >again.out 2>again.err || fail "predict failed"
grep -q "read from the cache" again.err || { cat again.err; fail "the cache written was not read"; }
cmp -s miss.out files.out && cmp -s again.out files.out || fail "answers differ"
pass "a missing cache is written once and serves the next call"

echo "not a png" >pets/test/dog/zz.png
"$PREDICT" --checkpoint m.pt --top-k 2 pets/test >bad.out 2>bad.err && fail "an unreadable image passed"
grep -q "its images are decoded one by one, not through the data set's decode cache: a file in it is no readable image" bad.err ||
  { cat bad.err; fail "no fallback said"; }
grep -q "skip-bad-images" bad.err && { cat bad.err; fail "an option cifar-predict lacks is advised"; }
grep -q "error: image pets/test/dog/zz.png: not a PNG or JPEG file" bad.err ||
  { cat bad.err; fail "no error line for the bad file"; }
grep -v zz.png files.out | cmp -s - <(grep -v zz.png bad.out) ||
  { diff files.out bad.out; fail "the other 30 were not classified as before"; }
pass "an unreadable image: the folder decoded file by file, the bad file's error on its line"
