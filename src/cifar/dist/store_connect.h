// store_connect.h: reaching the c10d store at MASTER_ADDR:MASTER_PORT, with
// a bound on every wait: the name's lookup and the store's handshake.
#pragma once

#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include <chrono>
#include <string>

#include "cifar/dist/distributed.h"       // DistEnv
#include "cifar/dist/transport_guards.h"  // QuietC10dLogs

namespace cifar {

// Returns once `host` resolves; throws, naming it and getaddrinfo's reason,
// when it still does not after `timeout`.
void wait_until_resolved(const std::string& host, const DistEnv& env,
                         std::chrono::milliseconds timeout);

// The store (served here when options.isServer), or an error within
// options.timeout and a few seconds more; `quiet` is kept on time-out.
c10::intrusive_ptr<c10d::TCPStore> connect_store(const std::string& host,
                                                 const c10d::TCPStoreOptions& options,
                                                 QuietC10dLogs& quiet);

}  // namespace cifar
