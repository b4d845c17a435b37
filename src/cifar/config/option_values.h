// option_values.h: the typed values of the option tables as text, both ways.
//
// For each typed option (model name, ResNet stem, schedule, device, AMP mode,
// recipe, data set kind and label set, normalisation channels) a parse
// function (text to value, throwing UsageError naming the option) and a
// format function (value to the text that parses back), handed to a visitor
// as Parsed<T>. Included by the option tables only.
#pragma once

#include <fmt/format.h>

#include <string>
#include <vector>

#include "cifar/config/normalization_flags.h"
#include "cifar/config/train_config.h"
#include "cifar/core/errors.h"
#include "cifar/core/registry.h"
#include "cifar/data/image_folder.h"
#include "cifar/data/resolution.h"
#include "cifar/infer/model_input.h"

namespace cifar::options {

// "net, resnet18 or airbench94": the models make_model builds, for help texts.
inline const std::string& models_in_words() {
  static const std::string text = in_words(model_names());
  return text;
}

// --- Parsing and formatting the typed values ----------------------------------------

inline std::string model_of(const std::string& text) {
  check_model_name(text);
  return text;
}
inline std::string same(const std::string& text) {
  return text;
}
inline std::string stem_text(const ResNetStem& stem) {
  return stem == ResNetStem::kCifar ? "cifar" : "imagenet";
}
inline std::string schedule_text(const Schedule& s) {
  return to_string(s);
}
inline std::string device_text(const DeviceRequest& d) {
  return d.text;
}
inline std::string amp_text(const AmpMode& a) {
  return to_string(a);
}
inline DeviceRequest device_of(const std::string& text) {
  return parse_device(text);
}
inline std::string optimizer_of(const std::string& text) {
  optimizer_entry(text);  // throws UsageError for an unknown name
  return text;
}
inline std::vector<int64_t> resolutions_of(const std::string& text) {
  return parse_resolution_schedule(text);
}
inline std::string resolutions_text(const std::vector<int64_t>& sizes) {
  return resolution_schedule_text(sizes);
}
inline Channels mean_of(const std::string& text) {
  return parse_channels("--mean", text);
}
inline Channels std_of(const std::string& text) {
  const Channels std = parse_channels("--std", text);
  for (const double s : std) {
    if (s <= 0) throw UsageError(fmt::format("--std values must be > 0, got '{}'", text));
  }
  return std;
}
inline std::string dataset_of(const std::string& text) {
  dataset_request(text);  // throws UsageError for an unknown kind
  return text;
}
inline std::string crop_mode_of(const std::string& text) {
  if (text != "auto") parse_crop_mode(text);  // throws UsageError for an unknown mode
  return text;
}
inline std::string label_set_text(const LabelSet& labels) {
  return to_string(labels);
}
inline Split split_of(const std::string& text) {
  if (text == "test") return Split::kTest;
  if (text == "val") return Split::kVal;
  if (text == "train") return Split::kTrain;
  throw UsageError(fmt::format("unknown --split '{}': test, val or train", text));
}
inline std::string split_text(const Split& split) {
  return split_folder_name(split);
}
inline std::string channels_text(const Channels& c) {
  return fmt::format("{},{},{}", c[0], c[1], c[2]);
}

}  // namespace cifar::options
