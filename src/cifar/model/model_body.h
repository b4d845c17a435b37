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

}  // namespace cifar
