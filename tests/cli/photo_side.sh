#!/usr/bin/env bash
# An image folder's side follows its photos (issue 53): with no --image-size,
# weights or resumed run, airbench94 trains at the photos' median shorter
# side (a multiple of 8, at least 32) up to 64 px, and up to 32 in float32
# on more than 1,000 photos, and says why; --image-size overrides it; the
# checkpoint keeps it.
source "$(dirname "$0")/lib/common.bash"
write_folder big cat,dog train,val 20 96
write_folder small cat,dog train,val 20 40
train() {  # NAME DATA ARGS...: one epoch, its log in NAME.err
  local name=$1 data=$2
  shift 2
  "$TRAIN" --config "$SRC/configs/photos.toml" --data "$data" --device cpu --epochs 1 --steps 0 \
    --train-limit 16 --test-limit 8 --run-dir "run-$name" --checkpoint "$name.pt" "$@" >"$name.out" 2>"$name.err" ||
    { tail -20 "$name.err"; fail "$name: training failed"; }
}
train bf16 big --amp bf16
grep -qF "images: 64 px, from the photos (their median shorter side 96 px; 64 at most for airbench94)" bf16.err ||
  { grep "images:" bf16.err; fail "96 px photos in bf16: not trained at 64 px, or not said why"; }
grep -qx "image-size = 64" run-bf16/config.toml || fail "config.toml does not hold the 64 px chosen"
train float32 big --amp off
grep -qF "images: 64 px, from the photos (their median shorter side 96 px; 64 at most for airbench94)" float32.err ||
  { grep "images:" float32.err; fail "40 photos of 96 px in float32: not trained at 64 px"; }
write_folder many cat,dog train,val 501 96
train many many --amp off
grep -qF "images: 32 px, from the photos (their median shorter side 96 px; 32 at most for airbench94 on 1002 photos in float32" many.err ||
  { grep "images:" many.err; fail "1,002 photos of 96 px in float32: not trained at 32 px, or not said why"; }
train small small --amp bf16
grep -qF "images: 40 px, from the photos (their median shorter side 40 px" small.err ||
  { grep "images:" small.err; fail "40 px photos: not trained at their own 40 px"; }
train given big --amp bf16 --image-size 48
! grep -q "from the photos" given.err || fail "--image-size 48 was overridden by the photos' side"
grep -qx "image-size = 48" run-given/config.toml || fail "--image-size 48 not kept"
pass "photos' side: 96 px photos at 64 (bf16, and float32 for 40 of them) and 32 (float32, 1,002 of them), 40 px photos at 40, --image-size kept"
