// class_report.h: the report of an evaluation with many classes.
//
// Up to ten classes the tutorial's report lists every class (reporting.h);
// past ten (CIFAR-100's 100, an image folder's) a line per class no longer
// reads, so the report is the top-1 and top-5 accuracy, then the five best
// and the five worst classes. The whole table is in cifar-eval --json (and
// the confusion matrix in it, and in a run's confusion.csv).
#pragma once

#include <string>
#include <vector>

#include "cifar/report/metrics.h"

namespace cifar {

// "Accuracy of the network on the N test images: top-1 x %, top-5 y %"
// (`split`'s images: reporting.h's split_in_words), then "The 5 best
// classes:" and "The 5 worst classes:" among the others (fewer when there are
// fewer than ten classes; no class in both lists), one indented line each
// (ties in label order; a tie across the lists is said).
std::string format_many_classes(const EvalResult& result, const std::vector<std::string>& names,
                                const std::string& split = "test");

// What cifar-eval prints instead of a confusion matrix too wide to read.
std::string describe_unprinted_confusion(const EvalResult& result);

}  // namespace cifar
