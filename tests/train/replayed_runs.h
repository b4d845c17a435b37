// replayed_runs.h: what the replayed step's tests on the CPU
// (train/test_replayed_step.cpp) and on a GPU (cuda/test_gpu_graph.cpp)
// share: airbench94's groups at rates that round alike in both updates, and
// a run of epochs through one EpochState.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "cifar/resolve/recipe.h"
#include "cifar/train/epoch.h"

namespace cifar::test {

// airbench94's groups (Muon on the filters, Nesterov SGD with weight decay
// on the rest) at rates that are powers of 2, so that the eager update's
// fused p - lr * d and the device-rate update's p - round(lr * d) agree bit
// for bit (at other rates they differ by a rounding, which Muon's
// orthogonalisation soon makes larger). The whitening bias falls linearly
// from 2^-6 to 0 over 2 steps and freezes, mid-epoch.
inline ParamGroups power_of_two_groups(const Recipe& recipe, ClassifierImpl& model, int64_t epochs,
                                       int64_t steps_per_epoch) {
  std::vector<ParamGroup> groups = recipe.param_groups(model, steps_per_epoch).release();
  for (ParamGroup& g : groups) {
    g.schedule = {.schedule = Schedule::kConstant,
                  .lr = 0.25,
                  .epochs = epochs,
                  .steps_per_epoch = steps_per_epoch};
    if (g.freeze_when_done) {
      g.schedule = {
          .schedule = Schedule::kLinear, .lr = 1.0 / 64, .epochs = 1, .steps_per_epoch = 2};
    }
  }
  return ParamGroups(std::move(groups));
}

// `epochs` epochs of `steps` steps each through `state`; each epoch's loss.
inline std::vector<double> train_epochs(Learner& learner, const DeviceDataset& data,
                                        const EpochOptions& options, int64_t epochs, int64_t steps,
                                        EpochState& state) {
  std::vector<double> losses;
  for (int64_t epoch = 1; epoch <= epochs; ++epoch) {
    const EpochPosition at{epoch, epochs, 0, (epoch - 1) * steps};
    losses.push_back(
        train_one_epoch(learner, data, data.plan_epoch(true, false, 0, epoch), options, at, &state)
            .loss);
  }
  return losses;
}

}  // namespace cifar::test
