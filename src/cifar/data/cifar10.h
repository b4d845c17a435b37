// cifar10.h: the CIFAR-10 data set in its standard binary format.
//
// Each batch file holds records of 3,073 bytes: one label byte (0-9), then the
// 32x32 image as 1,024 red, 1,024 green and 1,024 blue bytes, row by row.
// data_batch_1.bin ... data_batch_5.bin make the 50,000 training images and
// test_batch.bin the 10,000 test images, 10,000 records per file.
//
// A whole split is read into one ImageSplit (image_split.h): one uint8
// tensor (N, 3, 32, 32) and one int64 label tensor (N). Every check names
// the file and the problem and hints at the fix.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "cifar/core/types.h"
#include "cifar/data/image_split.h"

namespace cifar {

// CIFAR's images (CIFAR-100's too): 3 x 32 x 32, 3,072 bytes each.
inline constexpr ImageShape kCifarImage{.channels = 3, .image_size = kCifarImageSize};
inline constexpr int64_t kCifarImageBytes = kCifarImage.bytes();  // 3,072
inline constexpr int64_t kRecordBytes = 1 + kCifarImageBytes;     // 3,073
inline constexpr int64_t kRecordsPerFile = 10000;

struct Cifar10Options {
  // Records each batch file must hold; tests set a small number.
  int64_t records_per_file = kRecordsPerFile;
  int64_t train_files = 5;
};

inline constexpr int64_t kCifar10Classes = 10;

// The standard ten class names, in label order.
const std::vector<std::string>& default_class_names();

// Names of the batch files of a split: data_batch_1.bin ... or test_batch.bin.
std::vector<std::string> batch_file_names(Split split, const Cifar10Options& options = {});

// Parses the records of one batch file held in memory. Checks the size
// (records_per_file * 3,073 bytes) and every label; `source` names the file in
// error messages. Writes into images (records, 3, 32, 32) and labels
// (records), which must be contiguous uint8 / int64 CPU tensors.
void parse_cifar10_records(std::span<const uint8_t> bytes, const std::string& source,
                           int64_t records_per_file, uint8_t* images, int64_t* labels);

// Reads a whole split from `dir`, checking that the directory and every batch
// file exist and hold well-formed records.
ImageSplit read_cifar10(const std::filesystem::path& dir, Split split,
                        const Cifar10Options& options = {});

// Class names from batches.meta.txt when present (one per line, ten lines),
// else the standard ten.
std::vector<std::string> read_class_names(const std::filesystem::path& dir);

// The non-empty lines of a class-name file (trailing spaces and CRs cut;
// bytes that are not UTF-8 shown as \xNN text, with a warning). `what` names
// the file in errors ("CIFAR-100 class-name file").
std::vector<std::string> read_name_lines(const std::filesystem::path& path, const char* what);

}  // namespace cifar
