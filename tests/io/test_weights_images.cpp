// test_weights_images.cpp: the images a weights file's model takes, and
// what an export's format loses (issue 47, class 3): every source of the
// size and preparation (given, recorded, cifar-train's defaults left out,
// neither), each change said once, and each format's losses named.
#include <catch2/catch.hpp>

#include "cifar/data/cifar10.h"
#include "cifar/io/weights_export.h"
#include "cifar/io/weights_images.h"
#include "data/image_files.h"

using namespace cifar;
using cifar::test::LogCapture;

namespace {

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("a weights file's images: given over recorded over the defaults, never silently",
          "[weights_images]") {
  WeightsMetadata recorded;  // a folder model's metadata
  recorded.image_size = 40;
  recorded.prep = ImagePrep{CropMode::kCenter, 0.6};
  WeightsMetadata cifar_train;  // cifar-train's, the defaults left out
  cifar_train.from_cifar_train = true;
  const WeightsMetadata none;  // a .pt, a Python state_dict

  SECTION("recorded, nothing given: the file's, no warning") {
    LogCapture log;
    const auto t = images_taken(recorded, ImageOptions{.warn_unsaid = true}, "m", "its metadata");
    CHECK(t.image_size == 40);
    CHECK(t.prep == ImagePrep{CropMode::kCenter, 0.6});
    CHECK(t.note == "40 px, center 0.6 (from its metadata)");
    CHECK(count(log.text(), "warning") == 0);
  }
  SECTION("given over a different record: used, one warning naming each") {
    LogCapture log;
    const auto t = images_taken(recorded, ImageOptions{.image_size = 32, .mode = CropMode::kSquash},
                                "m", "its metadata");
    CHECK(t.image_size == 32);
    CHECK(t.prep == ImagePrep{CropMode::kSquash, 0.6});
    CHECK(count(log.text(), "warning") == 1);
    CHECK(count(log.text(),
                "--image-size 32 (the file records 40), --crop-mode squash (the "
                "file records center) given") == 1);
    CHECK(t.note ==
          "32 px, squash 0.6 (--image-size, --crop-mode as given, the rest from its "
          "metadata)");
  }
  SECTION("given equal to the record, or to cifar-train's left-out defaults: no warning") {
    LogCapture log;
    images_taken(recorded, ImageOptions{.image_size = 40, .crop_pct = 0.6}, "m", "its metadata");
    const auto t = images_taken(cifar_train, ImageOptions{.image_size = 32, .warn_unsaid = true},
                                "m", "its metadata");
    CHECK(t.prep == kWholeImage);
    CHECK(count(log.text(), "warning") == 0);
    // Given over cifar-train's left-out default: a difference too.
    images_taken(cifar_train, ImageOptions{.crop_pct = 0.875}, "m", "its metadata");
    CHECK(count(log.text(), "--crop-pct 0.875 (the file records 1)") == 1);
  }
  SECTION("the size recorded, the preparation not: the preparation said assumed, once") {
    // Issue 54: it was "squash 1 (from its metadata)", which the file never said.
    WeightsMetadata size_only;
    size_only.image_size = 40;
    LogCapture log;
    const auto t = images_taken(size_only, ImageOptions{.warn_unsaid = true}, "m", "its metadata");
    CHECK(t.image_size == 40);
    CHECK(t.prep == kWholeImage);
    CHECK(t.note ==
          "40 px, squash 1 (--image-size from its metadata, --crop-mode, --crop-pct assumed: "
          "the file does not say)");
    CHECK(count(log.text(), "warning") == 1);
    CHECK(count(log.text(),
                "does not say the preparation its model was trained with: images "
                "are prepared as --crop-mode squash, --crop-pct 1;") == 1);
  }
  SECTION("nothing recorded: the defaults, said once where the tool asks") {
    LogCapture log;
    const auto t = images_taken(none, ImageOptions{.warn_unsaid = true}, "m.pt", "its metadata");
    CHECK(t.image_size == 32);
    CHECK(t.prep == kWholeImage);
    CHECK(t.note == "32 px, squash 1 (the defaults: the file does not say)");
    CHECK(count(log.text(), "warning") == 1);
    CHECK(count(log.text(), "--image-size 32, --crop-mode squash, --crop-pct 1") == 1);
    // Part given: only the rest is named; all given: nothing to say.
    images_taken(none, ImageOptions{.image_size = 40, .warn_unsaid = true}, "m.pt", "its metadata");
    CHECK(count(log.text(), "prepared as --crop-mode squash, --crop-pct 1;") == 1);
    images_taken(
        none,
        ImageOptions{
            .image_size = 40, .mode = CropMode::kCenter, .crop_pct = 0.6, .warn_unsaid = true},
        "m.pt", "its metadata");
    // --init-weights (warn_unsaid false): its run says the size.
    images_taken(none, ImageOptions{}, "m.pt", "its metadata");
    CHECK(count(log.text(), "warning") == 2);
  }
}

TEST_CASE("an export names what its format loses of the model's answers", "[weights_images]") {
  CheckpointInfo info;
  info.model = "airbench94";
  info.stem = "cifar";
  info.class_names = {"a", "b"};
  info.num_classes = 2;
  info.image.image_size = 40;
  info.prep = ImagePrep{CropMode::kCenter, 0.6};
  info.normalization = Normalization{{0.5, 0.5, 0.5}, {0.25, 0.25, 0.25}};
  info.tta = 2;
  const std::string pt = export_losses(info, "m.pt");
  CHECK(count(pt,
              "need --model airbench94 --mean 0.5,0.5,0.5 --std 0.25,0.25,0.25 "
              "--image-size 40 --crop-mode center --crop-pct 0.6 --tta 2 to give its "
              "answers, and its 2 class names are lost; export to m.safetensors") == 1);
  CHECK(count(export_losses(info, "m.pth"), "m.safetensors instead") == 1);
  CHECK(count(export_losses(info, "m.safetensors"), "level (2)") == 1);
  info.tta = 0;
  CHECK(export_losses(info, "m.safetensors").empty());
  // A CIFAR-10 net at 32 px, squash 1, the training normalisation: the model alone.
  CheckpointInfo plain;
  plain.model = "net";
  plain.stem = "cifar";
  plain.class_names = default_class_names();
  plain.num_classes = 10;
  CHECK(count(export_losses(plain, "n.pt"),
              "need --model net to give its answers; export to n.safetensors") == 1);
}
