// Progress of `nqc run`: each rank reports its finished cases to the shared counter; a thread
// of rank 0 reads the counter without MPI and logs the cases finished on every rank, the rate
// and an ETA, also while rank 0 runs one long case.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

#include "runner/session.hpp"

namespace nqc {

/// "progress: DONE/TOTAL cases (P%), R cases/s, ETA S s" for `done_cases` of `total` cases
/// finished, of estimated cost `cost_s` of `total_cost_s` seconds, `elapsed_s` into this launch.
/// `already`/`already_cost_s` were done before it (a resume): in DONE, not in the rate. The ETA
/// is the estimated cost left over the estimated cost done per second ("unknown" until some is
/// done): the largest shards go first, so equal cost per case would promise too early an end.
/// Counts beyond the totals are taken as the totals.
[[nodiscard]] std::string progress_line(std::uint64_t total, double total_cost_s, std::uint64_t already,
                                        double already_cost_s, std::uint64_t done_cases, double cost_s,
                                        double elapsed_s);

/// The progress of the ranks' shards. Every rank reports its finished cases to `counter`
/// (add) every min(1 s, `interval_s`) (1 s without lines: no two lines show one count for want
/// of a report), and at flush(); in a world of more than 1,000 ranks every `world_size` / 1,000
/// seconds, so that rank 0's service answers about 1,000 reports a second at any size
/// (docs/configs.md, "Progress"). On `root`, a thread logs a progress line (info) every
/// `interval_s` seconds (0: none), reading the counter without MPI. `total`/`total_cost_s`:
/// this launch's cases and their estimated seconds, those done before it (`already`) included.
/// Construct after the counter, destroy before it.
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
