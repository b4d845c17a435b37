// test_image_cache.cpp: image folders are decoded once. The second read
// comes from the cache (seen by making an image unreadable behind the
// cache's back: same size, same modification time); a changed, added or
// removed image, or a damaged cache file, makes it decode again.
#include <catch2/catch.hpp>

#include <chrono>
#include <fstream>

#include "cifar/data/image_cache.h"
#include "cifar/data/image_folder.h"
#include "data/image_files.h"
#include "test_helpers.h"

using namespace cifar;
using cifar::test::DecodeCounter;
using cifar::test::LogCapture;
using cifar::test::TempDir;
using cifar::test::write_png;
using cifar::test::write_text;
namespace fs = std::filesystem;

namespace {

// train/cat/0.png, cat/1.png, dog/0.png: red 10, 11, 20.
void small_folder(const fs::path& dir) {
  write_png(dir / "train" / "cat" / "0.png", 10, 0, 0);
  write_png(dir / "train" / "cat" / "1.png", 11, 0, 0);
  write_png(dir / "train" / "dog" / "0.png", 20, 0, 0);
}

std::vector<int> reds(const ImageSplit& d) {
  std::vector<int> out;
  for (int64_t i = 0; i < d.size(); ++i) out.push_back(d.images[i][0][0][0].item<int>());
  return out;
}

// Replaces a file's bytes with garbage of the same size, keeping its
// modification time: only a read from the cache still sees the image.
void spoil_unseen(const fs::path& path) {
  const auto time = fs::last_write_time(path);
  const auto size = fs::file_size(path);
  write_text(path, std::string(size, 'x'));
  fs::last_write_time(path, time);
}

// Moves a file's modification time on by a second (a later edit).
void touch_later(const fs::path& path) {
  fs::last_write_time(path, fs::last_write_time(path) + std::chrono::seconds(1));
}

}  // namespace

TEST_CASE("a second read of an image folder comes from its cache", "[data][image_cache]") {
  TempDir dir;
  small_folder(dir.path());
  DecodeCounter reader;
  const auto first = reader.read(dir.path());
  CHECK(reader.decodes == 1);
  CHECK(fs::is_regular_file(dir.path() / ".cifar-cache" / "train.bin"));
  spoil_unseen(dir.path() / "train" / "cat" / "1.png");
  LogCapture log;
  const auto second = reader.read(dir.path());
  CHECK(reader.decodes == 1);
  CHECK(torch::equal(first.images, second.images));
  CHECK(torch::equal(first.labels, second.labels));
  CHECK(second.class_names == first.class_names);
  CHECK(reds(second) == std::vector<int>{10, 11, 20});
  CHECK_THAT(log.text(), Catch::Contains("3 images read from the cache"));
  // The images are the cache file's pages, mapped privately: a write to them
  // changes this copy only, never the file.
  auto images = second.images;
  images.fill_(7);
  LogCapture third;
  CHECK(torch::equal(reader.read(dir.path()).images, first.images));
  CHECK(reader.decodes == 1);
  CHECK_THAT(third.text(), Catch::Contains("3 images read from the cache"));
}

TEST_CASE("each tier a folder is read at has a cache file of its own", "[data][image_cache]") {
  // 32 px (tier 256), then 224 px kept whole for random resized crops (tier
  // 512), then 32 px again: the third read decodes nothing, as does a fourth at 512.
  TempDir dir;
  small_folder(dir.path());
  DecodeCounter reader;
  const auto small = reader.read(dir.path());
  ImageFolderOptions large = reader.options;
  large.image = ImageSpec{.image_size = 224, .prep = {}, .whole_size = 448, .min_scale = 0.25};
  REQUIRE(kept_side_of(large.image) == 512);
  read_image_folder(dir.path(), Split::kTrain, large);
  CHECK(reader.decodes == 2);
  CHECK(fs::is_regular_file(dir.path() / ".cifar-cache" / "train.bin"));
  CHECK(fs::is_regular_file(dir.path() / ".cifar-cache" / "train-512.bin"));
  spoil_unseen(dir.path() / "train" / "cat" / "1.png");
  CHECK(torch::equal(reader.read(dir.path()).images, small.images));
  read_image_folder(dir.path(), Split::kTrain, large);
  CHECK(reader.decodes == 2);
  const std::vector<int64_t> tiers{256, 512, 1024, 2048, 4096};
  CHECK(cache_tiers() == tiers);
}

TEST_CASE("a changed, added or removed image invalidates the cache", "[data][image_cache]") {
  TempDir dir;
  small_folder(dir.path());
  DecodeCounter reader;
  reader.read(dir.path());
  LogCapture log;
  SECTION("changed") {
    const auto path = dir.path() / "train" / "cat" / "1.png";
    write_png(path, 12, 0, 0);
    touch_later(path);
    CHECK(reds(reader.read(dir.path())) == std::vector<int>{10, 12, 20});
    CHECK_THAT(log.text(), Catch::Contains("out of date (0 image(s) added, 0 removed, 1 changed") &&
                               Catch::Contains("cat/1.png"));
  }
  SECTION("added") {
    write_png(dir.path() / "train" / "dog" / "1.png", 21, 0, 0);
    CHECK(reds(reader.read(dir.path())) == std::vector<int>{10, 11, 20, 21});
    CHECK_THAT(log.text(), Catch::Contains("1 image(s) added, 0 removed, 0 changed"));
  }
  SECTION("removed") {
    fs::remove(dir.path() / "train" / "cat" / "0.png");
    CHECK(reds(reader.read(dir.path())) == std::vector<int>{11, 20});
    CHECK_THAT(log.text(), Catch::Contains("0 image(s) added, 1 removed, 0 changed"));
  }
  SECTION("a class renamed") {
    fs::rename(dir.path() / "train" / "dog", dir.path() / "train" / "ape");
    const auto d = reader.read(dir.path());
    CHECK(reds(d) == std::vector<int>{20, 10, 11});
    CHECK(d.class_names == std::vector<std::string>{"ape", "cat"});
    CHECK_THAT(log.text(), Catch::Contains("made with other settings or classes"));
  }
  CHECK(reader.decodes == 2);
  reader.read(dir.path());  // and the new cache is used
  CHECK(reader.decodes == 2);
}

TEST_CASE("a damaged image cache is ignored with a warning and rebuilt", "[data][image_cache]") {
  TempDir dir;
  small_folder(dir.path());
  DecodeCounter reader;
  const auto first = reader.read(dir.path());
  const auto cache = dir.path() / ".cifar-cache" / "train.bin";
  std::ifstream in(cache, std::ios::binary);
  std::string bytes = test::read_all(in);
  in.close();
  SECTION("a flipped image byte") {
    bytes[bytes.size() - 40] ^= 1;
  }
  SECTION("truncated") {
    bytes.resize(bytes.size() - 100);
  }
  SECTION("a changed byte in the header's manifest: damaged, not out of date") {
    bytes[16 + 8 + 2] = '\x1b';  // after the magic and the manifest's length
  }
  bool other_version = false;
  SECTION("another format version: out of date, not damaged") {
    bytes[15] = 7;
    other_version = true;
  }
  write_text(cache, bytes);
  LogCapture log;
  const auto second = reader.read(dir.path());
  CHECK(torch::equal(first.images, second.images));
  CHECK(reader.decodes == 2);
  if (other_version) {
    CHECK_THAT(log.text(), Catch::Contains("the image cache " + cache.string() +
                                           " is out of date (written in another format") &&
                               !Catch::Contains("warning"));
  } else {
    CHECK_THAT(log.text(),
               Catch::Contains("warning") &&
                   Catch::Contains("ignoring the damaged image cache " + cache.string()));
  }
  reader.read(dir.path());
  CHECK(reader.decodes == 2);
}

TEST_CASE("a file at the cache's path that is not an image cache is never replaced",
          "[data][image_cache]") {
  TempDir dir;
  small_folder(dir.path());
  const auto cache = dir.path() / ".cifar-cache" / "train.bin";
  fs::create_directories(cache.parent_path());
  const auto victim = dir.path() / "victim.toml";
  write_text(victim, "epochs = 3\n");
  // What is at the path, and its bytes (through links) as they must stay.
  SECTION("a file of the user's") {
    write_text(cache, "epochs = 3\n");
  }
  SECTION("an empty file") {
    write_text(cache, "");
  }
  SECTION("a link to a file of the user's") {
    fs::create_symlink(victim, cache);
  }
  SECTION("a hard link to a file of the user's") {
    fs::create_hard_link(victim, cache);
  }
  SECTION("a dangling link") {
    fs::create_symlink(dir.path() / "nowhere", cache);
  }
  SECTION("a folder") {
    fs::create_directories(cache / "inside");
  }
  const auto status = fs::symlink_status(cache).type();
  const std::string before = fs::is_regular_file(cache) ? [&] {
    std::ifstream in(cache, std::ios::binary);
    return test::read_all(in);
  }() : "";
  DecodeCounter reader;
  for (int read = 1; read <= 2; ++read) {
    LogCapture log;
    CHECK(reds(reader.read(dir.path())) == std::vector<int>{10, 11, 20});
    CHECK(reader.decodes == read);  // decoded every time: there is no cache to read
    CHECK_THAT(log.text(), Catch::Contains("warning") &&
                               Catch::Contains(cache.string() + " is not an image cache") &&
                               Catch::Contains("left as it is"));
  }
  CHECK(fs::symlink_status(cache).type() == status);
  if (fs::is_regular_file(cache)) {
    std::ifstream in(cache, std::ios::binary);
    CHECK(test::read_all(in) == before);
  }
  std::ifstream in(victim, std::ios::binary);
  CHECK(test::read_all(in) == "epochs = 3\n");
}

TEST_CASE("the image cache goes where the caller says, or nowhere", "[data][image_cache]") {
  TempDir dir;
  small_folder(dir.path());
  DecodeCounter reader;
  SECTION("a cache folder") {
    reader.options.cache_dir = dir.path() / "cache";
    reader.read(dir.path());
    CHECK_FALSE(fs::exists(dir.path() / ".cifar-cache"));
    const auto path = image_cache_path(dir.path(), Split::kTrain, reader.options.cache_dir);
    CHECK(path.parent_path() == dir.path() / "cache" / "image-folders");
    CHECK(fs::is_regular_file(path));
    reader.read(dir.path());
    CHECK(reader.decodes == 1);
  }
  SECTION("no cache") {
    reader.options.use_cache = false;
    reader.read(dir.path());
    reader.read(dir.path());
    CHECK(reader.decodes == 2);
    CHECK_FALSE(fs::exists(dir.path() / ".cifar-cache"));
  }
  SECTION("a cache that cannot be written is a warning") {
    write_text(dir.path() / "blocked", "a file where the cache folder would go");
    reader.options.cache_dir = dir.path() / "blocked";
    LogCapture log;
    CHECK(reader.read(dir.path()).size() == 3);
    CHECK_THAT(log.text(), Catch::Contains("could not write the image cache"));
  }
}

TEST_CASE("skipped images are named again on a cache hit", "[data][image_cache]") {
  TempDir dir;
  small_folder(dir.path());
  write_text(dir.path() / "train" / "dog" / "bad.jpg", "not a JPEG");
  DecodeCounter reader;
  reader.options.skip_bad_images = true;
  CHECK(reader.read(dir.path()).size() == 3);
  LogCapture log;
  CHECK(reader.read(dir.path()).size() == 3);
  CHECK(reader.decodes == 1);
  CHECK_THAT(log.text(), Catch::Contains("skipped 1 file(s)") && Catch::Contains("bad.jpg"));
  reader.options.skip_bad_images = false;  // another key: decoded again, and refused
  CHECK_THROWS_WITH(reader.read(dir.path()), Catch::Contains("--skip-bad-images"));
}

TEST_CASE("a cached test split survives its cache file overwritten in place",
          "[data][image_cache]") {
  // The test split is kept all run: it must not be the cache file's mapped
  // pages, which another program's `cp` onto the file would cut short
  // (SIGBUS on the next read of them) or change.
  TempDir dir;
  small_folder(dir.path());
  fs::copy(dir.path() / "train", dir.path() / "test", fs::copy_options::recursive);
  ImageFolderOptions options;
  read_image_folder(dir.path(), Split::kTest, options);  // decodes, fills the cache
  const ImageSplit test = read_image_folder(dir.path(), Split::kTest, options);  // a hit
  const auto cache = dir.path() / ".cifar-cache" / "test.bin";
  REQUIRE(fs::is_regular_file(cache));
  fs::resize_file(cache, 0);  // as `cp` does first
  CHECK(reds(test) == std::vector<int>{10, 11, 20});
}
