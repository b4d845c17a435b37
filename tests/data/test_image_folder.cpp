// test_image_folder.cpp: image folders (torchvision's ImageFolder layout) on
// PNG and JPEG files the tests write: class indices, file order, decoding,
// compositing, resizing, what is ignored, and each error. The cache:
// test_image_cache.cpp.
#include <fmt/format.h>

#include <catch2/catch.hpp>

#include "cifar/data/image_folder.h"
#include "data/image_files.h"
#include "test_helpers.h"

using namespace cifar;
using cifar::test::LogCapture;
using cifar::test::TempDir;
using cifar::test::write_png;
using cifar::test::write_text;
namespace fs = std::filesystem;

namespace {

ImageFolderOptions no_cache() {
  ImageFolderOptions o;
  o.use_cache = false;
  return o;
}

// Two classes of one image each under DIR/train (and DIR/test).
void two_classes(const fs::path& dir, bool with_test = true) {
  for (const std::string split : {"train", "test"}) {
    if (split == "test" && !with_test) continue;
    write_png(dir / split / "cat" / "0.png", 1, 2, 3);
    write_png(dir / split / "dog" / "0.png", 4, 5, 6);
  }
}

int red(const ImageSplit& d, int64_t i) {
  return d.images[i][0][0][0].item<int>();
}

}  // namespace

TEST_CASE("image folder classes are the sorted folder names and files come in torchvision's order",
          "[data][image_folder]") {
  TempDir dir;
  const auto train = dir.path() / "train";
  // Byte order: upper case before lower case. The red value tells the files apart.
  write_png(train / "b" / "0.png", 20, 0, 0);
  write_png(train / "C" / "0.png", 30, 0, 0);
  write_png(train / "a" / "2.png", 10, 0, 0);
  write_png(train / "a" / "10.png", 11, 0, 0);
  write_png(train / "a" / "sub" / "0.png", 12, 0, 0);
  write_png(train / "a" / "sub-x" / "0.PNG", 13, 0, 0);
  write_png(train / "a" / "sub" / "deep" / "0.png", 14, 0, 0);
  const auto d = read_image_folder(dir.path(), Split::kTrain, no_cache());
  CHECK(d.class_names == std::vector<std::string>{"C", "a", "b"});
  REQUIRE(d.size() == 7);
  CHECK(d.images.sizes() == torch::IntArrayRef{7, 3, 32, 32});
  CHECK(d.images.dtype() == torch::kUInt8);
  CHECK(d.labels.dtype() == torch::kInt64);
  // sorted(os.walk(...)): "a" < "a/sub" < "a/sub-x" < "a/sub/deep" ('-' sorts before '/').
  const std::vector<int> reds{30, 11, 10, 12, 13, 14, 20};
  const std::vector<int64_t> labels{0, 1, 1, 1, 1, 1, 2};
  for (int64_t i = 0; i < 7; ++i) {
    CHECK(red(d, i) == reds[static_cast<size_t>(i)]);
    CHECK(d.labels[i].item<int64_t>() == labels[static_cast<size_t>(i)]);
  }
  CHECK(torch::equal(d.images[2],
                     torch::tensor({10, 0, 0}, torch::kUInt8).view({3, 1, 1}).expand({3, 32, 32})));
}

TEST_CASE("the test split takes train's indices and may lack classes", "[data][image_folder]") {
  TempDir dir;
  write_png(dir.path() / "train" / "a" / "0.png", 1, 0, 0);
  write_png(dir.path() / "train" / "b" / "0.png", 2, 0, 0);
  write_png(dir.path() / "train" / "c" / "0.png", 3, 0, 0);
  write_png(dir.path() / "test" / "c" / "0.png", 4, 0, 0);
  const auto test = read_image_folder(dir.path(), Split::kTest, no_cache());
  CHECK(test.class_names == std::vector<std::string>{"a", "b", "c"});
  REQUIRE(test.size() == 1);
  CHECK(test.labels[0].item<int64_t>() == 2);
}

TEST_CASE("image folder images are composited onto white and resized as cifar-predict does",
          "[data][image_folder]") {
  TempDir dir;
  const auto train = dir.path() / "train";
  // A 32x32 RGBA: transparent black, half-transparent black, opaque red.
  auto rgba = torch::zeros({32, 32, 4}, torch::kUInt8);
  rgba.select(1, 1).select(1, 3).fill_(128);
  rgba.select(1, 2).select(1, 0).fill_(255);
  rgba.select(1, 2).select(1, 3).fill_(255);
  write_text(train / "a" / "alpha.png", test::encode_png(rgba));
  // A 64x48 gradient, as PNG and as JPEG; a grey PNG.
  const auto ramp = torch::arange(64 * 48 * 3, torch::kInt64).remainder(251).to(torch::kUInt8);
  const auto big = ramp.view({64, 48, 3});
  write_text(train / "b" / "big.png", test::encode_png(big));
  write_text(train / "b" / "big.jpeg", test::encode_jpeg(big));
  write_text(train / "b" / "grey.png",
             test::encode_png(torch::full({32, 32, 1}, 77, torch::kUInt8)));
  const auto d = read_image_folder(dir.path(), Split::kTrain, no_cache());
  REQUIRE(d.size() == 4);
  const auto alpha = d.images[0];
  CHECK(alpha[0][5][0].item<int>() == 255);  // transparent: white
  CHECK(alpha[2][5][0].item<int>() == 255);
  CHECK(alpha[1][5][1].item<int>() == 127);  // half: 255 * (1 - 128/255), rounded
  CHECK(alpha[0][5][2].item<int>() == 255);  // opaque red
  CHECK(alpha[1][5][2].item<int>() == 0);

  // b/big.jpeg, b/big.png, b/grey.png: the same resize as cifar-predict's
  // image_to_input (with a normalisation that leaves 0..255), rounded.
  const Normalization as_is{{0, 0, 0}, {1 / 255.0, 1 / 255.0, 1 / 255.0}};
  for (const int64_t i : {1, 2}) {
    const auto file = train / "b" / (i == 1 ? "big.jpeg" : "big.png");
    const auto predicted = image_to_input(read_image(file), as_is, 32);
    const auto diff = (d.images[i].to(torch::kFloat) - predicted).abs().max().item<float>();
    CHECK(diff <= 0.5001F);
  }
  CHECK(torch::equal(d.images[2], resize_image(big.permute({2, 0, 1}), 32)));
  CHECK((d.images[3] == 77).all().item<bool>());
}

TEST_CASE("hidden entries and files that are not images are ignored and counted",
          "[data][image_folder]") {
  TempDir dir;
  two_classes(dir.path());
  const auto train = dir.path() / "train";
  write_png(train / "cat" / ".hidden.png", 9, 9, 9);
  write_png(train / ".ipynb_checkpoints" / "x.png", 9, 9, 9);
  write_text(train / "cat" / "notes.txt", "not an image");
  write_text(train / "dog" / "photo.webp", "not read");
  write_text(train / "README", "about");
  const auto listing = list_image_folder(dir.path(), Split::kTrain);
  CHECK(listing.class_names == std::vector<std::string>{"cat", "dog"});
  CHECK(listing.files.size() == 2);
  CHECK(listing.hidden_ignored == 2);
  CHECK(listing.other_ignored == 3);
  // Named, relative to train/: the split folder's own entries first.
  CHECK(listing.hidden_names == std::vector<std::string>{".ipynb_checkpoints", "cat/.hidden.png"});
  CHECK(listing.other_names ==
        std::vector<std::string>{"README", "cat/notes.txt", "dog/photo.webp"});
  LogCapture log;
  CHECK(read_image_folder(dir.path(), Split::kTrain, no_cache()).size() == 2);
  CHECK_THAT(log.text(),
             Catch::Contains("ignored 2 hidden entries (names starting with '.': "
                             ".ipynb_checkpoints, cat/.hidden.png)") &&
                 Catch::Contains("and 3 other file(s) (only .png, .jpg and .jpeg files are read: "
                                 "README, cat/notes.txt, dog/photo.webp)"));
  // torchvision would make .ipynb_checkpoints class 0: said, with the fix.
  CHECK(listing.hidden_class_folders == std::vector<std::string>{".ipynb_checkpoints"});
  CHECK_THAT(log.text(), Catch::Contains("hidden folder(s) .ipynb_checkpoints are no class here") &&
                             Catch::Contains("remove them"));
}

TEST_CASE("image folder layout errors name the path and say what to do", "[data][image_folder]") {
  TempDir dir;
  const auto& d = dir.path();
  SECTION("no folder at all") {
    CHECK_THROWS_WITH(
        read_image_folder(d / "nowhere", Split::kTrain),
        Catch::Contains((d / "nowhere").string()) && Catch::Contains("train/<class>"));
  }
  SECTION("no train folder") {
    write_png(d / "test" / "a" / "0.png", 1, 1, 1);
    CHECK_THROWS_WITH(read_image_folder(d, Split::kTrain),
                      Catch::Contains(d.string() + " has no train/ folder") &&
                          Catch::Contains("torchvision's ImageFolder"));
  }
  SECTION("fewer than two classes") {
    write_png(d / "train" / "only" / "0.png", 1, 1, 1);
    CHECK_THROWS_WITH(read_image_folder(d, Split::kTrain),
                      Catch::Contains("holds 1 class folder(s): 'only'") &&
                          Catch::Contains("at least two classes"));
  }
  SECTION("an empty class folder") {
    two_classes(d);
    fs::create_directories(d / "train" / "emu");
    write_text(d / "train" / "emu" / "notes.txt", "no images yet");
    CHECK_THROWS_WITH(
        read_image_folder(d, Split::kTrain),
        Catch::Contains("class folder " + (d / "train" / "emu").string() + " holds no image") &&
            Catch::Contains("remove the folder"));
  }
  SECTION("a test class the training split lacks") {
    two_classes(d);
    write_png(d / "test" / "emu" / "0.png", 1, 1, 1);
    write_png(d / "test" / "fox" / "0.png", 1, 1, 1);
    CHECK_THROWS_WITH(read_image_folder(d, Split::kTest),
                      Catch::Contains("holds class folder(s) 'emu', 'fox' that " +
                                      (d / "train").string() + " lacks"));
  }
  SECTION("a class name with a control character") {
    two_classes(d);
    write_png(d / "train" / "new\nline" / "0.png", 1, 1, 1);
    CHECK_THROWS_WITH(read_image_folder(d, Split::kTrain),
                      Catch::Contains("class folder 'new\\x0Aline' in " + (d / "train").string()) &&
                          Catch::Contains("holds a control character") &&
                          Catch::Contains("rename the folder"));
  }
}

TEST_CASE("an image folder without test/ is an error, or an empty split when asked",
          "[data][image_folder]") {
  TempDir dir;
  two_classes(dir.path(), /*with_test=*/false);
  // The hint names the caller's way round it, and no option of another tool.
  CHECK_THROWS_WITH(
      read_image_folder(dir.path(), Split::kTest),
      Catch::Contains(dir.path().string() + " has no test/ folder") && !Catch::Contains("--"));
  auto options = no_cache();
  options.holdout_option = "--val-split";
  CHECK_THROWS_WITH(read_image_folder(dir.path(), Split::kTest, options),
                    Catch::Contains(dir.path().string() + " has no test/ folder") &&
                        Catch::Contains("with --val-split N"));
  options.missing_test_is_empty = true;
  const auto test = read_image_folder(dir.path(), Split::kTest, options);
  CHECK(test.size() == 0);
  CHECK(test.images.sizes() == torch::IntArrayRef{0, 3, 32, 32});
  CHECK(test.class_names == std::vector<std::string>{"cat", "dog"});
}

TEST_CASE("files that are not readable images stop the read, all named, or are skipped and named",
          "[data][image_folder]") {
  TempDir dir;
  two_classes(dir.path());
  const auto bad = dir.path() / "train" / "cat" / "bad.png";
  write_text(bad, "this is not a PNG");
  const auto truncated = dir.path() / "train" / "dog" / "cut.jpg";
  write_text(truncated, test::encode_jpeg(test::solid(32, 32, 1, 2, 3)).substr(0, 200));
  // Every bad file of the split at once, so that one run names all to fix.
  CHECK_THROWS_WITH(read_image_folder(dir.path(), Split::kTrain, no_cache()),
                    Catch::Contains("train holds 2 files that are not readable images") &&
                        Catch::Contains(bad.string()) && Catch::Contains("not a PNG or JPEG") &&
                        Catch::Contains(truncated.string()) &&
                        Catch::Contains("--skip-bad-images"));
  std::filesystem::remove(truncated);  // one: the file's own line
  CHECK_THROWS_WITH(read_image_folder(dir.path(), Split::kTrain, no_cache()),
                    Catch::StartsWith("image " + bad.string()) &&
                        Catch::Contains("remove or replace the file, or pass --skip-bad-images"));
  write_text(truncated, test::encode_jpeg(test::solid(32, 32, 1, 2, 3)).substr(0, 200));
  auto options = no_cache();
  options.skip_bad_images = true;
  LogCapture log;
  const auto d = read_image_folder(dir.path(), Split::kTrain, options);
  CHECK(d.size() == 2);
  CHECK(torch::equal(d.labels, torch::tensor({0, 1}, torch::kInt64)));
  CHECK(red(d, 1) == 4);
  CHECK_THAT(log.text(), Catch::Contains("skipped 2 file(s) that are not readable images") &&
                             Catch::Contains(bad.string()) && Catch::Contains(truncated.string()));
}

TEST_CASE("decoding reports its progress and ends at the total", "[data][image_folder]") {
  TempDir dir;
  two_classes(dir.path());
  for (int i = 0; i < 300; ++i) {
    write_png(dir.path() / "train" / "cat" / fmt::format("x{}.png", i), i % 256, 0, 0);
  }
  auto options = no_cache();
  std::vector<std::pair<int64_t, int64_t>> calls;
  options.progress = [&](int64_t done, int64_t total) { calls.emplace_back(done, total); };
  LogCapture log;
  CHECK(read_image_folder(dir.path(), Split::kTrain, options).size() == 302);
  REQUIRE(calls.size() == 2);
  CHECK(calls.back() == std::pair<int64_t, int64_t>{302, 302});
  CHECK_THAT(log.text(), Catch::Contains("decoding 302 images"));
}

TEST_CASE("a split folder without class folders is an error saying what it holds",
          "[data][image_folder]") {
  TempDir dir;
  two_classes(dir.path(), /*with_test=*/false);
  const auto test = dir.path() / "test";
  fs::create_directories(test);
  const auto refused = [&](const std::string& holds, bool with_holdout) {
    for (const bool missing_is_empty : {false, true}) {  // with --val-split too
      auto options = no_cache();
      options.missing_test_is_empty = missing_is_empty;
      if (with_holdout) options.holdout_option = "--val-split";
      CAPTURE(holds, missing_is_empty, with_holdout);
      std::string message = "(read)";
      try {
        read_image_folder(dir.path(), Split::kTest, options);
      } catch (const std::exception& e) {
        message = e.what();
      }
      CHECK_THAT(message, Catch::Contains(fmt::format("{} holds no class folder (it holds {})",
                                                      test.string(), holds)) &&
                              Catch::Contains("add test/<class>/"));
      if (with_holdout) {
        CHECK_THAT(message, Catch::Contains("remove the folder, or hold out") &&
                                Catch::Contains("--val-split N"));
      } else {
        CHECK_THAT(message, !Catch::Contains("--"));
      }
    }
  };
  refused("nothing", false);
  write_text(test / ".DS_Store", "x");
  refused("1 hidden entry ('.DS_Store')", true);
  write_text(test / "notes.txt", "x");
  for (const char* name : {".a", ".b", ".c", ".d", ".e"}) fs::create_directories(test / name);
  refused(
      "6 hidden entries ('.DS_Store', '.a', '.b', '.c', '.d', ...) and 1 other file "
      "('notes.txt')",
      false);
  // train/ is held to the same: no class folder, and what it holds, named.
  const auto train = dir.path() / "train";
  fs::remove_all(train);
  write_text(train / ".keep", "");
  CHECK_THROWS_WITH(
      read_image_folder(dir.path(), Split::kTrain, no_cache()),
      Catch::Contains(train.string() +
                      " holds 0 class folder(s) (it holds 1 hidden entry ('.keep'))"));
}

TEST_CASE("the photos' median side reads headers past the first 64 KB", "[data][image_folder]") {
  // A JPEG whose frame header sits behind 80 KB of APP segments (a camera's
  // Exif and thumbnails): once dropped from the median without a word.
  TempDir dir;
  const std::string jpeg = test::encode_jpeg(torch::zeros({40, 56, 3}, torch::kUInt8));
  std::string padded = jpeg.substr(0, 2);  // SOI
  for (int i = 0; i < 2; ++i) {
    const std::string body(40000, 'x');
    const auto length = static_cast<int>(body.size() + 2);
    padded += std::string{'\xFF', '\xE2', static_cast<char>(length >> 8),
                          static_cast<char>(length & 0xFF)};
    padded += body;
  }
  padded += jpeg.substr(2);
  REQUIRE(padded.size() > (64u << 10));
  const auto train = dir.path() / "train";
  for (const char* name : {"a.jpg", "b.jpg", "c.jpg"}) write_text(train / "cat" / name, padded);
  write_png(train / "dog" / "small.png", 9, 9, 9);  // 32 x 32
  // Three photos of 40 px beside one of 32: the median is 40, not 32.
  CHECK(median_shorter_side(list_image_folder(dir.path(), Split::kTrain)) == 40);
}
