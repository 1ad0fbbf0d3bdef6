// MPI RAII helpers: the world as seen by the runner, with a serial fallback.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

namespace nqc {

/// Owns MPI_Init / MPI_Finalize. MPI is initialised only when the process was started by an
/// MPI launcher (mpirun/mpiexec or srun --mpi=pmix: OMPI_COMM_WORLD_SIZE, PMIX_RANK or
/// PMI_RANK is set); otherwise the session is a world of one rank and every collective is a
/// no-op, so one process without mpirun runs the same code serially. MPI is initialised with
/// MPI_THREAD_MULTIPLE (WorkCounter's service thread); a library that cannot give it is
/// refused with nqc::InputError, as is a world that is not the one the scheduler gave
/// (world_mismatch). Not copyable.
class MpiSession {
 public:
  MpiSession(int& argc, char**& argv);
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

  /// True when started by an MPI launcher (see class doc).
  static bool launched_by_mpi();
  /// Why this world is not the one Slurm gave, or "" when it is (or no Slurm step is known):
  /// srun started SLURM_STEP_NUM_TASKS tasks but the world has another size (srun --mpi=none
  /// makes each task a world of its own), or a batch script of SLURM_NTASKS > 1 tasks started
  /// nqc without a launcher. A world made by mpirun is what its -np asked for: not checked.
  [[nodiscard]] std::string world_mismatch() const;
  /// Whether this process speaks for the launch (logs its refusals): rank 0 of an MPI world,
  /// or the first task of a Slurm step (SLURM_PROCID 0, or none).
  [[nodiscard]] bool speaks() const;

  [[nodiscard]] bool active() const { return active_; }
  [[nodiscard]] int rank() const { return rank_; }
  [[nodiscard]] int size() const { return size_; }

  void barrier() const;
  /// A barrier that sleeps `poll_s` seconds between tests (MPI_Ibarrier), so that a rank that
  /// waits leaves its core to the ranks still working and to rank 0's threads.
  void idle_barrier(double poll_s = 0.01) const;
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

/// A shared counter of shards handed out, cases done and their estimated cost, served by a
/// thread of rank 0 over point-to-point messages on a communicator of its own, so that ranks
/// take shards dynamically on any transport (shared memory, TCP, UCX) and rank 0 runs cases
/// like every other rank: its service thread answers while its main thread is busy in a case.
/// Rank 0 takes and adds with atomics, without MPI. (MPI-3 RMA atomics were the first design:
/// Open MPI 4.1's osc/rdma has none over TCP, and osc/pt2pt needs the target rank to enter MPI,
/// so a rank busy in a long case held up every other rank: docs/configs.md, "Work distribution".)
/// Needs MPI_THREAD_MULTIPLE (MpiSession asks for it). Serial sessions use plain counters.
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
  /// microseconds) to the global cost done. Does not wait for rank 0.
  void add_done(std::uint64_t cases, std::uint64_t cost_us = 0);
  /// The global count of cases done as reported so far: on rank 0 (0 elsewhere); safe from any
  /// thread, may lag a report in flight.
  [[nodiscard]] std::uint64_t done() const;
  /// The global estimated cost done, microseconds: as done().
  [[nodiscard]] std::uint64_t cost_done() const;

  /// This rank's waits in take(): how many, their sum and their maximum (seconds).
  struct Waits {
    std::uint64_t count = 0;
    double total_s = 0, max_s = 0;
  };
  [[nodiscard]] const Waits& waits() const { return waits_; }

 private:
  struct Service;
  void serve();
  const MpiSession& session_;
  std::atomic<std::uint64_t> counters_[3] = {0, 0, 0};  // taken, cases done, cost done (us): rank 0's
  void* comm_ = nullptr;  // MPI_Comm of the requests, kept opaque so that this header needs no mpi.h
  std::thread service_;   // rank 0 of a world of several ranks: serve()
  Waits waits_;
};

}  // namespace nqc
