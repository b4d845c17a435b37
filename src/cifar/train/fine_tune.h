// fine_tune.h: training from weights trained before, the body at a
// fraction of the rate: the recipe's parameter groups over the head and the
// body apart when --body-lr-scale is not 1. The body itself (copied into a
// new head's model, frozen) is model/model_body.h's.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "cifar/model/model_body.h"
#include "cifar/model/model_registry.h"
#include "cifar/model/models.h"
#include "cifar/optim/param_groups.h"
#include "cifar/resolve/recipe.h"

namespace cifar {

// The recipe's groups for `model` (its trainable parameters only: a frozen
// body is in none, and groups left empty are dropped). With `body_lr_scale`
// other than 1, the recipe makes its groups twice, once over the head and
// once over the body, whose groups ("body" or "body_<name>") run at
// body_lr_scale times their rates; the head's keep their names ("all"
// becomes "head").
ParamGroups fine_tune_groups(const Recipe& recipe, ClassifierImpl& model, int64_t steps_per_epoch,
                             const ModelEntry& entry, double body_lr_scale);

}  // namespace cifar
