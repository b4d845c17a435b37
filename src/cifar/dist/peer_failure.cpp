// peer_failure.cpp: the failure roll call in the c10d store, which names the
// ranks that stopped answering when a collective fails (see peer_failure.h).
#include "cifar/dist/peer_failure.h"

#include <fmt/format.h>

#include <algorithm>
#include <exception>
#include <thread>
#include <vector>

#include "cifar/core/errors.h"

namespace cifar {

void record_failure_cause(c10d::Store& store, int rank, const std::string& cause) {
  store.set(fmt::format("failure/cause/{}", rank), first_line(cause));
}

std::string name_failed_ranks(c10d::Store& store, int rank, int world_size, bool agent_store,
                              std::chrono::milliseconds timeout) {
  std::string who;
  try {
    store.set(fmt::format("failure/alive/{}", rank), "1");
    const auto grace = std::min<std::chrono::milliseconds>(std::chrono::seconds(3), timeout);
    const auto deadline = std::chrono::steady_clock::now() + grace;
    std::vector<int> missing;
    for (;;) {
      missing.clear();
      for (int r = 0; r < world_size; ++r) {
        if (r != rank && !store.check({fmt::format("failure/alive/{}", r)})) {
          missing.push_back(r);
        }
      }
      if (missing.empty() || std::chrono::steady_clock::now() >= deadline) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    for (int r : missing) {
      if (!who.empty()) who += "; ";
      const auto key = fmt::format("failure/cause/{}", r);
      if (store.check({key})) {
        const auto bytes = store.get(key);
        who += fmt::format("rank {} failed: {}", r, std::string(bytes.begin(), bytes.end()));
      } else {
        who += fmt::format(
            "rank {} stopped answering (killed, out of memory, or its machine is "
            "gone: see its own output)",
            r);
      }
    }
    if (who.empty()) who = "every rank still answers (a network fault, or a collective timed out)";
  } catch (const std::exception&) {
    who = agent_store ? "the launcher's store no longer answers (torchrun's agent is gone)"
                      : "rank 0 stopped answering (the store it served is gone: killed, out of "
                        "memory, or its machine is gone: see its own output)";
  }
  return who;
}

}  // namespace cifar
