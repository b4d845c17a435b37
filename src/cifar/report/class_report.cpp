// class_report.cpp: the best and worst classes, top-1 and top-5 (class_report.h).
#include "cifar/report/class_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "cifar/report/reporting.h"  // split_in_words

namespace cifar {

std::string format_many_classes(const EvalResult& r, const std::vector<std::string>& names,
                                const std::string& split) {
  std::string out = fmt::format("Accuracy of the network on the {} {} images: top-1 {:.1f} %",
                                r.total, split_in_words(split), 100 * r.accuracy());
  if (r.has_top5()) out += fmt::format(", top-5 {:.1f} %", 100 * r.top5_accuracy());
  out += '\n';
  const auto acc = r.per_class_accuracy();
  std::vector<size_t> order;  // the classes with test images
  for (size_t c = 0; c < acc.size(); ++c) {
    if (!std::isnan(acc[c])) order.push_back(c);
  }
  // The best, then the worst among the others: no class is in both lists
  // (ties in label order).
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return acc[a] > acc[b]; });
  const size_t best = std::min<size_t>(5, order.size());
  const size_t worst = std::min<size_t>(5, order.size() - best);
  std::stable_sort(order.begin() + static_cast<std::ptrdiff_t>(best), order.end(),
                   [&](size_t a, size_t b) { return acc[a] < acc[b]; });
  size_t width = 0;
  for (const auto& name : names) width = std::max(width, std::min<size_t>(name.size(), 24));
  auto line = [&](size_t c) {
    return fmt::format("  {:<{}} {:5.1f} %\n", names.at(c), width, 100 * acc[c]);
  };
  out += fmt::format("The {} best classes:\n", best);
  for (size_t i = 0; i < best; ++i) out += line(order[i]);
  if (worst > 0) {
    out += fmt::format("The {} worst classes:\n", worst);
    for (size_t i = best; i < best + worst; ++i) out += line(order[i]);
    // A tie across the two lists (a class left out of the best at the last
    // best one's accuracy): which of the tied classes is shown is label
    // order's choice. The others are in ascending order: the last is the highest.
    const double edge = acc[order[best - 1]];
    if (acc[order.back()] == edge) {
      const auto tied =
          std::count_if(order.begin(), order.end(), [&](size_t c) { return acc[c] == edge; });
      out += fmt::format("({} classes tie at {:.1f} %: the lists show the first in label order)\n",
                         tied, 100 * edge);
    }
  }
  if (order.size() < acc.size()) {
    const size_t none = acc.size() - order.size();
    out += none == 1 ? std::string("(1 class has no test images)\n")
                     : fmt::format("({} classes have no test images)\n", none);
  }
  return out;
}

std::string describe_unprinted_confusion(const EvalResult& r) {
  return fmt::format("Confusion matrix: {} classes, too many to print (--json has it)\n",
                     r.num_classes);
}

}  // namespace cifar
