// shard.cpp: the data sharding rule (see shard.h).
#include "cifar/data/shard.h"

#include <string>

#include "cifar/core/errors.h"

namespace cifar {

int64_t per_rank_batch(int64_t global_batch, int world_size) {
  TORCH_CHECK(world_size >= 1, "world size must be at least 1, got ", world_size);
  if (global_batch % world_size != 0 || global_batch < world_size) {
    throw UsageError("--batch-size " + std::to_string(global_batch) +
                     " is the global batch and must be a multiple of the " +
                     std::to_string(world_size) + " processes (WORLD_SIZE), e.g. " +
                     std::to_string(std::max<int64_t>(1, global_batch / world_size) * world_size));
  }
  return global_batch / world_size;
}

EpochPlan shard_plan(const EpochPlan& plan, int rank, int world_size) {
  TORCH_CHECK(rank >= 0 && rank < world_size, "rank ", rank, " is outside 0..", world_size - 1);
  if (world_size == 1) return plan;
  const int64_t share = plan.order.size(0) / world_size;
  auto pick = [&](const torch::Tensor& t) {
    if (!t.defined()) return t;
    return t.slice(0, rank, rank + share * world_size, world_size).contiguous();
  };
  EpochPlan shard = plan;  // keeps how the offsets are read (pad, pad_mode)
  shard.order = pick(plan.order);
  shard.offsets = pick(plan.offsets);
  shard.flips = pick(plan.flips);
  shard.boxes = pick(plan.boxes);
  return shard;
}

SampleRange eval_range(int64_t n, int rank, int world_size) {
  TORCH_CHECK(rank >= 0 && rank < world_size, "rank ", rank, " is outside 0..", world_size - 1);
  return {n * rank / world_size, n * (rank + 1) / world_size};
}

}  // namespace cifar
