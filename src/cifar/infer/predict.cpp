// predict.cpp: see predict.h.
#include "cifar/infer/predict.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "cifar/core/errors.h"
#include "cifar/core/names.h"
#include "cifar/data/image_folder.h"
#include "cifar/formats/image.h"
#include "cifar/infer/evaluate.h"
#include "cifar/platform/guards.h"
#include "cifar/platform/interrupt.h"
#include "cifar/report/confusion_file.h"  // csv_field

namespace cifar {
namespace {

// The prepared images of options.cached_folders by file (its lexically
// normal path), read as cifar-eval reads such a folder: from the data set's
// decode cache, or decoded once into it. A folder that cannot be read so (a
// class folder the model does not know, an unreadable image) is left to be
// decoded file by file, each file with its own answer or error.
std::map<std::string, torch::Tensor> cached_images(const CheckpointInfo& info,
                                                   const PredictOptions& options) {
  std::map<std::string, torch::Tensor> out;
  ImageFolderOptions folder;
  folder.spare_cache_dir = options.spare_cache_dir;
  folder.image = ImageSpec{.image_size = info.image.image_size, .prep = info.prep};
  for (const auto& dir : options.cached_folders) {
    try {
      const ClassFolderImages read =
          read_class_folder_files(dir, info.class_names, "the model", folder);
      for (size_t i = 0; i < read.files.size(); ++i) {
        out[read.files[i].lexically_normal().string()] =
            read.split.images[static_cast<int64_t>(i)];  // (3, S, S) uint8
      }
    } catch (const Interrupted&) {  // a stop during the decoding is the command's
      throw;
    } catch (const UnreadableImage&) {  // its hint names cifar-eval's options: the file's line says
      spdlog::info(
          "{}: its images are decoded one by one, not through the data set's decode cache: a "
          "file in it is no readable image (its error line names it)",
          dir);
    } catch (const std::exception& e) {
      spdlog::info(
          "{}: its images are decoded one by one, not through the data set's decode cache: {}", dir,
          first_line(e.what()));
    }
  }
  return out;
}

}  // namespace

std::vector<Prediction> predict_files(ClassifierImpl& model, const CheckpointInfo& info,
                                      const std::vector<std::string>& files,
                                      const PredictOptions& options) {
  if (options.top_k < 1 || options.tta < 0 || options.tta > 2) {  // resolve_predict refuses them
    throw std::invalid_argument(fmt::format("predict_files: top_k {} (at least 1), tta {} (0 to 2)",
                                            options.top_k, options.tta));
  }
  const int64_t k = std::min<int64_t>(options.top_k, info.num_classes);
  const auto images = static_cast<int64_t>(files.size());
  if (images == 0) return {};
  const CpuSettingsGuard cpu_settings(static_cast<int>(std::max<int64_t>(options.threads, 1)),
                                      /*onednn=*/true);
  const std::map<std::string, torch::Tensor> cached = cached_images(info, options);
  std::vector<Prediction> out(files.size());
  std::vector<size_t> pending;        // indices of decoded images not yet classified
  std::vector<torch::Tensor> inputs;  // their (3, S, S) inputs, S the model's side
  const auto classify = [&] {
    if (pending.empty()) return;
    torch::NoGradGuard no_grad;
    const auto batch = torch::stack(inputs).to(options.device);
    const auto logits = tta_logits(model, batch, options.tta).cpu();  // (B, C) float
    const auto probs = torch::softmax(logits, 1);
    const auto [values, indices] = probs.topk(k, 1);
    for (size_t b = 0; b < pending.size(); ++b) {
      auto& p = out[pending[b]];
      const auto batch_row = static_cast<int64_t>(b);
      for (int64_t j = 0; j < k; ++j) {
        const auto c = static_cast<size_t>(indices[batch_row][j].item<int64_t>());  // in [0, C)
        p.top_k.emplace_back(info.class_names.at(c), values[batch_row][j].item<double>());
      }
      if (options.logits) {
        const auto row = logits[batch_row].contiguous();
        p.logits.assign(row.data_ptr<float>(), row.data_ptr<float>() + row.numel());
      }
    }
    pending.clear();
    inputs.clear();
  };
  for (size_t i = 0; i < files.size(); ++i) {
    if (stop_requested()) {  // under the caller's InterruptGuard
      throw Interrupted(fmt::format(
          "interrupted (signal {}) after {} of {} images: nothing was written; the same command "
          "starts again",
          stop_signal(), i, files.size()));
    }
    out[i].file = files[i];
    try {
      if (const auto hit = cached.find(std::filesystem::path(files[i]).lexically_normal().string());
          hit != cached.end()) {
        inputs.push_back(prepared_to_input(hit->second, info.normalization));
      } else {
        // Reduced to the tier first, as an image folder keeps its photos
        // (core/image_prep.h: kept_side), so a file and its folder give one input.
        const auto kept = reduce_image(read_image(files[i], options.max_pixels),
                                       kept_side(info.image.image_size, info.prep));
        inputs.push_back(
            image_to_input(kept, info.normalization, info.image.image_size, info.prep));
      }
      pending.push_back(i);
    } catch (const std::exception& e) {
      out[i].error = first_line(e.what());
    }
    if (static_cast<int64_t>(pending.size()) >= options.batch_size) classify();
  }
  classify();
  if (stop_requested()) {  // during the last batch
    throw Interrupted(fmt::format(
        "interrupted (signal {}) as the last of {} images were classified: nothing was written; "
        "the same command starts again",
        stop_signal(), files.size()));
  }
  return out;
}

std::vector<Prediction> with_empty_folders(std::vector<Prediction> predictions,
                                           const std::vector<EmptyFolder>& empty) {
  // From the last, so that each place still counts the images before it.
  for (auto it = empty.rbegin(); it != empty.rend(); ++it) {
    const auto at = std::min(it->at, predictions.size());
    predictions.insert(
        predictions.begin() + static_cast<std::ptrdiff_t>(at),
        Prediction{.file = it->path, .error = it->problem, .top_k = {}, .logits = {}});
  }
  return predictions;
}

std::string format_prediction(const Prediction& p) {
  // Names as shown in messages (core/names.h): one line per image, whatever
  // its name and its classes' (a weights file's metadata may name any).
  if (!p.error.empty()) return fmt::format("{}: error: {}", shown_name(p.file), p.error);
  std::string line = fmt::format("{}: {} {:.1f}%", shown_name(p.file), shown_name(p.top_k[0].first),
                                 100 * p.top_k[0].second);
  if (p.top_k.size() > 1) {
    std::vector<std::string> rest;
    for (size_t j = 1; j < p.top_k.size(); ++j) {
      rest.push_back(
          fmt::format("{} {:.1f}%", shown_name(p.top_k[j].first), 100 * p.top_k[j].second));
    }
    line += fmt::format(" (then {})", fmt::join(rest, ", "));
  }
  return line;
}

std::string predictions_to_json(const std::vector<Prediction>& predictions) {
  nlohmann::json array = nlohmann::json::array();
  for (const auto& p : predictions) {
    nlohmann::json j{{"file", p.file}};
    if (!p.error.empty()) {
      j["error"] = p.error;
    } else {
      j["class"] = p.top_k[0].first;
      j["probability"] = p.top_k[0].second;
      j["top_k"] = nlohmann::json::array();
      for (const auto& [name, prob] : p.top_k)
        j["top_k"].push_back({{"class", name}, {"probability", prob}});
      if (!p.logits.empty()) j["logits"] = p.logits;
    }
    array.push_back(std::move(j));
  }
  return array.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string predictions_to_csv(const std::vector<Prediction>& predictions, int64_t k) {
  std::string out = "path";
  for (int64_t j = 1; j <= k; ++j) out += fmt::format(",class_{},probability_{}", j, j);
  out += ",error\n";
  for (const auto& p : predictions) {
    out += csv_field(p.file);
    for (int64_t j = 0; j < k; ++j) {
      const auto at = static_cast<size_t>(j);
      out += at < p.top_k.size()
                 ? fmt::format(",{},{:.6f}", csv_field(p.top_k[at].first), p.top_k[at].second)
                 : std::string(",,");
    }
    out += fmt::format(",{}\n", csv_field(p.error));
  }
  return out;
}

}  // namespace cifar
