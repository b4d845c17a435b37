// test_cli_data_env.cpp: resolve_data_env (app/cli.h), where the tools look
// for the data: --data (on the command line or in a config file), else
// $CIFAR10_DIR when set and not empty, else the flag's default.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "cifar/app/cli.h"
#include "test_helpers.h"

using namespace cifar;

namespace {

// Sets (or, with nullopt, unsets) CIFAR10_DIR for a scope; puts back what it found.
class Cifar10DirEnv {
 public:
  explicit Cifar10DirEnv(const std::optional<std::string>& value) {
    if (const char* old = std::getenv(kName)) old_ = old;
    if (value) {
      ::setenv(kName, value->c_str(), 1);
    } else {
      ::unsetenv(kName);
    }
  }
  ~Cifar10DirEnv() {
    if (old_) {
      ::setenv(kName, old_->c_str(), 1);
    } else {
      ::unsetenv(kName);
    }
  }
  Cifar10DirEnv(const Cifar10DirEnv&) = delete;
  Cifar10DirEnv& operator=(const Cifar10DirEnv&) = delete;

 private:
  static constexpr const char* kName = "CIFAR10_DIR";
  std::optional<std::string> old_;
};

// The data folder a tool ends with for these arguments, as cifar-train and
// cifar-eval do it: parse, then resolve_data_env.
std::string data_dir_after(std::vector<std::string> args) {
  CLI::App app("test");
  std::string data_dir = "data/cifar-10-batches-bin";
  app.add_option("--data", data_dir);
  app.set_config("--config");
  args.insert(args.begin(), "tool");
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  app.parse(static_cast<int>(argv.size()), argv.data());
  resolve_data_env(app, data_dir);
  return data_dir;
}

}  // namespace

TEST_CASE("the data folder: --data, else CIFAR10_DIR, else the default", "[cli]") {
  {
    const Cifar10DirEnv env("/env");
    CHECK(data_dir_after({}) == "/env");
    CHECK(data_dir_after({"--data", "/flag"}) == "/flag");
    // --data in a config file counts as given.
    test::TempDir dir;
    const auto config = dir.path() / "run.toml";
    std::ofstream(config) << "data = \"/from-config\"\n";
    CHECK(data_dir_after({"--config", config.string()}) == "/from-config");
  }
  {
    const Cifar10DirEnv env("");  // set but empty: ignored
    CHECK(data_dir_after({}) == "data/cifar-10-batches-bin");
  }
  {
    const Cifar10DirEnv env(std::nullopt);
    CHECK(data_dir_after({}) == "data/cifar-10-batches-bin");
    CHECK(data_dir_after({"--data", "/flag"}) == "/flag");
  }
}
