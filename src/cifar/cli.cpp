// cli.cpp: logging set-up and the one place errors become exit codes.
#include "cifar/cli.h"

#include <c10/util/Exception.h>
#include <fmt/format.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "cifar/errors.h"

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

int run_cli(CLI::App& app, int argc, char** argv, const LogOptions& log,
            const std::function<int()>& body) {
  setup_logging(log);
  try {
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
    std::string message = e.what();
    const std::string unparsed = "INI was not able to parse ";
    if (message.rfind(unparsed, 0) == 0) {  // CLI11's words for an unknown key or a bad line
      message = fmt::format(
          "unknown key or unreadable line '{}'; keys are the long option "
          "names without dashes, e.g. batch-size = 32",
          message.substr(unparsed.size()));
    }
    spdlog::error("{}{}; see {} --help", message, where, app.get_name());
    return 2;
  }
  setup_logging(log);  // now with the parsed --quiet/--verbose
  try {
    return body();
  } catch (const UsageError& e) {
    spdlog::error("{}", e.what());
    return 2;
  } catch (const Interrupted& e) {
    spdlog::error("{}", e.what());
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
