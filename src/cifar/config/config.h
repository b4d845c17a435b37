// config.h: every setting of the four tools, declared once.
//
// Each option (its long name, which is also its key in a TOML config file,
// its group, help text, default and allowed values) is written down once in
// the option tables (option_tables.h, option_groups.h), in groups the tools
// share: "Model" (the trained model that cifar-eval, cifar-predict and
// cifar-export load), "Data", "Device and speed", "Evaluation", and
// cifar-train's own. From those tables come the CLI11 declarations
// (add_*_options), the checks (validate: the same ranges a command line is
// held to, for callers that fill a config in code), and the resolved
// settings written to a run folder (to_toml), which read back with --config.
// The settings themselves: TrainConfig (train_config.h), and EvalConfig,
// PredictConfig and ExportConfig (tool_configs.h).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "cifar/config/setting_role.h"
#include "cifar/config/tool_configs.h"
#include "cifar/config/train_config.h"
#include "cifar/formats/tensorboard.h"

namespace CLI {
class App;
}

namespace cifar {

// Declares every TrainConfig option on `app`, bound to `config` (whose current
// values are the defaults --help shows); --resume, --init-weights and
// --overwrite too. --config (config/config_file.h), --data's environment
// fallback and the logging flags are the app's.
void add_train_options(CLI::App& app, TrainConfig& config);

// Throws UsageError naming the option, the offending value and the allowed
// range; the same checks the command line applies, plus those that relate two
// options (--nesterov needs --momentum), and text that config.toml cannot
// hold (not UTF-8), so that such a run stops before it starts.
void validate(const TrainConfig& config);

// --image-size and --crop-pct as given, 0 for unset (`unset_size` and
// `unset_pct` say what stands in: "the data set's own size"): UsageError
// naming the value and the allowed range otherwise. validate's check, for
// cifar-train's images and the tools' --weights alike.
void check_image_options(int64_t image_size, double crop_pct, const char* unset_size,
                         const char* unset_pct);

// The settings as TOML that --config reads back (keys are the long option
// names, under a comment per group); --resume and --overwrite are left out. UsageError naming the option for text that is not UTF-8.
std::string to_toml(const TrainConfig& config);

// Settings saved by to_toml (a checkpoint's, a run folder's config.toml)
// read back through the same options and checks as --config, so that no
// caller parses their text; keys this version does not know are skipped.
// UsageError for a value an option refuses (naming it); what relates two
// options (validate) was checked when they were saved.
TrainConfig from_toml(const std::string& toml);

// The settings as they will be saved: the model the run really trains, and
// absolute paths, so that config.toml resumes the run from any folder.
TrainConfig resolved_settings(const TrainConfig& c, const std::string& model, ResNetStem stem,
                              const std::filesystem::path& run_dir,
                              const std::filesystem::path& checkpoint);

// What TensorBoard's HPARAMS tab shows of a run.
std::vector<HParam> hparams_of(const TrainConfig& c);

// Each key to_toml writes, in table order, with what it is to the run
// (setting_role.h): what --resume and several processes compare.
std::vector<std::pair<std::string, SettingRole>> train_setting_roles();

// cifar-eval's, cifar-predict's and cifar-export's options (tool_configs.h),
// declared on `app`.
void add_eval_options(CLI::App& app, EvalConfig& config);
void add_predict_options(CLI::App& app, PredictConfig& config);
void add_export_options(CLI::App& app, ExportConfig& config);

// The command line's checks for a config filled in code, and its files kept
// apart (the model file, not an output); the Model options' checks are
// resolve/model_input.h's (check_model_input).
void validate(const EvalConfig& config);
void validate(const PredictConfig& config);
void validate(const ExportConfig& config);

}  // namespace cifar
