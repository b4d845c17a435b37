// test_dataset_kinds.cpp: the table of data-set kinds declares everything
// that differs between kinds, and what it declares agrees with itself: each
// kind is detected from the files it says it reads, and its name goes both ways.
#include <catch2/catch.hpp>

#include <set>

#include "cifar/core/errors.h"
#include "cifar/data/dataset.h"
#include "test_helpers.h"

using namespace cifar;
using cifar::test::TempDir;

TEST_CASE("each data-set kind declares its detection, reader and normalisation",
          "[data][dataset]") {
  std::set<std::string> names;
  for (const DatasetKindEntry& e : dataset_kinds()) {
    INFO(e.name);
    CHECK(names.insert(e.name).second);
    REQUIRE(e.detect != nullptr);
    REQUIRE(e.read != nullptr);
    REQUIRE(e.normalization != nullptr);
    REQUIRE(e.files != nullptr);
    CHECK_FALSE(e.needs.empty());
    const DatasetKind kind{e.name};
    CHECK(dataset_request(e.name) == kind);
    CHECK(to_string(kind) == e.name);
    CHECK(&dataset_entry(kind) == &e);
    TempDir empty;
    CHECK(e.detect(empty.path()).empty());
    // Any one of the files it reads marks a folder as this kind.
    for (const auto& file : e.files(empty.path())) {
      INFO(file);
      TempDir dir;
      test::write_bytes(dir.path() / file.filename(), {1});
      CHECK(detect_dataset(dir.path()) == kind);
    }
    // Only a kind of image files has a val/ split of its own.
    if (!e.image_files) {
      CHECK_THROWS_AS(read_dataset_split({.dir = empty.path()}, kind, Split::kVal),
                      std::invalid_argument);  // resolve/inference.cpp refuses it
    }
  }
  DatasetInfo info;
  info.labels = LabelSet::kCoarse;
  info.kind = DatasetKind{"cifar100"};
  CHECK(info.id() == "cifar100-coarse");
  info.kind = DatasetKind{"cifar10"};  // one label set: the name alone
  CHECK(info.id() == "cifar10");
}
