// airbench.h: the network of Keller Jordan's CIFAR-10 speedrun (airbench94,
// airbench94_muon.py's CifarNet), with its patch-whitening first layer.
//
//   whiten   Conv2d 3->24, 2x2, no padding, with bias; its weight is frozen
//            (requires_grad false) and set from the data by init_whitening()
//   layers   Sequential: 0 GELU, 1..3 ConvGroup (24->64, 64->256, 256->256),
//            4 max-pool over the whole map left (3x3 at 32 px: the
//            reference's MaxPool2d(3); any size from 9 px works)
//   head     Linear 256->10, no bias; the logits are head(x) / 256
//
// A ConvGroup is conv1 (3x3, same padding, no bias), 2x2 max-pool, norm1,
// GELU, conv2, norm2, GELU. Its BatchNorms have eps 1e-12 and momentum 0.4
// (PyTorch's convention; the reference writes 1 - 0.6) and a frozen weight
// of ones: only their bias trains. 1,972,792 parameters, 1,971,352 of them
// trained.
//
// Parameter and buffer names are the reference's state_dict names
// (whiten.weight, layers.1.conv1.weight, layers.2.norm1.running_mean, ...,
// head.weight), so weights move to and from Python's CifarNet and the twin in
// scripts/python/cifar_models.py with strict=True.
#pragma once

#include <torch/torch.h>

#include <cstdint>

#include "cifar/model/models.h"

namespace cifar {

// The 2 * 3 * patch^2 whitening filters for normalised float images
// (N, 3, H, W), as the reference's init_whiten: the second-moment matrix of
// every patch x patch window (stride 1), its eigenvectors (eigh, upper
// triangle) each scaled by 1 / sqrt(eigenvalue + eps), in eigh's ascending
// order, then the same filters negated: (2 * 3 * patch^2, 3, patch, patch).
// The first half maps the patches to coordinates whose second moment is
// diag(eigenvalue / (eigenvalue + eps)), about the identity. Computed in
// float32 on the images' device.
torch::Tensor whitening_filters(const torch::Tensor& images, int64_t patch = 2, double eps = 5e-4);

// conv1, 2x2 max-pool, norm1, GELU, conv2, norm2, GELU.
class ConvGroupImpl : public torch::nn::Module {
 public:
  ConvGroupImpl(int64_t channels_in, int64_t channels_out);
  torch::Tensor forward(torch::Tensor x);

  torch::nn::Conv2d conv1{nullptr}, conv2{nullptr};
  torch::nn::BatchNorm2d norm1{nullptr}, norm2{nullptr};
};
TORCH_MODULE(ConvGroup);

class Airbench94Impl : public ClassifierImpl {
 public:
  // Initialised as the reference's reset(): PyTorch's default Conv2d and
  // Linear initialisation (from the global generator: torch::manual_seed
  // repeats it), then each 3x3 conv's first in_channels filters set to the
  // identity (dirac), and the head's weight divided by its standard deviation.
  // whiten.weight keeps the default initialisation until init_whitening().
  explicit Airbench94Impl(int64_t num_classes = 10);
  // The least image side: the 2x2 whitening conv and three 2x2 pools leave
  // one pixel of a 9x9 image.
  static constexpr int64_t kMinImageSize = 9;

  // (N, 3, H, W) normalised images (32x32 for CIFAR) -> (N, num_classes) logits.
  torch::Tensor forward(torch::Tensor x) override;

  // Sets whiten.weight to whitening_filters(images, 2, eps) (the reference
  // uses the first 5,000 normalised training images).
  void init_whitening(const torch::Tensor& images, double eps = 5e-4);

  // When false, forward() uses a detached whiten.bias, so the bias gets no
  // gradient (the reference's whiten_bias_grad=False, after its first
  // epochs). True at construction.
  void set_whiten_bias_grad(bool on) { whiten_bias_grad_ = on; }
  bool whiten_bias_grad() const { return whiten_bias_grad_; }

  torch::nn::Conv2d whiten{nullptr};
  torch::nn::Sequential layers{nullptr};
  torch::nn::Linear head{nullptr};

 private:
  bool whiten_bias_grad_ = true;
};
TORCH_MODULE(Airbench94);

}  // namespace cifar
