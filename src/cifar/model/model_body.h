// model_body.h: a model's body, every tensor but the head's.
//
// The head is the output layer the model registry names (ModelEntry::head:
// net's fc3, resnet18's fc, airbench94's head); every other tensor is the body.
//   copy_body       --init-weights whose head has another class count than
//                   the data: a fresh model for the data's classes (seeded by
//                   --seed, so its head is initialised as the model's own)
//                   takes the loaded body (resolve/model_source.cpp)
//   freeze_body     --freeze-body: the body's parameters leave training
//                   (requires_grad false: no gradient, in no optimiser, no
//                   weight decay) and its modules with running statistics
//                   (batch norm) stay in eval mode, so every body tensor is
//                   bit-identical at the end
//   freeze_before   --train-from NAME: the same for the body's modules
//                   before NAME in the model's order (the order of its
//                   forward pass, as in PyTorch), so a fine-tune trains the
//                   later blocks only
//   set_batch_norm_momentum  --bn-momentum
#pragma once

#include <memory>
#include <vector>

#include "cifar/model/model_registry.h"
#include "cifar/model/models.h"

namespace cifar {

// `fresh` (built for the data's classes) with every tensor of `loaded` but
// the head's copied in. std::logic_error when a body tensor differs in
// shape (the weights file was fitted to the model when read: io/weights.h).
void copy_body(ClassifierImpl& loaded, ClassifierImpl& fresh, const ModelEntry& entry);

// Every body parameter out of training (requires_grad false).
void freeze_body(ClassifierImpl& model, const ModelEntry& entry);

// The body's modules that keep running statistics (batch norm): what the
// epoch puts back in eval mode after model.train() (train/step.h's Learner).
std::vector<std::shared_ptr<torch::nn::Module>> body_statistics_modules(ClassifierImpl& model,
                                                                        const ModelEntry& entry);

// The names --train-from takes: the modules holding parameters, two levels
// deep at most (efficientnet_lite0: _conv_stem, _bn0, _blocks.0 ... _fc), in
// the model's order.
std::vector<std::string> trainable_from_names(ClassifierImpl& model);

// Every parameter of the modules before `first_trained` (one of
// trainable_from_names) out of training; returns those modules that keep
// running statistics, for the epoch to hold in eval mode.
std::vector<std::shared_ptr<torch::nn::Module>> freeze_before(ClassifierImpl& model,
                                                              const std::string& first_trained);

// Every BatchNorm2d's running-statistics momentum (PyTorch's convention:
// new = (1 - m) * old + m * batch); returns how many it set.
int64_t set_batch_norm_momentum(ClassifierImpl& model, double momentum);

}  // namespace cifar
