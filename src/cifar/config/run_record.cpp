// run_record.cpp: see run_record.h.
#include "cifar/config/run_record.h"

#include <utility>

#include "cifar/config/config.h"

namespace cifar {

RunRecord::RunRecord(TrainConfig resolved)
    : resolved_(std::move(resolved)), toml_(to_toml(resolved_)) {}

std::vector<HParam> RunRecord::hparams() const {
  return hparams_of(resolved_);
}

std::vector<RunSetting> RunRecord::settings() const {
  return run_settings(resolved_);
}

RunRecord RunRecord::with_epochs(int64_t epochs) const {
  TrainConfig fitted = resolved_;
  fitted.epochs = epochs;
  fitted.time_minutes = 0;
  return RunRecord(std::move(fitted));
}

}  // namespace cifar
