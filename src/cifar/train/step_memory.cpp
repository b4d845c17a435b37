// step_memory.cpp: see step_memory.h.
#include "cifar/train/step_memory.h"

#include <fmt/format.h>

#include <algorithm>

#include "cifar/platform/autocast.h"
#include "cifar/platform/memory.h"

namespace cifar {
namespace {

// What a step holds at its peak, per byte its forward leaves held: the
// backward pass's gradients of the activations come on top of them. The
// peak resident memory of ResNet-18 runs (32 px stem, 128 px at batch 16
// and 256 px at batch 4) grew by 2.0x the forward's held bytes an image.
constexpr double kPeakPerHeld = 2.0;

// The bytes a forward of `batch` images of `side` px leaves held for the
// backward pass.
int64_t held_by_forward(ClassifierImpl& model, const StepMemoryOptions& options, int64_t batch,
                        int64_t side) {
  auto images = torch::zeros({batch, 3, side, side});  // (B, 3, S, S)
  if (options.channels_last) images = images.contiguous(torch::MemoryFormat::ChannelsLast);
  const int64_t before = heap_in_use_bytes();
  const AutocastScope autocast(images.device(), options.precision, /*cache=*/false);
  const torch::Tensor logits = model.forward(images);  // (B, classes), with its graph
  return heap_in_use_bytes() - before;
}

// One image's share: two images' forward less one's, each after a first
// pass of its shape (kernel caches and weight copies are made once, and
// held whatever the batch).
int64_t held_per_image(ClassifierImpl& model, const StepMemoryOptions& options, int64_t side) {
  const bool was_training = model.is_training();
  model.eval();
  held_by_forward(model, options, 1, side);
  held_by_forward(model, options, 2, side);
  const int64_t one = held_by_forward(model, options, 1, side);
  const int64_t two = held_by_forward(model, options, 2, side);
  model.train(was_training);
  return std::max<int64_t>(0, two - one);
}

}  // namespace

StepMemory forecast_step_memory(ClassifierImpl& model, const StepMemoryOptions& options) {
  const int64_t probe = std::min(options.side, kProbeSide);
  const double side_ratio = static_cast<double>(options.side) / static_cast<double>(probe);
  StepMemory memory;
  memory.per_image =
      static_cast<int64_t>(kPeakPerHeld * side_ratio * side_ratio *
                           static_cast<double>(held_per_image(model, options, probe)));
  memory.step = memory.per_image * options.batch;
  memory.available = available_memory_bytes() / std::max(1, options.processes_here);
  return memory;
}

std::string step_memory_problem(const StepMemory& memory, const StepMemoryOptions& options,
                                int64_t global_batch) {
  if (memory.available <= 0 || memory.per_image <= 0 || memory.step <= memory.available) return "";
  const int64_t fits = memory.available / memory.per_image;  // images per process
  const int64_t per_process = global_batch / std::max<int64_t>(1, options.batch);
  std::string what = fits >= 1 ? fmt::format("lower --batch-size to {} or less, or --image-size",
                                             fits * std::max<int64_t>(1, per_process))
                               : "lower --image-size (not one image fits)";
  if (options.resumed) {  // its image size is the run's, its batch too within an epoch
    what = "free memory (other programs hold it), or continue on a machine with more";
  }
  return fmt::format(
      "a training step at batch {} and {} px would hold about {} ({} an image), more than the {} "
      "free for this process{}: {}",
      options.batch, options.side, memory_size(memory.step), memory_size(memory.per_image),
      memory_size(memory.available),
      options.processes_here > 1
          ? fmt::format(" (each of the {} processes on this machine)", options.processes_here)
          : "",
      what);
}

}  // namespace cifar
