// option_values.h: the typed values of the option tables as text, both ways.
//
// For each typed option (model name, ResNet stem, schedule, device, AMP mode,
// optimiser, data set kind and label set, crop mode, resolution schedule,
// normalisation channels) a parse function (text to value, throwing
// UsageError naming the option: the one place a name or value the user
// types is refused; the lower layers' tables and readers only look up) and
// a format function (value to the text that parses back), handed to a
// visitor as Parsed<T>. Included by the option tables only.
#pragma once

#include <fmt/format.h>

#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "cifar/config/normalization_flags.h"
#include "cifar/config/tool_configs.h"
#include "cifar/config/train_config.h"
#include "cifar/core/enum_names.h"
#include "cifar/core/errors.h"
#include "cifar/core/registry.h"
#include "cifar/data/image_folder.h"
#include "cifar/data/resolution.h"
#include "cifar/model/model_registry.h"
#include "cifar/optim/optimizer_registry.h"

namespace cifar::options {

// "net, resnet18 or airbench94": the models make_model builds, for help texts.
inline const std::string& models_in_words() {
  static const std::string text = in_words(model_names());
  return text;
}

// --- Parsing and formatting the typed values ----------------------------------------

// The value `text` names in `table`; UsageError "unknown {what} '{text}':
// choose ..." (the table's names) for any other text.
template <typename E, size_t N>
E named(const std::array<EnumName<E>, N>& table, std::string_view what, const std::string& text) {
  if (const auto value = find_name(table, text)) return *value;
  throw UsageError(unknown_name(what, text, names_of(table)));
}

inline std::string model_of(const std::string& text) {
  if (find_entry(model_registry(), text) == nullptr) {
    throw UsageError(unknown_name("model", text, model_names()));
  }
  return text;
}
inline std::string same(const std::string& text) {
  return text;
}
inline ResNetStem stem_of(const std::string& text) {
  return named(kStemNames, "ResNet stem", text);
}
inline std::string stem_text(const ResNetStem& stem) {
  return to_string(stem);
}
inline Schedule schedule_of(const std::string& text) {
  return named(kScheduleNames, "schedule", text);
}
inline std::string schedule_text(const Schedule& s) {
  return to_string(s);
}
inline std::string device_text(const DeviceRequest& d) {
  return d.text;
}
inline AmpMode amp_of(const std::string& text) {
  return named(kAmpNames, "--amp", text);
}
inline std::string amp_text(const AmpMode& a) {
  return to_string(a);
}
inline DeviceRequest device_of(const std::string& text) {
  if (const auto request = parse_device(text)) return *request;
  throw UsageError(
      fmt::format("--device '{}' is not a device: use auto, cpu, cuda or cuda:N (N = 0, 1, ...); "
                  "cifar-train --list-devices shows what this machine has",
                  text));
}
inline std::string optimizer_of(const std::string& text) {
  if (find_entry(optimizer_registry(), text) == nullptr) {
    throw UsageError(unknown_name("--optimizer", text, entry_names(optimizer_registry())));
  }
  return text;
}
inline std::vector<int64_t> resolutions_of(const std::string& text) {
  ScheduleText read = parse_resolution_schedule(text);
  if (read.ok()) return std::move(read.sizes);
  throw UsageError(fmt::format(
      "--resolution-schedule '{}': '{}' {}; write sizes in px, each optionally repeated, "
      "e.g. 24x3,28x3 (epochs 1-3 at 24 px, 4-6 at 28 px, the rest at full size)",
      text, read.item, read.why));
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
// "auto" (detected from --data's files) or a kind of the table (data/dataset_kinds.cpp).
inline std::string dataset_of(const std::string& text) {
  if (text == "auto" || find_entry(dataset_kinds(), text) != nullptr) return text;
  std::vector<std::string> choices{"auto (detected from the folder)"};
  for (const std::string& name : entry_names(dataset_kinds())) choices.push_back(name);
  throw UsageError(unknown_name("--dataset", text, choices));
}
inline std::string crop_mode_of(const std::string& text) {
  if (text == "auto" || find_name(kCropModeNames, text)) return text;
  throw UsageError(fmt::format(
      "unknown crop mode '{}': use center (the shorter side resized, aspect ratio kept, the "
      "centre cropped: torchvision's) or squash (the whole image resized, aspect ratio not kept)",
      text));
}
inline LabelSet label_set_of(const std::string& text) {
  return named(kLabelSetNames, "--labels", text);
}
inline std::string label_set_text(const LabelSet& labels) {
  return to_string(labels);
}
inline Split split_of(const std::string& text) {
  if (text == "test") return Split::kTest;
  if (text == "val") return Split::kVal;
  if (text == "train") return Split::kTrain;
  throw UsageError(fmt::format("--split must be test, val or train, got '{}'", text));
}
inline std::string split_text(const Split& split) {
  return split_folder_name(split);
}
inline std::string channels_text(const Channels& c) {
  return fmt::format("{},{},{}", c[0], c[1], c[2]);
}

}  // namespace cifar::options
