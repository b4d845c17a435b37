// run_plan.cpp: the model source, the data and the output paths of a run.
#include "cifar/train/run_plan.h"

#include <spdlog/spdlog.h>

#include <functional>
#include <memory>
#include <optional>
#include <string_view>
#include <type_traits>

#include "cifar/config/settings_check.h"
#include "cifar/data/splits.h"
#include "cifar/formats/checksum.h"
#include "cifar/io/run_dir.h"
#include "cifar/model/model_registry.h"
#include "cifar/report/progress_bar.h"
#include "cifar/report/run_outputs.h"
#include "cifar/train/ignored_options.h"

namespace cifar {
namespace fs = std::filesystem;
namespace {

// --batch-size, lowered to fit a training split smaller than it: each of the
// `world` processes' batch to its share of the images (so the global batch
// stays a multiple of the process count). A share of 0 images is left to
// the epoch check, which refuses it.
int64_t fitted_batch(int64_t batch, int64_t train_images, int world) {
  if (batch <= train_images) return batch;
  const int64_t share = train_images / world;
  return share > 0 ? share * world : batch;
}

// What the data is and what it means for the run: the split sizes, how
// best.pt is chosen, and (rank 0) a --batch-size lowered to the training split.
void log_data(const TrainConfig& c, const RunData& data, bool main_rank, int64_t batch) {
  const TrainValSplit& splits = data.splits;
  const int64_t train_images = splits.train.size();
  const int64_t test_images = data.test.size();
  spdlog::info("data: {} ({}, {} classes: {} training, {} validation, {} test images)",
               fs::absolute(c.data_dir).lexically_normal().string(), data.dataset.id(),
               data.dataset.num_classes(), train_images, splits.val.size(), test_images);
  const DatasetInfo& info = data.dataset;
  const std::string crops = splits.train.whole
                                ? fmt::format(
                                      "; training images: random resized crops of {:g} to 1 of "
                                      "the area, from whole images kept at {} px",
                                      splits.train.whole->min_scale, splits.train.images.size(3))
                                : std::string();
  spdlog::info("images: {} px, prepared as {} (--crop-mode, --crop-pct){}", info.image.side,
               to_string(info.prep), crops);
  DatasetOptions given{.dir = c.data_dir, .kind = {}, .labels = c.labels, .folder = {}};
  given.folder.skip_bad_images = c.skip_bad_images;
  for (const auto& note : ignored_data_options(given, data.dataset.kind)) spdlog::warn("{}", note);
  if (data.test_is_val) {
    spdlog::info(
        "{} has no test/ folder: val/ serves as the test split too (its {} images give the "
        "validation and the test figures)",
        c.data_dir, splits.val.size());
  } else if (test_images == 0) {
    spdlog::warn("{} has no test images: each epoch is judged on the {} validation images only",
                 c.data_dir, splits.val.size());
  }
  if (data.val_folder) {
    spdlog::info("best.pt: chosen by validation accuracy on the {} images of val/",
                 splits.val.size());
  } else if (splits.val.size() > 0) {
    spdlog::info("best.pt: chosen by validation accuracy on the {} held-out images",
                 splits.val.size());
  } else {
    spdlog::info(
        "best.pt: chosen by test accuracy, which lets the test set pick the model; hold out "
        "images with --val-split N to choose on validation instead");
  }
  if (batch != c.batch_size && main_rank) {
    spdlog::warn(
        "--batch-size {} is more than the {} training images: lowered to {}, the most the data "
        "allows{}",
        c.batch_size, train_images, batch,
        batch == train_images ? "" : " for an equal share per process");
  }
}

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

// An image folder's first read decodes every image: a bar (rank 0) says how
// long it takes.
std::function<void(int64_t, int64_t)> decoding_progress(const TrainConfig& c, bool main_rank,
                                                        bool progress_bar) {
  if (!main_rank) return {};
  auto bar = std::make_shared<std::optional<ProgressBar>>();
  return [bar, interval = c.log_interval_s, progress_bar](int64_t done, int64_t total) {
    if (!*bar) {
      ProgressBarOptions options;
      options.interactive = progress_bar;
      options.log_interval_seconds = interval;
      bar->emplace("decoding images", total, options);
    }
    (*bar)->update(done);
    if (done >= total) bar->reset();
  };
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

SplitOptions split_options(const TrainConfig& c, bool main_rank, bool progress_bar) {
  SplitOptions options{.data_dir = c.data_dir,
                       .train_limit = c.train_limit,
                       .test_limit = c.test_limit,
                       .val_split = c.val_split,
                       .seed = c.seed,
                       .kind = dataset_request(c.dataset),
                       .labels = c.labels,
                       .image_size = c.image_size,
                       .crop_mode = c.crop_mode == "auto"
                                        ? std::nullopt
                                        : std::optional<CropMode>(parse_crop_mode(c.crop_mode)),
                       .crop_pct = c.crop_pct,
                       .resized_crops = 0,
                       .folder = {}};
  options.folder.skip_bad_images = c.skip_bad_images;
  options.folder.progress = decoding_progress(c, main_rank, progress_bar);
  return options;
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

RunPlan make_plan(const TrainConfig& config, const Recipe& recipe, const torch::Device& device,
                  const DeviceNumerics& numerics, const Distributed& dist, bool progress_bar) {
  ModelSource source = model_source(config, recipe.network);
  warn_ignored(config, recipe, source.model_name, device);
  Precision precision =
      resolve_precision(config.amp, device, numerics, model_entry(source.model_name).cpu_bf16_slow,
                        config.cuda_graph);
  if (dist.is_main()) {
    spdlog::info("precision: {}", precision.why);
    if (!precision.warning.empty()) spdlog::warn("{}", precision.warning);
  }
  const fs::path run_dir = choose_run_dir(config, source, dist.is_main());
  const fs::path checkpoint =
      config.checkpoint.empty() ? fs::path(source.model_name + ".pt") : fs::path(config.checkpoint);
  // Every file the run writes (the image cache too, which reading the data
  // may write) against every file it reads, before anything is written.
  std::vector<NamedFile> outputs = run_output_files(run_dir, checkpoint);
  for (auto& file : dataset_output_files(config.data_dir, dataset_request(config.dataset))) {
    outputs.push_back(std::move(file));
  }
  check_distinct_files(run_input_files(config), outputs);

  // The size and preparation a resumed run was trained with, unless given.
  TrainConfig sized = with_resumed_image(config, source);
  sized.amp = precision.amp;  // config.toml and the checkpoint record what ran
  SplitOptions split = split_options(sized, dist.is_main(), progress_bar);
  // An augmenting recipe crops whole images of a data set augmented so (crops.h).
  split.resized_crops = recipe.augmentation.translates() ? config.crop_scale : 0;
  const RunData data = read_run_data(split);
  const TrainValSplit& splits = data.splits;
  sized.batch_size = fitted_batch(config.batch_size, splits.train.size(), dist.world_size());
  log_data(config, data, dist.is_main(), sized.batch_size);
  fit_to_data(source, data.dataset, config,
              fmt::format("--data {} ({})", config.data_dir, data.dataset.id()));
  const Normalization& norm = source.normalization;
  std::optional<DeviceDataset> val;
  if (splits.val.size() > 0) val.emplace(splits.val, device, norm, config.channels_last);

  TrainConfig resolved =
      resolved_settings(sized, source.model_name, source.stem, run_dir, checkpoint);
  std::string config_toml = to_toml(resolved);
  spdlog::debug("settings:\n{}", config_toml);
  std::string fingerprint = train_data_fingerprint(splits.train);
  if (source.resumed) {  // refuses what cannot be continued, names what changed
    const std::string changed =
        check_resumed_settings(config.resume, source.resumed->info, config_toml);
    if (!changed.empty() && dist.is_main()) spdlog::warn("{}", changed);
    const std::string data_note =
        check_resumed_data(config.resume, source.resumed->info, splits.train.size(), fingerprint);
    if (!data_note.empty() && dist.is_main()) spdlog::warn("{}", data_note);
  }
  return RunPlan{
      .source = std::move(source),
      .precision = std::move(precision),
      .train = DeviceDataset(splits.train, device, norm, config.channels_last),
      .test = DeviceDataset(data.test, device, norm, config.channels_last),
      .val = std::move(val),
      .test_is_val = data.test_is_val ? (fs::path(config.data_dir) / "val").string() : "",
      .batch_size = sized.batch_size,
      .class_names = data.dataset.class_names,
      .dataset = data.dataset.id(),
      .run_dir = run_dir,
      .checkpoint = checkpoint,
      .resolved = std::move(resolved),
      .config_toml = std::move(config_toml),
      .train_fingerprint = std::move(fingerprint),
  };
}

}  // namespace cifar
