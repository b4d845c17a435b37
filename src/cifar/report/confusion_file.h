// confusion_file.h: the run's latest confusion matrix as a CSV file.
//
// scripts/plot-run draws the confusion matrix of the last epoch from
// RUN_DIR/confusion.csv; the trainer rewrites it after each evaluation.
// Layout (one header row, one row per true class):
//
//   true\predicted,airplane,automobile,...
//   airplane,382,80,...
//
// A class name holding a comma, a quote or a line break is quoted as RFC 4180
// says ("a ""b"", c"), so Python's csv module and spreadsheets read it back.
// The file is replaced atomically (temporary file, rename), so a reader never
// sees half of it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

namespace cifar {

// `text` as one CSV field: quoted when it holds a comma, quote or line break.
std::string csv_field(const std::string& text);

// confusion: names.size() x names.size() counts, row-major, row = true class.
void write_confusion_csv(const std::filesystem::path& path, std::span<const int64_t> confusion,
                         const std::vector<std::string>& names);

}  // namespace cifar
