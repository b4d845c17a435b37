// fuzz_config.cpp: libFuzzer target for cifar-train's settings reader: a
// --config TOML file and the command line over it, as cifar-train parses them.
//
// The input is the file's text, then a NUL byte, then command-line words, one
// per line (for example "--epochs\n010\n--seed\n -1"). Any input must either
// be refused with a usage error (CLI11's ParseError, or UsageError: TOML
// syntax, an unknown key, a number that is not a base-10 integer in range, a
// failed validate()) or give settings that
//   - hold each whole number given on the command line as typed, read in
//     base 10 ("010" is 10, never 8; " -1" is no number), and
//   - survive their own round trip: the TOML that a run saves as
//     config.toml (to_toml) reads back to the same settings, with the same
//     TOML.
// Nothing may crash, hang, or let an exception of another kind escape (ASan
// and UBSan watch the rest).
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cifar/config/config.h"
#include "cifar/config/config_file.h"
#include "cifar/core/errors.h"

namespace {

// One file per process, rewritten for each input.
const std::string& config_path() {
  static const std::string path = [] {
    char name[] = "/tmp/fuzz_config_XXXXXX";
    const int fd = mkstemp(name);
    if (fd < 0) std::abort();
    close(fd);
    return std::string(name);
  }();
  return path;
}

// Parses --config (holding `toml`) and then `args` as cifar-train does, and
// validates; false when refused as a usage error.
bool parse(const std::string& toml, const std::vector<std::string>& args,
           cifar::TrainConfig* config) {
  {
    std::ofstream out(config_path(), std::ios::binary | std::ios::trunc);
    out << toml;
  }
  CLI::App app;
  cifar::add_train_options(app, *config);
  cifar::add_config_option(app, "settings file");
  std::vector<std::string> words{"--config", config_path()};
  words.insert(words.end(), args.begin(), args.end());
  std::reverse(words.begin(), words.end());  // CLI11 takes them last first
  try {
    cifar::check_config_file(config_path());
    app.parse(words);
    cifar::validate(*config);
  } catch (const CLI::ParseError&) {
    return false;
  } catch (const cifar::UsageError&) {
    return false;
  }
  return true;
}

// The saved settings' whole numbers, by key: the lines `key = 123` (and
// `key = "123"`, an unsigned number past int64's range).
std::map<std::string, std::string> saved_integers(const std::string& toml) {
  std::map<std::string, std::string> out;
  for (size_t at = 0; at < toml.size();) {
    const size_t end = std::min(toml.find('\n', at), toml.size());
    const std::string line = toml.substr(at, end - at);
    at = end + 1;
    const size_t eq = line.find(" = ");
    if (line.empty() || line[0] == '#' || eq == std::string::npos) continue;
    std::string value = line.substr(eq + 3);
    const bool quoted = value.size() > 2 && value.front() == '"' && value.back() == '"';
    if (quoted) value = value.substr(1, value.size() - 2);
    const size_t first = !quoted && value.starts_with('-') ? 1 : 0;
    const bool digits =
        value.size() > first && value.find_first_not_of("0123456789", first) == std::string::npos;
    if (digits) out[line.substr(0, eq)] = value;
  }
  return out;
}

// The base-10 value of `text` as a whole, if it is one.
std::optional<__int128> base10(const std::string& text) {
  int64_t s = 0;
  if (auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), s);
      ec == std::errc() && end == text.data() + text.size()) {
    return s;
  }
  uint64_t u = 0;
  if (auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), u);
      ec == std::errc() && end == text.data() + text.size()) {
    return u;
  }
  return std::nullopt;
}

// Each whole-number option given once on the command line, in its long form
// (--key VALUE or --key=VALUE), holds VALUE read in base 10. Skipped where
// short options (-e 3) could also have set it.
void check_numbers_as_typed(const std::vector<std::string>& args, const std::string& saved) {
  for (const auto& word : args) {
    if (word.size() > 1 && word[0] == '-' && std::isalpha(static_cast<unsigned char>(word[1]))) {
      return;
    }
  }
  for (const auto& [key, value] : saved_integers(saved)) {
    const std::string flag = "--" + key;
    std::optional<std::string> typed;
    int seen = 0;
    for (size_t i = 0; i < args.size(); ++i) {
      if (args[i] == flag && i + 1 < args.size()) {
        typed = args[i + 1];
        ++seen;
      } else if (args[i].starts_with(flag + "=")) {
        typed = args[i].substr(flag.size() + 1);
        ++seen;
      }
    }
    if (seen != 1) continue;
    const auto want = base10(*typed);
    if (!want || base10(value) != want) {
      std::fprintf(stderr, "--%s %s was accepted and saved as %s\n", key.c_str(), typed->c_str(),
                   value.c_str());
      std::abort();
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  const size_t nul = input.find('\0');
  const std::string toml = input.substr(0, nul);
  std::vector<std::string> args;
  if (nul != std::string::npos) {
    const std::string rest = input.substr(nul + 1);
    for (size_t at = 0; at <= rest.size();) {
      const size_t end = std::min(rest.find('\n', at), rest.size());
      args.push_back(rest.substr(at, end - at));
      at = end + 1;
    }
  }
  cifar::TrainConfig config;
  if (!parse(toml, args, &config)) return 0;
  const std::string saved = cifar::to_toml(config);
  check_numbers_as_typed(args, saved);
  // What a run saves reads back as the same settings.
  cifar::TrainConfig again;
  if (!parse(saved, {}, &again)) {
    std::fprintf(stderr, "the saved settings were refused:\n%s\n", saved.c_str());
    std::abort();
  }
  if (cifar::to_toml(again) != saved) {
    std::fprintf(stderr, "the saved settings read back differently:\n%s\n---\n%s\n", saved.c_str(),
                 cifar::to_toml(again).c_str());
    std::abort();
  }
  return 0;
}
