// test_gpu_paths.cpp: the GPU paths issue 32 reviewed, checked where they run
// (a GPU; see main.cpp for the skip): a checkpoint saved from the GPU loads on
// the CPU, fp16 loss scaling decides on CUDA as on the CPU, the CUDA graph is
// captured once per run and a failed capture leaves nothing behind, an
// epoch's steps never wait for the GPU, synchronize() waits on the device it
// names, an NCCL exchange is waited for on the host and the group shuts down.
#include <catch2/catch.hpp>

#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda_runtime_api.h>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include <fstream>

#include "cifar/dist/nccl_backend.h"
#include "cifar/dist/work_wait.h"
#include "cifar/io/checkpoint.h"
#include "cifar/optim/grad_scaler.h"
#include "cifar/platform/gpu.h"
#include "cifar/train/cuda_graph.h"
#include "cifar/train/epoch.h"
#include "io/storage_locations.h"
#include "test_helpers.h"
#include "train/lone_learner.h"

using namespace cifar;
using cifar::test::LoneLearner;

namespace {
const torch::Device kGpu(torch::kCUDA, 0);

// A classifier that reads a value back to the host in its forward pass:
// fine eagerly, an error while a CUDA graph is being captured.
struct SyncingNet final : ClassifierImpl {
  SyncingNet() : fc(register_module("fc", torch::nn::Linear(3 * 32 * 32, 10))) {}
  torch::Tensor forward(torch::Tensor x) override {
    auto y = fc(x.flatten(1));
    if (y.sum().item<float>() > 1e30F) y = y * 0.5;
    return y;
  }
  torch::nn::Linear fc;
};

// While alive, a host sync on the GPU throws (torch.cuda.set_sync_debug_mode("error")).
struct NoSyncs {
  NoSyncs() { c10::cuda::warning_state().set_sync_debug_mode(c10::cuda::SyncDebugMode::L_ERROR); }
  ~NoSyncs() { off(); }
  static void off() {
    c10::cuda::warning_state().set_sync_debug_mode(c10::cuda::SyncDebugMode::L_DISABLED);
  }
};

EpochOptions quiet_options(int64_t n, int64_t batch, bool graphed) {
  EpochOptions o;
  o.shape = epoch_shape(n, batch, /*drop_last=*/false, graphed);
  o.log_interval_s = 1e6;  // no progress line, so no read-back for one
  return o;
}
}  // namespace

TEST_CASE("GPU: a checkpoint saved from the GPU names cuda:0 and loads on the CPU", "[cuda]") {
  test::TempDir dir;
  torch::manual_seed(0);
  auto model = make_model(ModelOptions("resnet18"));
  model->to(kGpu);
  CheckpointInfo info;
  info.model = "resnet18";
  info.class_names = default_class_names();
  const std::string bytes = encode_checkpoint(info, *model, nullptr);
  for (const auto& where : test::storage_locations(test::checkpoint_payload(bytes))) {
    CHECK(where == "cuda:0");
  }
  std::ofstream(dir.path() / "gpu.pt", std::ios::binary) << bytes;
  const LoadedCheckpoint loaded = load_checkpoint(dir.path() / "gpu.pt");
  const auto saved = model->named_parameters();
  for (const auto& item : loaded.model->named_parameters()) {
    INFO(item.key());
    CHECK(item.value().is_cpu());
    CHECK(torch::equal(item.value(), saved[item.key()].cpu()));
  }
}

TEST_CASE("GPU: fp16 loss scaling decides on CUDA as on the CPU", "[cuda]") {
  const torch::Device cpu(torch::kCPU);
  GradScalerOptions options;
  options.growth_interval = 2;
  GradScaler on_gpu(true, kGpu, options), on_cpu(true, cpu, options);
  torch::manual_seed(1);
  const auto grads = torch::randn({5, 100});
  for (int step = 0; step < 5; ++step) {
    INFO("step " << step);
    auto g = grads[step].clone();
    if (step == 2) g[7] = std::numeric_limits<float>::infinity();
    auto p_gpu = torch::zeros({100}, torch::TensorOptions().device(kGpu));
    auto p_cpu = torch::zeros({100});
    p_gpu.mutable_grad() = (g * on_gpu.scale_value()).to(kGpu);
    p_cpu.mutable_grad() = g * on_cpu.scale_value();
    CHECK(on_gpu.unscale({p_gpu}) == on_cpu.unscale({p_cpu}));
    CHECK(torch::allclose(p_gpu.grad().cpu(), p_cpu.grad(), 1e-6, 0, /*equal_nan=*/true));
    on_gpu.update();
    on_cpu.update();
    CHECK(on_gpu.scale_value() == on_cpu.scale_value());
    CHECK(on_gpu.growth_tracker() == on_cpu.growth_tracker());
  }
  CHECK(on_gpu.skipped_steps() == 1);
}

TEST_CASE("GPU: the graph is captured once per run and replays across epochs", "[cuda]") {
  const DeviceDataset data(test::synthetic(512, 1), kGpu, Normalization{});
  auto run = [&](bool graphed) {
    torch::manual_seed(0);
    auto model = make_model(ModelOptions("net"));
    model->to(kGpu);
    LoneLearner a(model, 0.01, 0.9);
    EpochState state(kGpu);
    const auto o = quiet_options(512, 64, graphed);
    const ReplayedStep* first = nullptr;
    std::vector<double> losses;
    for (int64_t epoch = 1; epoch <= 3; ++epoch) {
      EpochPosition at;
      at.epoch = epoch;
      at.epochs = 3;
      const auto stats =
          train_one_epoch(a.learner, data, data.plan_epoch(true, false, 0, epoch), o, at, &state);
      losses.push_back(stats.loss);
      if (epoch == 1) first = state.graphed.get();
      CHECK(state.graphed.get() == first);  // never captured again
      CHECK(stats.images == 512);
    }
    if (graphed) {
      CHECK(state.capture_seconds > 0);
      CHECK(state.graphed->recordings() == 1);
    }
    return std::make_pair(losses, model->named_parameters()["fc3.weight"].cpu());
  };
  const auto [eager_losses, eager_weights] = run(false);
  const auto [graph_losses, graph_weights] = run(true);
  for (size_t i = 0; i < eager_losses.size(); ++i) {
    CHECK(graph_losses[i] == Approx(eager_losses[i]).epsilon(1e-3));
  }
  CHECK(torch::allclose(eager_weights, graph_weights, 1e-3, 1e-4));
}

TEST_CASE("GPU: a capture that fails ends the capture and frees the allocator", "[cuda]") {
  const DeviceDataset data(test::synthetic(128, 1), kGpu, Normalization{});
  const EpochPlan plan = data.plan_epoch(false, false, 0, 1);
  auto syncing = std::make_shared<SyncingNet>();
  syncing->to(kGpu);
  LoneLearner a(syncing, 0.01);
  RunningTotals totals(kGpu);
  const Batch batch = data.batch(plan, 0, 64);
  CHECK_THROWS_WITH(make_graphed_step(a.learner, data, plan, 64, {}, totals)->prepare(batch),
                    Catch::Contains("capturing the training step failed"));
  // Nothing is left capturing, and the current stream is the one before.
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusActive;
  REQUIRE(cudaStreamIsCapturing(c10::cuda::getCurrentCUDAStream(0).stream(), &status) ==
          cudaSuccess);
  CHECK(status == cudaStreamCaptureStatusNone);
  CHECK(c10::cuda::getCurrentCUDAStream(0) == c10::cuda::getDefaultCUDAStream(0));
  CHECK(cudaGetLastError() == cudaSuccess);
  // Every pooled side stream still launches and allocates normally, and a
  // capturable model captures: no capture or pool was left half-open.
  for (int i = 0; i < 40; ++i) {
    const c10::cuda::CUDAStream s = c10::cuda::getStreamFromPool(false, 0);
    cudaStreamCaptureStatus st = cudaStreamCaptureStatusActive;
    REQUIRE(cudaStreamIsCapturing(s.stream(), &st) == cudaSuccess);
    CHECK(st == cudaStreamCaptureStatusNone);
  }
  auto net = make_model(ModelOptions("net"));
  net->to(kGpu);
  LoneLearner b(net, 0.01);
  CHECK_NOTHROW(make_graphed_step(b.learner, data, plan, 64, {}, totals)->prepare(batch));
}

TEST_CASE("GPU: an epoch's steps never wait for the GPU (eager and graphed)", "[cuda]") {
  const DeviceDataset data(test::synthetic(512, 1), kGpu, Normalization{});
  for (const bool graphed : {false, true}) {
    INFO((graphed ? "graphed" : "eager"));
    torch::manual_seed(0);
    auto model = make_model(ModelOptions("net"));
    model->to(kGpu);
    LoneLearner a(model, 0.01, 0.9);
    auto o = quiet_options(512, 64, graphed);
    // From the end of the first step (which may allocate and choose
    // kernels) to the end of the last, any host sync throws.
    std::optional<NoSyncs> no_syncs;
    int64_t done = 0;
    o.after_step = [&](int64_t) {
      if (++done == 1) no_syncs.emplace();
      if (done == o.shape.steps) no_syncs.reset();
    };
    EpochStats stats;
    CHECK_NOTHROW(stats = train_one_epoch(a.learner, data, data.plan_epoch(true, false, 0, 1), o,
                                          EpochPosition{}));
    NoSyncs::off();
    CHECK(done == 8);
    CHECK(std::isfinite(stats.loss));
  }
}

TEST_CASE("GPU: synchronize() waits on the device it names", "[cuda]") {
  const int64_t count = static_cast<int64_t>(c10::cuda::device_count());
  for (int64_t i = 0; i < count; ++i) {
    const torch::Device device(torch::kCUDA, static_cast<c10::DeviceIndex>(i));
    auto x = torch::randn({2048, 2048}, torch::TensorOptions().device(device));
    for (int k = 0; k < 20; ++k) x = torch::mm(x, x).tanh_();
    c10::cuda::set_device(0);  // the current device is another one where there are two
    synchronize(device);
    CHECK(cudaStreamQuery(c10::cuda::getCurrentCUDAStream(device.index()).stream()) == cudaSuccess);
  }
  if (count < 2) WARN("one GPU: synchronize(cuda:1) from cuda:0 stays unverified");
}

TEST_CASE("NCCL: a collective is waited for on the host and the group shuts down", "[cuda][dist]") {
  c10d::TCPStoreOptions store_options;
  store_options.port = 0;
  store_options.isServer = true;
  store_options.numWorkers = 1;
  auto store = c10::make_intrusive<c10d::TCPStore>("127.0.0.1", store_options);
  auto group = make_nccl_backend(store, 0, 1, 0, std::chrono::seconds(30));
  std::vector<at::Tensor> tensors = {torch::arange(4, torch::kFloat).cuda()};
  auto work = group->allreduce(tensors);
  wait_for_work(*work, *group, std::chrono::seconds(30));
  CHECK(work->isCompleted());  // on the host, not only on the stream
  CHECK(torch::equal(tensors[0].cpu(), torch::arange(4, torch::kFloat)));
  end_group(*group, /*failing=*/false);  // no "NOT been destroyed" at exit
}
