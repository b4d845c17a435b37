// confusion_file.h: the run's latest confusion matrix as a CSV file.
//
// scripts/plot-run draws the confusion matrix of the last epoch from
// RUN_DIR/confusion.csv; the trainer rewrites it after each evaluation.
// Layout (one header row, one row per true class):
//
//   true\predicted,airplane,automobile,...
//   airplane,382,80,...
//
// The file is replaced atomically (temporary file, rename), so a reader never
// sees half of it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

namespace cifar {

// confusion: names.size() x names.size() counts, row-major, row = true class.
void write_confusion_csv(const std::filesystem::path& path, std::span<const int64_t> confusion,
                         const std::vector<std::string>& names);

}  // namespace cifar
