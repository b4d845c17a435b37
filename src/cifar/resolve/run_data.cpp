// run_data.cpp: the options a run's data is read with, and the log of what was read.
#include "cifar/resolve/run_data.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <algorithm>

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <tuple>

#include "cifar/config/option_spec.h"
#include "cifar/core/errors.h"
#include "cifar/core/file_io.h"
#include "cifar/data/crops.h"
#include "cifar/data/image_folder.h"
#include "cifar/formats/checksum.h"
#include "cifar/report/progress_bar.h"
#include "cifar/resolve/ignored_options.h"

namespace cifar {
namespace fs = std::filesystem;
namespace {

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

}  // namespace

int64_t fitted_batch(int64_t batch, int64_t train_images, int world) {
  if (batch <= train_images) return batch;
  const int64_t share = train_images / world;
  return share > 0 ? share * world : batch;
}

int64_t photo_side(const TrainConfig& c, const ModelEntry& model, AmpMode amp, bool on_cpu,
                   bool main_rank) {
  const DatasetOptions given{.dir = c.data_dir, .kind = dataset_request(c.dataset), .folder = {}};
  const DatasetKindEntry& kind = dataset_entry(dataset_kind(given));
  if (model.photo_side == 0 || kind.photo_sizes == nullptr) return 0;
  const auto [photos, median] = kind.photo_sizes(c.data_dir);
  const bool halved = on_cpu && amp != AmpMode::kBf16 && photos > kFloat32FullSidePhotos;
  const int64_t cap = std::max(kCifarImageSize, halved ? model.photo_side / 2 : model.photo_side);
  const int64_t side = std::clamp(median / 8 * 8, kCifarImageSize, cap);
  if (main_rank) {
    spdlog::info(
        "images: {} px, from the photos (their median shorter side {} px; {} at most for {}{}); "
        "--image-size N chooses another",
        side, median, cap, model.name,
        halved ? fmt::format(" on {} photos in float32, which runs a quarter of bf16's pixels "
                             "in the same time",
                             photos)
               : "");
  }
  return side;
}

int64_t epochs_for_steps(const TrainConfig& c, int64_t steps_per_epoch, int64_t train_images,
                         int64_t batch, bool main_rank) {
  if (steps_per_epoch == 0 || c.epochs * steps_per_epoch >= c.steps) return c.epochs;
  const int64_t epochs = (c.steps + steps_per_epoch - 1) / steps_per_epoch;
  if (epochs > options::kMaxEpochs) {  // never capped without a word: fewer steps than asked
    throw UsageError(fmt::format(
        "--steps {} needs {} epochs of {} step{} ({} training images at batch {}), past the "
        "limit of {} epochs: ask for at most {} steps",
        c.steps, epochs, steps_per_epoch, steps_per_epoch == 1 ? "" : "s", train_images, batch,
        options::kMaxEpochs, options::kMaxEpochs * steps_per_epoch));
  }
  if (main_rank) {
    spdlog::info(
        "--steps {}: {} epoch{} of {} step{} ({} training images at batch {}), more than --epochs "
        "{}; --steps 0 trains --epochs alone",
        c.steps, epochs, epochs == 1 ? "" : "s", steps_per_epoch, steps_per_epoch == 1 ? "" : "s",
        train_images, batch, c.epochs);
  }
  return epochs;
}

SlowRunHint slow_run_hint(const DatasetKindEntry& kind, bool from_scratch, bool on_cpu,
                          const fs::path& configs) {
  if (!on_cpu || (kind.image_files && !from_scratch)) return {};
  if (kind.image_files) {
    return {.after_s = 5 * 60,
            .text = fmt::format(
                "{} (ImageNet weights) trains photos in a fraction of that time; --time MINUTES "
                "fits this run to a budget",
                (configs / "photos-pretrained.toml").string())};
  }
  return {.after_s = 60 * 60,
          .text = fmt::format("on a CPU, {} or {} train in minutes",
                              (configs / "airbench94.toml").string(),
                              (configs / "net-fast-cpu.toml").string())};
}

void log_data(const TrainConfig& c, const RunData& data, bool main_rank, int64_t batch,
              const fs::path& configs) {
  const TrainValSplit& splits = data.splits;
  const int64_t train_images = splits.train.size();
  const int64_t test_images = data.test.size();
  spdlog::info("data: {} ({}, {} classes: {} training, {} validation, {} test images)",
               absolute_path(c.data_dir).string(), data.dataset.id(), data.dataset.num_classes(),
               train_images, splits.val.size(), test_images);
  for (const auto& [option, limit, images, which] :
       {std::tuple{"--train-limit", c.train_limit, train_images, "training"},
        std::tuple{"--test-limit", c.test_limit, test_images, "test"}}) {
    if (limit > images) {
      spdlog::info("{} {} is more than the data's {} {} images: all of them are used", option,
                   limit, images, which);
    }
  }
  const DatasetInfo& info = data.dataset;
  const std::string crops = splits.train.whole
                                ? fmt::format(
                                      "; training images: random resized crops of {:g} to 1 of "
                                      "the area, from whole images kept at {} px",
                                      splits.train.whole->min_scale, splits.train.images.size(3))
                                : std::string();
  spdlog::info("images: {} px, prepared as {} (--crop-mode, --crop-pct){}", info.image.image_size,
               to_string(info.prep), crops);
  DatasetOptions given{.dir = c.data_dir, .kind = {}, .labels = c.labels, .folder = {}};
  given.folder.skip_bad_images = c.skip_bad_images;
  for (const auto& note : ignored_data_options(given, data.dataset.kind)) spdlog::warn("{}", note);
  // val/, or valid/ or validation/: the one the folder has.
  const auto val_name = [&] { return split_folder(c.data_dir, Split::kVal).filename().string(); };
  if (data.test_is_val) {
    spdlog::info(
        "{} has no test/ folder: {}/ serves as the test split too (its {} images give the "
        "validation and the test figures)",
        c.data_dir, val_name(), splits.val.size());
  } else if (test_images == 0) {
    spdlog::warn("{} has no test images: each epoch is judged on the {} validation images only",
                 c.data_dir, splits.val.size());
  }
  if (data.val_folder) {
    spdlog::info("best.pt: chosen by validation accuracy on the {} images of {}/",
                 splits.val.size(), val_name());
  } else if (splits.val.size() > 0) {
    spdlog::info("best.pt: chosen by validation accuracy on the {} held-out images",
                 splits.val.size());
  } else {
    spdlog::info(
        "best.pt: chosen by test accuracy, which lets the test set pick the model; hold out "
        "images with --val-split N to choose on validation instead");
  }
  // Photos trained on the bare defaults (the tutorial's recipe and model):
  // the configs made for them are named.
  const bool bare = c.config_file.empty() && c.model.empty() && c.recipe == TrainConfig{}.recipe &&
                    c.init_weights.empty() && !c.pretrained && c.resume.empty();
  if (main_rank && bare && dataset_entry(info.kind).image_files) {
    spdlog::info(
        "no --config or --model: the folder trains on the tutorial's defaults; for photos, "
        "--config {} (from scratch) or {} (ImageNet weights) do better",
        (configs / "photos.toml").string(), (configs / "photos-pretrained.toml").string());
  }
  if (batch != c.batch_size && main_rank) {
    spdlog::warn(
        "--batch-size {} is more than the {} training images: lowered to {}, the most the data "
        "allows{}",
        c.batch_size, train_images, batch,
        batch == train_images ? "" : " for an equal share per process");
  }
}

ImageSpec image_spec(const TrainConfig& c, const DatasetKindEntry& kind, bool augments) {
  ImageSpec image;
  if (c.image_size > 0) image.image_size = c.image_size;
  image.prep = kind.prep;
  if (c.crop_mode != "auto") image.prep.mode = parse_crop_mode(c.crop_mode);
  if (c.crop_pct > 0) image.prep.crop_pct = c.crop_pct;
  validate_image_prep(image.prep);  // config/ refuses a --crop-pct out of range first
  if (augments && kind.resized_crops && c.crop_scale > 0) {  // --crop-scale 0: translations
    image.whole_size = kWholeScale * image.image_size;
    image.min_scale = c.crop_scale;
  }
  return image;
}

SplitOptions split_options(const TrainConfig& c, bool augments, bool main_rank, bool progress_bar,
                           const std::filesystem::path& spare_cache_dir) {
  DatasetOptions given{.dir = c.data_dir, .kind = dataset_request(c.dataset), .folder = {}};
  const DatasetKind kind = dataset_kind(given);  // --dataset, else detected
  SplitOptions options{.data_dir = c.data_dir,
                       .train_limit = c.train_limit,
                       .test_limit = c.test_limit,
                       .val_split = c.val_split,
                       .seed = c.seed,
                       .kind = kind,
                       .labels = c.labels,
                       .image = image_spec(c, dataset_entry(kind), augments),
                       .folder = {}};
  options.folder.skip_bad_images = c.skip_bad_images;
  options.folder.spare_cache_dir = spare_cache_dir;
  options.folder.progress = decoding_progress(c, main_rank, progress_bar);
  return options;
}

std::string train_data_fingerprint(const ImageSplit& train) {
  Sha256 sha;
  for (const torch::Tensor& t : {train.images, train.labels}) {
    const torch::Tensor bytes = t.contiguous();
    sha.update({static_cast<const uint8_t*>(bytes.data_ptr()), bytes.nbytes()});
  }
  return to_hex(sha.digest());
}

}  // namespace cifar
