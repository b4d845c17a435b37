// step_memory.cpp: see step_memory.h.
#include "cifar/train/step_memory.h"

#include <fmt/format.h>

#include <algorithm>

#include "cifar/platform/autocast.h"
#include "cifar/platform/memory.h"
#include "cifar/platform/peak_memory.h"

namespace cifar {
namespace {

// What a step holds at its peak, per byte its forward leaves held: the
// backward pass's gradients of the activations come on top of them. The
// peak resident memory of ResNet-18 runs (32 px stem, 128 px at batch 16
// and 256 px at batch 4) grew by 2.0x the forward's held bytes an image.
constexpr double kPeakPerHeld = 2.0;

// A probe's input: `batch` blank images of `side` px, in the run's layout.
torch::Tensor probe_images(const StepMemoryOptions& options, int64_t batch, int64_t side) {
  auto images = torch::zeros({batch, 3, side, side});  // (B, 3, S, S)
  if (options.channels_last) images = images.contiguous(torch::MemoryFormat::ChannelsLast);
  return images;
}

// The bytes a forward of `batch` images of `side` px leaves held for the
// backward pass.
int64_t held_by_forward(ClassifierImpl& model, const StepMemoryOptions& options, int64_t batch,
                        int64_t side) {
  const torch::Tensor images = probe_images(options, batch, side);
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

// What an evaluation batch holds at its peak, per byte of tensors its
// forward allocates at once: the process's resident memory grew by 1.9-2.1x
// the tensors' peak an image (ResNet-18, 32 px stem, float32: 128 and 256
// px; docs/benchmarks.md), oneDNN's own buffers and the heap's slack on top.
constexpr double kEvalPeakPerTensors = 2.0;
constexpr int64_t kEvalProbeBatch = 8;

// The most tensor bytes a forward without a graph of `batch` images of
// `side` px holds at once.
int64_t eval_peak(ClassifierImpl& model, const StepMemoryOptions& options, int64_t batch,
                  int64_t side) {
  const torch::Tensor images = probe_images(options, batch, side);
  return peak_cpu_tensor_bytes([&] {
    const torch::NoGradGuard no_grad;
    const AutocastScope autocast(images.device(), options.precision, /*cache=*/false);
    const torch::Tensor logits = model.forward(images);  // (B, classes)
  });
}

// One image's share of an evaluation batch's peak at `side`: eight images'
// less one's over seven (at one or two images a forward's fixed buffers
// hide it), after a first pass of each shape.
int64_t eval_peak_per_image(ClassifierImpl& model, const StepMemoryOptions& options, int64_t side) {
  const bool was_training = model.is_training();
  model.eval();
  eval_peak(model, options, 1, side);
  eval_peak(model, options, kEvalProbeBatch, side);
  const int64_t one = eval_peak(model, options, 1, side);
  const int64_t many = eval_peak(model, options, kEvalProbeBatch, side);
  model.train(was_training);
  return std::max<int64_t>(0, (many - one) / (kEvalProbeBatch - 1));
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
  if (options.eval_batch > 0) {
    const int64_t eval_probe = std::min(options.eval_side, kProbeSide);
    const double eval_ratio =
        static_cast<double>(options.eval_side) / static_cast<double>(eval_probe);
    memory.eval_per_image =
        static_cast<int64_t>(kEvalPeakPerTensors * eval_ratio * eval_ratio *
                             static_cast<double>(eval_peak_per_image(model, options, eval_probe)));
    memory.eval = memory.eval_per_image * options.eval_batch;
  }
  memory.available = available_memory_bytes() / std::max(1, options.processes_here);
  return memory;
}

namespace {

// The same for the evaluation's batch, which refusing --batch-size says
// nothing of.
std::string eval_memory_problem(const StepMemory& memory, const StepMemoryOptions& options) {
  if (memory.eval_per_image <= 0 || memory.eval <= memory.available) return "";
  const int64_t fits = memory.available / memory.eval_per_image;
  return fmt::format(
      "an evaluation batch of {} images at {} px would hold about {} ({} an image), more than the "
      "{} free for this process: {}",
      options.eval_batch, options.eval_side, memory_size(memory.eval),
      memory_size(memory.eval_per_image), memory_size(memory.available),
      fits >= 1 ? fmt::format("lower --eval-batch-size to {} or less", fits)
                : std::string("lower --image-size (not one image fits)"));
}

}  // namespace

std::string step_memory_problem(const StepMemory& memory, const StepMemoryOptions& options,
                                int64_t global_batch) {
  if (memory.available <= 0) return "";
  if (memory.per_image <= 0 || memory.step <= memory.available) {
    return eval_memory_problem(memory, options);
  }
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
