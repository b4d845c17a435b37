// test_device.cpp: --device parsing, the try_gpu fallback, CPU timing.
#include <catch2/catch.hpp>

#include <chrono>
#include <thread>

#include "cifar/platform/device.h"
#include "cifar/platform/gpu.h"

using namespace cifar;
using Kind = DeviceRequest::Kind;

TEST_CASE("device strings", "[device]") {
  CHECK(parse_device("auto")->kind == Kind::kAuto);
  CHECK(parse_device("cpu")->kind == Kind::kCpu);
  CHECK(parse_device("cuda")->kind == Kind::kCuda);
  CHECK(parse_device("gpu")->kind == Kind::kCuda);
  CHECK(parse_device("cuda")->index == 0);
  CHECK(parse_device("cuda:3")->index == 3);
  CHECK(parse_device("cuda:3")->text == "cuda:3");
  // Not a device: none (config/ refuses --device with the choices: tests/config).
  for (const char* bad : {"", "tpu", "cuda:", "cuda:-1", "cuda:x", "cuda:1x", "CPU", "cuda:0:1"}) {
    INFO(bad);
    CHECK_FALSE(parse_device(bad).has_value());
  }
}

TEST_CASE("try_gpu honours a GPU that exists", "[device]") {
  auto choice = try_gpu(*parse_device("cuda:1"), 2);
  CHECK(choice.device == torch::Device(torch::kCUDA, 1));
  CHECK(choice.fallback_warning.empty());
  CHECK(try_gpu(*parse_device("auto"), 2).device == torch::Device(torch::kCUDA, 0));
  CHECK(try_gpu(*parse_device("cpu"), 2).device == torch::Device(torch::kCPU));
}

TEST_CASE("try_gpu falls back to the CPU with one clear warning", "[device]") {
  auto none = try_gpu(*parse_device("cuda"), 0);
  CHECK(none.device == torch::Device(torch::kCPU));
  CHECK_THAT(none.fallback_warning, Catch::Contains("--device cuda") &&
                                        Catch::Contains("no CUDA device") &&
                                        Catch::Contains("using the CPU"));
  auto missing = try_gpu(*parse_device("cuda:4"), 2);
  CHECK(missing.device == torch::Device(torch::kCPU));
  CHECK_THAT(missing.fallback_warning,
             Catch::Contains("GPU 4") && Catch::Contains("cuda:0 to cuda:1"));
  auto automatic = try_gpu(*parse_device("auto"), 0);
  CHECK(automatic.device == torch::Device(torch::kCPU));
  CHECK(automatic.fallback_warning.empty());  // auto asked for nothing in particular
}

TEST_CASE("choose_device never fails for a missing GPU", "[device]") {
  const auto choice = choose_device(*parse_device("cuda:7"));
  if (torch::cuda::device_count() <= 7) {
    CHECK(choice.device.is_cpu());
    CHECK_FALSE(choice.fallback_warning.empty());
  }
  CHECK_THAT(describe_devices(), Catch::Contains("cpu:"));
}

TEST_CASE("CPU timing and memory report without CUDA", "[device]") {
  DeviceTimer timer(torch::kCPU);
  timer.start();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const double seconds = timer.stop();
  CHECK(seconds >= 0.045);
  CHECK(seconds < 5.0);
  CHECK(peak_memory_bytes(torch::kCPU) == 0);
}
