// predict.h: classifying image files with a trained model (cifar-predict).
//
// Files are decoded one by one (image.h); a file that fails gets its error
// and the others are still classified, in batches.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "cifar/infer/model_input.h"
#include "cifar/io/checkpoint.h"
#include "cifar/platform/device.h"

namespace cifar {

struct PredictOptions {
  int64_t top_k = 1;  // classes reported per image (clamped to the class count)
  int64_t batch_size = 256;
  int64_t max_pixels = 64'000'000;
  bool logits = false;  // keep the raw logits (for --json)
  // CPU threads: --threads N, else one for 8 images or fewer and the
  // physical cores for more (platform/cpu_plan.h); hardware_threads is the
  // app's to say.
  int64_t threads = 0;
  int64_t hardware_threads = 1;
  torch::Device device{torch::kCPU};  // where the model is: the images go there
};

struct Prediction {
  std::string file;
  std::string error;                                  // empty when classified
  std::vector<std::pair<std::string, double>> top_k;  // class, probability; best first
  std::vector<float> logits;                          // only with PredictOptions::logits
};

// The model must be in eval mode on options.device; info gives normalisation
// and class names.
std::vector<Prediction> predict_files(ClassifierImpl& model, const CheckpointInfo& info,
                                      const std::vector<std::string>& files,
                                      const PredictOptions& options);

// cifar-predict: the model, the images and how to report them.
struct PredictConfig : ModelInput {
  std::vector<std::string> images;
  DeviceRequest device;    // --device: auto (cuda:0 when usable), cpu, cuda:N
  PredictOptions predict;  // --top-k, --batch-size, --logits
  bool json = false;       // one JSON array instead of lines
};

// "FILE: CLASS 87.1% (then dog 5.2%, ...)" or "FILE: error: ...".
std::string format_prediction(const Prediction& p);

// One JSON array: {"file", "class", "probability", "top_k": [{"class",
// "probability"}, ...], "logits"?} or {"file", "error"} per image.
std::string predictions_to_json(const std::vector<Prediction>& predictions);

}  // namespace cifar
