// resume_checks.cpp: what a checkpoint --resume names is held to.
#include "cifar/resolve/resume_checks.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <filesystem>

#include "cifar/config/config.h"
#include "cifar/config/config_file.h"
#include "cifar/config/settings_check.h"
#include "cifar/core/errors.h"
#include "cifar/core/file_io.h"
#include "cifar/core/names.h"
#include "cifar/model/model_registry.h"

namespace cifar {
namespace fs = std::filesystem;
namespace {

// --freeze-body and --body-lr-scale decide which tensors train and the
// optimiser state a checkpoint holds: --resume keeps the checkpoint's (a
// checkpoint of older versions, which saved no settings, had neither).
// Refused here, before anything is written.
void check_resumed_fine_tune(const TrainConfig& c, const CheckpointInfo& was) {
  for (const SettingChange& change : changed_settings(was.config_toml, to_toml(c))) {
    if (change.key == "freeze-body" && change.before == "false") {
      throw UsageError(fmt::format(
          "--freeze-body keeps the body of weights loaded with --init-weights, but --resume {} "
          "was started without it: drop --freeze-body (a run's body is frozen or trained from "
          "its start)",
          c.resume));
    }
    if (change.key == "freeze-body") {
      throw UsageError(fmt::format(
          "--resume {} was started with --freeze-body: pass --freeze-body again (a run's body is "
          "frozen or trained from its start)",
          c.resume));
    }
    if (change.key == "pretrained" && change.after == "true") {
      throw UsageError(fmt::format(
          "--pretrained chooses the weights a run starts from, but --resume {} goes on from its "
          "checkpoint's, of a run started without it: drop --pretrained (--no-pretrained if a "
          "config file sets it; or drop --resume to "
          "start again from the ImageNet weights)",
          c.resume));
    }
    if (change.key == "body-lr-scale") {
      throw UsageError(fmt::format(
          "--resume {} was trained with --body-lr-scale {}, not {}: resume with --body-lr-scale "
          "{} (its optimiser state holds the body's groups as they were)",
          c.resume, change.before, change.after, change.before));
    }
  }
}

// --init-weights on a resumed run: the file the run started from (its
// config.toml's, so that --config RUN/config.toml --resume works), or none; a
// resumed run goes on from its checkpoint's weights. Compared as files, not
// as text (the option's role is local: ranks may hold it at other paths).
void check_resumed_weights(const TrainConfig& c, const CheckpointInfo& was) {
  if (was.config_toml.empty()) return;  // older: not recorded
  std::string started, digest;
  for (const TomlEntry& e : read_settings_toml(was.config_toml)) {
    if (e.key == "init-weights") started = e.value;
    if (e.key == "init-weights-sha256") digest = e.value;
  }
  // The digest checks the file a new run starts from: on a resume, only the
  // run's own record (its config.toml's) may be given.
  if (!c.init_weights_sha256.empty() && !digest.starts_with(lower_case(c.init_weights_sha256))) {
    throw UsageError(fmt::format(
        "--init-weights-sha256 checks the file a new run starts from, but --resume {} goes on "
        "from its checkpoint's weights ({}): drop --init-weights-sha256",
        c.resume,
        digest.empty() ? std::string("its run recorded no such digest")
                       : "its run recorded " + digest.substr(0, 12) + "..."));
  }
  if (c.init_weights.empty()) return;
  std::error_code ec;
  if (!started.empty() &&
      (absolute_path(c.init_weights) == started || fs::equivalent(c.init_weights, started, ec))) {
    return;
  }
  throw UsageError(fmt::format(
      "--init-weights chooses the weights a run starts from, but --resume {} goes on from its "
      "checkpoint's, {}: drop --init-weights (or drop --resume to start a new run from {})",
      c.resume,
      started.empty() ? std::string("whose settings name no --init-weights")
                      : "of a run started from " + started,
      shell_word(c.init_weights)));
}

}  // namespace

void check_resume_length(const TrainConfig& c, const CheckpointInfo& info, int64_t epochs,
                         int64_t steps_per_epoch) {
  const std::string& resume = c.resume;
  // What to pass: --steps `steps` when --steps set the length, else one
  // epoch more than the checkpoint's.
  const auto pass = [&](int64_t steps) {
    return steps_per_epoch > 0 ? fmt::format("--steps {}", steps)
                               : fmt::format("--epochs {}", info.epoch + 1);
  };
  const std::string asked = steps_per_epoch > 0 ? fmt::format("--steps {} ({} epochs of {} steps)",
                                                              c.steps, epochs, steps_per_epoch)
                                                : fmt::format("--epochs {}", epochs);
  if (info.epoch >= epochs && info.step_in_epoch == 0) {
    throw UsageError(fmt::format(
        "--resume {} has already trained {} epoch{}, all that {} asks for: pass {} or more to "
        "train further (its weights for Python, if the run stopped before writing "
        "model.safetensors: cifar-export --checkpoint {} --out model.safetensors)",
        resume, info.epoch, info.epoch == 1 ? "" : "s", asked,
        pass(info.epoch * steps_per_epoch + 1), shell_word(resume)));
  }
  if (info.epoch >= epochs) {  // stopped inside a later epoch than asked
    throw UsageError(fmt::format(
        "--resume {} stopped in epoch {} (after step {}), past {}: pass {} or more to finish it",
        resume, info.epoch + 1, info.step_in_epoch, asked,
        pass((info.epoch + 1) * steps_per_epoch)));
  }
}

void refit_resumed_steps(CheckpointInfo& info, int64_t steps_per_epoch, bool announce) {
  if (info.step_in_epoch > 0 || steps_per_epoch <= 0) return;  // mid-epoch: the same epochs
  const int64_t at = info.epoch * steps_per_epoch;
  if (at == info.global_step) return;
  if (announce) {
    spdlog::warn(
        "resume: an epoch is {} steps now, not {} as before: the schedule goes on from the end of "
        "epoch {} at the new pace (from step {}, not {}; TensorBoard's steps follow)",
        steps_per_epoch, info.epoch > 0 ? info.global_step / info.epoch : 0, info.epoch, at,
        info.global_step);
  }
  info.global_step = at;
}

std::optional<LoadedCheckpoint> load_resume(const TrainConfig& c) {
  if (c.resume.empty()) return std::nullopt;
  LoadedCheckpoint resumed = load_checkpoint(c.resume, "--init-weights");
  const auto& info = resumed.info;
  try {  // a checkpoint's settings are TOML, unless the file was edited and sealed again
    read_settings_toml(info.config_toml);
  } catch (const UsageError& e) {
    throw std::runtime_error(fmt::format(
        "checkpoint {}: the settings its header holds do not read as TOML ({}); the file was "
        "edited or is damaged: use another checkpoint",
        c.resume, first_line(e.what())));
  }
  check_resumed_fine_tune(c, info);
  check_resumed_weights(c, info);
  if (!c.model.empty() && c.model != info.model) {
    throw UsageError(
        fmt::format("--resume {} holds {} model, but --model is {}; drop --model "
                    "or resume {} checkpoint",
                    c.resume, a_or_an(info.model), c.model, a_or_an(c.model)));
  }
  if (c.stem && model_entry(info.model).has_stem && to_string(*c.stem) != info.stem) {
    throw UsageError(
        fmt::format("--resume {} holds {} with the {} stem, but --stem is {}; drop --stem "
                    "or resume a checkpoint with that stem",
                    c.resume, a_or_an(info.model), info.stem, to_string(*c.stem)));
  }
  if (c.steps == 0) check_resume_length(c, info, c.epochs, 0);  // else once fitted
  return resumed;
}

}  // namespace cifar
