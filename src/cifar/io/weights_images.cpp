// weights_images.cpp: the images a weights file's model takes (weights_images.h).
#include "cifar/io/weights_images.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <vector>

#include "cifar/core/types.h"

namespace cifar {

namespace {

// One option's value: given, recorded (by the file), or neither.
template <class T>
struct Setting {
  const char* flag;
  std::optional<T> given, recorded;
  T fallback;
  std::string (*text)(const T&);

  T value() const { return given.value_or(recorded.value_or(fallback)); }
  bool differs() const { return given && recorded && !(*given == *recorded); }
};

std::string side_text(const int64_t& side) {
  return std::to_string(side);
}
std::string mode_text(const CropMode& mode) {
  return to_string(mode);
}
std::string pct_text(const double& pct) {
  return fmt::format("{:g}", pct);
}

// "as given on the command line", "from its metadata", "the defaults: the
// file does not say", or each part named: "--image-size from its metadata,
// --crop-mode, --crop-pct assumed: the file does not say".
std::string sources_text(const std::vector<std::string>& given,
                         const std::vector<std::string>& recorded,
                         const std::vector<std::string>& assumed, const std::string& says) {
  if (recorded.empty() && assumed.empty()) return "as given on the command line";
  if (given.empty() && assumed.empty()) return "from " + says;
  if (given.empty() && recorded.empty()) return "the defaults: the file does not say";
  if (assumed.empty())
    return fmt::format("{} as given, the rest from {}", fmt::join(given, ", "), says);
  std::vector<std::string> parts;
  if (!given.empty()) parts.push_back(fmt::format("{} as given", fmt::join(given, ", ")));
  if (!recorded.empty())
    parts.push_back(fmt::format("{} from {}", fmt::join(recorded, ", "), says));
  parts.push_back(fmt::format("{} assumed: the file does not say", fmt::join(assumed, ", ")));
  return fmt::format("{}", fmt::join(parts, ", "));
}

}  // namespace

ImagesTaken images_taken(const WeightsMetadata& meta, const ImageOptions& options,
                         const std::string& source, const std::string& says) {
  // cifar-train leaves the defaults out of its metadata: then they are recorded too.
  const auto recorded_prep =
      meta.prep ? meta.prep : (meta.from_cifar_train ? std::optional(kWholeImage) : std::nullopt);
  const auto recorded_side =
      meta.image_size
          ? meta.image_size
          : (meta.from_cifar_train ? std::optional<int64_t>(kCifarImageSize) : std::nullopt);
  const Setting<int64_t> side{"--image-size", options.image_size, recorded_side, kCifarImageSize,
                              side_text};
  const Setting<CropMode> mode{"--crop-mode", options.mode,
                               recorded_prep ? std::optional(recorded_prep->mode) : std::nullopt,
                               kWholeImage.mode, mode_text};
  const Setting<double> pct{"--crop-pct", options.crop_pct,
                            recorded_prep ? std::optional(recorded_prep->crop_pct) : std::nullopt,
                            kWholeImage.crop_pct, pct_text};
  ImagesTaken out{.image_size = side.value(), .prep = ImagePrep{mode.value(), pct.value()}};

  // Each option's source: given, recorded by the file, or assumed (neither).
  std::vector<std::string> differ, given, recorded, assumed, unsaid;
  const auto tally = [&](const auto& s) {
    if (s.differs()) {
      differ.push_back(fmt::format("{} {} (the file records {})", s.flag, s.text(*s.given),
                                   s.text(*s.recorded)));
    }
    if (s.given) {
      given.push_back(s.flag);
    } else if (s.recorded) {
      recorded.push_back(s.flag);
    } else {
      assumed.push_back(s.flag);
      unsaid.push_back(fmt::format("{} {}", s.flag, s.text(s.fallback)));
    }
  };
  tally(side);
  tally(mode);
  tally(pct);
  if (!differ.empty()) {
    spdlog::warn(
        "weights file {}: {} given, over what {} records: images are prepared as given, which "
        "changes the model's answers; leave the option out to prepare them as trained",
        source, fmt::join(differ, ", "), says);
  }
  if (options.warn_unsaid && !unsaid.empty()) {
    const bool size_unsaid = !side.given && !side.recorded;
    const bool prep_unsaid = (!mode.given && !mode.recorded) || (!pct.given && !pct.recorded);
    spdlog::warn(
        "weights file {} does not say {} its model was trained with: images are prepared as {}; "
        "if it was trained otherwise (an image folder: center 0.875 at its --image-size), give "
        "those options",
        source,
        size_unsaid && prep_unsaid ? "the image size and preparation"
        : size_unsaid              ? "the image size"
                                   : "the preparation",
        fmt::join(unsaid, ", "));
  }
  out.note = fmt::format("{} px, {} ({})", out.image_size, to_string(out.prep),
                         sources_text(given, recorded, assumed, says));
  return out;
}

}  // namespace cifar
