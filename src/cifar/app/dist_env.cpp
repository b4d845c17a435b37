// dist_env.cpp: the launcher's environment (torchrun's variables) read into a
// DistEnv, with a message naming the variable when one is missing or wrong
// (dist_env.h). The variables come as a map (cli.cpp reads them), so that
// the tests can hand in their own.
#include "cifar/app/dist_env.h"

#include <fmt/format.h>

#include <charconv>
#include <optional>

#include "cifar/core/errors.h"

namespace cifar {
namespace {

using Vars = std::map<std::string, std::string>;

std::optional<std::string> lookup(const Vars& vars, const std::string& name) {
  const auto it = vars.find(name);
  if (it == vars.end()) return std::nullopt;
  return it->second;
}

int parse_int(const Vars& vars, const std::string& name, int lo, int hi, int fallback) {
  const auto text = lookup(vars, name);
  if (!text) return fallback;
  int value = 0;
  const char* end = text->data() + text->size();
  const auto [ptr, ec] = std::from_chars(text->data(), end, value);
  if (ec != std::errc() || ptr != end || value < lo || value > hi) {
    throw UsageError(fmt::format("environment variable {}=\"{}\" is not an integer in {}..{}", name,
                                 *text, lo, hi));
  }
  return value;
}

std::string require(const Vars& vars, const std::string& name, int world_size) {
  auto text = lookup(vars, name);
  if (!text || text->empty()) {
    throw UsageError(fmt::format(
        "WORLD_SIZE={} but {} is not set: start the processes with torchrun, or set RANK, "
        "MASTER_ADDR and MASTER_PORT for each (see docs/distributed.md)",
        world_size, name));
  }
  return *text;
}

}  // namespace

DistEnv parse_dist_env(const Vars& vars) {
  DistEnv env;
  env.world_size = parse_int(vars, "WORLD_SIZE", 1, 1 << 20, 1);
  if (env.world_size == 1) return env;
  (void)require(vars, "RANK", env.world_size);
  env.rank = parse_int(vars, "RANK", 0, env.world_size - 1, 0);
  env.local_rank = parse_int(vars, "LOCAL_RANK", 0, 1 << 20, env.rank);
  env.local_world_size = parse_int(vars, "LOCAL_WORLD_SIZE", 1, env.world_size, env.world_size);
  env.master_addr = require(vars, "MASTER_ADDR", env.world_size);
  (void)require(vars, "MASTER_PORT", env.world_size);
  env.master_port = parse_int(vars, "MASTER_PORT", 1, 65535, 0);
  env.restart_count = parse_int(vars, "TORCHELASTIC_RESTART_COUNT", 0, 1 << 20, 0);
  if (const auto agent = lookup(vars, "TORCHELASTIC_USE_AGENT_STORE")) {
    if (*agent == "True" || *agent == "true" || *agent == "1") {
      env.use_agent_store = true;
    } else if (!(*agent == "False" || *agent == "false" || *agent == "0" || agent->empty())) {
      throw UsageError(fmt::format(
          "environment variable TORCHELASTIC_USE_AGENT_STORE=\"{}\" is not True or False", *agent));
    }
  }
  return env;
}

}  // namespace cifar
