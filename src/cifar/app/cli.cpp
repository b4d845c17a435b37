// cli.cpp: logging set-up and the one place errors become exit codes.
#include "cifar/app/cli.h"

#include <c10/util/Exception.h>
#include <fmt/format.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string_view>

#include "cifar/core/errors.h"

namespace cifar {

void add_log_flags(CLI::App& app, LogOptions& options) {
  app.add_flag("-q,--quiet", options.quiet, "Only warnings and errors")->group("Output");
  app.add_flag("-v,--verbose", options.verbose, "Debug logging and full error traces")
      ->group("Output");
}

void setup_logging(const LogOptions& options) {
  auto logger = spdlog::get("cifar");
  if (!logger) logger = spdlog::stderr_color_mt("cifar");
  spdlog::set_default_logger(logger);
  spdlog::set_pattern("[%H:%M:%S] %^%l%$: %v");
  spdlog::set_level(options.verbose ? spdlog::level::debug
                    : options.quiet ? spdlog::level::warn
                                    : spdlog::level::info);
}

void resolve_data_env(const CLI::App& app, std::string& data_dir) {
  const char* env = std::getenv("CIFAR10_DIR");
  if (app.count("--data") == 0 && env != nullptr && *env != '\0') data_dir = env;
}

DistEnv dist_env_from_environment() {
  std::map<std::string, std::string> vars;
  for (const char* name : kDistEnvVars) {
    if (const char* value = std::getenv(name)) vars[name] = value;
  }
  return parse_dist_env(vars);
}

int64_t omp_num_threads_from_env() {
  const char* value = std::getenv("OMP_NUM_THREADS");
  if (value == nullptr) return 0;
  const std::string_view text(value);
  int64_t n = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  return ec == std::errc() && end == text.data() + text.size() && n > 0 ? n : 0;
}

void check_config_file(const std::string& path) {
  constexpr std::uintmax_t kMaxBytes = 1 << 20;
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (!std::filesystem::exists(status)) {
    throw UsageError(fmt::format("--config {}: no such file", path));
  }
  if (!std::filesystem::is_regular_file(status)) {
    throw UsageError(fmt::format("--config {}: not a regular file; give a TOML file", path));
  }
  const auto size = std::filesystem::file_size(path, ec);
  if (ec || size > kMaxBytes) {
    throw UsageError(
        fmt::format("--config {}: {} bytes, larger than a config file can be ({} bytes)", path,
                    size, kMaxBytes));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError(fmt::format("--config {}: cannot be read (permission denied?)", path));
  int line_number = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_number;
    if (line.find('\0') != std::string::npos || std::any_of(line.begin(), line.end(), [](char ch) {
          return static_cast<unsigned char>(ch) < 0x20 && ch != '\t' && ch != '\r';
        })) {
      throw UsageError(fmt::format("--config {}: line {} holds binary data; give a TOML text file",
                                   path, line_number));
    }
    const auto first = line.find_first_not_of(" \t");
    if (first != std::string::npos && line[first] == '[') {
      throw UsageError(fmt::format(
          "--config {}: line {} starts a section ({}); cifar-train's keys are all at the top "
          "level, e.g. batch-size = 32",
          path, line_number, line.substr(first, 40)));
    }
  }
}

namespace {

// The value of --config on the command line, if any (the last one wins).
std::string config_argument(int argc, char** argv) {
  std::string path;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg(argv[i]);
    if (arg == "--config" && i + 1 < argc) path = argv[++i];
    if (arg.rfind("--config=", 0) == 0) path = std::string(arg.substr(9));
  }
  return path;
}

// CLI11 says "--epochs: must be at least 1, got 0"; we say "--epochs must be ...".
std::string tidy(const std::string& message) {
  const auto colon = message.find(": ");
  if (message.rfind("--", 0) != 0 || colon == std::string::npos) return message;
  const std::string name = message.substr(0, colon);
  const std::string rest = message.substr(colon + 2);
  if (rest.rfind(name, 0) == 0) return rest;
  if (rest.rfind("must ", 0) == 0) return name + " " + rest;
  return message;
}

}  // namespace

int run_cli(CLI::App& app, int argc, char** argv, const LogOptions& log,
            const std::function<int()>& body) {
  setup_logging(log);
  try {
    if (app.get_config_ptr() != nullptr) {
      if (const std::string config = config_argument(argc, argv); !config.empty()) {
        check_config_file(config);
      }
    }
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // Name the config file: its errors otherwise read like command-line ones.
    std::string where;
    if (const CLI::Option* config = app.get_config_ptr();
        config != nullptr && config->count() > 0) {
      where = fmt::format(" (in or with --config {})", config->as<std::string>());
    }
    std::string message = tidy(e.what());
    const std::string unparsed = "INI was not able to parse ";
    if (message.rfind(unparsed, 0) == 0) {  // CLI11's words for an unknown key or a bad line
      message = fmt::format(
          "unknown key or unreadable line '{}'; keys are the long option "
          "names without dashes, e.g. batch-size = 32",
          message.substr(unparsed.size()));
    }
    spdlog::error("{}{}; see {} --help", message, where, app.get_name());
    return 2;
  } catch (const UsageError& e) {
    spdlog::error("{}", e.what());
    return 2;
  }
  setup_logging(log);  // now with the parsed --quiet/--verbose
  try {
    return body();
  } catch (const UsageError& e) {
    spdlog::error("{}", e.what());
    return 2;
  } catch (const Interrupted& e) {
    spdlog::log(e.announce() ? spdlog::level::warn : spdlog::level::debug, "{}", e.what());
    return 130;
  } catch (const c10::Error& e) {
    spdlog::error("{}", first_line(e.what()));
    spdlog::debug("full error:\n{}", e.what());
    return 1;
  } catch (const std::exception& e) {
    spdlog::error("{}", first_line(e.what()));
    spdlog::debug("full error:\n{}", e.what());
    return 1;
  }
}

}  // namespace cifar
