// momentum_of.h: an optimiser's momentum buffers as a checkpoint holds
// them, read back through the archive (the tests compare them).
#pragma once

#include <torch/torch.h>

#include <sstream>
#include <string>
#include <vector>

#include "cifar/optim/param_groups.h"

namespace cifar::test {

// The first `count` momentum buffers of a one-group run's optimiser state.
inline std::vector<torch::Tensor> momentum_of(const ParamGroups& groups, size_t count) {
  torch::serialize::OutputArchive out;
  groups.save(out);
  std::ostringstream bytes;
  out.save_to(bytes);
  std::istringstream in_bytes(bytes.str());
  torch::serialize::InputArchive in;
  in.load_from(in_bytes);
  std::vector<torch::Tensor> buffers(count);
  for (size_t i = 0; i < count; ++i) {
    in.read("momentum." + std::to_string(i), buffers[i], /*is_buffer=*/true);
  }
  return buffers;
}

}  // namespace cifar::test
