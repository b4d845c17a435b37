// test_gpu.cpp: data and model on the GPU, CUDA events, peak memory, the
// CUDA-graph and bf16 steps (run only where a GPU is present; see main.cpp).
#include <catch2/catch.hpp>

#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include "cifar/dist/distributed.h"
#include "cifar/dist/grad_averager.h"
#include "cifar/dist/nccl_backend.h"
#include "cifar/infer/evaluate.h"
#include "cifar/platform/gpu.h"
#include "cifar/train/epoch.h"
#include "test_helpers.h"

using namespace cifar;

TEST_CASE("GPU: events time work and peak memory is tracked", "[cuda]") {
  // Peak memory is reset before any CUDA tensor exists (as a run does):
  // the allocator must be set up by then.
  const torch::Device gpu(torch::kCUDA, 0);
  reset_peak_memory(gpu);
  DeviceTimer timer(gpu);
  timer.start();
  auto x = torch::randn({4096, 4096}, torch::TensorOptions().device(gpu));
  for (int i = 0; i < 10; ++i) x = torch::mm(x, x).tanh_();
  const double seconds = timer.stop();
  CHECK(seconds > 0.0);
  CHECK(peak_memory_bytes(gpu) >= 2 * 4096 * 4096 * 4);
  // "cuda" without an index means the current device.
  CHECK(peak_memory_bytes(torch::Device(torch::kCUDA)) == peak_memory_bytes(gpu));
  const auto gpus = cuda_devices();
  REQUIRE_FALSE(gpus.empty());
  CHECK(gpus[0].total_memory > 0);
  CHECK(gpus[0].major >= 3);
}

TEST_CASE("GPU: data and model on the device, CUDA-graph and bf16 steps train", "[cuda]") {
  const torch::Device gpu(torch::kCUDA, 0);
  const DeviceDataset data(test::synthetic(512, 1), gpu, Normalization{});
  REQUIRE(data.device().is_cuda());
  REQUIRE(data.labels().is_cuda());
  auto run = [&](bool graph, AmpMode amp) {
    torch::manual_seed(0);
    auto model = make_model(ModelOptions("net"));
    model->to(gpu);
    ParamGroups groups = one_sgd_group(model->parameters(), SgdOptions().momentum(0.9),
                                       {.schedule = Schedule::kConstant, .lr = 0.01});
    Distributed alone(DistEnv{}, gpu);
    GradientAverager averager(alone, model->parameters());
    GradScaler scaler(amp == AmpMode::kFp16, gpu);
    Learner trainee{*model, groups, alone, averager, scaler};
    EpochOptions o;
    o.shape = epoch_shape(data.size(), 64, /*drop_last=*/false, /*graphed=*/graph);
    o.step.precision.amp = amp;
    o.step.precision.loss_scaling = amp == AmpMode::kFp16;
    const auto stats =
        train_one_epoch(trainee, data, data.plan_epoch(true, false, 0, 1), o, EpochPosition{});
    return std::make_pair(stats, model);
  };
  const auto [eager, eager_model] = run(false, AmpMode::kOff);
  const auto [graphed, graphed_model] = run(true, AmpMode::kOff);
  CHECK(eager.images == 512);
  CHECK(graphed.images == 512);  // 512 / 64: no partial batch to drop
  CHECK(eager.peak_memory_bytes > 0);
  CHECK(eager.seconds > 0);
  CHECK(graphed.loss == Approx(eager.loss).epsilon(1e-3));
  CHECK(torch::allclose(eager_model->named_parameters()["fc3.weight"],
                        graphed_model->named_parameters()["fc3.weight"], 1e-3, 1e-4));
  const auto [bf16, bf16_model] = run(false, AmpMode::kBf16);
  CHECK(std::isfinite(bf16.loss));
  Precision bf16_autocast;
  bf16_autocast.amp = AmpMode::kBf16;
  const auto result = evaluate(*bf16_model, data, 256, bf16_autocast);
  CHECK(result.total == 512);
}

TEST_CASE("NCCL process group on a GPU", "[cuda][dist]") {
  REQUIRE(nccl_compiled());  // a CUDA build without nccl.h is a build problem here
  Distributed dist(DistEnv{}, torch::Device(torch::kCUDA, 0), {});
  CHECK(dist.backend_name() == "none");  // one rank: nothing set up
  c10d::TCPStoreOptions store_options;
  store_options.port = 0;
  store_options.isServer = true;
  store_options.numWorkers = 1;
  auto store = c10::make_intrusive<c10d::TCPStore>("127.0.0.1", store_options);
  auto group = make_nccl_backend(store, 0, 1, 0, std::chrono::seconds(60));
  std::vector<at::Tensor> tensors = {torch::arange(4, torch::kFloat).cuda()};
  group->allreduce(tensors)->wait();
  CHECK(torch::equal(tensors[0].cpu(), torch::arange(4, torch::kFloat)));
  CHECK(group->getBackendName() == "nccl");
}
