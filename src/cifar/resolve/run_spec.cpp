// run_spec.cpp: a training run resolved: its model, precision, outputs, data and recipe.
#include "cifar/resolve/run_spec.h"

#include <spdlog/spdlog.h>

#include <optional>
#include <system_error>

#include "cifar/config/settings_check.h"
#include "cifar/core/errors.h"
#include "cifar/data/image_folder.h"
#include "cifar/data/shard.h"
#include "cifar/data/splits.h"
#include "cifar/formats/checksum.h"
#include "cifar/io/run_dir.h"
#include "cifar/model/model_registry.h"
#include "cifar/report/run_outputs.h"
#include "cifar/resolve/ignored_options.h"
#include "cifar/resolve/machine.h"
#include "cifar/resolve/rank_agreement.h"
#include "cifar/resolve/run_data.h"

namespace cifar {
namespace fs = std::filesystem;
namespace {

// --run-dir; else, when resuming, the run folder the checkpoint's run wrote
// (its saved run-dir), so that a resumed run keeps one history: one
// metrics.csv, one TensorBoard run; else a new runs/<date>-<time>-<model>.
fs::path choose_run_dir(const TrainConfig& config, const ModelSource& source, bool main_rank) {
  if (!config.run_dir.empty()) return config.run_dir;
  if (source.resumed_settings && !source.resumed_settings->run_dir.empty()) {
    const std::string& was = source.resumed_settings->run_dir;
    if (fs::is_directory(was)) {
      if (main_rank) spdlog::info("run folder: {}, the resumed run's", was);
      return was;
    }
    if (main_rank) {
      spdlog::warn(
          "the resumed run's folder {} is gone: this run's history starts in a new folder "
          "(give --run-dir to choose it)",
          was);
    }
  }
  return default_run_dir(source.model_name);
}

// The image settings as given; when resuming without them, the resumed
// run's (its saved settings: --image-size 0 is the data set's own size,
// --crop-mode auto and --crop-pct 0 the data set's preparation).
TrainConfig with_resumed_image(const TrainConfig& config, const ModelSource& source) {
  TrainConfig sized = config;
  if (!source.resumed_settings) return sized;
  const TrainConfig& was = *source.resumed_settings;
  if (config.image_size == 0) sized.image_size = was.image_size;
  if (config.crop_pct == 0) sized.crop_pct = was.crop_pct;
  if (config.crop_mode == "auto") sized.crop_mode = was.crop_mode;
  return sized;
}

// --checkpoint's default: MODEL.pt for a data set (the tutorial's net.pt),
// DIR-MODEL.pt for an image folder DIR, so that a run on another folder
// does not replace it.
fs::path default_checkpoint(const TrainConfig& config, const std::string& model) {
  const std::optional<DatasetKind> kind = dataset_request(config.dataset);
  const bool folder =
      kind ? dataset_entry(*kind).image_files : has_image_folder_layout(config.data_dir);
  if (!folder) return model + ".pt";
  fs::path dir = fs::absolute(config.data_dir).lexically_normal();
  if (!dir.has_filename()) dir = dir.parent_path();  // "photos/"
  const std::string name = dir.filename().string();
  return name.empty() ? model + ".pt" : name + "-" + model + ".pt";
}

}  // namespace

std::string train_data_fingerprint(const ImageSplit& train) {
  Sha256 sha;
  for (const torch::Tensor& t : {train.images, train.labels}) {
    const torch::Tensor bytes = t.contiguous();
    sha.update({static_cast<const uint8_t*>(bytes.data_ptr()), bytes.nbytes()});
  }
  return to_hex(sha.digest());
}

std::vector<NamedFile> run_input_files(const TrainConfig& c) {
  std::vector<NamedFile> files;
  for (const fs::path& file : dataset_files(c.data_dir)) {
    files.push_back({"--data's " + file.filename().string(), file});
  }
  if (!c.init_weights.empty()) files.push_back({"--init-weights", c.init_weights});
  // Continued by the run's config.toml and checkpoints, which may replace
  // them (a resumed run goes on in its own files); no other output may.
  if (!c.config_file.empty()) {
    files.push_back({.role = "--config", .path = c.config_file, .continues = kContinuedSettings});
  }
  if (!c.resume.empty()) {
    files.push_back({.role = "--resume", .path = c.resume, .continues = kContinuedCheckpoint});
  }
  return files;
}

namespace {

// The run a --resume continues, for the run folder's check (resumed_run_dir.h).
std::optional<ResumedRun> resumed_run(const TrainConfig& config, const ModelSource& source,
                                      const fs::path& checkpoint) {
  if (!source.resumed) return std::nullopt;
  const CheckpointInfo& info = source.resumed->info;
  std::error_code ec;
  return ResumedRun{.run_id = info.run_id,
                    .epochs = info.epoch,
                    .step_in_epoch = info.step_in_epoch,
                    .checkpoint = config.resume,
                    .written_after_last = fs::equivalent(config.resume, checkpoint, ec)};
}

// Rank 0's finding, had by every rank alike (a collective; one process: its
// own): the others stop with it, rather than read the data and fail in the
// next exchange.
std::string from_rank0(Distributed& dist, const std::string& text) {
  return dist.world_size() == 1 ? text : dist.all_gather_text(text).front();
}

// Every file the run writes (the image cache too, which reading the data
// may write) against every file it reads, and (rank 0, which writes them)
// the run folder and --checkpoint (report/run_outputs.h), before anything is
// written; a folder another run is writing now is said first (that run's
// results are no reason to refuse these settings). The run --resume
// continues, if any.
std::optional<ResumedRun> checked_outputs(const TrainConfig& config, const ModelSource& source,
                                          const fs::path& run_dir, const fs::path& checkpoint,
                                          const std::vector<NamedFile>& inputs, Distributed& dist) {
  std::vector<NamedFile> outputs = run_output_files(run_dir, checkpoint);
  for (auto& file : dataset_output_files(config.data_dir, dataset_request(config.dataset))) {
    outputs.push_back(std::move(file));
  }
  if (const std::string problem = distinct_files_problem(inputs, outputs); !problem.empty()) {
    throw UsageError(problem);
  }
  std::optional<ResumedRun> resumed = resumed_run(config, source, checkpoint);
  const bool main_rank = dist.is_main();
  const std::string busy = from_rank0(dist, main_rank ? run_dir_in_use(run_dir) : "");
  if (!busy.empty()) throw std::runtime_error(busy);
  const std::string problem = from_rank0(
      dist,
      main_rank ? run_outputs_problem(run_dir, checkpoint, resumed, config.overwrite, inputs) : "");
  if (!problem.empty()) throw UsageError(problem);
  return resumed;
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

// The model source, the precision, the outputs and the data of the run:
// everything a RunSpec holds but what follows from the fitted batch size and
// the resolved precision (resolve_run). `recipe` is made at the given
// settings: its network and augmentation.
RunSpec plan_run(const TrainConfig& config, const Recipe& recipe, const RunContext& context) {
  const torch::Device& device = context.machine.device;
  const Distributed& dist = context.dist;
  ModelSource source = model_source(config, recipe.network, context.pretrained_dirs);
  warn_ignored(config, recipe, source.model_name, device);
  Precision precision = resolve_amp(config.amp, context.machine, source.model_name,
                                    config.cuda_graph, /*quiet=*/!dist.is_main());
  const fs::path run_dir = choose_run_dir(config, source, dist.is_main());
  const fs::path checkpoint = config.checkpoint.empty()
                                  ? default_checkpoint(config, source.model_name)
                                  : fs::path(config.checkpoint);
  const std::vector<NamedFile> inputs = run_input_files(config);
  std::optional<ResumedRun> resumed =
      checked_outputs(config, source, run_dir, checkpoint, inputs, context.dist);

  // The size and preparation a resumed run was trained with, unless given.
  TrainConfig sized = with_resumed_image(config, source);
  if (sized.image_size == 0) sized.image_size = source.weights_image_size;  // --pretrained's
  if (sized.image_size == 0) {  // a folder of photos: from their sizes
    sized.image_size = photo_side(config, model_entry(source.model_name), precision.amp,
                                  device.is_cpu(), dist.is_main());
  }
  sized.amp = precision.amp;  // config.toml and the checkpoint record what ran
  // An augmenting recipe crops whole images of a data set augmented so (crops.h).
  const SplitOptions split =
      split_options(sized, recipe.augmentation.translates(), dist.is_main(), context.progress_bar);
  if (const std::string problem = val_split_beside_val_folder(split); !problem.empty()) {
    throw UsageError(problem);
  }
  const RunData data = read_data(split);
  const TrainValSplit& splits = data.splits;
  sized.batch_size = fitted_batch(config.batch_size, splits.train.size(), dist.world_size());
  log_data(config, data, dist.is_main(), sized.batch_size);
  fit_to_data(source, data.dataset, config,
              fmt::format("--data {} ({})", config.data_dir, data.dataset.id()));
  sized.image_size = data.dataset.image.image_size;  // what ran, as resolved
  sized.crop_mode = to_string(data.dataset.prep.mode);
  sized.crop_pct = data.dataset.prep.crop_pct;
  const Normalization& norm = source.normalization;
  std::optional<DeviceDataset> val;
  if (splits.val.size() > 0) val.emplace(splits.val, device, norm, config.channels_last);

  const bool graphed = config.cuda_graph && device.is_cuda();
  sized.epochs = epochs_for_steps(
      config,
      epoch_shape(splits.train.size() / dist.world_size(),
                  per_rank_batch(sized.batch_size, dist.world_size()), recipe.drop_last, graphed)
          .steps,
      splits.train.size(), sized.batch_size, dist.is_main());
  TrainConfig resolved =
      resolved_settings(sized, source.model_name, source.stem, run_dir, checkpoint);
  std::string config_toml = to_toml(resolved);
  spdlog::debug("settings:\n{}", config_toml);
  std::string fingerprint = train_data_fingerprint(splits.train);
  if (source.resumed) {  // refuses what cannot be continued, names what changed
    const std::string changed =
        check_resumed_settings(config.resume, source.resumed->info,
                               source.resumed_settings ? to_toml(*source.resumed_settings)
                                                       : source.resumed->info.config_toml,
                               config_toml);
    if (!changed.empty() && dist.is_main()) spdlog::warn("{}", changed);
    const std::string data_note =
        check_resumed_data(config.resume, source.resumed->info, splits.train.size(), fingerprint);
    if (!data_note.empty() && dist.is_main()) spdlog::warn("{}", data_note);
  }
  return RunSpec{
      .settings = {},
      .source = std::move(source),
      .precision = std::move(precision),
      .recipe = {},
      .step = {},
      .loop = {},
      .local_batch = 0,
      .shape = {},
      .train = DeviceDataset(splits.train, device, norm, config.channels_last),
      .test = DeviceDataset(data.test, device, norm, config.channels_last),
      .val = std::move(val),
      .test_is_val = data.test_is_val ? split_folder(config.data_dir, Split::kVal).string() : "",
      .batch_size = sized.batch_size,
      .class_names = data.dataset.class_names,
      .dataset = data.dataset.id(),
      .run_dir = run_dir,
      .checkpoint = checkpoint,
      .resolved = std::move(resolved),
      .config_toml = std::move(config_toml),
      .train_fingerprint = std::move(fingerprint),
      .inputs = inputs,
      .resumed_run = std::move(resumed),
  };
}

// How every epoch of this process is cut into steps; a run whose epochs
// would take no step is refused before anything is written.
EpochShape checked_epochs(const RunSpec& spec, const torch::Device& device,
                          const Distributed& dist) {
  const TrainConfig& config = spec.settings;
  const bool graphed = config.cuda_graph && device.is_cuda();
  const int64_t share = spec.train.size() / dist.world_size();
  const EpochShape shape = epoch_shape(share, spec.local_batch, spec.recipe.drop_last, graphed);
  if (shape.steps == 0) {
    throw UsageError(fmt::format(
        "an epoch would take no step: {} {} training images{} make no full batch of "
        "--batch-size {}, and {} drops a partial batch; give --batch-size {} or less, or train "
        "on more images (--train-limit, --val-split)",
        dist.world_size() > 1 ? "each process's share of" : "the", share,
        dist.world_size() > 1 ? fmt::format(" (of {})", spec.train.size()) : "", config.batch_size,
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
  RunSpec spec = plan_run(config, make_recipe(config), context);
  // From the data on, the run goes at the batch size fitted to the training
  // split and the precision resolved (auto: bf16, fp16 or off).
  spec.settings = config;
  spec.settings.batch_size = spec.batch_size;
  spec.settings.amp = spec.precision.amp;
  spec.settings.epochs = spec.resolved.epochs;  // --steps' count (plan_run)
  spec.local_batch = per_rank_batch(spec.batch_size, context.dist.world_size());
  // Its groups may scale with the batch; Muon's type follows the precision.
  spec.recipe = make_recipe(spec.settings, spec.precision);
  spec.step = step_spec(spec.settings.amp, spec.recipe.loss, config.step);
  spec.step.non_finite_hint =
      non_finite_hint(spec.recipe, spec.source.model_name, spec.settings.amp);
  spec.loop = loop_spec(spec.settings);
  check_ranks_agree(context.dist, spec);  // before any collective and before the run folder
  spec.shape = checked_epochs(spec, context.machine.device, context.dist);
  return spec;
}

}  // namespace cifar
