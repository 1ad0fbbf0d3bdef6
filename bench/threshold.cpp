// The n-queens completion threshold ([OEIS-A374013]): the largest k such that every consistent
// k-queen composition of the n x n board completes, with its certificate. For k = 1, 2, ...
// every canonical k-queen composition (up to the board's eight symmetries, core/symmetry.hpp)
// is completed by ENGINE (default bitboard, complete); the first k with one that is not gives
// a(n) = k - 1, and that composition, confirmed infeasible by `sat`, is the witness. The
// canonical compositions are shared among THREADS threads by their first queen, in order; the
// witness is the first in enumeration order, so the output is the same for any THREADS.
// For large n, n/60 <= a(n) <= 0.241 n [Glock22].
//
// Usage: nqc_bench_threshold [--threads T] [--engine NAME] N ...
// Prints per n and k the canonical compositions checked, their orbit sizes added up (all
// consistent k-queen compositions) and the CPU seconds, then a(n) and the witness as rows
// "row:column" (1-based). Exit 3 when an engine gives up or `sat` does not confirm a witness.
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <limits>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/engine.hpp"
#include "core/symmetry.hpp"
#include "core/verifier.hpp"

namespace {

using namespace nqc;

double thread_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

struct Level {
  std::uint64_t canonical = 0, expanded = 0;
  double cpu_s = 0;
  std::size_t witness_unit = std::numeric_limits<std::size_t>::max();
  std::vector<Cell> witness;
  bool engine_gave_up = false;
};

// Checks every canonical k-queen composition, unit (first queen) by unit; units after the
// first one holding a witness are skipped.
Level check_level(Index n, Index k, const std::string& engine_name, unsigned threads) {
  const std::vector<Cell> units = canonical_first_cells(n);
  std::atomic<std::size_t> next{0}, first_witness{std::numeric_limits<std::size_t>::max()};
  Level total;
  std::mutex m;
  auto work = [&] {
    auto engine = make_engine(engine_name);
    Level mine;
    const double start = thread_cpu_seconds();
    for (std::size_t u; (u = next.fetch_add(1)) < units.size();) {
      if (u > first_witness.load()) continue;
      for_each_canonical_composition(n, k, units[u], [&](const std::vector<Cell>& queens, int size) {
        ++mine.canonical;
        mine.expanded += static_cast<std::uint64_t>(size);
        const Composition c = composition_of(n, queens);
        Rng rng(mine.canonical);
        const Result r = engine->complete(c, rng, Limits{});
        if (r.outcome == Outcome::solved && is_solution(r.solution) && extends(r.solution, c)) return true;
        if (r.outcome != Outcome::infeasible) {
          mine.engine_gave_up = true;
          return true;
        }
        if (u < mine.witness_unit) mine.witness_unit = u, mine.witness = queens;
        for (std::size_t w = first_witness.load(); u < w && !first_witness.compare_exchange_weak(w, u);) {
        }
        return false;
      });
    }
    mine.cpu_s = thread_cpu_seconds() - start;
    const std::lock_guard lock(m);
    total.canonical += mine.canonical;
    total.expanded += mine.expanded;
    total.cpu_s += mine.cpu_s;
    total.engine_gave_up |= mine.engine_gave_up;
    if (mine.witness_unit < total.witness_unit) total.witness_unit = mine.witness_unit, total.witness = mine.witness;
  };
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) pool.emplace_back(work);
  for (auto& t : pool) t.join();
  return total;
}

}  // namespace

int main(int argc, char** argv) {
  unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  std::string engine = "bitboard";
  std::vector<Index> sizes;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--threads" && i + 1 < argc)
      threads = static_cast<unsigned>(std::stoul(argv[++i]));
    else if (a == "--engine" && i + 1 < argc)
      engine = argv[++i];
    else
      sizes.push_back(static_cast<Index>(std::stol(a)));
  }
  if (sizes.empty()) {
    std::fprintf(stderr, "usage: nqc_bench_threshold [--threads T] [--engine NAME] N ...\n");
    return 2;
  }
  int status = 0;
  auto sat = make_engine("sat");
  for (const Index n : sizes) {
    double cpu = 0;
    for (Index k = 1; k <= n; ++k) {
      const Level level = check_level(n, k, engine, threads);
      cpu += level.cpu_s;
      std::printf("n = %d  k = %d  canonical %llu  all %llu  cpu %.3f s%s\n", n, k,
                  static_cast<unsigned long long>(level.canonical), static_cast<unsigned long long>(level.expanded),
                  level.cpu_s, level.witness.empty() ? "" : "  (stopped at the first witness)");
      if (level.engine_gave_up) status = 3;
      if (level.witness.empty()) continue;
      Rng rng(1);
      const bool confirmed =
          sat->complete(composition_of(n, level.witness), rng, Limits{}).outcome == Outcome::infeasible;
      std::printf("a(%d) = %d  cpu %.3f s  witness (%s by sat):", n, k - 1, cpu,
                  confirmed ? "confirmed" : "NOT confirmed");
      for (const Cell& q : level.witness) std::printf(" %d:%d", q.row + 1, q.col + 1);
      std::printf("\n");
      std::fflush(stdout);
      if (!confirmed) status = 3;
      break;
    }
  }
  return status;
}
