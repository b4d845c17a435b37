// optimizer.cpp: what an optimiser without a device-rate step says (optimizer.h).
#include "cifar/optim/optimizer.h"

#include <fmt/format.h>

#include <stdexcept>

namespace cifar {

void Optimizer::device_rate_step(const torch::Tensor& /*lr*/) {
  // config/ refuses --cuda-graph for an optimiser whose entry does not
  // declare graph_step: reaching here is a registry entry that says it wrongly.
  throw std::logic_error(fmt::format(
      "{} has no update at a device-scalar rate: its registry entry must not declare graph_step",
      name()));
}

}  // namespace cifar
