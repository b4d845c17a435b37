// option_spec.h: what an option of the option tables is, and its range checks.
//
// Opt names an option (CLI11 names, group, help, whether config.toml saves
// it, its role to the run); Range bounds a number, Parsed gives a typed
// value's parse and format functions. out_of_range says why a value is not
// allowed, in the words every visitor (option_visitors.h) reports.
// Included by the option tables only.
#pragma once

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

#include "cifar/config/setting_role.h"

namespace cifar::options {

struct Opt {
  const char* names;  // CLI11 names, e.g. "-e,--epochs"; the long one is the TOML key
  const char* group;
  const char* help;
  bool saved = true;      // written to config.toml (--resume, --overwrite are not)
  bool required = false;  // the tool cannot run without it
  SettingRole role = SettingRole::kShapes;  // what --resume and the ranks compare (setting_role.h)
};

// The same option with another role: local(Opt{...}), fixed(...), per_machine(...),
// fixed_mid_epoch(...).
inline Opt local(Opt o) {
  o.role = SettingRole::kLocal;
  return o;
}
inline Opt fixed(Opt o) {
  o.role = SettingRole::kFixed;
  return o;
}
inline Opt per_machine(Opt o) {
  o.role = SettingRole::kMachine;
  return o;
}
inline Opt fixed_mid_epoch(Opt o) {
  o.role = SettingRole::kFixedMidEpoch;
  return o;
}

template <class T>
struct Range {
  T lo, hi;
  bool lo_open = false;  // lo itself is not allowed
  bool hi_open = false;
};

template <class T>
struct Parsed {
  T (*parse)(const std::string&);  // throws UsageError
  std::string (*format)(const T&);
};

constexpr int64_t kMaxCount = 1'000'000'000;  // images, steps, batch sizes
constexpr int64_t kMaxEpochs = 1'000'000;     // --epochs, and what --steps asks for
constexpr double kMaxReal = 1e30;             // fits a float with room to spare

// --- Range checks ------------------------------------------------------------------

inline std::string long_name(const char* names) {
  const std::string_view s(names);
  const auto at = s.rfind("--");
  return std::string(s.substr(at == std::string_view::npos ? 0 : at + 2));
}

template <class T>
std::string describe(const Range<T>& r) {
  const bool unbounded =
      static_cast<double>(r.hi) >= static_cast<double>(kMaxCount) && std::is_integral_v<T>;
  if (unbounded) return fmt::format("at least {}", r.lo);
  return fmt::format("in {}{}, {}{}", r.lo_open ? '(' : '[', r.lo, r.hi, r.hi_open ? ')' : ']');
}

// "" when `value` is allowed, else why not: "must be at least 1, got 0".
template <class T>
std::string out_of_range(const Range<T>& r, T value, std::string_view typed) {
  const std::string allowed = describe(r);
  if constexpr (std::is_floating_point_v<T>) {
    if (!std::isfinite(value))
      return fmt::format("must be a finite number {}, got {}", allowed, typed);
  }
  const bool low = r.lo_open ? !(value > r.lo) : value < r.lo;
  const bool high = r.hi_open ? !(value < r.hi) : value > r.hi;
  if (!low && !high) return "";
  std::string why = "must be " + allowed;
  if (low && r.lo_open && r.lo == T{0}) why = "must be positive";
  if (low && !r.lo_open) why = fmt::format("must be at least {}", r.lo);
  if (high && allowed.starts_with("at least")) {  // a count's cap, which describe() leaves out
    return fmt::format("must be at most {}, got {}", r.hi_open ? r.hi - 1 : r.hi, typed);
  }
  std::string message = fmt::format("{}, got {}", why, typed);
  if (why != "must be " + allowed) message += fmt::format(" (allowed: {})", allowed);
  return message;
}

}  // namespace cifar::options
