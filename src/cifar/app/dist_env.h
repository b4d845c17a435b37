// dist_env.h: the launcher's environment (torchrun's variables) read into a
// DistEnv (dist/distributed.h), which the app alone reads and passes in.
#pragma once

#include <array>
#include <map>
#include <string>

#include "cifar/dist/distributed.h"

namespace cifar {

// The environment variables parse_dist_env() reads, as torchrun sets them.
inline constexpr std::array<const char*, 8> kDistEnvVars = {"RANK",
                                                            "WORLD_SIZE",
                                                            "LOCAL_RANK",
                                                            "LOCAL_WORLD_SIZE",
                                                            "MASTER_ADDR",
                                                            "MASTER_PORT",
                                                            "TORCHELASTIC_USE_AGENT_STORE",
                                                            "TORCHELASTIC_RESTART_COUNT"};

// From the variables that are set (name -> value; unset ones absent). No
// WORLD_SIZE or WORLD_SIZE=1: a single process. Throws UsageError naming the
// variable and its value when one is malformed, out of range, or missing
// (RANK, MASTER_ADDR and MASTER_PORT are required when WORLD_SIZE > 1).
DistEnv parse_dist_env(const std::map<std::string, std::string>& vars);

}  // namespace cifar
