// shard.h: which samples each rank trains on, and with which batch size.
//
// Every rank draws the same epoch plan from (seed, epoch) and keeps every
// world_size-th entry starting at its rank (DistributedSampler's rule), cut to
// an equal share: no sample is used twice and every rank runs the same number
// of steps, so collectives never mismatch. With the per-rank batch
// global_batch / world_size, step s of rank r uses plan entries
// [s * global_batch, (s + 1) * global_batch) taken every world_size-th, so the
// ranks together see exactly the global batch a single process would (only
// the last N mod world_size entries of the plan are left out).
#pragma once

#include <cstdint>
#include <string>

#include "cifar/data/loader.h"

namespace cifar {

// What is wrong with a global batch of `global_batch` over `world_size`
// processes ("" when they divide it: --batch-size stays the global batch);
// resolve/ refuses the settings with it.
std::string batch_share_problem(int64_t global_batch, int world_size);

// The per-rank batch size; std::invalid_argument (batch_share_problem's
// text) when world_size does not divide the global batch.
int64_t per_rank_batch(int64_t global_batch, int world_size);

// How this process's epochs are cut into steps, decided once per run
// (epoch_shape) and passed to whatever counts steps: the parameter groups'
// schedules, the forecast, the epoch itself.
struct EpochShape {
  int64_t batch_size = 4;  // per process
  int64_t steps = 0;       // steps in one epoch of this process's share
  bool graphed = false;    // a captured CUDA graph replays the step
};

// The shape of epochs of n samples (this process's share) at batch_size: the
// last partial batch is dropped when the recipe says so (drop_last) or a
// CUDA graph replays the step (graphed: true only on a CUDA device), as a
// graph's shapes are fixed, or when it would hold one image (batch norm
// cannot train on it).
EpochShape epoch_shape(int64_t n, int64_t batch_size, bool drop_last, bool graphed);

// This rank's share of an epoch plan: order, offsets and flips alike.
// (N) -> (N / world_size). With world_size 1 the plan itself.
EpochPlan shard_plan(const EpochPlan& plan, int rank, int world_size);

// The evaluation's share of n samples: rank r takes [begin, end), contiguous,
// sizes differing by at most one, all n exactly once over the ranks (the
// confusion matrix is summed afterwards, so unequal counts do no harm).
struct SampleRange {
  int64_t begin = 0;
  int64_t end = 0;
};
SampleRange eval_range(int64_t n, int rank, int world_size);

}  // namespace cifar
