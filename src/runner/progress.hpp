// Progress of `nqc run`: each rank reports its finished cases to the shared
// counter (CaseReporter); rank 0 logs the cases finished on every rank, the rate over this
// launch and an ETA from the plan's cost estimate (Progress), from a thread of its own that
// reads the counter without MPI (ProgressLog), so that lines come also while rank 0
// runs one long case.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

#include "runner/session.hpp"

namespace nqc {

/// The progress line for `done_cases` of `total` cases finished, of estimated cost `cost_s` of
/// `total_cost_s` seconds, `elapsed_s` seconds into this launch; `already`/`already_cost_s`
/// were done before it (a resume) and count in DONE but not in the rate. The ETA is the
/// estimated cost left over the estimated cost done per second of this launch ("unknown" until
/// some is done); counts beyond the totals are taken as the totals.
[[nodiscard]] std::string progress_line(std::uint64_t total, double total_cost_s, std::uint64_t already,
                                        double already_cost_s, std::uint64_t done_cases, double cost_s,
                                        double elapsed_s);

/// The progress line: "progress: DONE/TOTAL cases (P%), R cases/s, ETA S s" (or "ETA
/// unknown"). The rate counts this launch's cases only; the ETA is weighted by the plan's
/// cost estimate (the largest shards go first, so equal cost per case would promise too early
/// an end). Not thread-safe: one thread logs at a time.
class Progress {
 public:
  /// `total`/`total_cost_s`: this launch's cases and their estimated seconds, those done
  /// before it (`already`, `already_cost_s`: a resume) included; `interval_s` between lines
  /// (0 = silent).
  Progress(std::uint64_t total, double total_cost_s, std::uint64_t already, double already_cost_s, double interval_s);
  /// Logs one line (info) for `done` cases of estimated cost `cost_us` (microseconds), unless
  /// silent.
  void log(std::uint64_t done, std::uint64_t cost_us);
  [[nodiscard]] double interval_s() const { return interval_s_; }
  /// True once a line was logged.
  [[nodiscard]] bool logged() const { return logged_; }

 private:
  std::uint64_t total_, already_;
  double total_cost_s_, already_cost_s_, interval_s_;
  bool logged_ = false;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now(), last_ = start_;
};

/// Rank 0's progress lines while the ranks run their shards: from a thread of their own that
/// reads rank 0's counter (WorkCounter::done, without MPI) every interval, also during one
/// long case. Other ranks log nothing. Construct after the counter, destroy before it.
class ProgressLog {
 public:
  ProgressLog(Progress& progress, WorkCounter& counter, bool root);
  ~ProgressLog();
  ProgressLog(const ProgressLog&) = delete;
  ProgressLog& operator=(const ProgressLog&) = delete;
  /// Once every rank has reported all its cases (after the last barrier): stops the thread
  /// and, when any line was logged, logs the last one, whose count is then exact.
  void finish();

 private:
  void stop();
  Progress& progress_;
  WorkCounter& counter_;
  bool root_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;
};

/// A rank's finished cases, reported to the shared counter at most every few seconds (and by
/// flush()), so that progress counts cases, not whole shards.
class CaseReporter {
 public:
  /// `progress_interval_s`: the progress lines' interval; cases are reported every
  /// min(1 s, that interval) (1 s when there are no lines), so that no two lines show the
  /// same count for want of a report; in a world of more than 1,000 ranks every
  /// `world_size` / 1,000 seconds, so that rank 0's service answers about 1,000 reports a
  /// second at any size (docs/configs.md, "Progress").
  CaseReporter(WorkCounter& counter, double progress_interval_s, int world_size);
  void add(std::uint64_t cases, double cost_s);
  void flush();

 private:
  WorkCounter& counter_;
  double every_s_;
  std::uint64_t cases_ = 0;
  double cost_s_ = 0;
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

}  // namespace nqc
