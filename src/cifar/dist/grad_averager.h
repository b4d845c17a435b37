// grad_averager.h: gradients averaged across ranks after backward, in flat
// buckets.
//
// All gradients are copied into one flat buffer (plus one element: the stop
// flag), cut into buckets of about `bucket_bytes`; a bucket may start or end
// in the middle of a tensor. start(), called once backward has finished,
// launches one asynchronous all-reduce per bucket; wait(), called right after
// it, waits for all of them, divides by the world size and copies the means
// back into the gradients. Nothing overlaps backward (DDP starts each bucket
// from a gradient hook while backward still runs; this does not): the buckets
// only let several all-reduces be in flight at once.
// The stop flag rides in the last bucket, so agreeing to stop at the same
// step (any rank got SIGINT/SIGTERM) costs no extra collective. With one
// process start() and wait() do nothing (wait() returns the local flag).
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <vector>

#include "cifar/dist/distributed.h"

namespace cifar {

struct GradAveragerOptions {
  TORCH_ARG(int64_t, bucket_bytes) = 4 << 20;  // 4 MiB, as in DDP's default 25 MiB / a few
};

class GradientAverager {
 public:
  // `params`: the model's parameters (their .grad() is averaged). All must
  // share one dtype and device.
  GradientAverager(Distributed& dist, std::vector<torch::Tensor> params,
                   GradAveragerOptions options = {});

  // After backward: copy the gradients in and launch the all-reduces.
  // `stop_local`: this rank wants to stop (cifar::stop_requested()).
  // A parameter without a gradient counts as zeros.
  void start(bool stop_local);
  // Before the optimizer step: wait, average, copy back. Returns true when
  // any rank asked to stop at this step (the same answer on every rank).
  bool wait();

  int64_t bucket_count() const { return static_cast<int64_t>(buckets_.size()); }
  int64_t numel() const { return numel_; }  // gradient elements, without the flag

 private:
  Distributed& dist_;
  std::vector<torch::Tensor> params_;
  int64_t numel_ = 0;
  torch::Tensor flat_;                  // (numel + 1) the gradients, then the stop flag
  std::vector<torch::Tensor> buckets_;  // views of flat_
  std::vector<PendingCollective> pending_;
  bool stop_local_ = false;
  bool started_ = false;
};

}  // namespace cifar
