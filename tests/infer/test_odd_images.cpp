// test_odd_images.cpp: every path that decodes images (an image folder read
// for training and cifar-eval; cifar-predict's predict_files) at odd sizes:
// 1x1, 1xN, Nx1, and headers that declare far more pixels than the file
// holds. Each image is one solid colour, so the decoded pixels are known
// whatever the resize: the test checks the values, not only that it runs.
// And the lines cifar-predict prints for odd class names.
// (A 1x1 image once came out of the resize channels-last and was copied as
// if contiguous: its colours were scrambled in training, not in prediction.)
#include <zlib.h>

#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "cifar/data/image_folder.h"
#include "cifar/infer/predict.h"
#include "data/image_files.h"
#include "test_helpers.h"

using namespace cifar;
using cifar::test::solid;
using cifar::test::TempDir;
using cifar::test::write_text;
namespace fs = std::filesystem;

namespace {

struct OddImage {
  std::string name;  // file name, its extension the format
  int64_t h, w;
  int r, g, b;
  bool jpeg = false;
};

// The sizes every decoding path is tried at, each with a colour of its own
// (three different channel values: a channel mix-up shows).
std::vector<OddImage> odd_images() {
  std::vector<OddImage> out;
  const std::vector<std::pair<int64_t, int64_t>> sizes{{1, 1}, {1, 2},  {2, 1},  {1, 5},
                                                       {5, 1}, {1, 33}, {33, 1}, {3, 200}};
  int k = 0;
  for (const bool jpeg : {false, true}) {
    for (const auto& [h, w] : sizes) {
      ++k;
      out.push_back({fmt::format("{}x{}.{}", h, w, jpeg ? "jpg" : "png"), h, w, 200 - 7 * k,
                     30 + 5 * k, 90 + 3 * k, jpeg});
    }
  }
  return out;
}

std::string encode(const OddImage& im) {
  const auto pixels = solid(im.h, im.w, im.r, im.g, im.b);
  return im.jpeg ? test::encode_jpeg(pixels) : test::encode_png(pixels);
}

// How far a decoded channel may be from the colour: exact for PNG; a JPEG
// of one solid colour comes back within a few levels (YCbCr rounding).
int tolerance(const OddImage& im) {
  return im.jpeg ? 3 : 0;
}

// (3, H, W) pixels against the image's colour, channel by channel.
void check_colour(const torch::Tensor& chw, const OddImage& im) {
  CAPTURE(im.name);
  REQUIRE(chw.size(0) == 3);
  const int want[3] = {im.r, im.g, im.b};
  for (int64_t c = 0; c < 3; ++c) {
    const auto diff = (chw[c].to(torch::kInt32) - want[c]).abs().max().item<int>();
    CAPTURE(c, want[c], chw[c].to(torch::kInt32).min().item<int>(),
            chw[c].to(torch::kInt32).max().item<int>());
    CHECK(diff <= tolerance(im));
  }
}

// A PNG whose header says 100000 x 100000 pixels (valid CRC), and a JPEG
// whose frame header says 40000 x 40000: refused before anything is decoded.
std::string huge_png() {
  std::string png = test::encode_png(solid(4, 4, 1, 2, 3));
  const auto put32 = [&](size_t at, uint32_t v) {
    for (size_t i = 0; i < 4; ++i) png[at + i] = static_cast<char>(v >> (24 - 8 * i));
  };
  put32(16, 100000);
  put32(20, 100000);
  put32(29, static_cast<uint32_t>(crc32(0, reinterpret_cast<const Bytef*>(png.data() + 12), 17)));
  return png;
}

std::string huge_jpeg() {
  std::string jpeg = test::encode_jpeg(solid(8, 8, 1, 2, 3));
  for (size_t i = 2; i + 8 < jpeg.size(); ++i) {  // the SOF0 marker: FF C0, length, precision
    if (static_cast<uint8_t>(jpeg[i]) == 0xff && static_cast<uint8_t>(jpeg[i + 1]) == 0xc0) {
      // Height and width 40000 (0x9C40): within libjpeg's 65500, past the pixel cap.
      for (const size_t at : {i + 5, i + 7}) jpeg[at] = static_cast<char>(0x9c);
      for (const size_t at : {i + 6, i + 8}) jpeg[at] = static_cast<char>(0x40);
      return jpeg;
    }
  }
  throw std::runtime_error("no SOF0 marker in the test JPEG");
}

// A model that hands its input back as logits: (B, 3, 32, 32) -> (B, 3072).
class Echo : public ClassifierImpl {
 public:
  torch::Tensor forward(torch::Tensor x) override { return x.flatten(1); }
};

// Model input as 0..255 values: mean 0, std 1/255.
const Normalization kAsIs{{0, 0, 0}, {1 / 255.0, 1 / 255.0, 1 / 255.0}};

}  // namespace

TEST_CASE("an image folder read decodes 1x1, 1xN and Nx1 images to their colours",
          "[data][image_folder][odd_images]") {
  TempDir dir;
  const auto images = odd_images();
  for (const auto& im : images) write_text(dir.path() / "train" / "a" / im.name, encode(im));
  write_text(dir.path() / "train" / "b" / "x.png", test::encode_png(solid(32, 32, 9, 9, 9)));
  for (const bool cached : {false, true}) {  // decoded, then read back from the cache
    ImageFolderOptions options;
    options.use_cache = true;
    CAPTURE(cached);
    const auto split = read_image_folder(dir.path(), Split::kTrain, options);
    REQUIRE(split.size() == static_cast<int64_t>(images.size()) + 1);
    // The listing's order: a/ sorted by name.
    std::vector<OddImage> sorted = images;
    std::sort(sorted.begin(), sorted.end(),
              [](const OddImage& a, const OddImage& b) { return a.name < b.name; });
    for (size_t i = 0; i < sorted.size(); ++i) {
      check_colour(split.images[static_cast<int64_t>(i)], sorted[i]);
    }
  }
}

TEST_CASE("cifar-predict decodes 1x1, 1xN and Nx1 images to their colours",
          "[infer][predict][odd_images]") {
  TempDir dir;
  const auto images = odd_images();
  std::vector<std::string> files;
  for (const auto& im : images) {
    files.push_back((dir.path() / im.name).string());
    write_text(files.back(), encode(im));
  }
  Echo model;
  model.eval();
  CheckpointInfo info;
  info.num_classes = 3 * 32 * 32;
  info.normalization = kAsIs;
  for (int64_t i = 0; i < info.num_classes; ++i) info.class_names.push_back(std::to_string(i));
  PredictOptions options;
  options.logits = true;
  options.threads = 1;
  for (const int64_t batch : {1, 5}) {
    options.batch_size = batch;
    const auto predictions = predict_files(model, info, files, options);
    REQUIRE(predictions.size() == images.size());
    for (size_t i = 0; i < images.size(); ++i) {
      CAPTURE(predictions[i].error);
      REQUIRE(predictions[i].error.empty());
      const auto logits =
          torch::tensor(predictions[i].logits, torch::kFloat).view({3, 32, 32}).round();
      check_colour(logits.clamp(0, 255).to(torch::kUInt8), images[i]);
    }
  }
}

TEST_CASE("every decoding path refuses a header declaring a huge image, naming it",
          "[data][image_folder][infer][predict][odd_images]") {
  TempDir dir;
  const auto folder = dir.path() / "folder";
  write_text(folder / "train" / "b" / "fine.png", test::encode_png(solid(32, 32, 9, 9, 9)));
  for (const auto& [name, bytes] : std::vector<std::pair<std::string, std::string>>{
           {"huge.png", huge_png()}, {"huge.jpg", huge_jpeg()}}) {
    CAPTURE(name);
    // The image folder reader (training, cifar-eval): an error naming the
    // file, or with --skip-bad-images the file skipped and the rest read.
    fs::remove_all(folder / "train" / "a");
    write_text(folder / "train" / "a" / name, bytes);
    write_text(folder / "train" / "a" / "ok.png", test::encode_png(solid(1, 1, 50, 60, 70)));
    ImageFolderOptions options;
    options.use_cache = false;
    CHECK_THROWS_WITH(read_image_folder(folder, Split::kTrain, options),
                      Catch::Contains(name) && Catch::Contains("more than the"));
    options.skip_bad_images = true;
    const auto split = read_image_folder(folder, Split::kTrain, options);
    REQUIRE(split.size() == 2);
    check_colour(split.images[0], {"ok.png", 1, 1, 50, 60, 70});
    // cifar-predict: that file's error, the others classified.
    const std::string huge = (dir.path() / name).string();
    write_text(huge, bytes);
    Echo model;
    model.eval();
    CheckpointInfo info;
    info.num_classes = 3 * 32 * 32;
    info.normalization = kAsIs;
    for (int64_t i = 0; i < info.num_classes; ++i) info.class_names.push_back(std::to_string(i));
    const auto ok = (folder / "train" / "a" / "ok.png").string();
    const auto predictions = predict_files(model, info, {huge, ok}, PredictOptions{});
    REQUIRE(predictions.size() == 2);
    CHECK_THAT(predictions[0].error, Catch::Contains(name) && Catch::Contains("more than the"));
    CHECK(predictions[1].error.empty());
  }
}

// Odd class names too: cifar-predict's line per image stays one line, and
// sends no terminal escape, whatever a weights file's metadata names.
TEST_CASE("cifar-predict's lines show odd class names escaped", "[predict]") {
  const Prediction p{.file = "a.png",
                     .error = "",
                     .top_k = {{"dog\nfrog", 0.75}, {"red\x1b[31m", 0.25}},
                     .logits = {}};
  const std::string line = format_prediction(p);
  CHECK(line == "a.png: 'dog\\nfrog' 75.0% (then 'red\\x1b[31m' 25.0%)");
}
