// model_input.cpp: see model_input.h.
#include "cifar/infer/model_input.h"

namespace cifar {

std::optional<Normalization> normalization(const ModelInput& input) {
  if (!input.mean || !input.std) return std::nullopt;
  return Normalization{*input.mean, *input.std};
}

}  // namespace cifar
