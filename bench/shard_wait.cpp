// How long a rank waits for its next shard while rank 0 is busy in a case, and what one shard
// request costs rank 0: nqc's WorkCounter (a service thread of rank 0, point-to-point) beside
// the MPI-3 RMA counter it replaced (MPI_Fetch_and_op on a window of rank 0, which needs
// OMPI_MCA_osc=pt2pt over TCP and then waits for rank 0 to enter MPI). Run under mpirun, e.g.
// on three hosts (BENCHMARKS.md, "Work distribution"):
//   mpirun -np 6 nqc_bench_shard_wait --mode service --busy 5
//   OMPI_MCA_osc=pt2pt mpirun -np 6 nqc_bench_shard_wait --mode rma --busy 5
//   mpirun -np 6 nqc_bench_shard_wait --mode service --cost 20000
// --busy S: rank 0 computes for S seconds without MPI calls (one long case) while the other
// ranks take shards of --work-ms milliseconds each; every rank's waits in take() are printed
// (median, 99th percentile, max); --work sleep: they sleep through their shards instead of
// computing (a machine with fewer cores than ranks then measures the service, not the
// scheduler's time slices). --cost N: rank 0 sleeps while the other ranks take N shards
// in all, back to back; rank 0's CPU time over the requests served is the cost of one request.
#include <mpi.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "runner/session.hpp"

namespace {

using Clock = std::chrono::steady_clock;

// The counter nqc used before WorkCounter's service: a window of rank 0 under lock_all.
class RmaCounter {
 public:
  explicit RmaCounter(int rank) {
    MPI_Win_allocate(rank == 0 ? static_cast<MPI_Aint>(sizeof(std::uint64_t)) : 0, sizeof(std::uint64_t), MPI_INFO_NULL,
                     MPI_COMM_WORLD, &base_, &win_);
    if (rank == 0) *base_ = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock_all(0, win_);
  }
  ~RmaCounter() {
    MPI_Win_unlock_all(win_);
    MPI_Win_free(&win_);
  }
  std::uint64_t take() {
    const std::uint64_t one = 1;
    std::uint64_t out = 0;
    MPI_Fetch_and_op(&one, &out, MPI_UINT64_T, 0, 0, MPI_SUM, win_);
    MPI_Win_flush(0, win_);
    return out;
  }

 private:
  std::uint64_t* base_ = nullptr;
  MPI_Win win_ = MPI_WIN_NULL;
};

void spin(double seconds) {
  const auto end = Clock::now() + std::chrono::duration<double>(seconds);
  volatile std::uint64_t x = 0;
  while (Clock::now() < end)
    for (int i = 0; i < 1000; ++i) x = x + 1;
}

double process_cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         1e-6 * static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

double quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<std::size_t>(q * static_cast<double>(v.size())))];
}

struct Options {
  std::string mode = "service";
  double busy_s = 5;
  double work_ms = 1;
  long cost_takes = 0;
  bool sleep_work = false;  ///< the other ranks sleep through their shards: on a machine with fewer cores than ranks,
                            ///< only rank 0 computes
};

// Every rank's waits, timed around take(), until rank 0's busy period ends.
template <typename Counter>
std::vector<double> busy_root(Counter& counter, const Options& o, int rank) {
  std::vector<double> waits;
  if (rank == 0) {
    spin(o.busy_s);
    (void)counter.take();  // rank 0's next shard: past the end, so every rank stops
    return waits;
  }
  // The shards of the others end when rank 0 is done: a large range, cut by a time flag.
  const auto end = Clock::now() + std::chrono::duration<double>(o.busy_s);
  while (Clock::now() < end) {
    const auto t0 = Clock::now();
    (void)counter.take();
    waits.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
    if (o.sleep_work)
      std::this_thread::sleep_for(std::chrono::duration<double>(o.work_ms * 1e-3));
    else
      spin(o.work_ms * 1e-3);
  }
  return waits;
}

std::string summary(const char* host, int rank, const std::vector<double>& waits) {
  if (waits.empty()) return "";
  char line[256];
  std::snprintf(line, sizeof line, "%s rank %d: %zu takes, wait median %.3f ms, p99 %.3f ms, max %.3f ms", host, rank,
                waits.size(), 1e3 * quantile(waits, 0.5), 1e3 * quantile(waits, 0.99), 1e3 * quantile(waits, 1.0));
  return line;
}

// Rank 0 prints every rank's summary line (fixed-size lines gathered with plain MPI).
void report(const Options& o, const std::string& line, int rank, int size) {
  char mine[256] = {};
  std::snprintf(mine, sizeof mine, "%s", line.c_str());
  std::vector<char> all(rank == 0 ? 256 * static_cast<std::size_t>(size) : 0);
  MPI_Gather(mine, 256, MPI_CHAR, all.data(), 256, MPI_CHAR, 0, MPI_COMM_WORLD);
  if (rank != 0) return;
  std::printf("mode %s, rank 0 busy %.1f s, shards of %.1f ms (%s) on the other ranks\n", o.mode.c_str(), o.busy_s,
              o.work_ms, o.sleep_work ? "sleeping" : "computing");
  for (int r = 0; r < size; ++r)
    if (all[256 * static_cast<std::size_t>(r)] != '\0') std::printf("  %s\n", &all[256 * static_cast<std::size_t>(r)]);
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string key = argv[i];
    if (key == "--mode")
      o.mode = argv[i + 1];
    else if (key == "--busy")
      o.busy_s = std::atof(argv[i + 1]);
    else if (key == "--work-ms")
      o.work_ms = std::atof(argv[i + 1]);
    else if (key == "--cost")
      o.cost_takes = std::atol(argv[i + 1]);
    else if (key == "--work")
      o.sleep_work = std::string(argv[i + 1]) == "sleep";
  }
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  if (o.mode == "rma") {  // as nqc ran it: MPI_Init without threads (osc/pt2pt refuses MPI_THREAD_MULTIPLE)
    MPI_Init(&argc, &argv);
    int rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    std::vector<double> waits;
    {
      RmaCounter counter(rank);
      MPI_Barrier(MPI_COMM_WORLD);
      waits = busy_root(counter, o, rank);
    }
    report(o, summary(host, rank, waits), rank, size);
    MPI_Finalize();
    return 0;
  }
  nqc::MpiSession session(argc, argv);
  const int rank = session.rank();
  const int size = session.size();
  if (o.cost_takes > 0) {
    nqc::WorkCounter counter(session);
    session.barrier();
    const double cpu0 = process_cpu_seconds();
    const auto t0 = Clock::now();
    const auto limit = static_cast<std::uint64_t>(o.cost_takes);
    if (rank != 0)
      while (counter.take() < limit) {
      }
    session.idle_barrier(0.001);
    const double cpu = process_cpu_seconds() - cpu0;
    const double wall = std::chrono::duration<double>(Clock::now() - t0).count();
    if (rank == 0)
      std::printf("cost: %d ranks, %ld requests in %.3f s (%.0f/s); rank 0 CPU %.3f s: %.2f us per request\n", size,
                  o.cost_takes, wall, static_cast<double>(o.cost_takes) / wall, cpu,
                  1e6 * cpu / static_cast<double>(o.cost_takes));
    return 0;
  }

  std::vector<double> waits;
  {
    nqc::WorkCounter counter(session);
    session.barrier();
    waits = busy_root(counter, o, rank);
  }
  report(o, summary(host, rank, waits), rank, size);
  return 0;
}
