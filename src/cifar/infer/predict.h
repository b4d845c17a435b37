// predict.h: classifying image files with a trained model (cifar-predict).
//
// Files are decoded one by one (image.h); a file that fails gets its error
// and the others are still classified, in batches, at a test-time
// augmentation level (evaluate.h): the checkpoint's unless --tta says
// another. Each image's answer is its own: level 3, which picks the least
// sure quarter of a batch, is applied as level 2 to every image, so that an
// image gets the same answer alone and among others (in a folder).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "cifar/infer/image_list.h"
#include "cifar/io/checkpoint.h"

namespace cifar {

struct PredictOptions {
  int64_t top_k = 1;  // classes reported per image (clamped to the class count): --top-k
  int64_t batch_size = 256;
  int64_t max_pixels = 64'000'000;
  bool logits = false;  // keep the raw logits (for --json; combined over the TTA views)
  int64_t tta = 0;      // test-time augmentation level, 0..2 (resolve_predict)
  int64_t threads = 1;  // CPU threads: resolve_predict's count (resolve/machine.h)
  torch::Device device{torch::kCPU};  // where the model is: the images go there
  // The folders among the inputs that are a data set's val/ or test/: read
  // through the data set's decode cache, as cifar-eval reads them
  // (resolve_predict).
  std::vector<std::string> cached_folders = {};
  std::filesystem::path spare_cache_dir = {};  // ImageFolderOptions::spare_cache_dir
};

struct Prediction {
  std::string file;
  std::string error;                                  // empty when classified
  std::vector<std::pair<std::string, double>> top_k;  // class, probability; best first
  std::vector<float> logits;                          // only with PredictOptions::logits
};

// The model must be in eval mode on options.device; info gives normalisation
// and class names. Preconditions (resolve/inference.h refuses the settings
// first): options.top_k >= 1 and options.tta in 0..2; std::invalid_argument
// otherwise. Throws Interrupted between images once a stop is requested
// (platform/interrupt.h: the caller's InterruptGuard).
std::vector<Prediction> predict_files(ClassifierImpl& model, const CheckpointInfo& info,
                                      const std::vector<std::string>& files,
                                      const PredictOptions& options);

// cifar-predict's run, as resolve/inference.h's resolve_predict makes it
// from its options (config/tool_configs.h's PredictConfig): the images listed, the model loaded, in
// eval mode on options.device, the options with the TTA level chosen (0..2).
struct PredictRun {
  ImageList images;
  LoadedCheckpoint checkpoint;
  PredictOptions options;
};

// The predictions with a row {folder, its problem} for each named folder that
// holds no image, at its place in the arguments' order, so that --json and
// --csv answer for every input named.
std::vector<Prediction> with_empty_folders(std::vector<Prediction> predictions,
                                           const std::vector<EmptyFolder>& empty);

// "FILE: CLASS 87.1% (then dog 5.2%, ...)" or "FILE: error: ...".
std::string format_prediction(const Prediction& p);

// One JSON array: {"file", "class", "probability", "top_k": [{"class",
// "probability"}, ...], "logits"?} or {"file", "error"} per image.
std::string predictions_to_json(const std::vector<Prediction>& predictions);

// --csv: a header row "path,class_1,probability_1,...,class_k,probability_k,error"
// and one row per image (classes best first; an image that failed has its
// error and empty class cells), fields quoted as RFC 4180 says when needed.
// k: the classes reported per image (PredictOptions::top_k, at most the
// model's classes).
std::string predictions_to_csv(const std::vector<Prediction>& predictions, int64_t k);

}  // namespace cifar
