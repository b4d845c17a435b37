// test_config_file.cpp: --config files read as TOML 1.0 (TomlConfig), through
// a CLI11 app as the tools declare it: what CLI11's own reader got wrong,
// errors with their line, and the command line over the file.
#include <catch2/catch.hpp>

#include <CLI/CLI.hpp>
#include <fstream>

#include "cifar/config/config_file.h"
#include "cifar/formats/toml_text.h"
#include "test_helpers.h"

using namespace cifar;

namespace {
struct Settings {
  std::string run_dir, checkpoint;
  int64_t epochs = 2;
  double lr = 0.001;
  bool augment = false;
};

// Parses --config FILE and then `args`, FILE holding `toml`.
Settings read(const std::string& toml, std::vector<std::string> args = {}) {
  test::TempDir dir;
  const auto path = dir.path() / "c.toml";
  std::ofstream(path, std::ios::binary) << toml;
  Settings s;
  CLI::App app;
  add_config_option(app, "config");
  app.add_option("--run-dir", s.run_dir);
  app.add_option("-o,--checkpoint", s.checkpoint);
  app.add_option("-e,--epochs", s.epochs);
  app.add_option("--lr", s.lr);
  app.add_flag("--augment,!--no-augment", s.augment);  // as config/option_visitors.h declares flags
  args.insert(args.begin(), {"--config", path.string()});
  std::reverse(args.begin(), args.end());
  app.parse(args);
  return s;
}

// The ConfigFileError's message (a UsageError), or "" when the file was read.
std::string error_of(const std::string& toml) {
  try {
    read(toml);
  } catch (const ConfigFileError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("a config file is TOML: '#' in strings, escapes, literal and multi-line strings",
          "[config_file]") {
  const Settings s = read(
      "run-dir = \"runs/#1 \\\"x\\\"\\t\\u00e9\"  # a comment\n"
      "checkpoint = '''C:\\m\n#2.pt'''\n"
      "epochs = 0x0A\n"
      "lr = 1e-2\n"
      "augment = true\n");
  CHECK(s.run_dir == "runs/#1 \"x\"\t\u00e9");
  CHECK(s.checkpoint == "C:\\m\n#2.pt");
  CHECK(s.epochs == 10);
  CHECK(s.lr == 0.01);
  CHECK(s.augment);
}

// Issue 47, class 5: a quoted "0.5" was read as the number 0.5. Each kind of
// option takes its own TOML type, and no other: refused naming the option.
TEST_CASE("a config file's values have their option's type exactly", "[config_file]") {
  const auto refusal = [](const std::string& toml) -> std::string {
    try {
      read(toml);
    } catch (const ConfigTypeError& e) {
      return e.what();
    }
    return "";
  };
  CHECK_THAT(refusal("epochs = \"7\"\n"), Catch::Contains("--epochs") &&
                                              Catch::Contains("must be a whole number, unquoted") &&
                                              Catch::Contains("not a string: epochs = \"7\""));
  CHECK_THAT(refusal("epochs = 7.0\n"), Catch::Contains("not a float: epochs = 7.0"));
  CHECK_THAT(refusal("epochs = true\n"), Catch::Contains("not a boolean"));
  CHECK_THAT(refusal("lr = \"0.5\"\n"),
             Catch::Contains("--lr") && Catch::Contains("must be a number, unquoted (lr = 0.5)"));
  CHECK_THAT(refusal("lr = false\n"), Catch::Contains("--lr"));
  CHECK_THAT(refusal("augment = \"true\"\n"),
             Catch::Contains("--augment") && Catch::Contains("must be true or false"));
  CHECK_THAT(refusal("augment = 1\n"), Catch::Contains("not an integer"));
  CHECK_THAT(refusal("run-dir = 3\n"),
             Catch::Contains("--run-dir") && Catch::Contains("must be a quoted string"));
  // Refused even where the command line gives the option again: the file is wrong.
  CHECK_THROWS_AS(read("lr = 'C'\n", {"--lr", "0.5"}), ConfigTypeError);
  try {  // the line it is on
    read("epochs = 3\n\nlr = '0.5'\n");
    FAIL("lr = '0.5' was read");
  } catch (const ConfigTypeError& e) {
    CHECK(e.line() == 3);
  }
  // What each type takes.
  CHECK(read("lr = 1\n").lr == 1);  // an integer is a number
  CHECK(read("lr = 1e-2 # c\nepochs = 7\naugment = false\nrun-dir = 'C'\n").run_dir == "C");
}

TEST_CASE("the command line overrides the config file", "[config_file]") {
  const Settings s = read("epochs = 5\nrun-dir = 'from file'\n", {"--epochs", "9"});
  CHECK(s.epochs == 9);
  CHECK(s.run_dir == "from file");
}

TEST_CASE("a UTF-8 byte-order mark at the start of a config file is accepted", "[config_file]") {
  CHECK(read("\xEF\xBB\xBF"
             "epochs = 4\n")
            .epochs == 4);
  CHECK(read("\xEF\xBB\xBF"
             "run-dir = 'é'\n")
            .run_dir == "é");
}

TEST_CASE("config file errors say the line", "[config_file]") {
  CHECK_THAT(error_of("epochs = 1\nlr = 0.1.2\n"), Catch::StartsWith("line 2, column "));
  CHECK_THAT(error_of("this is not toml\n"), Catch::StartsWith("line 1, column "));
  CHECK_THAT(error_of("run-dir = \"unterminated\nepochs = 1\n"), Catch::StartsWith("line 1"));
  CHECK_THAT(error_of("epochs = 1\nepochs = 2\n"), Catch::StartsWith("line 2"));
  CHECK_THAT(error_of("epochs = 1\nrun-dir = \"caf\xe9\"\n"), Catch::StartsWith("line 2"));
  CHECK(error_of("epochs = 1\n\n[train]\nlr = 1\n") ==
        "line 3 starts a section ([train]); keys are all at the top level, e.g. batch-size = 32");
  CHECK_THAT(error_of("train.epochs = 1\n"),
             Catch::StartsWith("line 1: 'train' is a table") && Catch::Contains("top level"));
  CHECK_THAT(error_of("epochs = [1, 2]\n"), Catch::StartsWith("line 1: 'epochs' is an array"));
  CHECK_THAT(error_of("epochs = 1\nlr = 1979-05-27\n"),
             Catch::StartsWith("line 2: 'lr' is a date"));
  CHECK(error_of("epochs = 1\n# note\nlearning-rate = 0.1\n") ==
        "line 3: unknown key 'learning-rate'; keys are the long option names without dashes, "
        "e.g. batch-size = 32");
  // A key close to one: the one it likely meant, as a mistyped option gets.
  CHECK(error_of("epoch = 1\n") == "line 1: unknown key 'epoch': did you mean epochs = ...?");
  CHECK(error_of("run_dir = 'r'\n") ==
        "line 1: unknown key 'run_dir': did you mean run-dir = ...?");
  // Only a key a config file may hold is offered: not --help or --config.
  CHECK_THAT(error_of("hepl = true\n"), !Catch::Contains("did you mean"));
  CHECK_THAT(error_of("confg = 'c.toml'\n"), !Catch::Contains("did you mean"));
}

TEST_CASE("a value TOML cannot hold is refused saying what its key takes", "[config_file]") {
  // An array or a date: the key's own type, with an example.
  CHECK(error_of("epochs = [1, 2]\n") ==
        "line 1: 'epochs' is an array; each key takes one value: here a whole number, unquoted "
        "(epochs = 10)");
  CHECK(error_of("lr = [0.1]\n") ==
        "line 1: 'lr' is an array; each key takes one value: here a number, unquoted (lr = 0.5)");
  CHECK(error_of("run-dir = 1979-05-27\n") ==
        "line 1: 'run-dir' is a date or time: here a quoted string (run-dir = \"text\")");
  // A bare word: quotes for text, the type for the others (toml++ said
  // "Error while parsing floating-point: expected 'nan', saw 'ne'").
  CHECK(error_of("checkpoint = net.pt # the small one\n") ==
        "line 1: checkpoint = net.pt: text needs quotes in TOML: checkpoint = \"net.pt\"");
  CHECK(error_of("epochs = 1\nrun-dir = /tmp/runs\n") ==
        "line 2: run-dir = /tmp/runs: text needs quotes in TOML: run-dir = \"/tmp/runs\"");
  CHECK(error_of("epochs = ten\n") ==
        "line 1: epochs = ten: here a whole number, unquoted (epochs = 10)");
  CHECK(error_of("augment = yes\n") ==
        "line 1: augment = yes: here true or false (augment = true)");
  CHECK_THAT(error_of("epochs = 1.2.3\n"), Catch::StartsWith("line 1, column "));
  // A quoted key is the key; a '#' inside the word is the word's; TOML's own
  // words and dotted keys are left to toml++'s message.
  CHECK(error_of("\"checkpoint\" = net.pt\n") ==
        "line 1: checkpoint = net.pt: text needs quotes in TOML: checkpoint = \"net.pt\"");
  CHECK(error_of("run-dir = /tmp/a#b\n") ==
        "line 1: run-dir = /tmp/a#b: text needs quotes in TOML: run-dir = \"/tmp/a#b\"");
  CHECK_THAT(error_of("lr = 0.1\nlr = inf\n"),
             Catch::StartsWith("line 2") && !Catch::Contains("here a number"));
  CHECK_THAT(error_of("train.epochs = ten\n"), Catch::StartsWith("line 1, column "));
  // toml++'s words without a fix get one.
  CHECK_THAT(error_of("lr = 0.1\n\"lr\" = 0.2\n"),
             Catch::StartsWith("line 2") && Catch::Contains("(a key set twice, maybe once quoted"));
  CHECK_THAT(error_of("batch-size = 99999999999999999999\n"),
             Catch::StartsWith("line 1") &&
                 Catch::EndsWith("(a number out of the range TOML holds; the option's own range "
                                 "is in --help)"));
  // An unknown key is named first, whatever its value.
  CHECK_THAT(error_of("mean = [1, 2, 3]\n"), Catch::StartsWith("line 1: unknown key 'mean'"));
  CHECK_THAT(error_of("mean = net\n"), Catch::StartsWith("line 1: unknown key 'mean'"));
}

TEST_CASE("a config file holds settings: not help or config, and each option once",
          "[config_file]") {
  CHECK(error_of("help = true\n") ==
        "line 1: 'help' is no setting: a config file holds a run's options; give --help on the "
        "command line");
  CHECK_THAT(error_of("epochs = 1\nconfig = 'c.toml'\n"),
             Catch::StartsWith("line 2: 'config' is no setting"));
  // A flag and its --no- form are one option: both in one file is refused
  // (the first was kept without a word).
  CHECK(error_of("augment = true\nepochs = 1\nno-augment = true\n") ==
        "line 3: 'no-augment' sets what 'augment' on line 1 sets: keep one");
  CHECK(read("no-augment = false\n").augment);
  CHECK_FALSE(read("no-augment = true\n").augment);
}

TEST_CASE("TOML text: UTF-8 checks, quoting, floats", "[config_file]") {
  CHECK(is_utf8("plain, é, 日本語, 🙂"));
  CHECK_FALSE(is_utf8("caf\xe9"));
  CHECK_FALSE(is_utf8("\xc0\xaf"));          // overlong '/'
  CHECK_FALSE(is_utf8("\xed\xa0\x80"));      // a UTF-16 surrogate
  CHECK_FALSE(is_utf8("\xf4\x90\x80\x80"));  // above U+10FFFF
  CHECK_FALSE(is_utf8("\xe6\x97"));          // cut short
  CHECK(show_bytes("caf\xe9 é") == "caf\\xE9 é");
  CHECK(toml_string("a#b \"c\"\n\t\\ é") == "\"a#b \\\"c\\\"\\n\\t\\\\ é\"");
  CHECK_THROWS_AS(toml_string("caf\xe9"), std::invalid_argument);
  CHECK(toml_float(10) == "10.0");
  CHECK(toml_float(0.001) == "0.001");
  CHECK(toml_float(0.123456789012345) == "0.123456789012345");
}
