// cifar-tensorboard-sample DIR: writes one event file with every kind of
// record the trainer writes (scalars, the confusion heat map, text, hparams,
// and three epochs through write_tensorboard_epoch() beside a metrics.csv of the
// same epochs) and prints, as JSON on stdout, what it wrote, for
// tests/cli/tensorboard_events.sh to compare with TensorBoard's own reader.
// The train/loss scalars come last, so a test can cut the final record.
#include <iostream>
#include <nlohmann/json.hpp>
#include <vector>

#include "cifar/formats/tensorboard.h"
#include "cifar/report/heatmap.h"
#include "cifar/report/reporting.h"
#include "cifar/report/tensorboard_epoch.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: cifar-tensorboard-sample DIR\n";
    return 2;
  }
  cifar::TensorBoardWriter writer(argv[1]);
  nlohmann::json manifest;
  manifest["file"] = writer.path().string();

  const std::vector<cifar::HParam> hparams{
      {"model", std::string("net")}, {"lr", 0.01}, {"augment", true}};
  writer.hparams_start(hparams, {"test/accuracy"});
  manifest["hparams"] = {{"model", "net"}, {"lr", 0.01}, {"augment", true}};
  const std::string config = "    model = \"net\"\n    lr = 0.01\n    augment = true\n";
  writer.text("config", config, 0);
  manifest["text"] = {{"config", config}};

  std::vector<int64_t> confusion(100);
  for (size_t r = 0; r < 10; ++r) {
    for (size_t c = 0; c < 10; ++c) {
      confusion[r * 10 + c] = static_cast<int64_t>(r == c ? 60 + 3 * r : (r + c) % 5);
    }
  }
  const auto heat = cifar::confusion_heatmap_png(confusion, 10);
  writer.image("test/confusion", heat.png, heat.height, heat.width, 3);
  manifest["images"]["test/confusion"] = {
      {"step", 3}, {"height", heat.height}, {"width", heat.width}, {"bytes", heat.png.size()}};

  for (int epoch = 1; epoch <= 3; ++epoch) {
    const double acc = 0.30 + 0.07 * epoch;
    writer.scalar("test/accuracy", acc, epoch);
    manifest["scalars"]["test/accuracy"].push_back({epoch, acc});
  }
  // Three epochs as the trainer reports them, into metrics.csv and the board.
  const std::vector<std::string> names{"airplane", "automobile", "bird",  "cat",  "deer",
                                       "dog",      "frog",       "horse", "ship", "truck"};
  cifar::MetricsCsv csv(std::filesystem::path(argv[1]) / "metrics.csv");
  for (int epoch = 1; epoch <= 3; ++epoch) {
    cifar::EpochMetrics m;
    m.epoch = epoch;
    m.train_loss = 2.0 / epoch;
    m.train_accuracy = 0.2 * epoch + 0.013;
    m.test_loss = 2.1 / epoch + 0.0123456;
    m.test_accuracy = 0.19 * epoch;
    m.lr = 0.01 / epoch;
    m.seconds = 10.5 + epoch;
    m.images_per_second = 4000 + 111.1 * epoch;
    m.eval_seconds = 1.25 * epoch;
    cifar::EvalResult test;
    test.num_classes = 10;
    test.confusion.assign(100, 0);
    for (int r = 0; r < 10; ++r) {
      const auto cell = [&](int c) { return static_cast<size_t>(r * 10 + c); };
      test.confusion[cell(r)] = 10 * epoch + r;
      test.confusion[cell((r + 1) % 10)] = 30 - 10 * epoch + r;
    }
    csv.write(m);
    cifar::write_tensorboard_epoch(writer, m, &test, names);
    const auto acc = test.per_class_accuracy();
    manifest["per_class"][std::to_string(epoch)] = acc;
  }
  manifest["class_names"] = names;
  writer.hparams_end(true);
  for (int step = 0; step < 10; ++step) {
    const double loss = 2.3 / (1.0 + 0.25 * step);
    writer.scalar("train/loss", loss, step * 100);
    manifest["scalars"]["train/loss"].push_back({step * 100, loss});
  }
  writer.flush();
  std::cout << manifest.dump() << "\n";
  return 0;
}
