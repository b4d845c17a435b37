// time_budget.cpp: --time's fit of the epochs to the budget (time_budget.h).
#include "cifar/train/time_budget.h"

#include <algorithm>
#include <cmath>

#include "cifar/config/option_spec.h"  // kMaxEpochs

namespace cifar {

int64_t fit_epochs(double budget_s, double elapsed_s, double before_first_s, int64_t done) {
  const double pace =
      (elapsed_s - before_first_s) / static_cast<double>(std::max<int64_t>(done, 1));
  if (!(pace > 0)) return done + 1;
  const double more = std::round((budget_s - elapsed_s) / pace);
  // At most --epochs' own limit, so that the saved count reads back.
  const auto most = static_cast<double>(options::kMaxEpochs);
  return std::min<int64_t>(done + std::max<int64_t>(1, static_cast<int64_t>(std::min(more, most))),
                           std::max<int64_t>(done + 1, options::kMaxEpochs));
}

double TimeBudget::elapsed_s(Clock::time_point now) const {
  return std::chrono::duration<double>(now - started).count();
}

double TimeBudget::before_first_s() const {
  return std::chrono::duration<double>(first_step - started).count();
}

int64_t TimeBudget::fit(int64_t done, Clock::time_point now) const {
  return fit_epochs(seconds, elapsed_s(now), before_first_s(), done);
}

}  // namespace cifar
