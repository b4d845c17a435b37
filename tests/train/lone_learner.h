// lone_learner.h: a model with its SGD (or a recipe's groups), as one
// process trains it (the tests' Learner: world size 1, the gradient
// averager a no-op, the loss scaler on only when asked).
#pragma once

#include <functional>
#include <utility>

#include "cifar/dist/distributed.h"
#include "cifar/dist/grad_averager.h"
#include "cifar/optim/grad_scaler.h"
#include "cifar/optim/param_groups.h"
#include "cifar/train/step.h"

namespace cifar::test {

struct LoneLearner {
  explicit LoneLearner(Classifier m, double lr, double momentum = 0.0, bool loss_scaling = false)
      : LoneLearner(
            std::move(m),
            [&](ClassifierImpl& net) {
              return one_sgd_group(net.parameters(), SgdOptions().momentum(momentum),
                                   {.schedule = Schedule::kConstant, .lr = lr});
            },
            loss_scaling) {}
  // With the groups `make_groups` makes over the model (a recipe's).
  LoneLearner(Classifier m, const std::function<ParamGroups(ClassifierImpl&)>& make_groups,
              bool loss_scaling = false)
      : model(std::move(m)),
        groups(make_groups(*model)),
        averager(dist, model->parameters()),
        scaler(loss_scaling, torch::kCPU),
        learner{*model, groups, dist, averager, scaler} {}
  Classifier model;
  ParamGroups groups;
  Distributed dist{DistEnv{}, torch::kCPU};
  GradientAverager averager;
  GradScaler scaler;
  Learner learner;
};

}  // namespace cifar::test
