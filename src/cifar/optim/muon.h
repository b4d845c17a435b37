// muon.h: the Muon optimiser as airbench94_muon.py uses it for the conv
// filters: SGD momentum whose update is orthogonalised by a few Newton-Schulz
// iterations, on weights renormalised before each step.
//
// For each parameter p with a gradient g (momentum m, learning rate lr):
//   buf = m * buf + g
//   d   = nesterov ? g + m * buf : buf
//   p  *= sqrt(p.size(0)) / ||p||                      (Frobenius norm)
//   p  -= lr * newton_schulz(d.reshape(p.size(0), -1)).reshape(p.shape)
// Parameters without a gradient are left alone (not renormalised either).
// The momentum buffers are zeros made at construction, one per parameter, so
// that a checkpoint's optimiser state has a fixed layout.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "cifar/optim/optimizer.h"

namespace cifar {

// The reference's zeropower_via_newtonschulz5: for a matrix G (rows, cols),
// X = G / (||G|| + eps) in `dtype`, then `steps` times (on X^T when rows >
// cols) A = X X^T, B = b A + (c A) A, X = a X + B X with (a, b, c) =
// (3.4445, -4.7750, 2.0315). Returns a matrix of G's shape in `dtype` whose
// singular values lie roughly in [0.5, 1.5]: about U V^T for G = U S V^T.
// G itself is not modified. The reference runs it in bfloat16, which GPUs
// and CPUs with AVX512-BF16 run fast; an AVX2 CPU runs float32 about 14x
// faster (the run's Precision::matmul_dtype chooses: platform/precision.h).
torch::Tensor newton_schulz(const torch::Tensor& g, int64_t steps = 3, double eps = 1e-7,
                            c10::ScalarType dtype = c10::kFloat);

struct MuonOptions {
  TORCH_ARG(double, momentum) = 0.6;
  TORCH_ARG(bool, nesterov) = true;
  TORCH_ARG(int64_t, ns_steps) = 3;                    // Newton-Schulz iterations per update
  TORCH_ARG(c10::ScalarType, ns_dtype) = c10::kFloat;  // their type (Precision::matmul_dtype)
};

class Muon : public Optimizer {
 public:
  // Every parameter must have at least two dimensions (matrices, conv
  // filters): the update treats dimension 0 as the rows.
  explicit Muon(std::vector<torch::Tensor> params, MuonOptions options = {});

  // Sets every gradient to none (undefined).
  void zero_grad() override;
  // One update at learning rate `lr` (>= 0); parameters without a gradient
  // are skipped.
  void step(double lr) override;
  // The same update with the rate in a device scalar () float, which a
  // captured CUDA graph replays at a changing rate (train/replayed_step.h).
  void device_rate_step(const torch::Tensor& lr) override;
  const char* name() const override { return "muon"; }
  std::vector<torch::Tensor> state_tensors() const override { return momentum_; }

  const MuonOptions& options() const { return options_; }
  const std::vector<torch::Tensor>& params() const { return params_; }
  // The momentum buffers, written as momentum.0, momentum.1, ... (in
  // parameter order), as Sgd writes its own.
  void save(torch::serialize::OutputArchive& archive) const override;
  void load(torch::serialize::InputArchive& archive) override;

 private:
  // The update of every parameter with a gradient; `descend(p, u)`
  // subtracts the rate times the orthogonalised update u (in ns_dtype) from p.
  void update(const std::function<void(torch::Tensor&, const torch::Tensor&)>& descend);

  std::vector<torch::Tensor> params_;
  std::vector<torch::Tensor> momentum_;  // one buffer per parameter, zeros at start
  MuonOptions options_;
};

}  // namespace cifar
