// fine_tune.h: training from weights trained before: a new head for the
// data's classes, the body frozen or trained at a fraction of the rate.
//
// The head is the output layer the model registry names (ModelEntry::head:
// net's fc3, resnet18's fc, airbench94's head); every other tensor is the body.
//   new_head        --init-weights whose head has another class count than
//                   the data: a fresh model for the data's classes (seeded by
//                   --seed, so its head is initialised as the model's own)
//                   with the loaded body copied in
//   freeze_body     --freeze-body: the body's parameters leave training
//                   (requires_grad false: no gradient, in no optimiser, no
//                   weight decay) and its modules with running statistics
//                   (batch norm) stay in eval mode, so every body tensor is
//                   bit-identical at the end
//   fine_tune_groups  the recipe's parameter groups, over the head and the
//                   body apart when --body-lr-scale is not 1
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "cifar/model/model_registry.h"
#include "cifar/model/models.h"
#include "cifar/optim/param_groups.h"
#include "cifar/train/recipe.h"

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

// The recipe's groups for `model` (its trainable parameters only: a frozen
// body is in none, and groups left empty are dropped). With `body_lr_scale`
// other than 1, the recipe makes its groups twice, once over the head and
// once over the body, whose groups ("body" or "body_<name>") run at
// body_lr_scale times their rates; the head's keep their names ("all"
// becomes "head").
ParamGroups fine_tune_groups(const Recipe& recipe, ClassifierImpl& model, int64_t steps_per_epoch,
                             const ModelEntry& entry, double body_lr_scale);

}  // namespace cifar
