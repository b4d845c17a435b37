// replayed_step.h: the training step recorded once and replayed, as a CUDA
// graph runs it, with its device-independent logic here.
//
// The step's body reads only tensors that stay in place: a static batch
// (x, y) that each step copies into, one () float rate per parameter group
// that each step fills from its schedule, and the running totals. So the
// recording holds no host values and replays any step of the schedule:
//   body: zero_grad; forward + loss on (x, y); backward; every group's
//         update at its device rate (ParamGroups::device_step)
// A recording serves one batch shape and one set of training groups; a
// new image size (--resolution-schedule) or a group frozen by its schedule
// (airbench94's whitening bias after 3 epochs) records the body again, one
// recording at a time. A step at which a training group's rate is 0 (past
// the end of its schedule: a group of its own span that does not freeze)
// runs eagerly instead, because step() leaves such a group's momentum as
// it is and a recorded update cannot skip it.
//
// What records and replays is a Replayer: a CUDA graph (cuda_graph.h), or
// on any device the body run again as is (make_uncaptured_step), which the
// tests compare with the eager step on the CPU.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "cifar/train/step.h"

namespace cifar {

class Replayer {
 public:
  virtual ~Replayer() = default;
  // Records `body`. `warm_up` runs the body a few times and puts the model,
  // the optimisers' state and the random-number generator back as they were
  // (a graph runs it first, so that cuDNN and cuBLAS set up outside the
  // capture); a replayer may skip it. A failed recording throws, and the
  // replayer is not used again.
  virtual void record(const std::function<void()>& warm_up, const std::function<void()>& body) = 0;
  // Runs what was recorded once more.
  virtual void replay() = 0;
};

class ReplayedStep final : public TrainStep {
 public:
  // `make_replayer` gives a fresh replayer for each recording.
  ReplayedStep(Learner& learner, const StepSpec& options, RunningTotals& totals,
               std::function<std::unique_ptr<Replayer>()> make_replayer);

  // Records the body for batches shaped as `example` and the groups that
  // train now, unless the current recording is for them. Returns whether
  // it recorded (the caller times it apart from the epoch).
  bool prepare(const Batch& example);
  // One step (TrainStep::run): eager at a training group's rate 0, else
  // prepare (a recording made here, mid-epoch, is logged and counts in the
  // epoch's time), fill the rates and the batch, replay; then freezes the
  // groups whose schedule is done.
  bool run(const Batch& batch, int64_t global_step) override;
  // How many times the body was recorded, replayed, and steps run eagerly.
  int64_t recordings() const { return recordings_; }
  int64_t replays() const { return replays_; }
  int64_t eager_steps() const { return eager_steps_; }

 private:
  void warm_up();
  void body();

  Learner& t_;
  StepSpec options_;
  RunningTotals& totals_;
  std::function<std::unique_ptr<Replayer>()> make_replayer_;
  std::unique_ptr<TrainStep> eager_;    // for the steps a recording cannot take
  std::vector<torch::Tensor> rates_;    // () float per group, on the device
  torch::Tensor x_, y_;                 // (B, 3, H, W) float and (B) int64: the recorded batch
  std::vector<bool> training_;          // the groups that trained when recorded
  std::unique_ptr<Replayer> replayer_;  // last: destroyed (its replays done) first
  int64_t recordings_ = 0, replays_ = 0, eager_steps_ = 0;
};

// The body run again at every replay, on any device: the uncaptured twin
// of the CUDA graph's step.
std::unique_ptr<ReplayedStep> make_uncaptured_step(Learner& learner, const StepSpec& options,
                                                   RunningTotals& totals);

}  // namespace cifar
