// param_groups.h: the parameters a recipe trains, in named groups.
//
// Each group is a list of parameters with its own optimiser (SGD, Muon) and
// its own learning-rate schedule: the classic recipe has one group (every
// parameter, SGD, --schedule); airbench94 has four (conv filters with Muon,
// the whitening bias, BatchNorm biases and the head with Nesterov SGD, each at
// its own rate, the whitening bias decaying over its first 3 epochs only).
// Frozen parameters (requires_grad false) belong to no group.
//
// The rate of every group is a pure function of the global step, so a
// resumed run needs no scheduler state; the momentum buffers are the state,
// saved in checkpoints (Stateful). A single group saves exactly as its
// optimiser does, so checkpoints of one-group runs keep their old layout.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cifar/core/stateful.h"
#include "cifar/optim/lr_schedule.h"
#include "cifar/optim/optim.h"
#include "cifar/optim/optimizer.h"

namespace cifar {

struct ParamGroup {
  std::string name;                      // for the log: "filters", "head", ...
  std::vector<torch::Tensor> params;     // the optimiser's parameters
  std::unique_ptr<Optimizer> optimizer;  // over `params`
  ScheduleOptions schedule;              // lr is the group's peak rate
  // Once the schedule has run out (rate 0), stop computing the group's
  // gradients (requires_grad false), as airbench detaches its whitening bias
  // after 3 epochs: the backward pass then skips what only they needed.
  bool freeze_when_done = false;
  // The schedule's length is the group's own (airbench's whitening bias: 3
  // epochs), not the run's: set_run_epochs leaves it.
  bool own_span = false;
};

class ParamGroups : public Stateful {
 public:
  explicit ParamGroups(std::vector<ParamGroup> groups);

  // Sets every gradient to none.
  void zero_grad();
  // One update of every group at its rate for the 0-based global step; a
  // freeze_when_done group whose rate is 0 from the next step on is frozen.
  void step(int64_t global_step);
  // Freezes the freeze_when_done groups already done at `global_step` (a
  // resumed run starts where the straight one was).
  void freeze_done(int64_t global_step);
  // A new length for the run (--time's fit, train/time_budget.h): every
  // group's schedule but those of their own span now spans `epochs`, its
  // warm-up and decay with it.
  void set_run_epochs(int64_t epochs);
  // The first group's rate at that step: the one the log shows.
  double lr(int64_t global_step) const;

  // step(global_step)'s update with group i's rate read from rates[i], a ()
  // float tensor on the parameters' device, so that a captured CUDA graph
  // replays it at changing rates (train/replayed_step.h). Every group whose
  // parameters train must have a rate above 0 (step() leaves a group at 0
  // as it is: the caller steps eagerly then); frozen groups are left alone.
  void device_step(const std::vector<torch::Tensor>& rates);
  // Each group's rate at the 0-based global step, in group order.
  std::vector<double> rates(int64_t global_step) const;
  // Whether each group's parameters train now (freeze_done turns them off).
  std::vector<bool> training() const;
  // Every group's optimiser state tensors (Optimizer::state_tensors).
  std::vector<torch::Tensor> state_tensors() const;

  const std::vector<ParamGroup>& groups() const { return groups_; }
  // The groups themselves, taken out (to regroup a recipe's: train/fine_tune.h).
  std::vector<ParamGroup> release() && { return std::move(groups_); }
  // "filters 6 tensors (muon), head 1 (sgd), ..." for the log.
  std::string describe() const;

  void save(torch::serialize::OutputArchive& archive) const override;
  void load(torch::serialize::InputArchive& archive) override;

 private:
  std::vector<ParamGroup> groups_;
};

// One group named "all": `optimizer` over `params` on `schedule` (the
// classic recipe, with --optimizer's).
ParamGroups one_group(std::vector<torch::Tensor> params, std::unique_ptr<Optimizer> optimizer,
                      const ScheduleOptions& schedule);

// One group named "all": SGD over `params` on `schedule`.
ParamGroups one_sgd_group(std::vector<torch::Tensor> params, const SgdOptions& sgd,
                          const ScheduleOptions& schedule);

// Throws std::logic_error when a trainable parameter of `model` is in no
// group or in two, or a frozen one is in a group: a recipe's groups must
// cover the model exactly once.
void check_covers(const ParamGroups& groups, const torch::nn::Module& model);

}  // namespace cifar
