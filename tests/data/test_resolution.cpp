// test_resolution.cpp: the resolution schedule's text both ways, the size of
// each epoch, and the bilinear resize of a batch.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "cifar/data/resolution.h"

using namespace cifar;
namespace F = torch::nn::functional;

namespace {
std::vector<int64_t> sizes_of(const std::string& text) {
  const ScheduleText read = parse_resolution_schedule(text);
  REQUIRE(read.ok());
  return read.sizes;
}
}  // namespace

TEST_CASE("resolution schedule: sizes with repeats, both ways", "[resolution]") {
  CHECK(sizes_of("").empty());
  CHECK(sizes_of("24") == std::vector<int64_t>{24});
  CHECK(sizes_of("24x3,28x2,32") == std::vector<int64_t>{24, 24, 24, 28, 28, 32});
  CHECK(sizes_of("24,24,28") == std::vector<int64_t>{24, 24, 28});
  CHECK(resolution_schedule_text({24, 24, 24, 28, 28, 32}) == "24x3,28x2,32");
  CHECK(resolution_schedule_text({}).empty());
  for (const std::string text : {"24x3,28x3", "16,1024x2,24"}) {
    CHECK(resolution_schedule_text(sizes_of(text)) == text);
  }
}

// Read, not refused: config/ refuses --resolution-schedule with the item and
// why (tests/config/test_refused_values.cpp).
TEST_CASE("resolution schedule: what is not a schedule names the item and why", "[resolution]") {
  for (const std::string bad : {"8", "15", "1025", "24x0", "24x", "x3", "abc", "24,,28", "24,",
                                "+24", "024x3x2", "24 x3", "24x100001", "-24"}) {
    CAPTURE(bad);
    CHECK_FALSE(parse_resolution_schedule(bad).ok());
  }
  const ScheduleText small = parse_resolution_schedule("24x3,12");
  CHECK(small.item == "12");
  CHECK(small.why == "is not a size from 16 to 1024 px");
  const ScheduleText repeat = parse_resolution_schedule("24x0");
  CHECK(repeat.item == "24x0");
  CHECK(repeat.why == "has a repeat not from 1 to 100000");
  const ScheduleText big = parse_resolution_schedule("24x99999,28x2");
  CHECK(big.item == "28x2");
  CHECK(big.why == "takes the schedule past 100000 epochs");
}

TEST_CASE("resolution schedule: each epoch's size, the images' own past its end", "[resolution]") {
  const std::vector<int64_t> schedule = sizes_of("24x2,28");
  CHECK(training_resolution(schedule, 1) == 24);
  CHECK(training_resolution(schedule, 2) == 24);
  CHECK(training_resolution(schedule, 3) == 28);
  CHECK(training_resolution(schedule, 4) == 0);
  CHECK(training_resolution({}, 1) == 0);
}

TEST_CASE("resolution schedule: written for 32 px, scaled to the run's image size",
          "[resolution]") {
  const std::vector<int64_t> schedule{24, 24, 28};
  CHECK(scaled_schedule(schedule, 32, 32) == schedule);
  CHECK(scaled_schedule(schedule, 32, 64) == std::vector<int64_t>{48, 48, 56});
  CHECK(scaled_schedule(schedule, 32, 96) == std::vector<int64_t>{72, 72, 84});
  CHECK(scaled_schedule(schedule, 32, 20) == std::vector<int64_t>{15, 15, 18});  // rounded
  CHECK(scaled_schedule({}, 32, 64).empty());
}

TEST_CASE("resize_images: F.interpolate's bilinear, in the batch's memory format", "[resolution]") {
  torch::manual_seed(3);
  const auto x = torch::randn({5, 3, 32, 32});
  const auto expected = F::interpolate(x, F::InterpolateFuncOptions()
                                              .size(std::vector<int64_t>{24, 24})
                                              .mode(torch::kBilinear)
                                              .align_corners(false));
  const auto y = resize_images(x, 24);
  CHECK(y.sizes() == torch::IntArrayRef{5, 3, 24, 24});
  CHECK(torch::equal(y, expected));
  const auto nhwc = resize_images(x.contiguous(torch::MemoryFormat::ChannelsLast), 28);
  CHECK(nhwc.is_contiguous(torch::MemoryFormat::ChannelsLast));
  CHECK(nhwc.sizes() == torch::IntArrayRef{5, 3, 28, 28});
  // A constant image stays constant; its own size is the image itself.
  CHECK(torch::allclose(resize_images(torch::full({1, 3, 32, 32}, 0.25), 20),
                        torch::full({1, 3, 20, 20}, 0.25)));
  CHECK(resize_images(x, 32).is_same(x));
}
