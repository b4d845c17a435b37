// option_precedence.cpp: the command line's option over the config file's
// other of a pair (option_precedence.h).
#include "cifar/app/option_precedence.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "cifar/app/parse_messages.h"

namespace cifar {

bool given_on_command_line(const CLI::App& app, const char* name) {
  const auto& order = app.parse_order();  // the command line's options only
  return std::find(order.begin(), order.end(), app.get_option_no_throw(name)) != order.end();
}

void settle_run_length(const CLI::App& app, double& time_minutes, int64_t& steps) {
  if (time_minutes <= 0 || steps <= 0) return;
  const bool time = given_on_command_line(app, "--time");
  if (time == given_on_command_line(app, "--steps")) return;
  const std::string file = app.get_config_ptr()->as<std::string>();
  if (time) {
    spdlog::info("--time {:g} replaces --config {}'s steps = {}", time_minutes, file, steps);
    steps = 0;
  } else {
    spdlog::info("--steps {} replaces --config {}'s time = {:g}", steps, file, time_minutes);
    time_minutes = 0;
  }
}

void settle_weights_digest(const CLI::App& app, std::string& init_weights_sha256) {
  if (init_weights_sha256.empty() || !given_on_command_line(app, "--init-weights") ||
      given_on_command_line(app, "--init-weights-sha256") ||
      !set_by_config_file(app, "--init-weights")) {
    return;
  }
  spdlog::info("--init-weights replaces --config {}'s, and so its init-weights-sha256",
               app.get_config_ptr()->as<std::string>());
  init_weights_sha256.clear();
}

}  // namespace cifar
