// store_connect.cpp: the c10d store's connection, bounded (store_connect.h).
#include "cifar/dist/store_connect.h"

#include <fmt/format.h>
#include <netdb.h>  // getaddrinfo

#include <future>
#include <stdexcept>
#include <thread>

namespace cifar {
namespace {
constexpr std::chrono::seconds kStoreGrace{5};  // past --dist-timeout, for the handshake
}  // namespace

// A MASTER_ADDR that names no host (a typo, a name this machine's resolver
// does not know) is named as such once --dist-timeout has passed, rather than
// reported as a store that never answered. Asked again until then, as c10d
// does: a cluster's name for rank 0 may resolve only once rank 0 is up (a
// Kubernetes headless service), or the resolver may fail for a moment.
void wait_until_resolved(const std::string& host, const DistEnv& env,
                         std::chrono::milliseconds timeout) {
  const auto until = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    addrinfo hints{};
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* found = nullptr;
    const int err = ::getaddrinfo(host.c_str(), nullptr, &hints, &found);
    if (found != nullptr) ::freeaddrinfo(found);
    if (err == 0) return;
    if (std::chrono::steady_clock::now() >= until) {
      throw std::runtime_error(fmt::format(
          "distributed set-up failed on rank {} of {}: MASTER_ADDR {} names no host this "
          "machine could find within --dist-timeout {} s ({}): give rank 0's address, or a name "
          "that resolves here (127.0.0.1 when every process runs on this machine)",
          env.rank, env.world_size, host, timeout.count() / 1000, ::gai_strerror(err)));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
}

// The TCPStore, made on a thread of its own and waited for at most
// --dist-timeout and kStoreGrace: its connection retries end at the timeout,
// but its handshake then waits for the server's reply with no bound, so a
// MASTER_ADDR:MASTER_PORT that accepts connections and never answers would
// hold this process forever. On time-out the thread is left behind (blocked
// in a read or still retrying; the process is about to end with the error)
// and c10d stays quiet: when that thread gives up it logs its exception with
// a C++ stack trace.
c10::intrusive_ptr<c10d::TCPStore> connect_store(const std::string& host,
                                                 const c10d::TCPStoreOptions& options,
                                                 QuietC10dLogs& quiet) {
  std::packaged_task<c10::intrusive_ptr<c10d::TCPStore>()> task(
      [host, options] { return c10::make_intrusive<c10d::TCPStore>(host, options); });
  auto result = task.get_future();
  std::thread(std::move(task)).detach();
  const auto limit = std::chrono::duration_cast<std::chrono::milliseconds>(options.timeout) +
                     std::chrono::milliseconds(kStoreGrace);
  if (result.wait_for(limit) == std::future_status::timeout) {
    quiet.keep();
    throw std::runtime_error(fmt::format(
        "no answer from the store at {}:{} within {} s (--dist-timeout and {} s more): nothing "
        "there answered as a c10d store (rank 0, which serves it, not started yet, or another "
        "program on that port?)",
        host, options.port, limit.count() / 1000, kStoreGrace.count()));
  }
  return result.get();
}

}  // namespace cifar
