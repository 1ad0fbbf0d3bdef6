// Progress of `nqc run`: ranks report finished cases to the shared counter; a thread of rank 0
// logs the count, rate and ETA, also while rank 0 runs one long case.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

#include "runner/session.hpp"

namespace nqc {

/// "progress: DONE/TOTAL cases (P%), R cases/s, ETA S s" for `done_cases` of `total` cases, of
/// estimated cost `cost_s` of `total_cost_s` seconds, `elapsed_s` into this launch. `already`
/// (a resume's) counts in DONE, not in the rate. The ETA is the cost left over the cost done per
/// second ("unknown" until some is done). Counts beyond the totals are taken as the totals.
[[nodiscard]] std::string progress_line(std::uint64_t total, double total_cost_s, std::uint64_t already,
                                        double already_cost_s, std::uint64_t done_cases, double cost_s,
                                        double elapsed_s);

/// The progress of the ranks' shards. Every rank reports its cases to `counter` every
/// max(min(1 s, `interval_s`), `world_size` / 1,000 s) and at flush() (docs/configs.md,
/// "Progress"). On `root`, a thread logs a line every `interval_s` seconds (0: none).
/// `total`/`total_cost_s` include `already`. Construct after the counter, destroy before it.
class Progress {
 public:
  Progress(WorkCounter& counter, bool root, int world_size, double interval_s, std::uint64_t total, double total_cost_s,
           std::uint64_t already, double already_cost_s);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;
  void add(std::uint64_t cases, double cost_s);
  void flush();
  /// Once every rank has flushed (after the last barrier): stops the thread and, when any line
  /// was logged, logs the last one, whose count is then exact.
  void finish();

 private:
  void log();
  void stop();
  WorkCounter& counter_;
  double interval_s_, report_s_, total_cost_s_, already_cost_s_;
  std::uint64_t total_, already_;
  bool logged_ = false;
  std::uint64_t cases_ = 0;  // not reported yet
  double cost_s_ = 0;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now(), reported_ = start_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace nqc
