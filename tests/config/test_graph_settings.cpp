// test_graph_settings.cpp: what --cuda-graph cannot run is refused by
// validate(), on every device, before a run starts (issue 32): the CPU, where
// --cuda-graph only warns, must refuse what a GPU run would.
#include <catch2/catch.hpp>

#include <string>

#include "cifar/config/config.h"
#include "cifar/core/errors.h"
#include "config/parse_train.h"

using namespace cifar;
using test::parse;

namespace {
std::string config_file(const std::string& name) {
  return std::string(CIFAR_SOURCE_DIR) + "/configs/" + name;
}
}  // namespace

TEST_CASE("the airbench94 recipe with --cuda-graph is refused on every device", "[config]") {
  for (const char* device : {"cpu", "cuda", "auto"}) {
    INFO(device);
    const TrainConfig c =
        parse({"--config", config_file("airbench94.toml"), "--cuda-graph", "--device", device});
    CHECK_THROWS_AS(validate(c), UsageError);
    CHECK_THROWS_WITH(validate(c),
                      Catch::Contains("--cuda-graph captures one SGD parameter group") &&
                          Catch::Contains("airbench94 recipe trains four") &&
                          Catch::Contains("drop --cuda-graph"));
  }
  CHECK_THROWS_AS(validate(parse({"--recipe", "airbench94", "--cuda-graph"})), UsageError);
  CHECK_NOTHROW(validate(parse({"--config", config_file("airbench94.toml")})));
}

TEST_CASE("the classic recipe with --cuda-graph is accepted, as the GPU kit runs it", "[config]") {
  // scripts/gpu/check_steps.sh's graph steps: configs/resnet18.toml and the
  // tutorial's network at batch 4 (scripts/bench/run_bench.py's net-b4-gpu).
  CHECK_NOTHROW(validate(parse({"--config", config_file("resnet18.toml"), "--cuda-graph"})));
  CHECK_NOTHROW(validate(parse({"--config", config_file("tutorial.toml"), "--cuda-graph"})));
  CHECK_NOTHROW(validate(parse({"--model", "airbench94", "--recipe", "classic", "--cuda-graph"})));
}
