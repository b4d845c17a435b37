// run_record.h: the settings a training run saves, as it resolved them.
//
// A RunRecord is what the run writes down of its settings: the text of the
// run folder's config.toml and of every checkpoint's record (to_toml, which
// --config and --resume read back), what TensorBoard's HPARAMS tab shows,
// and what the processes of one run compare (rank agreement). It is a record,
// not the settings: the training job's parts take their own specs
// (resolve/run_spec.h), so none of them reads an option from here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cifar/config/settings_check.h"
#include "cifar/config/train_config.h"
#include "cifar/formats/tensorboard.h"

namespace cifar {

class RunRecord {
 public:
  RunRecord() = default;
  // `resolved`: the settings as the run resolved them (config.h's
  // resolved_settings: the model trained, absolute paths, the images and
  // precision that ran, the epochs counted).
  explicit RunRecord(TrainConfig resolved);

  const std::string& toml() const { return toml_; }  // config.toml's text (to_toml)
  std::vector<HParam> hparams() const;               // TensorBoard's HPARAMS (hparams_of)
  std::vector<RunSetting> settings() const;          // what processes compare (run_settings)

  // The record of the same run fitted to `epochs` epochs (--time's count),
  // --time dropped, so that --resume continues to that count.
  RunRecord with_epochs(int64_t epochs) const;

 private:
  TrainConfig resolved_;
  std::string toml_;
};

}  // namespace cifar
