// MPI for the runner: the world, and the shared counter that hands out work.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

namespace nqc {

/// Owns MPI_Init (MPI_THREAD_MULTIPLE) / MPI_Finalize, only when an MPI launcher started the
/// process; otherwise the world is one rank and every collective a no-op. Throws
/// nqc::InputError when a world of several ranks cannot have MPI_THREAD_MULTIPLE.
class MpiSession {
 public:
  MpiSession(int& argc, char**& argv);
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

  /// Why this world is not the one Slurm gave (srun's SLURM_STEP_NUM_TASKS, or SLURM_NTASKS > 1
  /// without a launcher), or "". mpirun's world is not checked.
  [[nodiscard]] std::string world_mismatch() const;
  /// Whether this process logs the launch's refusals: rank 0, or SLURM_PROCID 0 (or none).
  [[nodiscard]] bool speaks() const;

  [[nodiscard]] bool active() const { return active_; }
  [[nodiscard]] int rank() const { return rank_; }
  [[nodiscard]] int size() const { return size_; }

  void barrier() const;
  /// A barrier that sleeps `poll_s` seconds between tests, leaving its core to working ranks.
  void idle_barrier(double poll_s = 0.01) const;
  [[nodiscard]] int allreduce_max(int value) const;
  [[nodiscard]] std::uint64_t allreduce_sum(std::uint64_t value) const;
  /// Rank 0's value on every rank.
  void broadcast(int& value) const { broadcast_bytes(&value, sizeof value); }
  void broadcast(std::string& value) const { broadcast_sized(value); }
  void broadcast(std::vector<std::uint64_t>& values) const { broadcast_sized(values); }
  /// Every rank's `value`, by rank, on rank 0 (other ranks get an empty vector). Collective.
  [[nodiscard]] std::vector<std::string> gather(const std::string& value) const;
  /// Ends every rank with `code` (MPI_Abort when active, else std::exit).
  [[noreturn]] void abort(int code) const;

 private:
  void broadcast_bytes(void* data, std::size_t bytes) const;
  template <typename Sized>
  void broadcast_sized(Sized& values) const {
    std::uint64_t size = values.size();
    broadcast_bytes(&size, sizeof size);
    values.resize(size);
    broadcast_bytes(values.data(), size * sizeof values[0]);
  }
  bool active_ = false;
  int rank_ = 0;
  int size_ = 1;
};

/// A shared counter of work handed out and of cases done (with their estimated cost), served
/// by a thread of rank 0 over point-to-point messages on a communicator of its own, so that
/// ranks take work dynamically on any transport and rank 0 runs cases too (not MPI-3 RMA:
/// docs/configs.md, "Work distribution"). Construction and destruction are collective.
class WorkCounter {
 public:
  explicit WorkCounter(const MpiSession& session);
  ~WorkCounter();
  WorkCounter(const WorkCounter&) = delete;
  WorkCounter& operator=(const WorkCounter&) = delete;

  /// The next index (0, 1, 2, ... across all ranks, each to exactly one rank).
  std::uint64_t take();
  /// Ends the handing out: every later take(), on any rank, returns an index past every slot.
  /// Does not wait for rank 0.
  void close();
  /// Adds `cases` and their estimated cost (`cost_us`, microseconds) to the global counts done.
  /// Does not wait for rank 0.
  void add_done(std::uint64_t cases, std::uint64_t cost_us = 0);
  /// The global counts done as reported so far, on rank 0 (0 elsewhere); safe from any thread.
  [[nodiscard]] std::uint64_t done() const { return counters_[1].load(std::memory_order_relaxed); }
  [[nodiscard]] std::uint64_t cost_done() const { return counters_[2].load(std::memory_order_relaxed); }

  /// This rank's waits in take(): how many, their sum and their maximum (seconds).
  struct Waits {
    std::uint64_t count = 0;
    double total_s = 0, max_s = 0;
  };
  [[nodiscard]] const Waits& waits() const { return waits_; }

 private:
  void serve();
  /// Applies a request ({op, a, b}) to rank 0's counters; kTake's index, else 0.
  std::uint64_t apply(const std::uint64_t* request);
  /// Applies a request here (rank 0, or no MPI) or sends it to rank 0; apply's value, or 0 when sent.
  std::uint64_t request(std::uint64_t op, std::uint64_t a = 0, std::uint64_t b = 0);
  const MpiSession& session_;
  std::atomic<std::uint64_t> counters_[3] = {0, 0, 0};  // taken, cases done, cost done (us): rank 0's
  void* comm_ = nullptr;  // MPI_Comm of the requests, kept opaque so that this header needs no mpi.h
  std::thread service_;   // rank 0 of a world of several ranks: serve()
  Waits waits_;
};

}  // namespace nqc
