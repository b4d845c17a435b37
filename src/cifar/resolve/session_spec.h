// session_spec.h: what a training session is made with, resolved.
//
// The session (train/session.h: the model on its device, its parameter
// groups, the extensions, where the run starts) takes this, the model's
// source and the recipe, and reads no other setting; the run's length, seed
// and batch come from the loop's spec (loop_spec.h), held there once.
#pragma once

#include <string>

#include "cifar/config/train_config.h"

namespace cifar {

// How much of a loaded model trains (train/fine_tune.h).
struct FineTuneSpec {
  bool freeze_body = false;    // --freeze-body: only the head trains
  std::string train_from;      // --train-from MODULE: the modules before it keep their weights
  double body_lr_scale = 1.0;  // --body-lr-scale: the body's learning rate, times this
  double bn_momentum = 0;      // --bn-momentum: 0 keeps the model's own

  bool any() const { return freeze_body || !train_from.empty() || body_lr_scale != 1; }
};

struct SessionSpec {
  bool channels_last = false;  // --channels-last: the model's weights in NHWC
  FineTuneSpec fine_tune;
  double ema = 0;      // --ema: the decay of the weights' moving average (0: off)
  std::string resume;  // --resume's checkpoint, named in the log
};

// The session of a run with these settings.
inline SessionSpec session_spec(const TrainConfig& settings) {
  return {.channels_last = settings.channels_last,
          .fine_tune = {.freeze_body = settings.freeze_body,
                        .train_from = settings.train_from,
                        .body_lr_scale = settings.body_lr_scale,
                        .bn_momentum = settings.bn_momentum},
          .ema = settings.ema,
          .resume = settings.resume};
}

}  // namespace cifar
