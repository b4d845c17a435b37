// test_checkpoint_devices.cpp: a checkpoint written on GPUs loads on any machine.
//
// A checkpoint's archive names the device each tensor was saved from. The
// GPU-trained file is made here from a CPU one by rewriting those names
// (storage_locations.h): storages on cuda:0 and cuda:1, as a model trained on
// one GPU and optimiser state on another would say, loaded on this machine,
// which has no GPU at all.
#include <catch2/catch.hpp>

#include <fstream>

#include "cifar/core/stateful.h"
#include "cifar/io/checkpoint.h"
#include "cifar/io/weights.h"
#include "cifar/model/state_dict.h"
#include "cifar/optim/grad_scaler.h"
#include "cifar/optim/optim.h"
#include "io/storage_locations.h"
#include "test_helpers.h"

using namespace cifar;
using cifar::test::TempDir;

namespace {

CheckpointInfo net_info() {
  CheckpointInfo info;
  info.class_names = default_class_names();
  info.libtorch_version = "2.11.0";
  return info;
}

// The optimiser and the loss scaler, stored as a run stores them.
struct SgdAndScaler final : Stateful {
  Sgd& sgd;
  GradScaler& scaler;
  SgdAndScaler(Sgd& s, GradScaler& g) : sgd(s), scaler(g) {}
  void save(torch::serialize::OutputArchive& archive) const override {
    sgd.save(archive);
    scaler.save(archive);
  }
  void load(torch::serialize::InputArchive& archive) override {
    sgd.load(archive);
    scaler.load(archive);
  }
};

std::string write(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
  return path.string();
}

}  // namespace

TEST_CASE("the test's rewrite names GPUs as the storages' locations", "[checkpoint]") {
  auto model = make_model(ModelOptions("net"));
  const std::string cpu = encode_checkpoint(net_info(), *model, nullptr);
  const auto before = test::storage_locations(test::checkpoint_payload(cpu));
  REQUIRE(before.size() == model_state_dict(*model).size());
  for (const auto& where : before) CHECK(where == "cpu");
  const std::string gpu = test::relocate_checkpoint(cpu, {"cuda:0", "cuda:1"});
  const auto after = test::storage_locations(test::checkpoint_payload(gpu));
  REQUIRE(after.size() == before.size());
  for (size_t i = 0; i < after.size(); ++i) CHECK(after[i] == (i % 2 == 0 ? "cuda:0" : "cuda:1"));
}

TEST_CASE("a checkpoint saved from cuda:0 and cuda:1 loads on the CPU, state included",
          "[checkpoint]") {
  TempDir dir;
  torch::manual_seed(0);
  auto model = make_model(ModelOptions("net"));
  Sgd sgd(model->parameters(), SgdOptions().momentum(0.9));
  GradScaler scaler(/*enabled=*/true, torch::kCPU, GradScalerOptions{.init_scale = 1024.0});
  model->forward(torch::randn({4, 3, 32, 32})).sum().backward();
  sgd.step(0.1);
  const SgdAndScaler state(sgd, scaler);
  const std::string gpu = test::relocate_checkpoint(encode_checkpoint(net_info(), *model, &state),
                                                    {"cuda:0", "cuda:1"});
  const auto path = write(dir.path() / "gpu.pt", gpu);

  const LoadedCheckpoint loaded = load_checkpoint(path);  // cifar-eval, -export, -predict, --resume
  const auto saved = model->named_parameters();
  for (const auto& item : loaded.model->named_parameters()) {
    INFO(item.key());
    CHECK(item.value().device() == torch::Device(torch::kCPU));
    CHECK(torch::equal(item.value(), saved[item.key()]));
  }
  for (const auto& buffer : loaded.model->buffers()) CHECK(buffer.is_cpu());

  // --init-weights and cifar-eval --weights take a checkpoint too.
  WeightsOptions options;
  options.num_classes = 10;
  const ImportedWeights weights = import_weights(path, options);
  CHECK(weights.model_name == "net");
  CHECK(torch::equal(weights.model->named_parameters()["conv1.weight"], saved["conv1.weight"]));

  // --resume: the momentum and the loss scale come back onto the CPU.
  Sgd resumed(loaded.model->parameters(), SgdOptions().momentum(0.9));
  GradScaler resumed_scaler(/*enabled=*/true, torch::kCPU);
  SgdAndScaler resumed_state(resumed, resumed_scaler);
  load_optimizer_state(loaded, resumed_state);
  CHECK(resumed_scaler.scale_value() == 1024.0);
  const auto x = torch::randn({4, 3, 32, 32});
  sgd.zero_grad();
  resumed.zero_grad();
  model->forward(x).sum().backward();
  loaded.model->forward(x).sum().backward();
  sgd.step(0.1);
  resumed.step(0.1);
  CHECK(torch::equal(model->named_parameters()["fc3.weight"],
                     loaded.model->named_parameters()["fc3.weight"]));
}
