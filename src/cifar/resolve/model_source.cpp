// model_source.cpp: a fresh network, a checkpoint to resume, or weights to start from.
#include "cifar/resolve/model_source.h"

#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include "cifar/core/errors.h"
#include "cifar/core/names.h"
#include "cifar/data/resolution.h"
#include "cifar/io/weights.h"
#include "cifar/model/model_body.h"
#include "cifar/model/model_registry.h"
#include "cifar/platform/guards.h"
#include "cifar/resolve/model_input.h"
#include "cifar/resolve/resume_checks.h"
#include "cifar/resolve/weights_source.h"

namespace cifar {
namespace fs = std::filesystem;
namespace {

// What named the model, for messages: "--resume net.pt", "--model net".
std::string named_by(const TrainConfig& config) {
  if (!config.resume.empty()) return "--resume " + config.resume;
  if (!config.init_weights.empty()) return "--init-weights " + config.init_weights;
  if (config.pretrained) return "--pretrained";
  return config.model.empty() ? std::string("the recipe") : "--model " + config.model;
}

// What the model can follow, once it is known: the settings that depend on
// the model (its image size), whether --model named it or a checkpoint or
// weights file did.
// UsageError unless the model of `entry` takes images of `side` px.
void check_image_size(const ModelEntry& entry, int64_t side, const std::string& named_by) {
  if (entry.takes_image_size(side)) return;
  if (entry.any_image_size()) {
    throw UsageError(fmt::format(
        "{} gives {}, which takes images of {} px a side or more (its layers leave nothing of "
        "smaller ones), not {}: pass --image-size {} or more",
        named_by, entry.name, entry.min_image_size, side, entry.min_image_size));
  }
  std::vector<std::string> any;
  for (const ModelEntry& e : model_registry()) {
    if (e.any_image_size()) any.push_back(e.name);
  }
  throw UsageError(fmt::format(
      "{} gives {}, which takes {}x{} images only (its first linear layer is sized for them), "
      "not {}x{}: drop --image-size, or train a model that takes any size ({})",
      named_by, entry.name, entry.image_size, entry.image_size, side, side, fmt::join(any, ", ")));
}

// Every size --resolution-schedule trains at, as --image-size scales it
// (data/resolution.h: scaled_schedule, as the epochs use it), within what the
// model takes: a stage under its least side stopped the run at that epoch
// with LibTorch's "Output size is too small" (issue 47), one past
// kMaxResolution is more than any image is read at. UsageError at start,
// naming the stage, its scaled size and what would work. Stages past
// --epochs, and those of the epochs a resumed run has done, never train and
// are not checked.
void check_schedule_sizes(const ModelEntry& entry, int64_t side, const TrainConfig& config,
                          const ModelSource& source) {
  if (config.resolution_schedule.empty() || !entry.any_image_size()) return;
  const std::vector<int64_t>& written = config.resolution_schedule;
  const std::vector<int64_t> sizes = scaled_schedule(written, kCifarImageSize, side);
  // A resumed run trains from the epoch it stopped in (0-based: the epochs done).
  const size_t first = source.resumed ? static_cast<size_t>(source.resumed->info.epoch) : 0;
  // --steps and --time may train more epochs than --epochs: every stage then.
  const bool longer = config.steps > 0 || config.time_minutes > 0;
  for (size_t i = first; i < sizes.size() && (longer || static_cast<int64_t>(i) < config.epochs);
       ++i) {
    const bool small = sizes[i] < entry.min_image_size;
    if (!small && sizes[i] <= kMaxResolution) continue;
    const auto fits = [&](int64_t at, int64_t image) {
      const int64_t s = scaled_schedule({at}, kCifarImageSize, image).front();
      return s >= entry.min_image_size && s <= kMaxResolution;
    };
    int64_t bound = small ? kMaxResolution : kMinResolution;  // the written size that would fit
    for (int64_t at = kMinResolution; at <= kMaxResolution; ++at) {
      if (fits(at, side)) {
        bound = at;
        if (small) break;
      }
    }
    throw UsageError(fmt::format(
        "--resolution-schedule {} at {} px images trains epoch {} at {} px (its {} px, written "
        "for 32 px images, scaled by {}/32), {} {} takes ({} px): {}",
        resolution_schedule_text(written), side, i + 1, sizes[i], written[i], side,
        small ? "under the least side" : "over the most", entry.name,
        small ? entry.min_image_size : kMaxResolution,
        small ? fmt::format("give sizes of {} or more, or a larger --image-size", bound)
              : fmt::format("give sizes of {} or less, or a smaller --image-size", bound)));
  }
}

// The side the training images will have, before they are read: --image-size,
// else the resumed run's, else the data sets' own (CIFAR's 32 px, which an
// image folder is prepared at too unless told).
int64_t planned_side(const ModelSource& source, const TrainConfig& config) {
  if (config.image_size > 0) return config.image_size;
  if (source.weights_image_size > 0) return source.weights_image_size;
  return source.resumed ? source.resumed->info.image.image_size : kCifarImageSize;
}

// --init-weights whose head has other classes than the data (another count,
// or as many named otherwise): the loaded body in a fresh model for the
// data's classes, whose head is initialised from --seed as the model's own.
void start_new_head(ModelSource& source, const DatasetInfo& data, const TrainConfig& config,
                    bool main_rank) {
  const ModelEntry& entry = model_entry(source.model_name);
  const std::vector<std::string> was = source.class_names;
  source.class_names = data.class_names;
  Classifier fresh;
  {
    const SeedGuard seed(config.seed);
    fresh = build_fresh(source);
  }
  copy_body(*source.model, *fresh, entry);
  source.model = fresh;
  const size_t n = data.class_names.size();
  if (!main_rank) return;
  if (was.size() != n) {
    spdlog::info(
        "{}: its head ({}) has {} classes, the data {}: the body is loaded, and a new {}-class "
        "head starts from --seed {}",
        source.weights_named_by, entry.head, was.size(), n, n, config.seed);
  } else {  // as many classes, other ones: said louder, as the head's training is dropped
    spdlog::warn(
        "{}: its head ({}) was trained on {}, the data holds {}: the body is loaded, and a new "
        "{}-class head starts from --seed {}{}",
        source.weights_named_by, entry.head, fmt::format("{} classes ({})", n, first_names(was, 4)),
        fmt::format("others ({})", first_names(data.class_names, 4)), n, config.seed,
        dataset_entry(data.kind).image_files
            ? " (for the same classes, name the class folders as the file does)"
            : "");
  }
}

ModelSource checked(ModelSource source, const TrainConfig& config) {
  const ModelEntry& entry = model_entry(source.model_name);
  if (!config.resolution_schedule.empty() && !entry.any_image_size()) {
    throw UsageError(fmt::format(
        "--resolution-schedule needs a model that takes any image size; {} gives {}, whose first "
        "linear layer is sized for {}x{} images: drop --resolution-schedule{}",
        named_by(config), source.model_name, entry.image_size, entry.image_size,
        config.resume.empty() ? " or choose --model" : ", or resume a model of another kind"));
  }
  if (config.image_size > 0) check_image_size(entry, config.image_size, named_by(config));
  check_schedule_sizes(entry, planned_side(source, config), config, source);
  if (source.resumed && config.image_size > 0 &&
      config.image_size != source.resumed->info.image.image_size) {
    throw UsageError(fmt::format(
        "--resume {} was trained on images of {} px a side, not the {} --image-size asks for: "
        "pass --image-size {}, or drop it",
        config.resume, source.resumed->info.image.image_size, config.image_size,
        source.resumed->info.image.image_size));
  }
  return source;
}

ModelSource resolve(const TrainConfig& config, const std::string& default_network,
                    const std::vector<fs::path>& pretrained_dirs) {
  if (std::optional<LoadedCheckpoint> resumed = load_resume(config)) {
    ModelSource source{.model_name = resumed->info.model,
                       .stem = parse_stem(resumed->info.stem),
                       .normalization = resumed->info.normalization,
                       .class_names = resumed->info.class_names,
                       .model = resumed->model,
                       .resumed = std::nullopt,
                       .resumed_settings = std::nullopt};
    if (!resumed->info.config_toml.empty()) {
      try {
        // As resolved: the images its header records (its text may say 0 and auto).
        TrainConfig was = from_toml(resumed->info.config_toml);
        was.image_size = resumed->info.image.image_size;
        was.crop_mode = to_string(resumed->info.prep.mode);
        was.crop_pct = resumed->info.prep.crop_pct;
        source.resumed_settings = std::move(was);
      } catch (const UsageError& e) {  // an older version's value: resume all the same
        spdlog::warn(
            "--resume {}: its saved settings do not read back ({}); its image size, preparation "
            "and run folder are taken from this run's options",
            config.resume, e.what());
      }
    }
    source.resumed = std::move(resumed);
    return source;
  }
  if (!config.init_weights.empty() || config.pretrained) {
    return weights_source(config, pretrained_dirs);
  }
  return {.model_name = config.model.empty() ? default_network : config.model,
          .stem = config.stem.value_or(ResNetStem::kCifar),
          .normalization = Normalization{},
          .class_names = {},
          .model = nullptr,
          .resumed = std::nullopt,
          .resumed_settings = std::nullopt};
}

}  // namespace

ModelSource model_source(const TrainConfig& config, const std::string& default_network,
                         const std::vector<fs::path>& pretrained_dirs) {
  return checked(resolve(config, default_network, pretrained_dirs), config);
}

void fit_to_data(ModelSource& source, const DatasetInfo& data, const TrainConfig& config,
                 const std::string& data_source, bool main_rank) {
  check_image_size(model_entry(source.model_name), data.image.image_size, named_by(config));
  check_schedule_sizes(model_entry(source.model_name), data.image.image_size, config, source);
  source.image = data.image;
  source.prep = data.prep;
  if (source.resumed && source.resumed->info.image != data.image) {
    throw UsageError(fmt::format(
        "--resume {} was trained on images of {} px a side, but the data is read at {} px: pass "
        "--image-size {}",
        config.resume, source.resumed->info.image.image_size, data.image.image_size,
        source.resumed->info.image.image_size));
  }
  if (source.resumed && source.resumed->info.prep != data.prep) {
    const ImagePrep& was = source.resumed->info.prep;
    throw UsageError(fmt::format(
        "--resume {} was trained on images prepared as {}, but the data is prepared as {}: pass "
        "--crop-mode {} --crop-pct {:g}",
        config.resume, to_string(was), to_string(data.prep), to_string(was.mode), was.crop_pct));
  }
  if (source.fresh()) {
    source.normalization = data.normalization;
    source.class_names = data.class_names;
    return;
  }
  const bool weights = !source.resumed;
  if (weights && !source.class_names_known &&
      source.class_names.size() == data.class_names.size()) {
    source.class_names = data.class_names;  // a weights file that names no classes
  }
  if (weights && source.class_names != data.class_names) {  // other classes: a head of its own
    start_new_head(source, data, config, main_rank);
    return;
  }
  check_same_classes(source.class_names,
                     weights ? source.weights_named_by : "--resume " + config.resume,
                     data.class_names, data_source);
}

Classifier build_fresh(const ModelSource& source) {
  return make_model(ModelOptions(source.model_name)
                        .stem(source.stem)
                        .num_classes(static_cast<int64_t>(source.class_names.size())));
}

}  // namespace cifar
