// test_lion.cpp: --optimizer lion, made through the optimiser registry:
// lion-pytorch's update step for step (the reference numbers were computed
// by its update_fn in float64 with torch 2.11), its defaults and its state
// through a checkpoint archive.
#include <catch2/catch.hpp>

#include <sstream>

#include "cifar/optim/optimizer_registry.h"
#include "optim/reference_steps.h"

using namespace cifar;

TEST_CASE("lion takes lion-pytorch's steps at the rate each step gives", "[optim][lion]") {
  // Python: p = tensor([1., -2., 0.5], float64), betas (0.9, 0.99) (Lion's
  // defaults: nothing given), weight_decay 0.1, the rates 0.1, 0.05, 0.01.
  auto p = test::reference_param();
  auto lion = optimizer_entry("lion").make({p}, {.weight_decay = 0.1});
  const std::vector<std::vector<double>> python{
      {0.89, -1.88, 0.395},
      {0.9355500000000001, -1.9205999999999999, 0.343025},
      {0.9246144500000001, -1.9286793999999998, 0.35268197500000004}};
  test::check_reference_steps(*lion, p, python);
  CHECK(std::string(lion->name()) == "lion");
  // --beta2 0 given: the momentum is the last gradient, and the second step goes
  // the other way on the first element.
  auto q = test::reference_param();
  auto other =
      optimizer_entry("lion").make({q}, {.weight_decay = 0.1, .declared = {{"beta2", 0.0}}});
  q.mutable_grad() = torch::tensor(test::kReferenceGrads[0], torch::kDouble);
  other->step(test::kReferenceRates[0]);
  q.mutable_grad() = torch::tensor(test::kReferenceGrads[1], torch::kDouble);
  other->step(test::kReferenceRates[1]);
  CHECK_FALSE(q[0].item<double>() == Approx(python[1][0]).epsilon(1e-14));
}

TEST_CASE("lion's momentum goes through a checkpoint archive and continues bit for bit",
          "[optim][lion]") {
  torch::manual_seed(5);
  const auto x = torch::randn({16, 5});
  const auto y = torch::randn({16, 3});
  auto w = torch::randn({5, 3}).requires_grad_();
  const OptimizerEntry& entry = optimizer_entry("lion");
  auto first = entry.make({w}, {.weight_decay = 0.01});
  auto loss = [&](const torch::Tensor& w_) { return (torch::mm(x, w_) - y).pow(2).mean(); };
  for (int step = 0; step < 3; ++step) {
    first->zero_grad();
    loss(w).backward();
    first->step(0.01);
  }
  torch::serialize::OutputArchive out;
  first->save(out);
  std::ostringstream bytes;
  out.save_to(bytes);
  auto w2 = w.detach().clone().requires_grad_();
  auto second = entry.make({w2}, {.weight_decay = 0.01});
  torch::serialize::InputArchive in;
  std::istringstream read(bytes.str());
  in.load_from(read);
  second->load(in);
  // The momentum itself came through (a load that kept zeros would pass the
  // trajectory check below: its signs follow the gradient's here).
  auto momentum = [](const Optimizer& o) {
    torch::serialize::OutputArchive archive;
    o.save(archive);
    std::ostringstream saved;
    archive.save_to(saved);
    torch::serialize::InputArchive back;
    std::istringstream read_back(saved.str());
    back.load_from(read_back);
    torch::Tensor m;
    back.read("momentum.0", m, /*is_buffer=*/true);
    return m;
  };
  CHECK(momentum(*first).abs().sum().item<double>() > 0);
  CHECK(torch::equal(momentum(*first), momentum(*second)));
  for (int step = 0; step < 2; ++step) {
    first->zero_grad();
    loss(w).backward();
    first->step(0.005);
    second->zero_grad();
    loss(w2).backward();
    second->step(0.005);
  }
  CHECK(torch::equal(w, w2));
}
