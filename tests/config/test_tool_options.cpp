// test_tool_options.cpp: the typed options of cifar-eval, cifar-predict and
// cifar-export (the Model group they share, and each tool's own).
#include <catch2/catch.hpp>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <optional>

#include "cifar/config/config.h"
#include "cifar/core/errors.h"

using namespace cifar;

namespace {
template <class Config>
Config parse_tool(void (*add)(CLI::App&, Config&), std::vector<std::string> args) {
  Config c;
  CLI::App app;
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);  // as the apps
  add(app, c);
  std::reverse(args.begin(), args.end());
  app.parse(args);
  return c;
}
}  // namespace

TEST_CASE("cifar-eval, -predict and -export share typed Model options", "[config]") {
  const auto e = parse_tool(add_eval_options,
                            {"--weights", "w.pt", "-m", "resnet18", "--stem", "imagenet", "--mean",
                             "0.5,0.4,0.3", "--std", "0.2 0.25 0.3", "--tta", "-1", "--json"});
  CHECK(e.weights == "w.pt");
  CHECK(e.model == std::optional<std::string>("resnet18"));
  CHECK(e.stem == ResNetStem::kImageNet);
  REQUIRE(normalization(e));
  CHECK(normalization(e)->mean == Channels{0.5, 0.4, 0.3});
  CHECK(normalization(e)->std == Channels{0.2, 0.25, 0.3});
  CHECK(e.json);
  CHECK_NOTHROW(validate(e));
  const auto p = parse_tool(add_predict_options, {"-c", "m.pt", "-k", "3", "a.png", "b.jpg"});
  CHECK(p.checkpoint == "m.pt");
  CHECK(p.top_k == 3);
  CHECK(p.images == std::vector<std::string>{"a.png", "b.jpg"});
  CHECK_FALSE(p.model);
  const auto x = parse_tool(add_export_options, {"--weights", "w.pt", "-o", "w.safetensors"});
  CHECK(x.out == "w.safetensors");

  auto error = [](auto add, const std::vector<std::string>& args) -> std::string {
    try {
      parse_tool(add, args);
    } catch (const CLI::ParseError& failure) {
      return failure.what();
    }
    return "";
  };
  CHECK_THAT(error(add_eval_options, {"--model", "vgg"}), Catch::Contains("unknown model 'vgg'"));
  CHECK_THAT(error(add_eval_options, {"--stem", "big"}), Catch::Contains("big"));
  CHECK_THAT(error(add_eval_options, {"--mean", "1,2"}), Catch::Contains("--mean takes three"));
  CHECK_THAT(error(add_predict_options, {"-c", "m.pt", "--std", "1,0,1"}),
             Catch::Contains("--std values must be > 0"));
  CHECK_THAT(error(add_predict_options, {"-c", "m.pt", "--top-k", "0", "a.png"}),
             Catch::Contains("--top-k") && Catch::Contains("got 0"));
  CHECK_THAT(error(add_predict_options, {"-c", "m.pt"}), Catch::Contains("images"));
  CHECK_THAT(error(add_export_options, {"-c", "m.pt"}), Catch::Contains("--out"));
  CHECK_THAT(error(add_eval_options, {"--tta", "4"}), Catch::Contains("--tta"));

  // The ranges of a config filled in code (the Model options' checks are
  // resolve/'s: tests/resolve/test_model_input.cpp).
  EvalConfig c;
  c.checkpoint = "m.pt";
  c.batch_size = 0;
  CHECK_THROWS_WITH(validate(c), Catch::Contains("--batch-size must be at least 1, got 0"));
  c.batch_size = 100;
  c.tta = 4;
  CHECK_THROWS_WITH(validate(c), Catch::Contains("--tta"));
  PredictConfig k;
  k.checkpoint = "m.pt";
  k.images = {"a.png"};
  k.top_k = 0;
  CHECK_THROWS_WITH(validate(k), Catch::Contains("--top-k must be at least 1, got 0"));
}
