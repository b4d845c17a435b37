// thread_probe.h: a training step's forward and backward that changes nothing.
//
// The thread tuner (platform/thread_tuner.h) times candidate thread counts on
// probes, so that every real step runs at the chosen count and a run's
// numbers do not depend on the measuring. A probe of a batch's first
// `images` images (the tuner slices large batches) is
//   forward (under the step's autocast) + loss + backward (autograd::grad)
// with the gradients returned and thrown away (the parameters' .grad is not
// touched), the model's buffers (BatchNorm running statistics) put back from
// a copy, the default CPU generator's state kept, the running totals left
// alone, and no all-reduce and no optimizer update.
#pragma once

#include "cifar/data/loader.h"
#include "cifar/model/models.h"
#include "cifar/train/step.h"

namespace cifar {

// The model must be in training mode, as it is during an epoch. `images`
// beyond the batch's size mean the whole batch.
void probe_step(ClassifierImpl& model, const Batch& batch, const StepOptions& options,
                int64_t images);

}  // namespace cifar
