// checkpoint_info.cpp: a checkpoint's JSON header fields, written and read
// back (CheckpointInfo <-> JSON; layout in checkpoint.h). Reading checks
// each field as the rest of the header is checked: a missing or ill-typed
// field, or one out of its range, names the checkpoint as damaged.
#include <fmt/format.h>

#include "cifar/core/errors.h"
#include "cifar/data/dataset.h"
#include "cifar/io/checkpoint.h"
#include "cifar/io/checkpoint_bytes.h"
#include "cifar/io/checkpoint_image.h"
#include "cifar/io/normalization_range.h"
#include "cifar/model/model_registry.h"

namespace cifar {
using nlohmann::json;

using checkpoint_bytes::fail;

ModelOptions CheckpointInfo::model_options() const {
  return ModelOptions(model).num_classes(num_classes).stem(parse_stem(stem));
}

json to_json(const CheckpointInfo& info) {
  json j{
      {"model", {{"name", info.model}, {"stem", info.stem}, {"num_classes", info.num_classes}}},
      {"epoch", info.epoch},
      {"step_in_epoch", info.step_in_epoch},
      {"global_step", info.global_step},
      {"test_accuracy", info.test_accuracy},
      {"best_accuracy", info.best_accuracy},
      {"normalization", {{"mean", info.normalization.mean}, {"std", info.normalization.std}}},
      {"class_names", info.class_names},
      {"dataset", info.dataset},
      {"config", info.config_toml},
      {"libtorch_version", info.libtorch_version},
      {"run_id", info.run_id},
      {"world_size", info.world_size},
      {"tta", info.tta},
      {"image", image_field(info.image, info.prep)},
  };
  if (info.train_images >= 0) {
    j["train_data"] = {{"images", info.train_images}, {"sha256", info.train_fingerprint}};
  }
  if (info.step_in_epoch > 0) {
    const EpochSoFar& e = info.epoch_so_far;
    j["epoch_so_far"] = {
        {"images", e.images},   {"loss_sum", e.loss_sum},           {"correct", e.correct},
        {"seconds", e.seconds}, {"skipped_steps", e.skipped_steps}, {"last_lr", e.last_lr}};
  }
  return j;
}

CheckpointInfo checkpoint_info_from_json(const json& j, const std::string& source) {
  CheckpointInfo info;
  try {
    const auto& model = j.at("model");
    info.model = model.at("name").get<std::string>();
    info.stem = model.at("stem").get<std::string>();
    info.num_classes = model.at("num_classes").get<int64_t>();
    info.epoch = j.at("epoch").get<int64_t>();
    info.step_in_epoch = j.at("step_in_epoch").get<int64_t>();
    info.global_step = j.at("global_step").get<int64_t>();
    info.test_accuracy = j.at("test_accuracy").get<double>();
    info.best_accuracy = j.at("best_accuracy").get<double>();
    info.normalization.mean = j.at("normalization").at("mean").get<std::array<double, 3>>();
    info.normalization.std = j.at("normalization").at("std").get<std::array<double, 3>>();
    info.class_names = j.at("class_names").get<std::vector<std::string>>();
    info.dataset = j.value("dataset", dataset_kinds().front().name);  // absent before issue 29
    info.config_toml = j.at("config").get<std::string>();
    info.libtorch_version = j.at("libtorch_version").get<std::string>();
    info.run_id = j.value("run_id", std::string());             // absent in version 1
    info.world_size = j.value("world_size", int64_t{1});        // absent before data parallelism
    if (const auto it = j.find("train_data"); it != j.end()) {  // absent before 2026-11-26
      info.train_images = it->at("images").get<int64_t>();
      info.train_fingerprint = it->at("sha256").get<std::string>();
    }
    if (const auto it = j.find("epoch_so_far"); it != j.end()) {  // absent before 2026-11-24
      info.epoch_so_far = {.images = it->at("images").get<int64_t>(),
                           .loss_sum = it->at("loss_sum").get<double>(),
                           .correct = it->at("correct").get<double>(),
                           .seconds = it->at("seconds").get<double>(),
                           .skipped_steps = it->at("skipped_steps").get<int64_t>(),
                           .last_lr = it->value("last_lr", 0.0)};
    }
  } catch (const json::exception& e) {
    fail(source, fmt::format("header is incomplete or malformed ({}); the file is damaged",
                             first_line(e.what())));
  }
  try {
    check_model_name(info.model);
    parse_stem(info.stem);
  } catch (const std::runtime_error& e) {  // an unknown model or stem, named
    fail(source, e.what());
  }
  if (info.num_classes <= 0 || info.num_classes > 100000) {
    fail(source, fmt::format("has an implausible class count {}", info.num_classes));
  }
  if (info.epoch < 0 || info.step_in_epoch < 0 || info.global_step < 0) {
    fail(source, "has a negative epoch or step count");
  }
  if (j.contains("train_data") && info.train_images < 0) {
    fail(source, "has a negative training image count");
  }
  if (info.world_size < 1) fail(source, fmt::format("has a world size of {}", info.world_size));
  if (const auto it = j.find("tta"); it != j.end()) {  // absent before test-time augmentation
    if (!it->is_number_integer() || it->get<int64_t>() < 0 || it->get<int64_t>() > kMaxTta) {
      fail(source, fmt::format("header field \"tta\" (test-time augmentation level) is {}; "
                               "this cifar-train knows 0 to {}",
                               it->dump(), kMaxTta));
    }
    info.tta = it->get<int64_t>();
  }
  if (const auto it = j.find("image"); it != j.end()) {  // absent in older files: CIFAR's
    read_image_field(*it, source, info.image, info.prep);
  }
  if (!model_entry(info.model).takes_image_size(info.image.image_size)) {
    fail(source, fmt::format("header says its {} was trained on images of {} px a side, which a "
                             "{} cannot take; the file was edited or is damaged",
                             info.model, info.image.image_size, info.model));
  }
  if (info.class_names.size() != static_cast<size_t>(info.num_classes)) {
    fail(source, fmt::format("lists {} class names for {} classes", info.class_names.size(),
                             info.num_classes));
  }
  for (double s : info.normalization.std) {
    if (!(s > 0)) fail(source, "has a non-positive normalisation std");
  }
  for (const bool is_std : {false, true}) {
    const auto& values = is_std ? info.normalization.std : info.normalization.mean;
    if (const auto problem = channel_problem(values, is_std); !problem.empty()) {
      fail(source, fmt::format("header field 'normalization': {}", problem));
    }
  }
  return info;
}

}  // namespace cifar
