// distributed.h: data-parallel training on torch.distributed's own engine (c10d).
//
// DistEnv is what a launcher (torchrun, or plain environment variables) says
// about this process: its rank, the world size, where the rendezvous store
// lives. The apps read the environment and pass the values in
// (app/dist_env.h); the library never calls getenv. Distributed sets up a c10d TCPStore (a client
// when torchrun's agent already serves one, else rank 0 serves it) wrapped in a PrefixStore, and a
// process group on it: ProcessGroupGloo on the CPU, ProcessGroupNCCL on CUDA. With one process (no
// WORLD_SIZE, or 1) nothing is set up and every collective returns at once: the same code path,
// no-ops.
//
// Every collective either completes or throws one std::runtime_error line
// naming the rank(s) that stopped answering and the cause as the transport
// reported it, within the --dist-timeout at worst, never hanging (NCCL's
// exchanges are watched from the host for that: work_wait.h). An error
// that the transport raises on a thread of its own (gloo checks the sizes of
// what arrives on its event loop, where nothing can catch it) ends the
// process with one error line and exit status 1, not std::terminate's abort.
#pragma once

#include <torch/torch.h>

#include <array>
#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace cifar {

struct DistEnv {
  int rank = 0;
  int world_size = 1;
  int local_rank = 0;  // GPU index on this machine; RANK when LOCAL_RANK is unset
  // Processes on this machine (they share its cores); WORLD_SIZE when unset.
  int local_world_size = 1;
  std::string master_addr;
  int master_port = 0;
  bool use_agent_store = false;  // torchrun's agent serves the store: every rank is a client
  int restart_count = 0;         // torchrun's restart attempt (keys are kept apart per attempt)

  bool active() const { return world_size > 1; }
};

struct DistOptions {
  std::chrono::milliseconds timeout{std::chrono::seconds(300)};  // --dist-timeout
  int gloo_threads = 2;  // gloo's worker threads (collectives in flight at once)
};

// A collective launched but not yet waited for. wait() throws the one-line
// failure message described above.
class PendingCollective {
 public:
  PendingCollective();
  ~PendingCollective();
  PendingCollective(PendingCollective&&) noexcept;
  PendingCollective& operator=(PendingCollective&&) noexcept;
  void wait();

 private:
  friend class Distributed;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

class Distributed {
 public:
  // Joins the group (blocks until every rank has arrived, at most
  // options.timeout). A CUDA device uses NCCL on device env.local_rank (made
  // current first); otherwise gloo on the CPU. Throws std::runtime_error with
  // one line when a peer never arrives or the store cannot be reached.
  Distributed(const DistEnv& env, torch::Device device, DistOptions options = {});
  ~Distributed();
  Distributed(const Distributed&) = delete;
  Distributed& operator=(const Distributed&) = delete;

  int rank() const { return env_.rank; }
  int world_size() const { return env_.world_size; }
  bool is_main() const { return env_.rank == 0; }  // logs, writes checkpoints and reports
  const DistEnv& env() const { return env_; }
  // "gloo", "nccl", or "none" with one process.
  std::string backend_name() const;

  // Every parameter and buffer of `module` takes rank 0's value (identical
  // start, and after a resume).
  void broadcast_module(torch::nn::Module& module);
  // Every buffer (BatchNorm running statistics) takes rank 0's value: call
  // before each training forward, as DDP does by default.
  void broadcast_buffers(torch::nn::Module& module);
  // Rank 0's values into `tensors` on every rank, flattened per dtype.
  void broadcast(std::vector<torch::Tensor> tensors);

  // Every rank's `mine`, by rank (texts of any length), in two fixed-size
  // collectives: for comparing what the ranks were started with before any
  // training collective. One process: {mine}.
  std::vector<std::string> all_gather_text(const std::string& mine);

  // In place: the element-wise sum over ranks (confusion matrix, loss sum).
  void all_reduce_sum(torch::Tensor& tensor);
  // The same, launched in the background; `tensor` must stay alive and
  // untouched until wait() returns.
  PendingCollective all_reduce_sum_async(const torch::Tensor& tensor);

  // Best effort, before this rank exits on an error of its own: records the
  // cause in the store, so the others can name it in their message.
  void report_failure(const std::string& what) noexcept;

 private:
  friend class PendingCollective;
  struct State;
  // Turns a transport error into the one line: which ranks stopped answering.
  [[noreturn]] void fail(const std::string& operation, const std::exception& error);

  DistEnv env_;
  DistOptions options_;
  std::unique_ptr<State> state_;  // null with one process
};

}  // namespace cifar
