#include "runner/progress.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <system_error>

#include <spdlog/spdlog.h>

namespace nqc {

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

Progress::Progress(WorkCounter& counter, bool root, int world_size, double interval_s, std::uint64_t total,
                   double total_cost_s, std::uint64_t already, double already_cost_s)
    : counter_(counter),
      interval_s_(root ? interval_s : 0),
      report_s_(std::max(interval_s > 0 ? std::min(1.0, interval_s) : 1.0, world_size / 1000.0)),
      total_cost_s_(total_cost_s),
      already_cost_s_(already_cost_s),
      total_(total),
      already_(already) {
  if (interval_s_ <= 0) return;
  try {
    thread_ = std::thread([this] {
      std::unique_lock lock(mutex_);
      while (!wake_.wait_for(lock, std::chrono::duration<double>(interval_s_), [this] { return stopping_; })) {
        lock.unlock();
        log();
        lock.lock();
      }
    });
  } catch (const std::system_error& e) {  // no memory or threads left: the run goes on without progress lines
    spdlog::warn("no progress lines: their thread could not start ({})", e.what());
  }
}

Progress::~Progress() { stop(); }

void Progress::add(std::uint64_t cases, double cost_s) {
  cases_ += cases;
  cost_s_ += cost_s;
  if (std::chrono::duration<double>(std::chrono::steady_clock::now() - reported_).count() >= report_s_) flush();
}

void Progress::flush() {
  if (cases_ != 0) counter_.add_done(cases_, static_cast<std::uint64_t>(std::llround(cost_s_ * 1e6)));
  cases_ = 0;
  cost_s_ = 0;
  reported_ = std::chrono::steady_clock::now();
}

void Progress::log() {
  logged_ = true;
  const double elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  spdlog::info("{}", progress_line(total_, total_cost_s_, already_, already_cost_s_, counter_.done(),
                                   1e-6 * static_cast<double>(counter_.cost_done()), elapsed_s));
}

void Progress::stop() {
  if (!thread_.joinable()) return;
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void Progress::finish() {
  stop();
  if (logged_) log();
}

}  // namespace nqc
