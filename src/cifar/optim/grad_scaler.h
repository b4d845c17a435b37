// grad_scaler.h: dynamic loss scaling for --amp fp16, as torch.amp.GradScaler.
//
// Under fp16 autocast small gradients underflow to zero. The scaler
// multiplies the loss by `scale` before backward, so the gradients come out
// `scale` times larger; before the optimiser step (and before any use of the
// gradients) it divides them by the scale again and, in the same pass, looks
// for inf/NaN (ATen's _amp_foreach_non_finite_check_and_unscale_, the op
// Python's GradScaler uses). A step with any non-finite gradient is skipped:
// weights and momentum stay as they were. Then _amp_update_scale_ halves the
// scale after such a step, and doubles it after growth_interval good steps in
// a row. Per step:
//   scale(loss).backward();
//   [gradients averaged over the processes]
//   if (unscale(params, dist)) optimiser.step(lr);   // false: skip the step
//   update();
// With several processes the gradients are averaged while still scaled, as
// DDP does under Python's GradScaler: an inf or NaN on any rank survives the
// sum, and the found_inf flags are summed over the ranks as well, so every
// rank takes the same decision. unscale() reads found_inf back to the host
// once per step to decide, the same one sync Python's GradScaler.step makes
// (found_inf.item()).
//
// One difference from Python: with several optimisers (airbench94's SGD and
// Muon groups), Python skips only the optimiser whose gradients were not
// finite; here the whole step is skipped, every group alike. With one
// optimiser the two are the same, step for step.
//
// Disabled (every --amp but fp16), scale() returns the loss, unscale() does
// nothing and returns true, update() does nothing, and nothing is saved.
// The state saved in checkpoints: the scale and the growth tracker.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <vector>

#include "cifar/core/stateful.h"
#include "cifar/dist/distributed.h"

namespace cifar {

// PyTorch's defaults (torch.amp.GradScaler).
struct GradScalerOptions {
  double init_scale = 65536.0;  // 2^16
  double growth_factor = 2.0;
  double backoff_factor = 0.5;
  int64_t growth_interval = 2000;  // good steps in a row before the scale grows
};

class GradScaler final : public Stateful {
 public:
  GradScaler(bool enabled, const torch::Device& device, GradScalerOptions options = {});

  bool enabled() const { return enabled_; }
  // loss * scale (the loss itself when disabled).
  torch::Tensor scale(const torch::Tensor& loss) const;
  // Divides the gradients of `params` by the scale in place and checks them
  // for inf/NaN; `dist` (when given, and with several processes) sums the
  // finding over the ranks. Returns true when the step is to be taken.
  // Parameters without a gradient are left out. Throws for fp16 gradients
  // (the parameters must be float32, as under autocast).
  bool unscale(const std::vector<torch::Tensor>& params, Distributed* dist = nullptr);
  // After the step, taken or skipped: back off or grow the scale.
  void update();

  double scale_value() const;  // 1 when disabled (a host read)
  int64_t growth_tracker() const;
  int64_t skipped_steps() const { return skipped_; }  // since construction
  const GradScalerOptions& options() const { return options_; }

  // Under "grad_scaler": "scale" () float, "growth_tracker" () int32; nothing
  // when disabled. try_load returns false (and changes nothing) when the
  // archive holds no scaler state (a checkpoint of a bf16 or float32 run).
  void save(torch::serialize::OutputArchive& archive) const override;
  void load(torch::serialize::InputArchive& archive) override;
  bool try_load(torch::serialize::InputArchive& archive);

 private:
  bool enabled_;
  GradScalerOptions options_;
  torch::Tensor scale_;           // () float32
  torch::Tensor growth_tracker_;  // () int32: good steps since the last change
  torch::Tensor found_inf_;       // () float32: this step's finding, summed over ranks
  int64_t skipped_ = 0;
};

}  // namespace cifar
