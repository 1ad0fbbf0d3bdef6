// MPI RAII helpers: the world as seen by the runner, with a serial fallback.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace nqc {

/// Owns MPI_Init / MPI_Finalize. MPI is initialised only when the process was started by an
/// MPI launcher (mpirun/mpiexec or srun --mpi=pmix: OMPI_COMM_WORLD_SIZE, PMIX_RANK or
/// PMI_RANK is set); otherwise the session is a world of one rank and every collective is a
/// no-op, so one process without mpirun runs the same code serially. Not copyable.
class MpiSession {
 public:
  MpiSession(int& argc, char**& argv);
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

  /// True when started by an MPI launcher (see class doc).
  static bool launched_by_mpi();

  [[nodiscard]] bool active() const { return active_; }
  [[nodiscard]] int rank() const { return rank_; }
  [[nodiscard]] int size() const { return size_; }

  void barrier() const;
  /// A barrier that calls `while_waiting` about every `poll_s` seconds until every rank has
  /// reached it (MPI_Ibarrier), so that rank 0 keeps reporting while the others finish.
  void barrier(const std::function<void()>& while_waiting, double poll_s = 0.1) const;
  /// Maximum of `value` over all ranks.
  [[nodiscard]] int allreduce_max(int value) const;
  /// Sum of `value` over all ranks.
  [[nodiscard]] std::uint64_t allreduce_sum(std::uint64_t value) const;
  /// Rank 0's `value` on every rank.
  void broadcast(int& value) const;
  void broadcast(std::string& value) const;
  void broadcast(std::vector<std::uint64_t>& values) const;
  /// Every rank's `value`, by rank, on rank 0 (other ranks get an empty vector). Collective.
  [[nodiscard]] std::vector<std::string> gather(const std::string& value) const;
  /// Ends every rank with `code` (MPI_Abort when active, else std::exit).
  [[noreturn]] void abort(int code) const;

 private:
  bool active_ = false;
  int rank_ = 0;
  int size_ = 1;
};

/// A shared counter of shards handed out, cases done and their estimated cost, hosted on rank 0 in an MPI-3 RMA
/// window (MPI_Win_allocate + MPI_Fetch_and_op under MPI_Win_lock_all), so ranks take shards
/// dynamically and no rank idles as a pure coordinator. Serial sessions use a plain counter.
/// Construction and destruction are collective.
class WorkCounter {
 public:
  explicit WorkCounter(const MpiSession& session);
  ~WorkCounter();
  WorkCounter(const WorkCounter&) = delete;
  WorkCounter& operator=(const WorkCounter&) = delete;

  /// Takes the next index (0, 1, 2, ... across all ranks, each index to exactly one rank).
  std::uint64_t take();
  /// Adds `cases` to the global count of cases done, and `cost_us` (their estimated cost,
  /// microseconds) to the global cost done.
  void add_done(std::uint64_t cases, std::uint64_t cost_us = 0);
  /// The global count of cases done (as reported by every rank so far).
  std::uint64_t done();
  /// The global estimated cost done, microseconds.
  std::uint64_t cost_done();

  /// True where done() and cost_done() can also be read from local memory, without an MPI
  /// call, so from another thread (MPI runs without thread support): on rank 0, which hosts
  /// the window, when its memory model is MPI_WIN_UNIFIED (the other ranks' updates land in
  /// that memory: a load sees them), and in a serial session.
  [[nodiscard]] bool can_peek() const { return peek_ != nullptr; }
  /// done() and cost_done() read from local memory (atomic loads; only when can_peek()).
  /// Safe from any thread; may lag an update in flight.
  [[nodiscard]] std::uint64_t peek_done() const;
  [[nodiscard]] std::uint64_t peek_cost_done() const;

 private:
  std::uint64_t fetch_and_op(int slot, std::uint64_t operand, bool no_op);
  const MpiSession& session_;
  alignas(8) std::uint64_t local_[3] = {0, 0, 0};
  void* window_ = nullptr;  // MPI_Win, kept opaque so that this header needs no mpi.h
  std::uint64_t* base_ = nullptr;
  std::uint64_t* peek_ = local_;  // the counters in local memory, or nullptr (can_peek)
};

}  // namespace nqc
