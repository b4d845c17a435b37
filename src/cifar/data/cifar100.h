// cifar100.h: the CIFAR-100 data set in its binary format.
//
// train.bin (50,000 records) and test.bin (10,000) hold records of 3,074
// bytes: the coarse label (0-19), the fine label (0-99), then the 32x32 image
// as 1,024 red, 1,024 green and 1,024 blue bytes, row by row.
// fine_label_names.txt and coarse_label_names.txt name the 100 and 20 classes,
// one per line, in label order. --labels fine (the default) trains on the
// 100 fine classes, coarse on the 20 superclasses. A file holding another
// whole number of records is read (the tests write small ones) and said in
// the log; one that is not a whole number of records is refused.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "cifar/core/enum_names.h"
#include "cifar/core/types.h"
#include "cifar/data/cifar10.h"

namespace cifar {

inline constexpr int64_t kCifar100RecordBytes = 2 + kCifarImageBytes;  // 3,074

// Which of a CIFAR-100 record's two labels is the class.
enum class LabelSet { kFine, kCoarse };
// --labels' names (config/ reads them).
inline constexpr std::array<EnumName<LabelSet>, 2> kLabelSetNames{
    {{LabelSet::kFine, "fine"}, {LabelSet::kCoarse, "coarse"}}};
std::string to_string(LabelSet labels);

// The classes of a label set: 100 fine, 20 coarse.
int64_t cifar100_classes(LabelSet labels);

// The files of a CIFAR-100 binary folder: train.bin, test.bin,
// fine_label_names.txt, coarse_label_names.txt.
const std::vector<std::string>& cifar100_file_names();

// The published per-channel mean and std of CIFAR-100's training images.
Normalization cifar100_normalization();

// Parses whole records held in memory into images (records, 3, 32, 32) and
// labels (records), contiguous uint8 / int64 CPU tensors sized by the caller
// (bytes.size() / 3,074 records); checks every label of both sets. `source`
// names the file in errors.
void parse_cifar100_records(std::span<const uint8_t> bytes, const std::string& source,
                            LabelSet labels, uint8_t* images, int64_t* label_out);

// Reads a split (train.bin or test.bin) and the label set's class names from
// `dir`; errors name the file, the problem and scripts/download_cifar100.sh.
ImageSplit read_cifar100(const std::filesystem::path& dir, Split split, LabelSet labels);

}  // namespace cifar
