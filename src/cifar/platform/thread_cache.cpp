// thread_cache.cpp: the remembered thread counts, read, checked, merged and
// written atomically (see thread_cache.h).
#include "cifar/platform/thread_cache.h"

#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <system_error>

#include "cifar/core/file_io.h"

namespace cifar {
namespace {

constexpr const char* kFormat = "cifar-train thread cache";
constexpr int kVersion = 1;

[[noreturn]] void damaged(size_t index, const std::string& what) {
  throw std::runtime_error(fmt::format("entry {}: {}", index + 1, what));
}

double number_in(const nlohmann::json& j, const char* field, double lo, double hi, size_t index) {
  if (!j.contains(field) || !j[field].is_number())
    damaged(index, fmt::format("no number {}", field));
  const double v = j[field].get<double>();
  if (!std::isfinite(v) || v < lo || v > hi) {
    damaged(index, fmt::format("{} {} is outside [{}, {}]", field, v, lo, hi));
  }
  return v;
}

RememberedThreads entry_of(const nlohmann::json& j, size_t index) {
  if (!j.is_object()) damaged(index, "not an object");
  RememberedThreads e;
  if (!j.contains("key") || !j["key"].is_string() || j["key"].get<std::string>().empty()) {
    damaged(index, "no key");
  }
  e.key = j["key"].get<std::string>();
  e.others_load = number_in(j, "others_load", 0, 4096, index);
  if (!j.contains("threads") || !j["threads"].is_number_integer()) damaged(index, "no threads");
  e.threads = static_cast<int>(number_in(j, "threads", 1, 4096, index));
  e.probe_seconds = number_in(j, "probe_seconds", 0, 1e6, index);
  if (!j.contains("rates") || !j["rates"].is_object()) damaged(index, "no rates");
  for (const auto& [count, rate] : j["rates"].items()) {
    int n = 0;
    try {
      size_t used = 0;
      n = std::stoi(count, &used);
      if (used != count.size()) throw std::invalid_argument(count);
    } catch (const std::exception&) {
      damaged(index, fmt::format("rates key '{}' is not a thread count", count));
    }
    if (n < 1 || n > 4096 || !rate.is_number() || !std::isfinite(rate.get<double>()) ||
        rate.get<double>() < 0) {
      damaged(index, fmt::format("rate of {} threads is not a count and an img/s", count));
    }
    e.rates[n] = rate.get<double>();
  }
  if (e.rates.count(e.threads) == 0) {
    damaged(index, fmt::format("the chosen {} threads were never measured", e.threads));
  }
  return e;
}

bool same_slot(const RememberedThreads& a, const RememberedThreads& b) {
  return a.key == b.key && std::abs(a.others_load - b.others_load) < ThreadCache::kSameLoad;
}

// `entries` with `e` in place of its slot's entry, last (the newest), at most kMaxEntries.
void put(std::vector<RememberedThreads>& entries, const RememberedThreads& e) {
  std::erase_if(entries, [&](const RememberedThreads& x) { return same_slot(x, e); });
  entries.push_back(e);
  if (entries.size() > ThreadCache::kMaxEntries) {
    entries.erase(
        entries.begin(),
        entries.begin() + static_cast<std::ptrdiff_t>(entries.size() - ThreadCache::kMaxEntries));
  }
}

// The file's entries; a missing file is none; otherwise `note` says why it was ignored.
std::vector<RememberedThreads> read_entries(const std::filesystem::path& file, std::string& note) {
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) return {};
  try {
    return parse_thread_cache(read_file(file, ThreadCache::kMaxBytes, "thread cache"));
  } catch (const std::exception& e) {
    note = fmt::format(
        "thread cache {} ignored ({}); thread counts will be measured and the file rewritten",
        file.string(), e.what());
    return {};
  }
}

}  // namespace

std::string ThreadCase::key() const {
  return fmt::format("{} | {} | {} cores | {} | batch {} | amp {} | {} | LibTorch {}", phase, cpu,
                     cores, model, batch, precision, channels_last ? "channels-last" : "contiguous",
                     libtorch);
}

std::string thread_cache_text(const std::vector<RememberedThreads>& entries) {
  nlohmann::json cases = nlohmann::json::array();
  for (const auto& e : entries) {
    nlohmann::json rates = nlohmann::json::object();
    for (const auto& [n, rate] : e.rates) rates[std::to_string(n)] = std::round(rate);
    cases.push_back({{"key", e.key},
                     {"others_load", std::round(e.others_load * 100) / 100},
                     {"threads", e.threads},
                     {"rates", rates},
                     {"probe_seconds", std::round(e.probe_seconds * 1000) / 1000}});
  }
  const nlohmann::json doc = {{"format", kFormat}, {"version", kVersion}, {"cases", cases}};
  return doc.dump(1) + "\n";
}

std::vector<RememberedThreads> parse_thread_cache(const std::string& text) {
  const nlohmann::json doc = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) throw std::runtime_error("not JSON");
  if (!doc.is_object() || !doc.contains("format") || doc["format"] != kFormat) {
    throw std::runtime_error(fmt::format("not a \"{}\" file", kFormat));
  }
  if (!doc.contains("version") || doc["version"] != kVersion) {
    throw std::runtime_error(fmt::format("version {}, this build reads {}",
                                         doc.contains("version") ? doc["version"].dump() : "none",
                                         kVersion));
  }
  if (!doc.contains("cases") || !doc["cases"].is_array()) throw std::runtime_error("no cases");
  std::vector<RememberedThreads> entries;
  for (size_t i = 0; i < doc["cases"].size(); ++i) put(entries, entry_of(doc["cases"][i], i));
  return entries;
}

ThreadCache::ThreadCache(std::filesystem::path file) : file_(std::move(file)) {
  if (enabled()) entries_ = read_entries(file_, note_);
}

std::optional<RememberedThreads> ThreadCache::find(const std::string& key,
                                                   double others_load) const {
  std::optional<RememberedThreads> best;
  for (const auto& e : entries_) {
    const double distance = std::abs(e.others_load - others_load);
    if (e.key != key || distance >= kSameLoad) continue;
    if (!best || distance < std::abs(best->others_load - others_load)) best = e;
  }
  return best;
}

void ThreadCache::remember(const RememberedThreads& entry) {
  if (!enabled()) return;
  std::string ignored;  // what another run wrote meanwhile, if it reads
  std::vector<RememberedThreads> merged = read_entries(file_, ignored);
  put(merged, entry);
  put(entries_, entry);
  try {
    ensure_writable(file_, "--thread-cache");
    write_file_atomically(file_, thread_cache_text(merged), "--thread-cache");
  } catch (const std::exception& e) {
    note_ = fmt::format("thread cache not written: {}", e.what());
  }
}

}  // namespace cifar
