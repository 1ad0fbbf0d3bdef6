#include "core/engines/auto.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <utility>

#include "core/engines/bitboard.hpp"
#include "core/engines/exact.hpp"
#include "core/engines/minconflicts.hpp"
#include "core/random_fill.hpp"
#include "core/residual_board.hpp"

namespace nqc {

Index auto_residual_rows(Index n) {
  // Measured (50 random fills of the empty board each, then complete_exact): at n = 1000 a
  // residual of 63 free rows had no completion in 34 of 50 fills, 150 in none; 200 at
  // n = 10^4 failed in 4 of 50, 323 in none; 15 n^(1/3) gave 0 failures at n = 10^3..10^6.
  // [Grigoryan]'s third base level leaves 100 free rows at n = 1000 and 547 at 10^6, but its final
  // stage is not a complete search.
  return std::max<Index>(32, static_cast<Index>(std::lround(15.0 * std::cbrt(static_cast<double>(n)))));
}

Result complete_auto(const Composition& composition, Rng& rng, const Limits& limits) {
  return complete_auto(Composition(composition), rng, limits);
}

Result complete_auto(Composition&& composition, Rng& rng, const Limits& limits) {
  constexpr int kRefills = 8;
  const Index free_rows = composition.n() - composition.k();
  const Index target = auto_residual_rows(composition.n());
  if (free_rows == 0) return complete_exact(composition, rng, limits);
  // Words first where they fit and win: boards of n <= 64 (one word per row, by board column:
  // derived compositions in 3-12 µs, a quarter to half of min-conflicts' time) and boards of
  // CSPLib prob079's shape (excluded diagonals) with at most kBitboardMaxFree free rows (near
  // its phase transition 6-10x faster than CaDiCaL; BENCHMARKS.md). Complete by itself.
  if (free_rows <= kBitboardMaxFree && (composition.n() <= 64 || composition.has_excluded_diagonals()))
    return complete_bitboard(composition, rng, limits);

  const auto start = std::chrono::steady_clock::now();
  Counters counters;
  // Limits for the next call: what is left of the caller's after earlier calls, capped at
  // `node_budget` (0: no cap). Engines that count from `counters` get an absolute node
  // limit (`from` = counters.nodes), min-conflicts one relative to its own count.
  const auto remaining = [&](std::uint64_t node_budget, std::uint64_t from) {
    Limits left = limits;
    if (limits.time_limit_s > 0.0) {
      const double spent = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      left.time_limit_s = std::max(limits.time_limit_s - spent, 1e-9);
    }
    std::uint64_t cap = limits.max_nodes == 0 ? 0 : limits.max_nodes - std::min(limits.max_nodes, counters.nodes);
    if (limits.max_nodes != 0 && cap == 0) cap = 1;
    if (node_budget != 0) cap = cap == 0 ? node_budget : std::min(cap, node_budget);
    left.max_nodes = cap == 0 ? 0 : from + cap;
    return left;
  };
  // A gave_up that is not our own budget running out ends the call.
  const auto caller_limit_hit = [&](const Result& r, const char* own_budget) {
    if (r.outcome != Outcome::gave_up) return false;
    if (r.limit != own_budget) return true;
    return limits.max_nodes != 0 && counters.nodes >= limits.max_nodes;
  };
  const auto finish = [&](Result r, const char* limit_if_hit) {
    r.counters = counters;
    if (r.outcome == Outcome::gave_up && r.limit == limit_if_hit) r.limit = "max_nodes";
    return r;
  };

  // Large boards (see complete_auto in auto.hpp): everything in the composition's own memory.
  // Min-conflicts is left out there: it keeps counts per line, 48 bytes per row (48 GB at
  // n = 10^9, whatever the free rows).
  if (composition.n() >= kFillFirstN) {
    if (free_rows <= target) {
      // Few free rows: exact on the composition itself, complete (the paper's challenge).
      LimitWatch watch(limits, exact_poll_interval(free_rows));
      ResidualBoard board;
      Result e;
      if (const char* hit = board.build(composition, true, &watch); *hit != '\0') e.limit = hit;
      else e.outcome = search_residual(board, rng, watch, counters, composition, e.limit);
      if (e.outcome == Outcome::solved) e.solution = std::move(composition);
      return finish(std::move(e), "");
    }
    // Random fills in place down to `target` free rows, each followed by exact on the residual;
    // rounds of kRefills fills with 8 times the budget each round.
    const LimitWatch watch(limits);
    RandomFill fill(composition);
    for (int round = 0;; ++round) {
      for (int attempt = 0; attempt < kRefills; ++attempt) {
        FillStats stats;
        if (const char* hit = fill.run(target, rng, stats, &watch); *hit != '\0') {
          counters.nodes += stats.placed;
          fill.reset();
          Result r;
          r.limit = hit;
          return finish(std::move(r), "");
        }
        counters.nodes += stats.placed;
        ResidualBoard board;
        const auto f = static_cast<std::uint64_t>(fill.free_rows().size());
        const Limits left = remaining((64 * f + 4096) << std::min(3 * round, 40), counters.nodes);
        LimitWatch search_watch(left, exact_poll_interval(static_cast<Index>(f)));
        Result e;
        if (const char* hit = board.build(composition.n(), fill.free_rows(), fill.free_cols(), fill.diff_closed(),
                                          fill.sum_closed(), true, &search_watch);
            *hit != '\0') {
          e.limit = hit;
        } else {
          e.outcome = search_residual(board, rng, search_watch, counters, composition, e.limit);
        }
        if (e.outcome == Outcome::solved) {
          e.counters = counters;
          e.counters.placed_random = stats.placed;
          e.solution = std::move(composition);
          return e;
        }
        fill.reset();
        if (e.outcome == Outcome::gave_up && caller_limit_hit(e, "max_nodes")) return finish(std::move(e), "");
        ++counters.restarts;
      }
    }
  }

  // A portfolio in rounds with growing budgets. Min-conflicts first: by far the fastest on
  // completable compositions (derived ones at n = 1000: 0.07 ms of CPU, against 0.5 ms for
  // fill + exact), but a few tries can fail where more succeed; `exact` has heavy-tailed
  // runs even on small residuals (a derived n = 80 composition with 24 free rows: 3.5*10^7
  // nodes, 22 s, where min-conflicts with more tries needs 8000). Round r gives
  // min-conflicts 3 * 2^r tries and exact (4f + 1024) * 8^r nodes; exact's budget grows
  // without bound, so `auto` stays complete and proves infeasibility, at a constant-factor
  // cost over exact alone.
  for (int round = 0;; ++round) {
    MinConflictsParams mc;
    mc.max_restarts = (3U << std::min(round, 20)) - 1;
    Result r = complete_minconflicts(composition, rng, remaining(0, 0), mc);
    counters.nodes += r.counters.nodes;
    counters.restarts += r.counters.restarts;
    if (r.outcome == Outcome::solved) {
      r.counters = counters;
      r.counters.placed_search = static_cast<std::uint64_t>(free_rows);
      return r;
    }
    if (caller_limit_hit(r, "minconflicts_limits")) return finish(std::move(r), "minconflicts_limits");

    // Random fill and exact search on the residual, once, for large compositions.
    for (int attempt = 0; round == 0 && attempt < kRefills && free_rows > target; ++attempt) {
      Composition work = composition;
      const FillStats fill = random_fill(work, target, rng);
      counters.nodes += fill.placed;
      const std::uint64_t budget = 64 * static_cast<std::uint64_t>(work.n() - work.k()) + 4096;
      Result e = complete_exact(work, rng, remaining(budget, counters.nodes), counters);
      counters = e.counters;
      if (e.outcome == Outcome::solved) {
        e.counters.placed_random = fill.placed;
        return e;
      }
      if (caller_limit_hit(e, "max_nodes")) return finish(std::move(e), "");
      ++counters.restarts;
    }

    const std::uint64_t budget =
        (4 * static_cast<std::uint64_t>(free_rows) + 1024) << std::min(3 * round, 40);
    Result e;
    if (composition.n() <= 128 && free_rows <= kBitboardMaxFree) {
      // The same search on words (one or two per row, by board column), as complete.
      e = complete_bitboard(composition, rng, remaining(budget, 0));
      const Counters own = e.counters;
      counters.nodes += own.nodes;
      counters.backtracks += own.backtracks;
      counters.restarts += own.restarts;
      counters.placed_search += own.placed_search;
    } else {
      e = complete_exact(composition, rng, remaining(budget, counters.nodes), counters);
      counters = e.counters;
    }
    if (e.outcome != Outcome::gave_up || caller_limit_hit(e, "max_nodes")) return finish(std::move(e), "");
  }
}

}  // namespace nqc
