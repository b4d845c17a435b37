// state_dict.h: a model's tensors under the names Python uses, and filling a
// model from such a map, strictly.
//
// Names are PyTorch's state_dict keys (conv1.weight, bn1.running_mean,
// layer2.0.downsample.0.weight, bn1.num_batches_tracked, ...), buffers
// included, so a map exchanges with Python's model.state_dict(). No files
// here: io/weights_file.h reads and writes the maps.
#pragma once

#include <string>

#include "cifar/core/types.h"
#include "cifar/model/models.h"

namespace cifar {

// The model's parameters and buffers under their Python names (the tensors
// themselves, not copies).
TensorMap model_state_dict(ClassifierImpl& model);

// Copies `tensors` into `model` (strict). Throws std::runtime_error naming
// `source` and listing every missing, unexpected and wrongly shaped tensor; a
// torchvision ImageNet ResNet-18 (7x7 stem, 1000 classes) is named as such.
// The names are the model's own: a file's layout (a "module." prefix, a
// {"state_dict": ...} wrapper) is undone once, when it is read
// (io/weights_file.h: read_weights). A tensor the model holds in floating point
// must be floating point in the file too, and finite (no NaN or infinity):
// std::runtime_error naming the file and every tensor that is not.
void apply_weights(ClassifierImpl& model, const TensorMap& tensors, const std::string& model_name,
                   const std::string& source);

// The same value check for a model already filled (a checkpoint's): every
// floating-point tensor finite, else std::runtime_error naming `source` and
// the tensors.
void check_weight_values(ClassifierImpl& model, const std::string& source);

}  // namespace cifar
