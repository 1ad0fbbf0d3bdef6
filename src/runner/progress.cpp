#include "runner/progress.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include <spdlog/spdlog.h>

namespace nqc {

Progress::Progress(std::uint64_t total, double total_cost_s, std::uint64_t already, double already_cost_s,
                   double interval_s)
    : total_(total),
      already_(already),
      total_cost_s_(total_cost_s),
      already_cost_s_(already_cost_s),
      interval_s_(interval_s) {}

std::string progress_line(std::uint64_t total, double total_cost_s, std::uint64_t already, double already_cost_s,
                          std::uint64_t done_cases, double cost_s, double elapsed_s) {
  const std::uint64_t done = std::min(done_cases, total);
  const double cost = std::min(cost_s, total_cost_s);
  const double rate = elapsed_s > 0 ? static_cast<double>(done - std::min(done, already)) / elapsed_s : 0.0;
  const double cost_rate = elapsed_s > 0 ? (cost - std::min(cost, already_cost_s)) / elapsed_s : 0.0;
  const std::string eta = cost_rate > 0 ? fmt::format("{:.0f} s", (total_cost_s - cost) / cost_rate) : "unknown";
  return fmt::format("progress: {}/{} cases ({:.1f}%), {:.1f} cases/s, ETA {}", done, total,
                     total ? 100.0 * static_cast<double>(done) / static_cast<double>(total) : 100.0, rate, eta);
}

void Progress::log(std::uint64_t done_cases, std::uint64_t cost_us) {
  if (interval_s_ <= 0) return;
  const auto now = std::chrono::steady_clock::now();
  last_ = now;
  logged_ = true;
  spdlog::info("{}",
               progress_line(total_, total_cost_s_, already_, already_cost_s_, done_cases,
                             1e-6 * static_cast<double>(cost_us), std::chrono::duration<double>(now - start_).count()));
}

ProgressLog::ProgressLog(Progress& progress, WorkCounter& counter, bool root)
    : progress_(progress), counter_(counter), root_(root) {
  if (!root_ || progress_.interval_s() <= 0) return;
  thread_ = std::thread([this] {
    const auto interval = std::chrono::duration<double>(progress_.interval_s());
    std::unique_lock lock(mutex_);
    while (!wake_.wait_for(lock, interval, [this] { return stopping_; })) {
      lock.unlock();
      progress_.log(counter_.done(), counter_.cost_done());
      lock.lock();
    }
  });
}

ProgressLog::~ProgressLog() { stop(); }

void ProgressLog::stop() {
  if (!thread_.joinable()) return;
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void ProgressLog::finish() {
  stop();
  if (root_ && progress_.logged()) progress_.log(counter_.done(), counter_.cost_done());
}

CaseReporter::CaseReporter(WorkCounter& counter, double progress_interval_s, int world_size)
    : counter_(counter),
      every_s_(std::max(progress_interval_s > 0 ? std::min(1.0, progress_interval_s) : 1.0, world_size / 1000.0)) {}

void CaseReporter::add(std::uint64_t cases, double cost_s) {
  cases_ += cases;
  cost_s_ += cost_s;
  if (std::chrono::duration<double>(std::chrono::steady_clock::now() - last_).count() >= every_s_) flush();
}

void CaseReporter::flush() {
  if (cases_ != 0) counter_.add_done(cases_, static_cast<std::uint64_t>(std::llround(cost_s_ * 1e6)));
  cases_ = 0;
  cost_s_ = 0;
  last_ = std::chrono::steady_clock::now();
}

}  // namespace nqc
