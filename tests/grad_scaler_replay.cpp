// cifar-grad-scaler-replay IN OUT: the loss scaler (optim/grad_scaler.h) run
// on a recorded sequence of steps, for tests/cli/interop_grad_scaler.sh to
// compare with Python's torch.amp.GradScaler on the same steps.
//
// IN (safetensors, written by tests/cli/lib/grad_scaler_check.py):
//   weight (M, N), bias (M): a linear layer's start
//   x (K, B, N), c (K, B, M): step k's input and loss weights
//   metadata: lr, momentum, growth_interval (init_scale etc. PyTorch's defaults)
// Step k, as a Python training loop with GradScaler does it:
//   y = linear(x[k]) under fp16 autocast            (B, M) float16
//   loss = sum(y.float() * c[k])
//   scaler.scale(loss).backward(); [unscale; SGD step unless inf/NaN]; update
// The backward pass runs in float16, so a scaled gradient above 65504
// overflows there, as in real fp16 training; c may hold inf/NaN too.
// OUT (safetensors): scale (K) and growth_tracker (K) after each update,
// skipped (K) 1 or 0, weight (K, M, N) and bias (K, M) after each step.
#include <ATen/Parallel.h>
#include <torch/torch.h>

#include <iostream>
#include <string>

#include "cifar/formats/safetensors.h"
#include "cifar/optim/grad_scaler.h"
#include "cifar/optim/param_groups.h"
#include "cifar/platform/autocast.h"

using namespace cifar;

int main(int argc, char** argv) try {
  if (argc != 3) {
    std::cerr << "usage: cifar-grad-scaler-replay IN.safetensors OUT.safetensors\n";
    return 2;
  }
  at::set_num_threads(1);  // the same reduction order as the Python side
  const SafetensorsFile in = read_safetensors(argv[1]);
  const double lr = std::stod(in.metadata.at("lr"));
  const double momentum = std::stod(in.metadata.at("momentum"));
  const int64_t interval = std::stoll(in.metadata.at("growth_interval"));
  torch::Tensor weight = in.tensors.at("weight").clone().requires_grad_();
  torch::Tensor bias = in.tensors.at("bias").clone().requires_grad_();
  const torch::Tensor& x = in.tensors.at("x");
  const torch::Tensor& c = in.tensors.at("c");
  const int64_t steps = x.size(0);

  ParamGroups groups = one_sgd_group({weight, bias}, SgdOptions().momentum(momentum),
                                     {.schedule = Schedule::kConstant, .lr = lr});
  GradScaler scaler(true, torch::kCPU, {.growth_interval = interval});
  TensorMap out{{"scale", torch::zeros({steps})},
                {"growth_tracker", torch::zeros({steps}, torch::kInt64)},
                {"skipped", torch::zeros({steps}, torch::kInt64)},
                {"weight", torch::zeros({steps, weight.size(0), weight.size(1)})},
                {"bias", torch::zeros({steps, bias.size(0)})}};
  Precision fp16_precision;  // autocast in float16
  fp16_precision.amp = AmpMode::kFp16;
  fp16_precision.loss_scaling = true;
  for (int64_t k = 0; k < steps; ++k) {
    groups.zero_grad();
    torch::Tensor loss;
    {
      const AutocastScope fp16(torch::kCPU, fp16_precision);
      const torch::Tensor y = torch::nn::functional::linear(x[k], weight, bias);  // (B, M) half
      loss = (y.to(torch::kFloat) * c[k]).sum();
    }
    scaler.scale(loss).backward();
    const bool finite = scaler.unscale({weight, bias});
    if (finite) groups.step(k);
    scaler.update();
    out["scale"][k] = scaler.scale_value();
    out["growth_tracker"][k] = scaler.growth_tracker();
    out["skipped"][k] = finite ? 0 : 1;
    out["weight"][k] = weight.detach();
    out["bias"][k] = bias.detach();
  }
  write_safetensors(argv[2], out, {});
  return 0;
} catch (const std::exception& e) {
  std::cerr << "cifar-grad-scaler-replay: " << e.what() << "\n";
  return 1;
}
