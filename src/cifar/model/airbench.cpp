// airbench.cpp: airbench94's CifarNet and its whitening filters, as
// airbench94_muon.py builds and initialises them.
#include "cifar/model/airbench.h"

#include "cifar/model/gelu.h"
#include "cifar/model/max_pool2.h"

#include <algorithm>

namespace cifar {
namespace nn = torch::nn;
namespace F = torch::nn::functional;

torch::Tensor whitening_filters(const torch::Tensor& images, int64_t patch, double eps) {
  TORCH_CHECK(images.dim() == 4, "whitening needs images (N, C, H, W), got shape ", images.sizes());
  TORCH_CHECK(images.is_floating_point(), "whitening needs normalised float images, got ",
              images.scalar_type());
  TORCH_CHECK(patch >= 1 && images.size(2) >= patch && images.size(3) >= patch, "whitening patch ",
              patch, " does not fit images of shape ", images.sizes());
  TORCH_CHECK(images.size(0) >= 1, "whitening needs at least one image");
  TORCH_CHECK(eps >= 0, "whitening eps must be >= 0, got ", eps);
  const int64_t c = images.size(1);
  // Every patch x patch window: (N, C, H', W', p, p) -> (N, W', H', C, p, p)
  // -> (N * H' * W', C, p, p), as the reference's unfold.
  const auto patches = images.unfold(2, patch, 1)
                           .unfold(3, patch, 1)
                           .transpose(1, 3)
                           .reshape({-1, c, patch, patch})
                           .to(torch::kFloat);
  const auto flat = patches.view({patches.size(0), -1});
  const auto covariance = flat.t().matmul(flat) / flat.size(0);
  const auto [eigenvalues, eigenvectors] = torch::linalg_eigh(covariance, "U");
  const auto scaled = eigenvectors.t().reshape({-1, c, patch, patch}) /
                      torch::sqrt(eigenvalues.view({-1, 1, 1, 1}) + eps);
  return torch::cat({scaled, -scaled});
}

// --- ConvGroup ---------------------------------------------------------------

namespace {
// 3x3, stride 1, "same" padding (1 on each side for an odd kernel, as
// PyTorch's padding="same" computes it), no bias; the first in_channels
// filters are the identity (the reference's Conv.reset_parameters).
nn::Conv2d dirac_conv(int64_t in, int64_t out) {
  nn::Conv2d conv(nn::Conv2dOptions(in, out, 3).padding(1).bias(false));
  torch::NoGradGuard no_grad;
  nn::init::dirac_(conv->weight.narrow(0, 0, std::min(in, out)));
  return conv;
}

// The reference's BatchNorm(momentum=0.6): PyTorch momentum 1 - 0.6, eps
// 1e-12, weight ones and frozen.
nn::BatchNorm2d frozen_scale_norm(int64_t channels) {
  nn::BatchNorm2d norm(nn::BatchNorm2dOptions(channels).eps(1e-12).momentum(1.0 - 0.6));
  norm->weight.requires_grad_(false);
  return norm;
}
}  // namespace

ConvGroupImpl::ConvGroupImpl(int64_t channels_in, int64_t channels_out) {
  // Created in the reference's order (conv1 then conv2), so the same seed
  // draws the same weights.
  conv1 = register_module("conv1", dirac_conv(channels_in, channels_out));
  norm1 = register_module("norm1", frozen_scale_norm(channels_out));
  conv2 = register_module("conv2", dirac_conv(channels_out, channels_out));
  norm2 = register_module("norm2", frozen_scale_norm(channels_out));
}

torch::Tensor ConvGroupImpl::forward(torch::Tensor x) {
  x = conv1(x);
  x = max_pool2(x);           // max_pool2d(x, 2) in one pass each way on the CPU (max_pool2.h)
  x = cifar::gelu(norm1(x));  // torch::gelu by table lookup for bf16 (gelu.h)
  x = conv2(x);
  return cifar::gelu(norm2(x));
}

// --- Airbench94 --------------------------------------------------------------

Airbench94Impl::Airbench94Impl(int64_t num_classes) {
  TORCH_CHECK(num_classes > 0, "num_classes must be positive, got ", num_classes);
  constexpr int64_t kWhitenWidth = int64_t{2} * 3 * 2 * 2;  // 24: 12 filters and their negatives
  whiten = register_module("whiten", nn::Conv2d(nn::Conv2dOptions(3, kWhitenWidth, 2).bias(true)));
  whiten->weight.requires_grad_(false);
  // One statement per group: the order of function arguments' evaluation is
  // unspecified (GCC goes right to left), and the groups must draw their
  // weights in the reference's order.
  nn::Sequential sequence;
  sequence->push_back(nn::Functional([](const torch::Tensor& t) { return cifar::gelu(t); }));
  sequence->push_back(ConvGroup(kWhitenWidth, 64));
  sequence->push_back(ConvGroup(64, 256));
  sequence->push_back(ConvGroup(256, 256));
  // A max-pool over the whole remaining map: at 32 px that map is 3x3 and
  // this is the reference's MaxPool2d(3), the same call; at the sizes of a
  // resolution schedule (24 px: 2x2) a global max-pool all the same.
  sequence->push_back(nn::Functional([](const torch::Tensor& t) {
    const int64_t h = t.size(2), w = t.size(3);
    return torch::max_pool2d(t, /*kernel_size=*/{h, w}, /*stride=*/{h, w});  // (N, C, 1, 1)
  }));
  layers = register_module("layers", sequence);
  head = register_module("head", nn::Linear(nn::LinearOptions(256, num_classes).bias(false)));
  torch::NoGradGuard no_grad;
  head->weight.mul_(head->weight.std().reciprocal());  // w *= 1 / w.std()
}

torch::Tensor Airbench94Impl::forward(torch::Tensor x) {
  // x: (N, 3, H, W), 32x32 for CIFAR (H, W >= 9: three 2x2 pools after the 2x2 whitening)
  const auto& b = whiten->bias;
  x = torch::conv2d(x, whiten->weight, whiten_bias_grad_ ? b : b.detach());  // (N, 24, H-1, W-1)
  x = layers->forward(x);                                                    // (N, 256, 1, 1)
  x = x.flatten(1);                                                          // (N, 256)
  return head(x) / static_cast<double>(x.size(-1));
}

void Airbench94Impl::init_whitening(const torch::Tensor& images, double eps) {
  torch::NoGradGuard no_grad;
  const auto filters =
      whitening_filters(images.to(whiten->weight.device()), whiten->weight.size(2), eps);
  TORCH_CHECK(filters.sizes() == whiten->weight.sizes(), "whitening filters of shape ",
              filters.sizes(), " do not fit whiten.weight ", whiten->weight.sizes());
  whiten->weight.copy_(filters);
}

}  // namespace cifar
