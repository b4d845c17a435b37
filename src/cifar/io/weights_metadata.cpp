// weights_metadata.cpp: the __metadata__ keys (see weights_metadata.h).
#include "cifar/io/weights_metadata.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "cifar/core/errors.h"
#include "cifar/core/version.h"
#include "cifar/data/dataset.h"
#include "cifar/data/resolution.h"
#include "cifar/io/normalization_range.h"

namespace cifar {
using nlohmann::json;

namespace {

std::optional<std::string> value_of(const StringMap& metadata, const std::string& key) {
  const auto it = metadata.find(key);
  return it == metadata.end() ? std::nullopt : std::optional(it->second);
}

std::array<double, 3> parse_triple(const std::string& text, const std::string& key,
                                   const std::string& source) {
  const json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_array() || j.size() != 3 ||
      !std::all_of(j.begin(), j.end(), [](const json& v) { return v.is_number(); })) {
    throw std::runtime_error(
        fmt::format("weights file {}: metadata '{}' is '{}', not a JSON array of 3 numbers", source,
                    key, text));
  }
  const std::array<double, 3> values{j[0].get<double>(), j[1].get<double>(), j[2].get<double>()};
  if (const auto problem = channel_problem(values, key == "std"); !problem.empty()) {
    throw std::runtime_error(
        fmt::format("weights file {}: metadata '{}' is '{}': {}", source, key, text, problem));
  }
  return values;
}

}  // namespace

WeightsMetadata parse_weights_metadata(const StringMap& metadata, const std::string& source,
                                       bool normalization_given) {
  WeightsMetadata out;
  out.model = value_of(metadata, "model");
  if (const auto stem = value_of(metadata, "stem")) {
    try {
      out.stem = parse_stem(*stem);
    } catch (const std::runtime_error& e) {
      throw std::runtime_error(
          fmt::format("weights file {}: metadata 'stem': {}", source, e.what()));
    }
  }
  const auto mean = value_of(metadata, "mean");
  const auto stdev = value_of(metadata, "std");
  // Half a normalisation is none: refused, not dropped, unless --mean and
  // --std replace it.
  if (mean.has_value() != stdev.has_value() && !normalization_given) {
    throw std::runtime_error(fmt::format(
        "weights file {}: its metadata has '{}' but no '{}': write both (as cifar-export does), "
        "or give --mean and --std, which replace them",
        source, mean ? "mean" : "std", mean ? "std" : "mean"));
  }
  if (mean && stdev) {
    Normalization n{parse_triple(*mean, "mean", source), parse_triple(*stdev, "std", source)};
    for (double s : n.std) {
      if (!(s > 0)) {
        throw std::runtime_error(fmt::format(
            "weights file {}: metadata 'std' is '{}': every std must be > 0", source, *stdev));
      }
    }
    out.normalization = n;
  }
  out.dataset = value_of(metadata, "dataset");
  out.from_cifar_train = value_of(metadata, "cifar_train_version").has_value();
  if (const auto side = value_of(metadata, "image_size")) {
    int64_t value = 0;
    const auto [end, ec] = std::from_chars(side->data(), side->data() + side->size(), value);
    // The range --image-size takes: the size a run would train or evaluate at.
    if (ec != std::errc() || end != side->data() + side->size() || value < kMinImageSize ||
        value > kMaxResolution) {
      throw std::runtime_error(
          fmt::format("weights file {}: metadata 'image_size' is '{}': it must be a whole number "
                      "of pixels from {} to {}, as --image-size takes",
                      source, *side, kMinImageSize, kMaxResolution));
    }
    out.image_size = value;
  }
  const auto crop_mode = value_of(metadata, "crop_mode");
  const auto crop_pct = value_of(metadata, "crop_pct");
  if (crop_mode || crop_pct) {
    ImagePrep prep;
    try {
      prep.mode = parse_crop_mode(crop_mode.value_or("squash"));
      size_t used = 0;
      prep.crop_pct = std::stod(crop_pct.value_or("1"), &used);
      if (used != crop_pct.value_or("1").size()) throw std::invalid_argument("trailing text");
      validate_image_prep(prep);
    } catch (const std::exception&) {
      throw std::runtime_error(fmt::format(
          "weights file {}: metadata 'crop_mode' '{}' and 'crop_pct' '{}': the mode must be "
          "squash or center and the share a number from {:g} to 1",
          source, crop_mode.value_or(""), crop_pct.value_or(""), kMinCropPct));
    }
    out.prep = prep;
  }
  if (const auto classes = value_of(metadata, "classes")) {
    const json j = json::parse(*classes, nullptr, /*allow_exceptions=*/false);
    if (!j.is_array() || j.empty() ||
        !std::all_of(j.begin(), j.end(), [](const json& v) { return v.is_string(); })) {
      throw std::runtime_error(
          fmt::format("weights file {}: metadata 'classes' is not a JSON array of names", source));
    }
    out.class_names = j.get<std::vector<std::string>>();
    if (out.class_names->size() > kMaxClasses) {
      throw std::runtime_error(fmt::format(
          "weights file {}: metadata 'classes' lists {} names, more than the {} a model here can "
          "have",
          source, out.class_names->size(), kMaxClasses));
    }
    // A prediction names its class: an empty name says nothing, a repeated
    // one makes two classes one.
    std::vector<std::string> sorted = *out.class_names;
    std::ranges::sort(sorted);
    const auto repeated = std::ranges::adjacent_find(sorted);
    if (sorted.front().empty() || repeated != sorted.end()) {
      throw std::runtime_error(fmt::format(
          "weights file {}: metadata 'classes' {}: each class needs a name of its own: write "
          "the file again with the classes' names, one each",
          source,
          sorted.front().empty() ? std::string("has an empty name")
                                 : fmt::format("names '{}' twice", *repeated)));
    }
  }
  return out;
}

StringMap weights_metadata(const CheckpointInfo& info) {
  StringMap out{
      {"format", "pt"},
      {"model", info.model},
      {"stem", info.stem},
      {"mean", json(info.normalization.mean).dump()},
      {"std", json(info.normalization.std).dump()},
      {"classes", json(info.class_names).dump(-1, ' ', false, json::error_handler_t::replace)},
      {"cifar_train_version", tool_version()}};
  // CIFAR-10 goes unsaid, as in files written before other data sets, so that
  // its weights files stay byte for byte what they were.
  if (info.dataset != dataset_kinds().front().name) out["dataset"] = info.dataset;
  if (info.image.image_size != kCifarImageSize)
    out["image_size"] = std::to_string(info.image.image_size);
  if (info.prep != kWholeImage) {  // unsaid for CIFAR's, as image_size
    out["crop_mode"] = to_string(info.prep.mode);
    out["crop_pct"] = fmt::format("{}", info.prep.crop_pct);  // shortest round trip
  }
  return out;
}

}  // namespace cifar
