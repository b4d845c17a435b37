// cuda_graph.h: the training step captured as a CUDA graph and replayed.
//
// One launch per step instead of hundreds: the step body of
// replayed_step.h (forward, backward and every parameter group's update at
// its device-scalar rate: SGD, Muon) is captured on a side stream after a
// short warm-up (which is then undone), and every later step copies its
// batch into the graph's static inputs and replays it. Graphs replay fixed
// shapes, so the epoch drops its last partial batch; a new image size
// (--resolution-schedule) or a parameter group frozen by its schedule is a
// new capture. The step is made once per run and kept across epochs
// (train/epoch.h's EpochState): the running totals it adds to stay where the
// graph captured them and are zeroed in place at each epoch's start.
//
// An epoch smaller than one batch is refused before any CUDA work, on every
// device. On a build without CUDA the factory throws: nothing else in the
// loop needs to know whether CUDA exists.
#pragma once

#include <memory>

#include "cifar/train/replayed_step.h"

namespace cifar {

// The step for epochs of `plan` (this process's share of `data`) at
// `batch_size`; nothing is captured until its first prepare() or run().
// Throws std::logic_error for an epoch of no full batch, which resolve/
// refuses before (resolve/run_spec.h); std::runtime_error when the data is
// not on a CUDA device or CUDA is not compiled in. A capture that fails
// throws std::runtime_error (the capture is ended and the allocator routes
// to its usual pools again), or a CUDA out-of-memory error as it came, so
// that the caller's advice (platform/oom.h) names the batch size.
std::unique_ptr<ReplayedStep> make_graphed_step(Learner& learner, const DeviceDataset& data,
                                                const EpochPlan& plan, int64_t batch_size,
                                                const StepSpec& options, RunningTotals& totals);

}  // namespace cifar
