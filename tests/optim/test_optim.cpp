// test_optim.cpp: the multi-tensor SGD against LibTorch's own.
#include <catch2/catch.hpp>

#include "cifar/optim/optim.h"

using namespace cifar;

namespace {
// Runs `steps` updates of a small least-squares problem with both optimizers.
void compare_with_libtorch(double momentum, bool nesterov, double weight_decay) {
  torch::manual_seed(0);
  const auto x = torch::randn({16, 5});
  const auto y = torch::randn({16, 3});
  auto w1 = torch::randn({5, 3}).requires_grad_();
  auto b1 = torch::randn({3}).requires_grad_();
  auto w2 = w1.detach().clone().requires_grad_();
  auto b2 = b1.detach().clone().requires_grad_();
  const double lr = 0.05;
  Sgd ours({w1, b1}, SgdOptions().momentum(momentum).nesterov(nesterov).weight_decay(weight_decay));
  torch::optim::SGD theirs(
      {w2, b2}, torch::optim::SGDOptions(lr).momentum(momentum).nesterov(nesterov).weight_decay(
                    weight_decay));
  for (int step = 0; step < 5; ++step) {
    ours.zero_grad();
    (torch::mm(x, w1) + b1 - y).pow(2).mean().backward();
    ours.step(lr);
    theirs.zero_grad();
    (torch::mm(x, w2) + b2 - y).pow(2).mean().backward();
    theirs.step();
  }
  CHECK(torch::allclose(w1, w2, 1e-5, 1e-6));
  CHECK(torch::allclose(b1, b2, 1e-5, 1e-6));
}
}  // namespace

TEST_CASE("Sgd matches torch::optim::SGD", "[optim]") {
  SECTION("plain") {
    compare_with_libtorch(0.0, false, 0.0);
  }
  SECTION("momentum") {
    compare_with_libtorch(0.9, false, 0.0);
  }
  SECTION("nesterov and weight decay") {
    compare_with_libtorch(0.9, true, 5e-4);
  }
}

TEST_CASE("Sgd with a tensor learning rate equals the scalar one", "[optim]") {
  auto a = torch::ones({4}).requires_grad_();
  auto b = torch::ones({4}).requires_grad_();
  Sgd sa({a}, SgdOptions().momentum(0.9));
  Sgd sb({b}, SgdOptions().momentum(0.9));
  for (int i = 0; i < 3; ++i) {
    sa.zero_grad();
    (a * a).sum().backward();
    sa.step(0.1);
    sb.zero_grad();
    (b * b).sum().backward();
    sb.step(torch::tensor(0.1));
  }
  CHECK(torch::allclose(a, b));
}

TEST_CASE("zero_grad resets gradients to none", "[optim]") {
  auto w = torch::ones({2}).requires_grad_();
  Sgd sgd({w}, SgdOptions());
  (w * 2).sum().backward();
  REQUIRE(w.grad().defined());
  sgd.zero_grad();
  CHECK_FALSE(w.grad().defined());
  sgd.step(0.1);  // no gradient: nothing moves
  CHECK(torch::equal(w, torch::ones({2})));
}
