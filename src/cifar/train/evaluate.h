// evaluate.h: accuracy, loss and confusion matrix of a model on a split.
//
// evaluate() runs a model over a whole split in inference mode, batch by
// batch, with the counts kept on the device and read back once at the end.
// evaluate_checkpoint() is cifar-eval: the checkpoint alone says which model
// to build and how the images were normalised. Nothing here depends on the
// training code.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cifar/core/types.h"
#include "cifar/data/loader.h"
#include "cifar/model/models.h"
#include "cifar/report/metrics.h"
#include "cifar/report/progress_bar.h"

namespace cifar {

class Distributed;

// With several processes (`dist`), each evaluates its share of the split and
// the counts are summed, so every process gets the whole split's result.
// Stops with cifar::Interrupted between batches when a stop was requested.
// With `progress`, a bar (or a plain line per interval) labelled "evaluating"
// shows this process's share once the evaluation has taken delay_seconds.
EvalResult evaluate(ClassifierImpl& model, const DeviceDataset& data, int64_t batch_size,
                    AmpMode amp = AmpMode::kOff, int64_t num_classes = 10,
                    Distributed* dist = nullptr, const ProgressBarOptions* progress = nullptr);

// How evaluations show progress: after 2 s, on a terminal when there is one.
ProgressBarOptions eval_progress_options(std::optional<bool> interactive = std::nullopt,
                                         double log_interval_seconds = 10);

struct EvalReport {
  std::string model;
  std::string device;
  EvalResult result;
  std::vector<std::string> class_names;
};

EvalReport evaluate_checkpoint(const EvalConfig& config);

}  // namespace cifar
