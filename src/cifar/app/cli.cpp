// cli.cpp: logging set-up and the one place errors become exit codes.
#include "cifar/app/cli.h"

#include <c10/util/Exception.h>
#include <fmt/format.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string_view>
#include <thread>

#include "cifar/app/dist_env.h"
#include "cifar/app/help_format.h"
#include "cifar/app/option_precedence.h"
#include "cifar/app/parse_messages.h"
#include "cifar/app/std_streams.h"
#include "cifar/config/config_file.h"
#include "cifar/core/errors.h"
#include "cifar/formats/toml_text.h"

namespace cifar {

void add_log_flags(CLI::App& app, LogOptions& options) {
  app.add_flag("-q,--quiet", options.quiet, "Only warnings and errors")->group("Output");
  app.add_flag("-v,--verbose", options.verbose, "Debug logging and full error traces")
      ->group("Output");
}

void setup_logging(const LogOptions& options) {
  auto logger = spdlog::get("cifar");
  // NO_COLOR (no-color.org): set and not empty, no colour escapes.
  const char* no_color = std::getenv("NO_COLOR");
  const bool plain = no_color != nullptr && no_color[0] != '\0';
  if (!logger) {
    logger = spdlog::stderr_color_mt(
        "cifar", plain ? spdlog::color_mode::never : spdlog::color_mode::automatic);
  }
  spdlog::set_default_logger(logger);
  spdlog::set_pattern("[%H:%M:%S] %^%l%$: %v");
  spdlog::set_level(options.verbose ? spdlog::level::debug
                    : options.quiet ? spdlog::level::warn
                                    : spdlog::level::info);
}

namespace {
// --data as $CIFAR10_DIR gives it: the variable's value when the tool has
// --data and neither the command line nor the config file set it; else "".
std::string data_from_env(const CLI::App& app) {
  const char* env = std::getenv("CIFAR10_DIR");
  const bool has_data = app.get_option_no_throw("--data") != nullptr;
  if (!has_data || app.count("--data") != 0 || env == nullptr) return "";
  return env;
}
}  // namespace

std::filesystem::path spare_cache_dir_from_environment() {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  if (xdg != nullptr && xdg[0] == '/') return std::filesystem::path(xdg) / "cifar-train";
  const char* home = std::getenv("HOME");
  if (home != nullptr && home[0] == '/') {
    return std::filesystem::path(home) / ".cache" / "cifar-train";
  }
  return {};
}

void resolve_data_env(const CLI::App& app, std::string& data_dir) {
  if (std::string env = data_from_env(app); !env.empty()) data_dir = std::move(env);
}

DistEnv dist_env_from_environment() {
  std::map<std::string, std::string> vars;
  for (const char* name : kDistEnvVars) {
    if (const char* value = std::getenv(name)) vars[name] = value;
  }
  return parse_dist_env(vars);
}

void label_logs_with_rank(const DistEnv& env) {
  if (env.world_size == 1) return;
  spdlog::set_pattern(fmt::format("[%H:%M:%S] rank {} %^%l%$: %v", env.rank));
}

MachineEnv machine_env_from_environment() {
  const char* capability = std::getenv("ATEN_CPU_CAPABILITY");
  return {.hardware_threads = static_cast<int64_t>(std::thread::hardware_concurrency()),
          .omp_num_threads = omp_num_threads_from_env(),
          .aten_cpu_capability = capability != nullptr ? capability : ""};
}

int64_t omp_num_threads_from_env() {
  const char* value = std::getenv("OMP_NUM_THREADS");
  if (value == nullptr || *value == '\0') return 0;  // unset, or set empty: the thread rule
  const std::string_view text(value);
  int64_t n = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec == std::errc() && end == text.data() + text.size() && n > 0) return n;
  // Refused, never passed over: a count that was meant and not taken (" 1"
  // ran two threads) is worse than a stop (issue 47).
  throw UsageError(fmt::format(
      "$OMP_NUM_THREADS is '{}', not a whole number of threads above 0{}: set it to one "
      "(OMP_NUM_THREADS=2), or unset it (then --threads, else the rule of the free physical "
      "cores, sets the count)",
      show_bytes(text),
      text.find(',') != std::string_view::npos
          ? " (a list of nested levels, as OpenMP allows; these tools run one level)"
          : ""));
}

bool stderr_draws_bars() {
  const char* term = std::getenv("TERM");
  return ::isatty(STDERR_FILENO) != 0 && !(term != nullptr && std::string_view(term) == "dumb");
}

void set_deterministic_cublas_env() {
  // cuBLAS reads it when its first handle is made, so before training starts;
  // a value the user set is kept (":16:8" is the other one cuBLAS accepts).
  ::setenv("CUBLAS_WORKSPACE_CONFIG", ":4096:8", /*overwrite=*/0);
}

namespace {

std::string elastic_error_json(const std::string& message, int64_t unix_seconds) {
  // torch.distributed.elastic's ErrorHandler.record_exception writes
  // {"message": {"message": ..., "extraInfo": {"py_callstack": ...,
  // "timestamp": "<seconds>"}}}; torchrun's summary shows py_callstack when
  // there is one, else the message.
  const nlohmann::json info = {{"timestamp", std::to_string(unix_seconds)}};
  const nlohmann::json data = {{"message", {{"message", message}, {"extraInfo", info}}}};
  return data.dump();
}

// Logs a failure's one line and returns its exit status; under torchrun also
// writes it where the launcher reads a failed process's cause.
// Whether `message` names `path` as a whole word (not inside another name).
bool names_path(const std::string& message, const std::string& path) {
  const auto edge = [](char c) { return c == ' ' || c == '(' || c == '\'' || c == '"'; };
  for (auto at = message.find(path); at != std::string::npos; at = message.find(path, at + 1)) {
    const size_t end = at + path.size();
    const bool before = at == 0 || edge(message[at - 1]);
    const bool after = end == message.size() || edge(message[end]) || message[end] == ':' ||
                       message[end] == '/' || message[end] == ',' || message[end] == ')';
    if (before && after) return true;
  }
  return false;
}

int failed(const CLI::App& app, int status, const std::string& given) {
  // A failure about the data folder $CIFAR10_DIR named says where it came from.
  const std::string env = data_from_env(app);
  const bool about_env_data =
      !env.empty() && names_path(given, env) && given.find("$CIFAR10_DIR") == std::string::npos;
  const std::string message =
      about_env_data ? fmt::format("{} (--data from $CIFAR10_DIR={})", given, env) : given;
  spdlog::error("{}", message);
  const char* path = std::getenv("TORCHELASTIC_ERROR_FILE");
  if (path == nullptr || *path == '\0') return status;
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  std::ofstream(path, std::ios::trunc)
      << elastic_error_json(message, std::chrono::duration_cast<std::chrono::seconds>(now).count());
  return status;
}

// The status of --help or --version, unless their text never reached the
// standard output (a full disk): that is no success.
int printed(const CLI::App& app, int status) {
  try {
    check_stdout_written("the help or version");
  } catch (const std::exception& e) {
    return failed(app, 1, e.what());
  }
  return status;
}

// app.parse, where --help wins over a value CLI11 refuses: it checks values
// (and reads --config) before it looks for --help.
void parse_for_help(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const std::exception&) {
    const CLI::Option* help = app.get_help_ptr();
    if (help != nullptr && help->count() > 0) throw CLI::CallForHelp();
    throw;
  }
}

// --quiet and --verbose ask for opposite logging: the command line's choice
// overrides the config file's; both on one of them is refused.
void settle_log_flags(const CLI::App& app, int argc, char** argv, LogOptions& log) {
  const bool quiet = given_on_command_line(app, "--quiet") && log.quiet;  // not --quiet=false
  const bool verbose = given_on_command_line(app, "--verbose") && log.verbose;
  if (quiet && !verbose) log.verbose = false;
  if (verbose && !quiet) log.quiet = false;
  if (log.quiet && log.verbose) {
    throw UsageError(fmt::format(
        "--quiet and --verbose ask for opposite logging{}: give one of them",
        quiet || verbose ? ""
                         : fmt::format(" (both set by --config {})", config_argument(argc, argv))));
  }
}

}  // namespace

int run_cli(CLI::App& app, int argc, char** argv, LogOptions& log,
            const std::function<int()>& body) {
  setup_logging(log);
  app.formatter(std::make_shared<HelpFormatter>());
  try {
    if (app.get_config_ptr() != nullptr) check_config_argument(argc, argv);
    parse_for_help(app, argc, argv);
    settle_log_flags(app, argc, argv, log);
  } catch (const CLI::CallForHelp& e) {
    return printed(app, app.exit(e));
  } catch (const CLI::CallForAllHelp& e) {
    return printed(app, app.exit(e));
  } catch (const CLI::CallForVersion& e) {
    return printed(app, app.exit(e));
  } catch (const CLI::ExtrasError& e) {
    const std::string unknown = unknown_option_message(app, argc, argv);
    return failed(app, 2,
                  fmt::format("{}; see {} --help", unknown.empty() ? tidy(e.what()) : unknown,
                              app.get_name()));
  } catch (const ConfigTypeError& e) {  // the file's line, given on the command line or not
    return failed(app, 2,
                  fmt::format("{} (--config {}, line {}); see {} --help", tidy(e.what()),
                              config_argument(argc, argv), e.line(), app.get_name()));
  } catch (const CLI::ParseError& e) {
    // Name the config file: its errors otherwise read like command-line ones.
    const std::string message = tidy(e.what());
    return failed(app, 2,
                  fmt::format("{}{}; see {} --help", message,
                              config_place(app, message, argc, argv), app.get_name()));
  } catch (const ConfigFileError& e) {  // the config file's syntax, sections or keys
    return failed(app, 2, fmt::format("--config {}: {}", config_argument(argc, argv), e.what()));
  } catch (const UsageError& e) {
    return failed(app, 2, e.what());
  }
  setup_logging(log);  // now with the parsed --quiet/--verbose
  try {
    const int status = body();
    check_stdout_written();  // a result that never arrived is no success
    return status;
  } catch (const UsageError& e) {
    return failed(app, 2, e.what() + file_place(app, e.what(), argc, argv));
  } catch (const Interrupted& e) {
    spdlog::log(e.announce() ? spdlog::level::warn : spdlog::level::debug, "{}", e.what());
    return 130;
  } catch (const c10::Error& e) {
    const int status = failed(app, 1, first_line(e.what()));
    spdlog::debug("full error:\n{}", e.what());
    return status;
  } catch (const std::exception& e) {
    const int status = failed(app, 1, first_line(e.what()));
    spdlog::debug("full error:\n{}", e.what());
    return status;
  }
}

}  // namespace cifar
