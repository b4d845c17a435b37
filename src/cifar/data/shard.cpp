// shard.cpp: the data sharding rule (see shard.h).
#include "cifar/data/shard.h"

#include <string>

#include <stdexcept>

namespace cifar {

std::string batch_share_problem(int64_t global_batch, int world_size) {
  TORCH_CHECK(world_size >= 1, "world size must be at least 1, got ", world_size);
  if (global_batch % world_size == 0 && global_batch >= world_size) return "";
  return "--batch-size " + std::to_string(global_batch) +
         " is the global batch and must be a multiple of the " + std::to_string(world_size) +
         " processes (WORLD_SIZE), e.g. " +
         std::to_string(std::max<int64_t>(1, global_batch / world_size) * world_size);
}

int64_t per_rank_batch(int64_t global_batch, int world_size) {
  if (const std::string problem = batch_share_problem(global_batch, world_size); !problem.empty()) {
    throw std::invalid_argument(problem);
  }
  return global_batch / world_size;
}

EpochShape epoch_shape(int64_t n, int64_t batch_size, bool drop_last, bool graphed) {
  TORCH_CHECK(batch_size > 0, "batch size must be positive, got ", batch_size);
  // A last batch of one image is dropped too: batch norm cannot train on one
  // image once its features are 1x1 (PyTorch's "Expected more than 1 value
  // per channel when training"), and one image an epoch is no loss.
  const bool single_left = n > batch_size && n % batch_size == 1;
  const bool drop = drop_last || graphed || single_left;
  return {.batch_size = batch_size,
          .steps = drop ? n / batch_size : (n + batch_size - 1) / batch_size,
          .graphed = graphed};
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
