// progress_screen.cpp: the ScreenSink that routes log lines around the
// progress bar's line, and the leases that install and remove it.
#include "cifar/report/progress_screen.h"

#include <spdlog/sinks/sink.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <mutex>
#include <utility>
#include <vector>

namespace cifar {

// Stands in for a logger's sinks while bars are up: clears the line, logs
// through them, redraws the line.
class ScreenSink final : public spdlog::sinks::sink {
 public:
  explicit ScreenSink(std::vector<spdlog::sink_ptr> inner) : inner_(std::move(inner)) {}

  void log(const spdlog::details::log_msg& msg) override {
    std::lock_guard lock(mutex_);
    const bool was_drawn = drawn_;
    clear_locked();
    for (auto& target : inner_) {
      if (!target->should_log(msg.level)) continue;
      target->log(msg);
      target->flush();
    }
    if (was_drawn) draw_locked();
  }
  void flush() override {
    std::lock_guard lock(mutex_);
    for (auto& target : inner_) target->flush();
  }
  void set_pattern(const std::string& pattern) override {
    std::lock_guard lock(mutex_);
    for (auto& target : inner_) target->set_pattern(pattern);
  }
  void set_formatter(std::unique_ptr<spdlog::formatter> formatter) override {
    std::lock_guard lock(mutex_);
    for (auto& target : inner_) target->set_formatter(formatter->clone());
  }

  const std::vector<spdlog::sink_ptr>& inner() const { return inner_; }

  void attach() {
    std::lock_guard lock(mutex_);
    ++leases_;
  }
  // Returns true when no lease is left.
  bool detach(const ScreenLease* lease) {
    std::lock_guard lock(mutex_);
    if (owner_ == lease) {
      clear_locked();
      owner_ = nullptr;
    }
    return --leases_ == 0;
  }
  void draw(const ScreenLease* lease, const std::string& line) {
    std::lock_guard lock(mutex_);
    owner_ = lease;
    line_ = line;
    draw_locked();
  }

 private:
  void draw_locked() {
    std::fprintf(stderr, "\r%s\033[K", line_.c_str());
    std::fflush(stderr);
    drawn_ = true;
  }
  void clear_locked() {
    if (!drawn_) return;
    std::fputs("\r\033[K", stderr);
    std::fflush(stderr);
    drawn_ = false;
  }

  std::mutex mutex_;
  const std::vector<spdlog::sink_ptr> inner_;  // the logger's own sinks
  int leases_ = 0;
  const ScreenLease* owner_ = nullptr;  // the lease that drew the line last
  std::string line_;
  bool drawn_ = false;
};

ScreenLease::ScreenLease() : logger_(spdlog::default_logger()) {
  if (logger_) {
    auto& sinks = logger_->sinks();
    if (sinks.size() == 1) sink_ = std::dynamic_pointer_cast<ScreenSink>(sinks.front());
    if (!sink_) {  // the first bar: the ScreenSink takes the logger's sinks
      sink_ = std::make_shared<ScreenSink>(sinks);
      sinks = {sink_};
    }
  } else {
    sink_ = std::make_shared<ScreenSink>(std::vector<spdlog::sink_ptr>{});
  }
  sink_->attach();
}

ScreenLease::~ScreenLease() {
  release();
}

void ScreenLease::draw(const std::string& line) {
  if (sink_) sink_->draw(this, line);
}

void ScreenLease::release() {
  if (!sink_) return;
  const bool last = sink_->detach(this);
  // The last bar gives the sinks back, unless someone replaced them since.
  if (last && logger_ && logger_->sinks().size() == 1 && logger_->sinks().front() == sink_) {
    logger_->sinks() = sink_->inner();
  }
  sink_.reset();
  logger_.reset();
}

}  // namespace cifar
