// peer_failure.h: what a rank says of the others when a collective fails.
//
// A rank that exits on an error of its own first records the cause in the
// store (record_failure_cause). A rank whose collective failed calls the
// roll (name_failed_ranks): every surviving rank checks in, and whoever has
// not within a few seconds is named, with its recorded cause when it left
// one. Distributed (distributed.h) turns the result into its one-line
// message. The store keys are failure/alive/<rank> and failure/cause/<rank>.
#pragma once

#include <torch/csrc/distributed/c10d/Store.hpp>

#include <chrono>
#include <string>

namespace cifar {

// Records `cause` (its first line) as this rank's reason for leaving. Throws
// what the store throws (the caller makes it best effort).
void record_failure_cause(c10d::Store& store, int rank, const std::string& cause);

// Checks this rank in, then waits up to 3 s (or `timeout`, if shorter) for
// the other ranks of `world_size` to check in too, and says who did not:
// "rank 1 failed: <cause>; rank 2 stopped answering (...)", or that every
// rank still answers. When the store itself no longer answers: that torchrun's
// agent is gone (`agent_store`), or rank 0, which served it. Never throws a
// store error.
std::string name_failed_ranks(c10d::Store& store, int rank, int world_size, bool agent_store,
                              std::chrono::milliseconds timeout);

}  // namespace cifar
