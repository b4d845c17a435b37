// cuda_graph.h: the training step captured once as a CUDA graph and replayed.
//
// One launch per step instead of hundreds: forward, backward and the SGD
// update are captured on a side stream after a short warm-up (which is then
// undone), and every later step copies its batch into the graph's static
// inputs and replays it. The learning rate lives in a device scalar that the
// captured update reads. Graphs replay fixed shapes, so the epoch drops its
// last partial batch. On a build without CUDA the factory throws: nothing
// else in the loop needs to know whether CUDA exists.
#pragma once

#include <memory>

#include "cifar/train/step.h"

namespace cifar {

// `example` fixes the batch shape. Throws std::runtime_error when capture
// fails or CUDA is not compiled in.
std::unique_ptr<TrainStep> make_graphed_step(Learner& learner, const Batch& example,
                                             const StepOptions& options, RunningTotals& totals);

}  // namespace cifar
