// run_spec.cpp: a training run resolved: its model, precision, files (run_files.h), data
// and recipe.
#include "cifar/resolve/run_spec.h"

#include <spdlog/spdlog.h>

#include <filesystem>
#include <optional>

#include "cifar/config/settings_check.h"
#include "cifar/core/errors.h"
#include "cifar/data/shard.h"
#include "cifar/data/splits.h"
#include "cifar/model/model_registry.h"
#include "cifar/resolve/ignored_options.h"
#include "cifar/resolve/machine.h"
#include "cifar/resolve/rank_agreement.h"
#include "cifar/resolve/resume_checks.h"
#include "cifar/resolve/run_data.h"
#include "cifar/resolve/run_files.h"

namespace cifar {
namespace fs = std::filesystem;
namespace {

// The image settings and the weights the run started from as given (the
// --init-weights file's digest as read); when
// resuming without them, the resumed run's (its saved settings:
// --image-size 0 is the data set's own size, --crop-mode auto and
// --crop-pct 0 the data set's preparation; load_resume refused another
// --init-weights).
TrainConfig with_resumed_settings(const TrainConfig& config, const ModelSource& source) {
  TrainConfig sized = config;
  // The file a run starts from, recorded by its digest.
  if (!source.weights_sha256.empty()) sized.init_weights_sha256 = source.weights_sha256;
  if (!source.resumed_settings) return sized;
  const TrainConfig& was = *source.resumed_settings;
  // A resume reads no weights file: the digest stays the run's record.
  sized.init_weights_sha256 = was.init_weights_sha256;
  if (config.init_weights.empty()) sized.init_weights = was.init_weights;
  if (!config.mean) {  // --mean and --std go together (validate)
    sized.mean = was.mean;
    sized.std = was.std;
  }
  if (config.image_size == 0) sized.image_size = was.image_size;
  if (config.crop_pct == 0) sized.crop_pct = was.crop_pct;
  if (config.crop_mode == "auto") sized.crop_mode = was.crop_mode;
  return sized;
}

// The run's data; a --val-split larger than the training split, found as it
// is read, refused as the user's.
RunData read_data(const SplitOptions& split) {
  try {
    return read_run_data(split);
  } catch (const HoldoutTooLarge& e) {
    throw UsageError(e.what());
  }
}

// What plan_run fits to the data, for the recipe and the loop (resolve_run).
struct Fitted {
  int64_t batch_size = 0;  // --batch-size, lowered to the training split's size
  int64_t epochs = 0;      // --epochs, or as many as --steps takes
};

// A resumed run's settings and data against its checkpoint's: refuses what
// cannot be continued, warns (the main rank) of what changed.
void check_resumed(const TrainConfig& config, const ModelSource& source, const RunRecord& record,
                   int64_t train_images, const std::string& fingerprint, bool main_rank) {
  if (!source.resumed) return;
  const std::string changed =
      check_resumed_settings(config.resume, source.resumed->info,
                             source.resumed_settings ? to_toml(*source.resumed_settings)
                                                     : source.resumed->info.config_toml,
                             record.toml());
  // Without --config, what the command line leaves out takes its default.
  const fs::path saved = source.resumed_settings && !source.resumed_settings->run_dir.empty()
                             ? fs::path(source.resumed_settings->run_dir) / "config.toml"
                             : fs::path();
  std::error_code ec;
  const std::string keep =
      config.config_file.empty() && !saved.empty() && fs::is_regular_file(saved, ec)
          ? fmt::format(" (options not given take their defaults: --config {} keeps the run's)",
                        saved.string())
          : "";
  if (!changed.empty() && main_rank) spdlog::warn("{}{}", changed, keep);
  const std::string data_note =
      check_resumed_data(config.resume, source.resumed->info, train_images, fingerprint);
  if (!data_note.empty() && main_rank) spdlog::warn("{}", data_note);
}

// The model source, the precision, the outputs and the data of the run:
// everything a RunSpec holds but what follows from the fitted batch size and
// the resolved precision (resolve_run), which `fitted` returns. `recipe` is
// made at the given settings: its network and augmentation.
RunSpec plan_run(const TrainConfig& config, const Recipe& recipe, const RunContext& context,
                 Fitted& fitted) {
  const torch::Device& device = context.machine.device;
  const Distributed& dist = context.dist;
  ModelSource source = model_source(config, recipe.network, context.pretrained_dirs);
  warn_ignored(config, recipe, source.model_name, device);
  Precision precision = resolve_amp(config.amp, context.machine, source.model_name,
                                    config.cuda_graph, /*quiet=*/!dist.is_main());
  RunFiles files = resolve_run_files(config, source, context.dist);

  // The size and preparation a resumed run was trained with, unless given.
  TrainConfig sized = with_resumed_settings(config, source);
  if (sized.image_size == 0 && source.weights_image_size > 0) {  // the weights'
    sized.image_size = source.weights_image_size;
    if (dist.is_main()) {
      spdlog::info("images: {} px, as {} takes them; --image-size N chooses another",
                   sized.image_size, source.weights_named_by);
    }
  }
  if (sized.image_size == 0) {  // a folder of photos: from their sizes
    sized.image_size = photo_side(config, model_entry(source.model_name), precision.amp,
                                  device.is_cpu(), dist.is_main());
  }
  sized.amp = precision.amp;  // config.toml and the checkpoint record what ran
  // An augmenting recipe crops whole images of a data set augmented so (crops.h).
  const SplitOptions split = split_options(sized, recipe.augmentation.translates(), dist.is_main(),
                                           context.progress_bar, context.spare_cache_dir);
  if (const std::string problem = val_split_beside_val_folder(split); !problem.empty()) {
    throw UsageError(problem);
  }
  const RunData data = read_data(split);
  const TrainValSplit& splits = data.splits;
  sized.batch_size = fitted_batch(config.batch_size, splits.train.size(), dist.world_size());
  log_data(config, data, dist.is_main(), sized.batch_size, context.configs_dir);
  fit_to_data(source, data.dataset, config,
              fmt::format("--data {} ({})", config.data_dir, data.dataset.id()), dist.is_main());
  sized.image_size = data.dataset.image.image_size;  // what ran, as resolved
  sized.crop_mode = to_string(data.dataset.prep.mode);
  sized.crop_pct = data.dataset.prep.crop_pct;
  const Normalization& norm = source.normalization;
  std::optional<DeviceDataset> val;
  if (splits.val.size() > 0) val.emplace(splits.val, device, norm, config.channels_last);

  const bool graphed = config.cuda_graph && device.is_cuda();
  const int64_t steps_per_epoch =
      epoch_shape(splits.train.size() / dist.world_size(),
                  per_rank_batch(sized.batch_size, dist.world_size()), recipe.drop_last, graphed)
          .steps;
  sized.epochs = epochs_for_steps(config, steps_per_epoch, splits.train.size(), sized.batch_size,
                                  dist.is_main());
  if (source.resumed && config.steps > 0) {  // --epochs was checked when it was read
    // Named by what set the length: --steps when it raised --epochs.
    const bool by_steps = sized.epochs > config.epochs;
    check_resume_length(config, source.resumed->info, sized.epochs, by_steps ? steps_per_epoch : 0);
  }
  fitted = {.batch_size = sized.batch_size, .epochs = sized.epochs};
  RunRecord record(
      resolved_settings(sized, source.model_name, source.stem, files.run_dir, files.checkpoint));
  spdlog::debug("settings:\n{}", record.toml());
  std::string fingerprint = train_data_fingerprint(splits.train);
  check_resumed(config, source, record, splits.train.size(), fingerprint, dist.is_main());
  if (source.resumed) refit_resumed_steps(source.resumed->info, steps_per_epoch, dist.is_main());
  SlowRunHint slow_hint = slow_run_hint(dataset_entry(data.dataset.kind), source.fresh(),
                                        device.is_cpu(), context.configs_dir);
  return RunSpec{
      .source = std::move(source),
      .session = session_spec(config),
      .precision = std::move(precision),
      .recipe = {},
      .step = {},
      .loop = {},
      .shape = {},
      .data = {.train = DeviceDataset(splits.train, device, norm, config.channels_last),
               .test = DeviceDataset(data.test, device, norm, config.channels_last),
               .val = std::move(val),
               .test_is_val =
                   data.test_is_val ? split_folder(config.data_dir, Split::kVal).string() : "",
               .class_names = data.dataset.class_names},
      .dataset = data.dataset.id(),
      .paths = {.run_dir = files.run_dir,
                .checkpoint = files.checkpoint,
                .record = std::move(record),
                .claim = std::move(files.claim)},
      .train_fingerprint = std::move(fingerprint),
      .inputs = std::move(files.inputs),
      .resumed_run = std::move(files.resumed),
      .slow_hint = std::move(slow_hint),
  };
}

// How every epoch of this process is cut into steps; a run whose epochs
// would take no step is refused before anything is written.
EpochShape checked_epochs(const RunSpec& spec, bool graphed, const Distributed& dist) {
  const int64_t share = spec.data.train.size() / dist.world_size();
  const int64_t local_batch = per_rank_batch(spec.loop.batch_size, dist.world_size());
  const EpochShape shape = epoch_shape(share, local_batch, spec.recipe.drop_last, graphed);
  if (shape.steps == 0) {
    throw UsageError(fmt::format(
        "an epoch would take no step: {} {} training images{} make no full batch of "
        "--batch-size {}, and {} drops a partial batch; give --batch-size {} or less, or train "
        "on more images (--train-limit, --val-split)",
        dist.world_size() > 1 ? "each process's share of" : "the", share,
        dist.world_size() > 1 ? fmt::format(" (of {})", spec.data.train.size()) : "",
        spec.loop.batch_size,
        graphed ? "--cuda-graph" : fmt::format("the {} recipe", spec.recipe.name),
        share * dist.world_size()));
  }
  return shape;
}

}  // namespace

void check_run_settings(const TrainConfig& config, const DistEnv& dist) {
  validate(config);
  check_recipe_settings(config);
  if (dist.active() && config.cuda_graph) {
    throw UsageError(
        "--cuda-graph with several processes is not supported yet: drop --cuda-graph "
        "or run one process");
  }
  if (const std::string problem = batch_share_problem(config.batch_size, dist.world_size);
      !problem.empty()) {
    throw UsageError(problem);
  }
}

RunSpec resolve_run(const TrainConfig& config, const RunContext& context) {
  Fitted fit;
  RunSpec spec = plan_run(config, make_recipe(config), context, fit);
  // From the data on, the run goes at the batch size fitted to the training
  // split and the precision resolved (auto: bf16, fp16 or off).
  TrainConfig fitted = config;
  fitted.batch_size = fit.batch_size;
  fitted.amp = spec.precision.amp;
  fitted.epochs = fit.epochs;
  // Its groups may scale with the batch; Muon's type follows the precision.
  spec.recipe = make_recipe(fitted, spec.precision);
  spec.step = step_spec(spec.precision, spec.recipe.loss, config.step);
  spec.step.non_finite_hint = non_finite_hint(spec.recipe, spec.source.model_name, fitted.amp);
  spec.loop =
      loop_spec(fitted, spec.precision, spec.source.model_name, spec.source.image.image_size);
  spec.loop.cpu_onednn = cpu_training_onednn(
      spec.source.model_name, per_rank_batch(fit.batch_size, context.dist.world_size()),
      spec.precision, context.machine.device, /*quiet=*/!context.dist.is_main());
  check_ranks_agree(context.dist, spec);  // before the run folder opens (a default one is claimed)
  const bool graphed = config.cuda_graph && context.machine.device.is_cuda();
  spec.shape = checked_epochs(spec, graphed, context.dist);
  return spec;
}

}  // namespace cifar
