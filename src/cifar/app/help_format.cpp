// help_format.cpp: wrapped --help, and the option a typo meant (help_format.h).
#include "cifar/app/help_format.h"

#include <fmt/format.h>

#include <algorithm>
#include <sstream>

#include "cifar/config/option_suggestion.h"

namespace cifar {

std::vector<std::string> wrap_words(const std::string& text, std::size_t width) {
  std::vector<std::string> lines;
  std::istringstream paragraphs(text);
  std::string paragraph;
  while (std::getline(paragraphs, paragraph)) {
    std::istringstream words(paragraph);
    std::string word;
    std::string line;
    while (words >> word) {
      if (!line.empty() && line.size() + 1 + word.size() > width) {
        lines.push_back(line);
        line.clear();
      }
      line += (line.empty() ? "" : " ") + word;
    }
    lines.push_back(line);
  }
  return lines;
}

HelpFormatter::HelpFormatter(std::size_t width) : width_(width) {
  column_width(30);
}

std::string HelpFormatter::make_option(const CLI::Option* opt, bool is_positional) const {
  const std::string left = "  " + make_option_name(opt, is_positional) + make_option_opts(opt);
  const std::string description = make_option_desc(opt);
  const std::size_t column = get_column_width();
  std::string out;
  std::vector<std::string> lines = wrap_words(description, width_ - column);
  if (left.size() >= column) {  // the name and value on lines of their own
    const std::vector<std::string> parts = wrap_words(left.substr(2), width_ - 6);
    for (std::size_t i = 0; i < parts.size(); ++i)
      out += (i == 0 ? "  " : "      ") + parts[i] + "\n";
  } else if (!lines.empty()) {
    out = fmt::format("{:<{}}{}\n", left, column, lines.front());
    lines.erase(lines.begin());
  } else {
    return left + "\n";
  }
  for (const std::string& line : lines) out += fmt::format("{:<{}}{}\n", "", column, line);
  return out;
}

std::string HelpFormatter::make_option_name(const CLI::Option* opt, bool is_positional) const {
  std::string name = CLI::Formatter::make_option_name(opt, is_positional);
  for (std::size_t open; (open = name.find('{')) != std::string::npos;) {
    const std::size_t close = name.find('}', open);
    if (close == std::string::npos) break;
    name.erase(open, close - open + 1);
  }
  return name;
}

std::string HelpFormatter::make_description(const CLI::App* app) const {
  const std::string description = app->get_description();
  if (description.empty()) return "";
  std::string out;
  for (const std::string& line : wrap_words(description, width_)) out += line + "\n";
  return out + "\n";
}

std::string unknown_option_message(const CLI::App& app, int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--") break;
    if (arg.size() < 3 || arg.rfind("--", 0) != 0) continue;
    const std::string name = option_name(arg);
    if (app.get_option_no_throw(name) != nullptr) continue;
    const std::string suggestion = suggest_option(app, name);
    return suggestion.empty()
               ? fmt::format("unknown option {}", name)
               : fmt::format("unknown option {}: did you mean {}?", name, suggestion);
  }
  return "";
}

}  // namespace cifar
