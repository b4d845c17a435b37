// distributed.cpp: the c10d store and process group, the collectives, and
// the one-line message when a peer fails (the roll call that names the ranks
// gone is in peer_failure.cpp; the store's connection in store_connect.cpp;
// the launcher's environment is read in
// app/dist_env.cpp).
#include "cifar/dist/distributed.h"

#include <c10/util/Logging.h>
#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <limits>
#include <optional>

#include "cifar/core/errors.h"
#include "cifar/dist/nccl_backend.h"
#include "cifar/dist/peer_failure.h"
#include "cifar/dist/store_connect.h"
#include "cifar/dist/transport_guards.h"
#include "cifar/dist/work_wait.h"

namespace cifar {
namespace {

bool is_loopback(const std::string& host) {
  return host == "localhost" || host.rfind("127.", 0) == 0 || host == "::1";
}

}  // namespace

// --- PendingCollective -------------------------------------------------------------

struct PendingCollective::Impl {
  Distributed* owner = nullptr;
  std::string operation;
  std::vector<at::Tensor> tensors;  // kept alive while the transport works on them
  c10::intrusive_ptr<c10d::Work> work;
  c10::intrusive_ptr<c10d::Backend> backend;  // what wait_for_work aborts on failure
  std::chrono::milliseconds timeout{0};
};

PendingCollective::PendingCollective() = default;
PendingCollective::~PendingCollective() = default;
PendingCollective::PendingCollective(PendingCollective&&) noexcept = default;
PendingCollective& PendingCollective::operator=(PendingCollective&&) noexcept = default;

void PendingCollective::wait() {
  if (!impl_ || !impl_->work) return;  // one process, or already waited
  auto work = std::move(impl_->work);
  try {
    wait_for_work(*work, *impl_->backend, impl_->timeout);
  } catch (const std::exception& e) {
    impl_->owner->fail(impl_->operation, e);
  }
}

// --- Distributed -------------------------------------------------------------------

struct Distributed::State {
  TransportThreadErrors thread_errors;    // first in, last out: outlives the backend's threads
  torch::Device device{torch::kCPU};      // where the backend wants tensors
  c10::intrusive_ptr<c10d::Store> store;  // the TCPStore under this run's prefix
  c10::intrusive_ptr<c10d::Backend> backend;
  std::string backend_name;
  bool serves_store = false;
  bool failed = false;
};

Distributed::Distributed(const DistEnv& env, torch::Device device, DistOptions options)
    : env_(env), options_(options) {
  if (env_.world_size == 1) return;
  TORCH_CHECK(options_.timeout.count() > 0, "--dist-timeout must be positive, got ",
              options_.timeout.count(), " ms");
  wait_until_resolved(env_.master_addr, env_, options_.timeout);
  auto state = std::make_unique<State>();
  state->serves_store = !env_.use_agent_store && env_.rank == 0;
  state->backend_name = device.is_cuda() ? "nccl" : "gloo";
  state->device = device.is_cuda()
                      ? torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(env_.local_rank))
                      : torch::Device(torch::kCPU);
  try {
    QuietC10dLogs quiet;  // connection retries: the failure is one line below
    c10d::TCPStoreOptions store_options;
    store_options.port = static_cast<std::uint16_t>(env_.master_port);
    store_options.isServer = state->serves_store;
    // Every rank checks in with the server, which waits for all of them
    // (torchrun's agent store does its own counting: clients skip it there).
    if (!env_.use_agent_store) store_options.numWorkers = static_cast<std::size_t>(env_.world_size);
    store_options.waitWorkers = !env_.use_agent_store;
    store_options.timeout = options_.timeout;
    auto tcp = connect_store(env_.master_addr, store_options, quiet);
    state->store = c10::make_intrusive<c10d::PrefixStore>(
        fmt::format("cifar-train/attempt_{}", env_.restart_count), tcp);
    if (device.is_cuda()) {
      state->backend = make_nccl_backend(state->store, env_.rank, env_.world_size, env_.local_rank,
                                         options_.timeout);
    } else {
      // Devices come from the wheel's own functions (its gloo is newer than
      // the headers we compile against): never touch gloo objects directly.
      auto gloo = c10d::ProcessGroupGloo::Options::create(options_.timeout);
      gloo->devices.push_back(is_loopback(env_.master_addr)
                                  ? c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1")
                                  : c10d::ProcessGroupGloo::createDefaultDevice());
      gloo->threads = options_.gloo_threads;
      state->backend = c10::make_intrusive<c10d::ProcessGroupGloo>(state->store, env_.rank,
                                                                   env_.world_size, gloo);
    }
  } catch (const std::exception& e) {
    throw std::runtime_error(fmt::format(
        "distributed set-up failed on rank {} of {} ({} store at {}:{}, timeout {} s): {}. Check "
        "that all {} processes were started with the same MASTER_ADDR, MASTER_PORT and "
        "WORLD_SIZE and that the port is free and reachable, or raise --dist-timeout",
        env_.rank, env_.world_size, state->serves_store ? "serving the" : "client of the",
        env_.master_addr, env_.master_port, options_.timeout.count() / 1000,
        without_final_period(first_line(e.what())), env_.world_size));
  }
  state_ = std::move(state);
}

Distributed::~Distributed() {
  if (!state_) return;
  if (state_->failed) {
    // After a transport failure the group's worker threads may still be
    // blocked on a dead peer until the timeout: do not join them, let the
    // process exit. (Deliberately leaked; the process is about to end.)
    (void)state_->backend.release();
    (void)state_->store.release();
    return;
  }
  const QuietC10dLogs quiet;
  end_group(*state_->backend, /*failing=*/std::uncaught_exceptions() > 0);
}

std::string Distributed::backend_name() const {
  return state_ ? state_->backend_name : "none";
}

void Distributed::broadcast(std::vector<torch::Tensor> tensors) {
  if (env_.world_size == 1) return;
  torch::NoGradGuard no_grad;
  // One collective per dtype: the tensors flattened into one buffer.
  std::map<torch::ScalarType, std::vector<torch::Tensor>> groups;
  for (auto& t : tensors) groups[t.scalar_type()].push_back(t.detach());
  for (auto& [dtype, group] : groups) {
    std::vector<torch::Tensor> flat_parts;
    for (const auto& t : group) flat_parts.push_back(t.reshape({-1}));
    std::vector<at::Tensor> flat = {torch::cat(flat_parts)};
    try {
      // Not waited for on the host (it runs before every step's forward): a
      // failed NCCL broadcast surfaces, bounded, at the next all-reduce.
      state_->backend->broadcast(flat)->wait();
    } catch (const std::exception& e) {
      fail("broadcast", e);
    }
    if (env_.rank == 0) continue;
    int64_t offset = 0;
    for (auto& t : group) {
      t.copy_(flat[0].narrow(0, offset, t.numel()).view(t.sizes()));
      offset += t.numel();
    }
  }
}

void Distributed::broadcast_module(torch::nn::Module& module) {
  std::vector<torch::Tensor> all = module.parameters();
  for (auto& b : module.buffers()) all.push_back(b);
  broadcast(std::move(all));
}

void Distributed::broadcast_buffers(torch::nn::Module& module) {
  broadcast(module.buffers());
}

PendingCollective Distributed::all_reduce_sum_async(const torch::Tensor& tensor) {
  PendingCollective pending;
  if (env_.world_size == 1) return pending;
  TORCH_CHECK(tensor.is_contiguous(), "all_reduce_sum needs a contiguous tensor");
  pending.impl_ = std::make_unique<PendingCollective::Impl>();
  pending.impl_->owner = this;
  pending.impl_->operation = "all-reduce";
  pending.impl_->tensors = {tensor};
  pending.impl_->backend = state_->backend;
  pending.impl_->timeout = options_.timeout;
  try {
    pending.impl_->work = state_->backend->allreduce(pending.impl_->tensors);
  } catch (const std::exception& e) {
    fail("all-reduce", e);
  }
  return pending;
}

void Distributed::all_reduce_sum(torch::Tensor& tensor) {
  if (env_.world_size == 1) return;
  auto pending = all_reduce_sum_async(tensor);
  pending.wait();
}

std::vector<std::string> Distributed::all_gather_text(const std::string& mine) {
  if (env_.world_size == 1) return {mine};
  const auto on_device = torch::TensorOptions().device(state_->device);
  // The lengths, then every text in its own slot of one buffer (zeros
  // elsewhere, so the sum is the texts side by side).
  torch::Tensor lengths = torch::zeros({env_.world_size}, on_device.dtype(torch::kLong));
  lengths[env_.rank] = static_cast<int64_t>(mine.size());
  all_reduce_sum(lengths);
  const torch::Tensor sizes = lengths.cpu();
  const int64_t slot = std::max<int64_t>(1, sizes.max().item<int64_t>());
  torch::Tensor bytes = torch::zeros({env_.world_size * slot}, torch::kUInt8);
  std::copy(mine.begin(), mine.end(), bytes.data_ptr<uint8_t>() + env_.rank * slot);
  torch::Tensor texts = bytes.to(state_->device);
  all_reduce_sum(texts);
  texts = texts.cpu();
  std::vector<std::string> all;
  for (int r = 0; r < env_.world_size; ++r) {
    const auto* first = texts.data_ptr<uint8_t>() + r * slot;
    all.emplace_back(first, first + sizes[r].item<int64_t>());
  }
  return all;
}

void Distributed::report_failure(const std::string& what) noexcept {
  if (!state_) return;
  QuietC10dLogs quiet;
  try {
    record_failure_cause(*state_->store, env_.rank, what);
  } catch (...) {  // best effort: the store may be gone too
  }
}

void Distributed::fail(const std::string& operation, const std::exception& error) {
  state_->failed = true;
  const std::string cause = first_line(error.what());
  // Roll call: the ranks that have not checked in within a few seconds are named.
  QuietC10dLogs quiet;
  const std::string who = name_failed_ranks(*state_->store, env_.rank, env_.world_size,
                                            env_.use_agent_store, options_.timeout);
  throw std::runtime_error(fmt::format("distributed {} failed on rank {} of {}: {}. Transport: {}",
                                       operation, env_.rank, env_.world_size, who, cause));
}

}  // namespace cifar
