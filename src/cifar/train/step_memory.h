// step_memory.h: a CPU training step's memory, forecast before the first step.
//
// A step keeps its forward pass's activations for the backward pass: per
// image, an amount that grows with the image's pixels (ResNet-18 with its
// 32 px stem: about 4.4 KB a pixel, so 4.6 GB an image at 1024 px). A batch
// that does not fit the memory the machine has free does not fail: the
// system swaps, then its out-of-memory killer ends the process minutes
// later without a word. So before the first step one image's forward is
// measured (at most kProbeSide px, scaled by the pixels to the training
// side), its graph dropped unrun, and a step that would need more than the
// free memory is refused, naming the batch that fits. The evaluation's
// batches hold no graph, but --eval-batch-size images at once (100 by
// default, 2000 in some configs): their forward's peak is measured too (the
// tensors LibTorch allocates, platform/peak_memory.h, on 1 and 8 images) and
// an evaluation batch that would not fit is refused the same way, before the
// first epoch's training is spent. (The heap figure is glibc's, so under
// another malloc the step's forecast reads 0 and says nothing.)
#pragma once

#include <cstdint>
#include <string>

#include "cifar/model/models.h"
#include "cifar/platform/precision.h"

namespace cifar {

inline constexpr int64_t kProbeSide = 64;

struct StepMemoryOptions {
  int64_t batch = 0;  // this process's batch
  int64_t side = 0;   // the training images' side, px
  bool channels_last = false;
  Precision precision = {};  // the step's autocast
  int processes_here = 1;    // processes sharing this machine's memory
  bool resumed = false;      // a --resume: its image size and batch are the run's
  int64_t eval_batch = 0;    // the evaluation's batch (--eval-batch-size, at most the images)
  int64_t eval_side = 0;     // the evaluated images' side, px
};

struct StepMemory {
  int64_t per_image = 0;       // bytes a step holds for each image at `side`
  int64_t step = 0;            // per_image x batch
  int64_t available = 0;       // this process's share of the memory free now (0: unknown)
  int64_t eval_per_image = 0;  // bytes an evaluation batch holds for each image at eval_side
  int64_t eval = 0;            // eval_per_image x eval_batch
};

// Measures one image's forward on the CPU (the model in eval mode, so that
// BatchNorm's statistics, the weights and the random streams are as they
// were) and scales it to the batch and the side.
StepMemory forecast_step_memory(ClassifierImpl& model, const StepMemoryOptions& options);

// "" when the step and the evaluation batch fit (or the free memory is
// unknown); else why not, and the --batch-size (`global_batch` is what the
// user gave) or --eval-batch-size that fits, or, resumed, to free memory.
std::string step_memory_problem(const StepMemory& memory, const StepMemoryOptions& options,
                                int64_t global_batch);

}  // namespace cifar
