// test_grad_scaler.cpp: --amp fp16's loss scaler: the scale backs off on
// inf/NaN gradients and grows after growth_interval good steps, and the scale
// and growth tracker survive a save and load. (A skipped training step:
// tests/train/test_skipped_step.cpp; step-for-step agreement with Python's
// torch.amp.GradScaler: tests/cli/interop_grad_scaler.sh.)
#include <catch2/catch.hpp>

#include <limits>
#include <sstream>

#include "cifar/optim/grad_scaler.h"
#include "test_helpers.h"

using namespace cifar;

namespace {
constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// One step's gradient (already multiplied by the scale, as backward makes
// it), unscaled and checked; then the scale updated. True: step taken.
bool feed(GradScaler& scaler, torch::Tensor& w, const std::vector<float>& g) {
  w.mutable_grad() = torch::tensor(g) * scaler.scale_value();
  const bool finite = scaler.unscale({w});
  scaler.update();
  return finite;
}

// What a checkpoint would read back of an archive.
torch::serialize::InputArchive round_trip(torch::serialize::OutputArchive& out) {
  std::ostringstream bytes;
  out.save_to(bytes);
  std::istringstream in_bytes(bytes.str());
  torch::serialize::InputArchive in;
  in.load_from(in_bytes);
  return in;
}
}  // namespace

TEST_CASE("the loss scale backs off on inf or NaN and grows after growth_interval good steps",
          "[grad_scaler]") {
  GradScaler scaler(true, torch::kCPU, {.init_scale = 1024, .growth_interval = 3});
  torch::Tensor w = torch::zeros({3}, torch::requires_grad());
  CHECK(scaler.scale_value() == 1024);

  CHECK(feed(scaler, w, {1, -2, 0.5}));
  CHECK(torch::equal(w.grad(), torch::tensor({1.0F, -2.0F, 0.5F})));  // unscaled
  CHECK(scaler.growth_tracker() == 1);
  CHECK_FALSE(feed(scaler, w, {1, kInf, 0}));  // injected inf: skip, back off
  CHECK(scaler.scale_value() == 512);
  CHECK(scaler.growth_tracker() == 0);
  CHECK_FALSE(feed(scaler, w, {kNaN, 0, 0}));
  CHECK(scaler.scale_value() == 256);
  CHECK_FALSE(feed(scaler, w, {0, 0, -kInf}));
  CHECK(scaler.scale_value() == 128);
  CHECK(scaler.skipped_steps() == 3);

  CHECK(feed(scaler, w, {1, 1, 1}));
  CHECK(feed(scaler, w, {1, 1, 1}));
  CHECK(scaler.scale_value() == 128);
  CHECK(scaler.growth_tracker() == 2);
  CHECK(feed(scaler, w, {1, 1, 1}));  // the third good step in a row: grow
  CHECK(scaler.scale_value() == 256);
  CHECK(scaler.growth_tracker() == 0);
  CHECK(scaler.skipped_steps() == 3);

  // A loss scaled as Python's GradScaler.scale does it.
  CHECK(scaler.scale(torch::tensor(0.5F)).item<float>() == 128.0F);
}

TEST_CASE("a disabled loss scaler changes nothing and saves nothing", "[grad_scaler]") {
  GradScaler off(false, torch::kCPU);
  torch::Tensor w = torch::zeros({2}, torch::requires_grad());
  w.mutable_grad() = torch::tensor({kInf, 2.0F});
  const torch::Tensor loss = torch::tensor(3.0F);
  CHECK(off.scale(loss).is_same(loss));
  CHECK(off.unscale({w}));
  CHECK(w.grad()[1].item<float>() == 2.0F);
  torch::serialize::OutputArchive archive;
  off.save(archive);
  CHECK(round_trip(archive).keys().empty());
}

TEST_CASE("the loss scale and growth tracker survive a save and load", "[grad_scaler]") {
  GradScaler scaler(true, torch::kCPU, {.init_scale = 4096, .growth_interval = 100});
  torch::Tensor w = torch::zeros({2}, torch::requires_grad());
  feed(scaler, w, {kInf, 0});  // 2048
  for (int i = 0; i < 5; ++i) feed(scaler, w, {1, 1});
  REQUIRE(scaler.scale_value() == 2048);
  REQUIRE(scaler.growth_tracker() == 5);

  torch::serialize::OutputArchive out;
  scaler.save(out);
  torch::serialize::InputArchive in = round_trip(out);

  GradScaler resumed(true, torch::kCPU, {.growth_interval = 100});
  REQUIRE(resumed.scale_value() == 65536);
  CHECK(resumed.try_load(in));
  CHECK(resumed.scale_value() == 2048);
  CHECK(resumed.growth_tracker() == 5);
  // It carries on where the first one was: 95 more good steps grow the scale.
  for (int i = 0; i < 94; ++i) feed(resumed, w, {1, 1});
  CHECK(resumed.scale_value() == 2048);
  feed(resumed, w, {1, 1});
  CHECK(resumed.scale_value() == 4096);

  // An archive without scaler state (a bf16 or float32 run) leaves the scale as it is.
  torch::serialize::OutputArchive empty_out;
  empty_out.write("momentum.0", torch::zeros({2}), /*is_buffer=*/true);
  torch::serialize::InputArchive empty_in = round_trip(empty_out);
  GradScaler fresh(true, torch::kCPU);
  CHECK_FALSE(fresh.try_load(empty_in));
  CHECK(fresh.scale_value() == 65536);
}
