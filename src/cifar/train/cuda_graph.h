// cuda_graph.h: the training step captured once as a CUDA graph and replayed.
//
// One launch per step instead of hundreds: forward, backward and the SGD
// update are captured on a side stream after a short warm-up (which is then
// undone), and every later step copies its batch into the graph's static
// inputs and replays it. The learning rate lives in a device scalar that the
// captured update reads. Graphs replay fixed shapes, so the epoch drops its
// last partial batch. The step is made once per run and kept across epochs
// (train/epoch.h's EpochState): the running totals it adds to stay where the
// graph captured them and are zeroed in place at each epoch's start.
//
// What a graph cannot run is refused before any CUDA work, on every device:
// a recipe other than one SGD group (config validate() refuses airbench94
// earlier still), an epoch smaller than one batch. On a build without CUDA
// the factory throws: nothing else in the loop needs to know whether CUDA
// exists.
#pragma once

#include <memory>

#include "cifar/train/step.h"

namespace cifar {

// The step for epochs of `plan` (this process's share of `data`) at
// `batch_size`, its batch shape taken from the plan's first batch. Throws
// std::logic_error for what a graph cannot run (see above), which resolve/
// refuses before (resolve/run_spec.h); std::runtime_error when
// capture fails (the capture is ended and the allocator routes to its usual
// pools again) or CUDA is not compiled in; a CUDA out-of-memory error as it
// came, so that the caller's advice (platform/oom.h) names the batch size.
std::unique_ptr<TrainStep> make_graphed_step(Learner& learner, const DeviceDataset& data,
                                             const EpochPlan& plan, int64_t batch_size,
                                             const StepSpec& options, RunningTotals& totals);

}  // namespace cifar
