// help_format.h: --help that fits a terminal of 80 columns, and a suggestion
// for a mistyped option.
//
// CLI11's own formatter writes each option's description on one line,
// however long (up to 198 columns in cifar-train's help). HelpFormatter
// keeps CLI11's layout (the name and value column, then the description)
// and wraps the description at word boundaries under its column, so every
// line fits `width`. unknown_option_message() names a mistyped option and
// the one it most likely meant (config/option_suggestion.h).
#pragma once

#include <CLI/CLI.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace cifar {

// `text`'s words in lines of at most `width` characters (a longer word gets
// a line of its own); line breaks in `text` are kept.
std::vector<std::string> wrap_words(const std::string& text, std::size_t width);

class HelpFormatter : public CLI::Formatter {
 public:
  explicit HelpFormatter(std::size_t width = 80);
  std::string make_option(const CLI::Option* opt, bool is_positional) const override;
  // "--augment,--no-augment": CLI11's names without the value a flag's
  // negated name gives ("{false}").
  std::string make_option_name(const CLI::Option* opt, bool is_positional) const override;
  std::string make_description(const CLI::App* app) const override;

 private:
  std::size_t width_;
};

// For a command line CLI11 refused with "arguments were not expected": its
// first unknown "--option", with a "did you mean" when suggest_option finds
// one ("unknown option --epoch: did you mean --epochs?"); "" when every
// "--" argument is a known option.
std::string unknown_option_message(const CLI::App& app, int argc, char** argv);

}  // namespace cifar
