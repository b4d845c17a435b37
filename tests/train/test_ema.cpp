// test_ema.cpp: --ema, made through the extension registry: the update
// (ema = decay * ema + (1 - decay) * live for parameters, buffers copied),
// the average standing in for the model, and both sets of weights through
// a checkpoint's training state.
#include <catch2/catch.hpp>

#include <algorithm>
#include <sstream>

#include "cifar/train/extension.h"

using namespace cifar;

namespace {

// A linear layer and a BatchNorm (parameters and buffers).
class TinyImpl : public ClassifierImpl {
 public:
  TinyImpl()
      : fc(register_module("fc", torch::nn::Linear(4, 3))),
        bn(register_module("bn", torch::nn::BatchNorm1d(3))) {}
  torch::Tensor forward(torch::Tensor x) override { return bn(fc(x.flatten(1))); }
  torch::nn::Linear fc;
  torch::nn::BatchNorm1d bn;
};

Classifier tiny() {
  return std::make_shared<TinyImpl>();
}

std::unique_ptr<Extensions> extensions_for(double decay, ClassifierImpl& model) {
  return std::make_unique<Extensions>(
      ExtensionContext{.ema = decay, .model = model, .build = tiny});
}

void set_all(torch::nn::Module& m, double value) {
  torch::NoGradGuard no_grad;
  for (auto& p : m.parameters()) p.fill_(value);
}

std::string saved(const Extensions& extensions) {
  torch::serialize::OutputArchive out;
  extensions.save(out);
  std::ostringstream bytes;
  out.save_to(bytes);
  return bytes.str();
}

}  // namespace

TEST_CASE("EMA: --ema is in the extension registry and off at 0", "[train][ema]") {
  const auto& entries = extension_registry();
  CHECK(std::ranges::find(entries, "ema", &ExtensionEntry::name) != entries.end());
  auto live = tiny();
  auto off = extensions_for(0, *live);
  CHECK(off->empty());
  CHECK(&off->shown_model(*live) == live.get());
}

TEST_CASE("EMA: --ema averages the parameters after each step and copies the buffers",
          "[train][ema]") {
  auto live = tiny();
  set_all(*live, 1.0);
  auto ema = extensions_for(0.9, *live);
  REQUIRE_FALSE(ema->empty());
  ClassifierImpl& average = ema->shown_model(*live);
  REQUIRE(&average != live.get());

  set_all(*live, 3.0);
  {
    torch::NoGradGuard no_grad;
    live->named_buffers()["bn.running_mean"].fill_(0.25);
  }
  ema->after_step();  // 0.9 * 1 + 0.1 * 3 = 1.2
  for (const auto& p : average.named_parameters()) {
    INFO(p.key());
    CHECK(torch::allclose(p.value(), torch::full_like(p.value(), 1.2), 0, 1e-6));
    CHECK_FALSE(p.value().requires_grad());
  }
  ema->after_step();  // 0.9 * 1.2 + 0.1 * 3 = 1.38
  CHECK(average.named_parameters()["fc.weight"][0][0].item<float>() == Approx(1.38).epsilon(1e-6));
  CHECK(torch::equal(average.named_buffers()["bn.running_mean"],
                     live->named_buffers()["bn.running_mean"]));
  // The live weights are the optimiser's, untouched.
  CHECK(torch::equal(live->named_parameters()["fc.bias"], torch::full({3}, 3.0)));
}

TEST_CASE("EMA: --ema's average and live weights go through a checkpoint exactly", "[train][ema]") {
  torch::manual_seed(5);
  auto live = tiny();
  auto ema = extensions_for(0.8, *live);
  for (int step = 0; step < 3; ++step) {
    torch::NoGradGuard no_grad;
    for (auto& p : live->parameters()) p.add_(torch::randn_like(p));
    ema->after_step();
  }
  ClassifierImpl& average = ema->shown_model(*live);
  const std::string state = saved(*ema);

  // A resumed run: the checkpoint's model (the average) loaded into a new
  // model, then the training state read back.
  auto resumed = tiny();
  {
    torch::NoGradGuard no_grad;
    const auto from = average.named_parameters();
    for (auto& p : resumed->named_parameters()) p.value().copy_(from[p.key()]);
  }
  auto again = extensions_for(0.8, *resumed);
  torch::serialize::InputArchive in;
  std::istringstream read(state);
  in.load_from(read);
  again->load(in);
  for (const auto& p : live->named_parameters()) {
    INFO(p.key());
    CHECK(torch::equal(resumed->named_parameters()[p.key()], p.value()));
    CHECK(torch::equal(again->shown_model(*resumed).named_parameters()[p.key()],
                       average.named_parameters()[p.key()]));
  }
  // And both go on alike.
  {
    torch::NoGradGuard no_grad;
    for (auto& p : live->parameters()) p.mul_(0.5);
    for (auto& p : resumed->parameters()) p.mul_(0.5);
  }
  ema->after_step();
  again->after_step();
  CHECK(saved(*ema) == saved(*again));

  // A checkpoint without --ema's state cannot be resumed with --ema.
  auto plain = tiny();
  auto off = extensions_for(0, *plain);
  torch::serialize::InputArchive none;
  std::istringstream empty(saved(*off));
  none.load_from(empty);
  CHECK_THROWS_WITH(again->load(none), Catch::Contains("trained without --ema"));
}
