#include "core/engines/auto.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "core/engines/exact.hpp"
#include "core/engines/minconflicts.hpp"
#include "core/random_fill.hpp"

namespace nqc {

Index auto_residual_rows(Index n) {
  // Measured (50 random fills of the empty board each, then complete_exact): at n = 1000 a
  // residual of 63 free rows had no completion in 34 of 50 fills, 150 in none; 200 at
  // n = 10^4 failed in 4 of 50, 323 in none; 15 n^(1/3) gave 0 failures at n = 10^3..10^6.
  // 000_*'s third base level leaves 100 free rows at n = 1000 and 547 at 10^6, but its final
  // stage is not a complete search.
  return std::max<Index>(32, static_cast<Index>(std::lround(15.0 * std::cbrt(static_cast<double>(n)))));
}

Result complete_auto(const Composition& composition, Rng& rng, const Limits& limits) {
  constexpr int kRefills = 8;
  // Even small residuals try min-conflicts first: `exact` has heavy-tailed runs there too
  // (a derived n = 70 composition with 27 free rows took 3.4*10^7 nodes, 26 s, against
  // min-conflicts' 29 µs), and 3 bounded tries cost well under a millisecond when they fail.
  const Index free_rows = composition.n() - composition.k();
  const Index target = auto_residual_rows(composition.n());
  if (free_rows == 0) return complete_exact(composition, rng, limits);

  const auto start = std::chrono::steady_clock::now();
  Counters counters;
  // Limits left for the next call, after what earlier attempts spent.
  const auto remaining = [&](std::uint64_t node_budget) {
    Limits left = limits;
    if (limits.time_limit_s > 0.0) {
      const double spent = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      left.time_limit_s = std::max(limits.time_limit_s - spent, 1e-9);
    }
    std::uint64_t cap = limits.max_nodes == 0 ? 0 : limits.max_nodes - std::min(limits.max_nodes, counters.nodes);
    if (limits.max_nodes != 0 && cap == 0) cap = 1;
    if (node_budget != 0) cap = cap == 0 ? node_budget : std::min(cap, node_budget);
    left.max_nodes = cap == 0 ? 0 : counters.nodes + cap;  // complete_exact counts from `counters`
    return left;
  };

  // First min-conflicts, by far the fastest on completable compositions (on derived ones
  // at n = 1000: 0.07 ms of CPU against 0.5 ms for fill + exact), with 3 tries at most.
  {
    MinConflictsParams quick;
    quick.max_restarts = 2;
    Result r = complete_minconflicts(composition, rng, remaining(0), quick);
    counters.nodes += r.counters.nodes;
    counters.restarts += r.counters.restarts;
    if (r.outcome == Outcome::solved) {
      r.counters = counters;
      r.counters.placed_search = static_cast<std::uint64_t>(composition.n() - composition.k());
      return r;
    }
    if (r.outcome == Outcome::gave_up && r.limit != "minconflicts_limits") {
      r.counters = counters;
      return r;
    }
  }
  for (int attempt = 0; attempt < kRefills && free_rows > target; ++attempt) {
    Composition work = composition;
    const FillStats fill = random_fill(work, target, rng);
    counters.nodes += fill.placed;
    const std::uint64_t budget = 64 * static_cast<std::uint64_t>(work.n() - work.k()) + 4096;
    Result r = complete_exact(work, rng, remaining(budget), counters);
    counters = r.counters;
    if (r.outcome == Outcome::solved) {
      r.counters.placed_random = fill.placed;
      return r;
    }
    // Whether the budget or a real limit stopped it: a real limit ends the call.
    if (r.outcome == Outcome::gave_up && r.limit != "max_nodes") return r;
    if (limits.max_nodes != 0 && counters.nodes >= limits.max_nodes) {
      r.limit = "max_nodes";
      return r;
    }
    ++counters.restarts;
  }
  return complete_exact(composition, rng, remaining(0), counters);
}

}  // namespace nqc
