// test_dist_env.cpp: the launcher's environment (torchrun's variables) read
// into a DistEnv (app/dist_env.h): the defaults of one process, and each
// variable malformed, out of range or missing refused naming it.
#include <catch2/catch.hpp>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "cifar/app/dist_env.h"
#include "cifar/core/errors.h"

using namespace cifar;

TEST_CASE("launcher environment", "[dist][app]") {
  CHECK(parse_dist_env({}).world_size == 1);
  CHECK_FALSE(parse_dist_env({}).active());
  CHECK(parse_dist_env({{"WORLD_SIZE", "1"}}).world_size == 1);
  const auto env = parse_dist_env({{"WORLD_SIZE", "4"},
                                   {"RANK", "3"},
                                   {"MASTER_ADDR", "node0"},
                                   {"MASTER_PORT", "29500"},
                                   {"TORCHELASTIC_USE_AGENT_STORE", "True"},
                                   {"TORCHELASTIC_RESTART_COUNT", "2"}});
  CHECK(env.rank == 3);
  CHECK(env.world_size == 4);
  CHECK(env.local_rank == 3);        // RANK when LOCAL_RANK is unset
  CHECK(env.local_world_size == 4);  // WORLD_SIZE when LOCAL_WORLD_SIZE is unset
  CHECK(env.master_addr == "node0");
  CHECK(env.master_port == 29500);
  CHECK(env.use_agent_store);
  CHECK(env.restart_count == 2);
  CHECK_FALSE(parse_dist_env({{"WORLD_SIZE", "2"},
                              {"RANK", "0"},
                              {"MASTER_ADDR", "127.0.0.1"},
                              {"MASTER_PORT", "1234"}})
                  .use_agent_store);

  using Vars = std::map<std::string, std::string>;
  const Vars good = {{"WORLD_SIZE", "2"},
                     {"RANK", "1"},
                     {"LOCAL_RANK", "0"},
                     {"MASTER_ADDR", "127.0.0.1"},
                     {"MASTER_PORT", "29500"}};
  CHECK(parse_dist_env(good).local_rank == 0);
  auto two_nodes = good;
  two_nodes.emplace("LOCAL_WORLD_SIZE", "1");
  CHECK(parse_dist_env(two_nodes).local_world_size == 1);
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"WORLD_SIZE", "0"},      {"WORLD_SIZE", "two"}, {"RANK", "2"},
      {"RANK", "-1"},           {"LOCAL_RANK", "x"},   {"LOCAL_WORLD_SIZE", "3"},
      {"MASTER_PORT", "70000"}, {"MASTER_PORT", "1x"}, {"TORCHELASTIC_USE_AGENT_STORE", "maybe"}};
  for (const auto& [name, value] : bad) {
    auto vars = good;
    vars[name] = value;
    CHECK_THROWS_MATCHES(parse_dist_env(vars), UsageError,
                         Catch::Matchers::Predicate<UsageError>([&](const UsageError& e) {
                           return std::string(e.what()).find(name) != std::string::npos;
                         }));
  }
  for (const char* required : {"RANK", "MASTER_ADDR", "MASTER_PORT"}) {
    auto vars = good;
    vars.erase(required);
    CHECK_THROWS_WITH(parse_dist_env(vars), Catch::Contains(std::string(required) + " is not set"));
  }
}
