// reporting.cpp: tables, JSON, CSV and the epoch line.
#include "cifar/report/reporting.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <charconv>
#include <cmath>

#include <nlohmann/json.hpp>

#include "cifar/report/class_report.h"

#include "cifar/core/file_io.h"
#include "cifar/core/names.h"
#include "cifar/io/resumed_run_dir.h"

namespace cifar {

std::vector<double> EvalResult::per_class_accuracy() const {
  const auto n = static_cast<size_t>(num_classes);
  std::vector<double> acc(n, std::nan(""));
  for (size_t c = 0; c < n; ++c) {
    int64_t row = 0;
    for (size_t p = 0; p < n; ++p) row += confusion[c * n + p];
    if (row > 0) acc[c] = static_cast<double>(confusion[c * n + c]) / static_cast<double>(row);
  }
  return acc;
}

std::string format_epoch_line(const EpochMetrics& m, int64_t epochs) {
  std::string line = fmt::format("epoch {}/{}: train {:.4f} {:.2f}%", m.epoch, epochs, m.train_loss,
                                 100 * m.train_accuracy);
  if (m.has_validation()) {
    line += fmt::format(" val {:.4f} {:.2f}%", m.val_loss, 100 * m.val_accuracy);
  }
  if (m.has_test()) line += fmt::format(" test {:.4f} {:.2f}%", m.test_loss, 100 * m.test_accuracy);
  line += fmt::format(" | lr {:.3g} {:.1f}s {:.0f} img/s", m.lr, m.seconds, m.images_per_second);
  if (m.peak_memory_bytes > 0) {
    line += fmt::format(" peak {:.0f} MiB",
                        static_cast<double>(m.peak_memory_bytes) / (1024.0 * 1024.0));
  }
  return line;
}

std::string split_in_words(const std::string& split) {
  if (split == "val") return "validation";
  if (split == "train") return "training";
  return split;
}

std::string format_per_class(const EvalResult& r, const std::vector<std::string>& class_names,
                             const std::string& split) {
  const std::vector<std::string> names =
      shown_names(class_names);  // one line each, whatever they hold
  if (r.total == 0)
    return "No test images: the data has no test split (see the validation figures)\n";
  if (r.num_classes > kTop5Above) return format_many_classes(r, names, split);
  const std::string images = split_in_words(split);
  std::string out = fmt::format("Accuracy of the network on the {} {} images: {:.1f} %\n", r.total,
                                images, 100 * r.accuracy());
  const auto acc = r.per_class_accuracy();
  for (size_t c = 0; c < acc.size(); ++c) {
    out += std::isnan(acc[c])
               ? fmt::format("Accuracy for class: {:<10} has no {} images\n", names.at(c), images)
               : fmt::format("Accuracy for class: {:<10} is {:.1f} %\n", names.at(c), 100 * acc[c]);
  }
  return out;
}

std::string describe_tta(int64_t level) {
  switch (level) {
    case 0:
      return "level 0 (none)";
    case 1:
      return "level 1 (the image and its mirror)";
    case 2:
      return "level 2 (mirror, and 1-pixel translates)";
  }
  return fmt::format("level {}", level);
}

std::string format_confusion(const EvalResult& r, const std::vector<std::string>& class_names) {
  const std::vector<std::string> names =
      shown_names(class_names);  // one line each, whatever they hold
  const auto n = static_cast<size_t>(r.num_classes);
  std::string out = fmt::format("Test-time augmentation: {}\n", describe_tta(r.tta));
  if (r.num_classes > kTop5Above) return out + describe_unprinted_confusion(r);
  out += "Confusion matrix (rows: true class, columns: predicted class, by number)\n";
  // Classes are numbered, so that whole names label the rows and the
  // columns stay as narrow as the counts: ten classes fit 80 columns.
  auto digits = [](int64_t v) { return fmt::format("{}", v).size(); };
  size_t name_width = 0;
  for (size_t c = 0; c < n; ++c)
    name_width = std::max(name_width, std::min<size_t>(names.at(c).size(), 24));
  int64_t most = 0;
  for (const int64_t count : r.confusion) most = std::max(most, count);
  const size_t number_width = digits(static_cast<int64_t>(n) - 1);
  const size_t column = std::max({digits(most), number_width, size_t{4}}) + 1;
  out += fmt::format("{:{}}", "", number_width + 1 + name_width);
  for (size_t p = 0; p < n; ++p) out += fmt::format("{:>{}}", p, column);
  out += '\n';
  for (size_t c = 0; c < n; ++c) {
    out += fmt::format("{:>{}} {:<{}.{}}", c, number_width, names.at(c), name_width, name_width);
    for (size_t p = 0; p < n; ++p) out += fmt::format("{:>{}}", r.confusion[c * n + p], column);
    out += '\n';
  }
  return out;
}

std::string eval_to_json(const EvalResult& r, const std::string& model, const std::string& device,
                         const std::vector<std::string>& names, const std::string& split) {
  nlohmann::json per_class = nlohmann::json::object();
  const auto acc = r.per_class_accuracy();
  for (size_t c = 0; c < acc.size(); ++c) {  // null: a class without test images
    per_class[names.at(c)] = std::isnan(acc[c]) ? nlohmann::json(nullptr) : nlohmann::json(acc[c]);
  }
  nlohmann::json j = {{"model", model},   {"device", device},     {"split", split},
                      {"total", r.total}, {"correct", r.correct}, {"accuracy", r.accuracy()},
                      {"loss", r.loss},   {"tta", r.tta},         {"per_class", per_class}};
  if (r.has_top5()) {  // more than ten classes: top-5, and the matrix no table shows
    j["top5_correct"] = r.correct_top5;
    j["top5_accuracy"] = r.top5_accuracy();
    nlohmann::json rows = nlohmann::json::array();
    const auto n = static_cast<size_t>(r.num_classes);
    for (size_t c = 0; c < n; ++c) {
      rows.push_back(
          std::vector<int64_t>(r.confusion.begin() + static_cast<std::ptrdiff_t>(c * n),
                               r.confusion.begin() + static_cast<std::ptrdiff_t>((c + 1) * n)));
    }
    j["confusion"] = rows;
  }
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

namespace {
// Rewrites metrics.csv without the rows of epochs after `last_epoch`, and
// without a last row a kill cut short (no newline); names what it dropped.
void drop_rows_after(const std::filesystem::path& path, int64_t last_epoch) {
  const std::string text = read_file(path, uint64_t{1} << 30, "the run's metrics.csv");
  std::string kept;
  std::vector<int64_t> dropped;
  bool cut = false;
  for (size_t at = 0; at < text.size();) {
    const size_t end = std::min(text.find('\n', at), text.size());
    const std::string_view line(text.data() + at, end - at);
    int64_t epoch = 0;
    const auto [ptr, ec] = std::from_chars(line.data(), line.data() + line.size(), epoch);
    const bool later = at > 0 && ec == std::errc() && ptr != line.data() &&
                       ptr != line.data() + line.size() && *ptr == ',' && epoch > last_epoch;
    if (end == text.size()) {
      cut = true;  // a last line without its newline
    } else if (later) {
      dropped.push_back(epoch);
    } else {
      kept.append(line).push_back('\n');
    }
    at = end + 1;
  }
  if (dropped.empty() && !cut) return;
  write_file_atomically(path, kept, "--run-dir");
  if (cut) spdlog::warn("{}: dropped its last row, which a stop cut short", path.string());
  if (dropped.empty()) return;
  spdlog::warn(
      "{}: dropped the rows of epoch {}, which the checkpoint does not hold (the run stopped "
      "after writing them and before its checkpoint); {} trained again",
      path.string(), fmt::join(dropped, ", "), dropped.size() == 1 ? "that epoch is" : "they are");
}
}  // namespace

MetricsCsv::MetricsCsv(const std::filesystem::path& path,
                       std::optional<int64_t> keep_through_epoch) {
  std::error_code ec;
  const bool exists = std::filesystem::exists(path, ec);
  if (std::filesystem::is_symlink(path, ec)) {  // appended to, so never through a link
    throw std::runtime_error(fmt::format(
        "{} is a symbolic link, which cifar-train never writes through; remove it", path.string()));
  }
  if (exists && keep_through_epoch) drop_rows_after(path, *keep_through_epoch);
  out_.open(path, std::ios::app);
  if (!out_) throw std::runtime_error(fmt::format("cannot write {}", path.string()));
  // The header goes with the first row, which says whether the run has a
  // top-5 column (more than ten classes); an empty file (a run stopped before
  // its first row) gets it too.
  header_due_ = !exists || std::filesystem::file_size(path, ec) == 0;
}

void MetricsCsv::write(const EpochMetrics& m) {
  // The validation columns stay empty without a validation split.
  const std::string val = m.has_validation()
                              ? fmt::format("{:.6f},{:.6f}", m.val_loss, m.val_accuracy)
                              : std::string(",");
  // So do the test columns on an epoch --eval-every skips.
  const std::string test =
      m.has_test() ? fmt::format("{:.6f},{:.6f}", m.test_loss, m.test_accuracy) : std::string(",");
  if (header_due_) {
    out_ << kMetricsCsvHeader << (m.top5_column ? ",test_top5_accuracy\n" : "\n");
    header_due_ = false;
  }
  // Top-5 last, where the run has the column (empty on an epoch without a test).
  const std::string top5 = !m.top5_column     ? std::string()
                           : m.test_top5 >= 0 ? fmt::format(",{:.6f}", m.test_top5)
                                              : std::string(",");
  // Not measured, empty too: the evaluation's time on an epoch without one,
  // the peak memory on a CPU.
  const std::string eval_seconds =
      m.has_test() || m.has_validation() ? fmt::format("{:.3f}", m.eval_seconds) : std::string();
  const std::string peak =
      m.peak_memory_bytes > 0 ? std::to_string(m.peak_memory_bytes) : std::string();
  out_ << fmt::format("{},{:.6f},{:.6f},{},{:.8g},{:.3f},{:.1f},{},{},{}{}\n", m.epoch,
                      m.train_loss, m.train_accuracy, test, m.lr, m.seconds, m.images_per_second,
                      eval_seconds, peak, val, top5);
  out_.flush();
}

}  // namespace cifar
