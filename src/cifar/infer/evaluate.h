// evaluate.h: accuracy, loss and confusion matrix of a model on a split.
//
// evaluate() runs a model over a whole split in inference mode, batch by
// batch, with the counts kept on the device and read back once at the end.
// evaluate_checkpoint() is cifar-eval's evaluation of the model its run
// resolved (resolve/inference.h: the checkpoint alone says which model to
// build, how the images were normalised and which test-time augmentation to
// use). Nothing here depends on the training code.
//
// Test-time augmentation (TTA), as airbench's infer(tta_level):
//   0  f(x)
//   1  mirror(x) = 0.5 f(x) + 0.5 f(flip(x))
//   2  0.5 mirror(x) + 0.5 mean(mirror(p[:, :, 0:S, 0:S]), mirror(p[:, :, 2:S+2, 2:S+2]))
//      where p = x padded by 1 pixel with reflection (a shift up-left and one
//      down-right)
//   3  selective: f(x) for every image, then level 2 for the quarter of each
//      batch with the lowest top softmax probability (hiverge/cifar10-speedrun;
//      2.25 forward passes an image instead of 6)
// The views' logits are combined before the argmax; the loss reported is the
// cross-entropy of the combined logits.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "cifar/core/types.h"
#include "cifar/data/dataset.h"
#include "cifar/data/image_split.h"
#include "cifar/data/loader.h"
#include "cifar/io/checkpoint.h"
#include "cifar/model/models.h"
#include "cifar/platform/device.h"
#include "cifar/platform/machine.h"
#include "cifar/report/metrics.h"
#include "cifar/report/progress_bar.h"

namespace cifar {

class Distributed;

inline constexpr int64_t kSelectiveTta = 3;  // kMaxTta: core/types.h

// The logits (B, C), float, of normalised images (B, 3, H, W) at a TTA level
// (see above): one forward pass per view, each under autocast at `precision`.
// Precondition: 0 <= tta <= kMaxTta (the tools' --tta is refused outside it
// by resolve/inference.h); std::invalid_argument otherwise.
torch::Tensor tta_logits(ClassifierImpl& model, const torch::Tensor& images, int64_t tta,
                         const Precision& precision = {});

struct EvalOptions {
  int64_t batch_size = 100;
  Precision precision = {};  // the autocast (platform/precision.h); float32 by default
  int64_t num_classes = 10;
  int64_t tta = 0;  // test-time augmentation level, 0..kMaxTta (above)
  // With several processes (`dist`), each evaluates its share of the split
  // and the counts are summed, so every process gets the whole split's result.
  Distributed* dist = nullptr;
  // With `progress`, a bar (or a plain line per interval) labelled
  // "evaluating" shows this process's share once the evaluation has taken
  // delay_seconds.
  const ProgressBarOptions* progress = nullptr;
  // Called before each batch with its index: a step boundary, where the
  // thread rule may change the count (platform/cpu_plan.h).
  std::function<void(int64_t)> before_batch{};
};

// Stops with cifar::Interrupted between batches when a stop was requested.
// The result's tta is options.tta (precondition: 0..kMaxTta, as tta_logits).
EvalResult evaluate(ClassifierImpl& model, const DeviceDataset& data, const EvalOptions& options);

// The same, with the options in a row.
EvalResult evaluate(ClassifierImpl& model, const DeviceDataset& data, int64_t batch_size,
                    const Precision& precision = {}, int64_t num_classes = 10,
                    Distributed* dist = nullptr, const ProgressBarOptions* progress = nullptr,
                    int64_t tta = 0);

// How evaluations show progress: after 2 s, on a terminal when there is one.
ProgressBarOptions eval_progress_options(std::optional<bool> interactive = std::nullopt,
                                         double log_interval_seconds = 10);

struct EvalReport {
  std::string model;
  std::string device;
  EvalResult result;  // result.tta: the level used
  std::vector<std::string> class_names;
};

// cifar-eval's run, as resolve/inference.h's resolve_eval makes it from its
// options (config/tool_configs.h's EvalConfig): the settings checked, the
// model loaded (on the CPU), the data read and checked against it, the TTA
// level chosen. evaluate_checkpoint only runs it.
struct EvalRun {
  ImageSplit test;           // the split to evaluate, the model's classes checked (eval_data.h)
  int64_t batch_size = 100;  // images per forward pass
  std::optional<bool> progress_bar;  // a bar on a terminal when unset (eval_progress_options)
  LoadedCheckpoint checkpoint;       // the model: a checkpoint, or a weights file dressed as one
  int64_t tta = 0;                   // 0..kMaxTta: --tta, else the checkpoint's (0 for weights)
  std::string tta_source;            // the level and where it came from, for the log
  Machine machine;                   // the device and its threads (resolve/machine.h)
  Precision precision;               // --amp resolved for the model on machine.device
};

// Evaluates run.checkpoint's model on run.test,
// at run.tta, on run.machine at run.precision. On the CPU, a plan that
// follows the load (platform/cpu_plan.h) re-reads it between batches, so that
// an evaluation on a machine other work shares is not held up by a thread
// that lost its core.
EvalReport evaluate_checkpoint(EvalRun run);

}  // namespace cifar
