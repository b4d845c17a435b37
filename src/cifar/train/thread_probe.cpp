// thread_probe.cpp: forward and backward, then everything put back (see thread_probe.h).
#include "cifar/train/thread_probe.h"

#include <algorithm>

#include "cifar/platform/guards.h"

namespace cifar {

void probe_step(ClassifierImpl& model, const Batch& whole, const StepOptions& options,
                int64_t images) {
  const int64_t n = std::min(images, whole.images.size(0));
  const Batch batch{whole.images.narrow(0, 0, n), whole.labels.narrow(0, 0, n)};
  const GeneratorStateGuard keep_random_stream;
  std::vector<torch::Tensor> buffers = model.buffers();
  std::vector<torch::Tensor> saved;
  saved.reserve(buffers.size());
  for (const auto& b : buffers) saved.push_back(b.clone());
  std::vector<torch::Tensor> trained;  // frozen parameters get no gradient in a real step either
  for (const auto& p : model.parameters()) {
    if (p.requires_grad()) trained.push_back(p);
  }
  RunningTotals scratch(batch.images.device());  // the epoch's totals stay as they are
  const torch::Tensor loss = forward_loss(model, batch, options, scratch);
  // The same backward pass as loss.backward(), into tensors that are dropped here.
  torch::autograd::grad({loss}, trained, /*grad_outputs=*/{}, /*retain_graph=*/false,
                        /*create_graph=*/false, /*allow_unused=*/true);
  torch::NoGradGuard no_grad;
  for (size_t i = 0; i < buffers.size(); ++i) buffers[i].copy_(saved[i]);
}

}  // namespace cifar
