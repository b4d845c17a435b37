#!/usr/bin/env bash
# dist_collectives.sh: two ranks (two processes, gloo, loopback): broadcast
# makes parameters and buffers identical to rank 0's; the bucketed average
# equals the mean of the two ranks' gradients (net, net with buckets that cut
# through tensors, ResNet-18); the stop flag stops both ranks at the same
# step; one process (no WORLD_SIZE) makes every collective a no-op.
source "$(dirname "$0")/lib/common.bash"
source "$(dirname "$0")/lib/dist.bash"

for model in net resnet18; do
  two_ranks bcast-$model broadcast --model $model
  grep -q "broadcast: 0 of [1-9][0-9]* tensors differ" bcast-$model.1 || fail "rank 1 after broadcast ($model)"
  pass "broadcast $model: rank 1 holds rank 0's parameters and buffers"
done

two_ranks avg-net average --model net
two_ranks avg-net-small average --model net --bucket-bytes 10000
grep -q "in 25 buckets" avg-net-small.0 || fail "expected 25 buckets of 2500 floats for net"
two_ranks avg-resnet average --model resnet18
grep -Eq "in 1[0-9] buckets" avg-resnet.0 || fail "expected about 11 buckets of 4 MiB for ResNet-18"
for f in avg-net.0 avg-net.1 avg-net-small.0 avg-net-small.1 avg-resnet.0 avg-resnet.1; do
  grep -q "average of 2 ranks" "$f" || fail "$f: no two-rank average"
done
pass "bucketed average = mean of both ranks' gradients to 1e-6 (net, net in 25 buckets, ResNet-18)"

two_ranks stop steps --steps 20 --stop-rank 1 --stop-step 3
grep -q "stopped at step 3" stop.0 && grep -q "stopped at step 3" stop.1 ||
  fail "both ranks must stop at step 3 when rank 1 asks there"
pass "a stop asked by rank 1 stops both ranks at the same step"

expect 0 "average of 1 ranks, 62006 gradient elements in 0 buckets: max \|diff\| 0" -- \
  env -u WORLD_SIZE -u RANK "$DRIVER" average --model net
expect 0 "backend none" -- env WORLD_SIZE=1 RANK=0 "$DRIVER" setup
expect 2 "RANK is not set" -- env -u RANK WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=1 "$DRIVER" setup
expect 2 "MASTER_PORT=\"x\"" -- env WORLD_SIZE=2 RANK=0 MASTER_ADDR=127.0.0.1 MASTER_PORT=x "$DRIVER" setup
