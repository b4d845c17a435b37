// option_suggestion.cpp: see option_suggestion.h.
#include "cifar/config/option_suggestion.h"

#include <algorithm>
#include <vector>

namespace cifar {
namespace {

// The edit distance (insertions, deletions, substitutions) of a and b.
std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

std::string option_name(const std::string& arg) {
  return arg.substr(0, arg.find('='));
}

std::string suggest_option(const CLI::App& app, const std::string& typed, bool config_keys) {
  const std::string name = option_name(typed).substr(2);
  if (name.empty()) return "";
  std::string best;
  std::size_t best_distance = std::max<std::size_t>(2, name.size() / 3) + 1;
  std::vector<std::string> prefixed;
  for (const CLI::Option* opt : app.get_options()) {
    if (config_keys && (!opt->get_configurable() || opt == app.get_help_ptr() ||
                        opt == app.get_version_ptr() || opt == app.get_config_ptr())) {
      continue;
    }
    for (const std::string& candidate : opt->get_lnames()) {
      if (candidate.rfind(name, 0) == 0) prefixed.push_back(candidate);
      const std::size_t d = edit_distance(name, candidate);
      if (d < best_distance) {
        best_distance = d;
        best = candidate;
      }
    }
  }
  if (best.empty() && prefixed.size() == 1) best = prefixed.front();
  return best.empty() ? "" : "--" + best;
}

}  // namespace cifar
