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

namespace {

// The most the search budgets grow (budget_growth^r stops there).
constexpr std::uint64_t kMaxGrowth = std::uint64_t{1} << 40;

// budget_growth^round, at most kMaxGrowth.
std::uint64_t growth(const AutoParams& p, std::uint64_t round) {
  std::uint64_t g = 1;
  for (std::uint64_t r = 0; r < round && g < kMaxGrowth; ++r)
    g = std::min(saturating_mul(g, p.budget_growth), kMaxGrowth);
  return g;
}

// per_free_row * f + base, saturated.
std::uint64_t linear_budget(std::uint64_t per_free_row, std::uint64_t base, std::uint64_t f) {
  return saturating_add(saturating_mul(per_free_row, f), base);
}

}  // namespace

Index auto_residual_rows(Index n, const AutoParams& params) {
  // The measurements behind the defaults: NQC_AUTO_PARAMS (auto.hpp). Clamped so that an
  // unbounded residual_cbrt gives "every composition" rather than an overflow.
  const double rows =
      std::min(params.residual_cbrt * std::cbrt(static_cast<double>(n)), static_cast<double>(kMaxBoardSize));
  return std::max<Index>(params.residual_min, static_cast<Index>(std::lround(rows)));
}

Result complete_auto(const Composition& composition, Rng& rng, const Limits& limits, const AutoParams& params) {
  return complete_auto(Composition(composition), rng, limits, params);
}

Result complete_auto(Composition&& composition, Rng& rng, const Limits& limits, const AutoParams& params) {
  const AutoParams& p = params;
  const Index free_rows = composition.n() - composition.k();
  const Index target = auto_residual_rows(composition.n(), p);
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
    left.max_nodes = cap == 0 ? 0 : saturating_add(from, cap);
    return left;
  };
  // A gave_up that is not our own budget running out ends the call.
  const auto caller_limit_hit = [&](const Result& r, StopReason own_budget) {
    if (r.outcome != Outcome::gave_up) return false;
    if (r.limit != own_budget) return true;
    return limits.max_nodes != 0 && counters.nodes >= limits.max_nodes;
  };
  const auto finish = [&](Result r, StopReason limit_if_hit) {
    r.counters = counters;
    if (r.outcome == Outcome::gave_up && r.limit == limit_if_hit) r.limit = StopReason::max_nodes;
    return r;
  };
  const auto caller_nodes_spent = [&] { return limits.max_nodes != 0 && counters.nodes >= limits.max_nodes; };

  // Large boards (see complete_auto in auto.hpp): everything in the composition's own memory.
  if (composition.n() >= p.fill_first_n) {
    if (free_rows <= target) {
      // Few free rows: exact on the composition itself, complete (the paper's challenge).
      LimitWatch watch(limits, exact_poll_interval(free_rows));
      ResidualBoard board;
      Result e;
      if (const StopReason hit = board.build(composition, true, &watch); hit != StopReason::none)
        e.limit = hit;
      else
        e.outcome = search_residual(board, rng, watch, counters, composition, e.limit);
      if (e.outcome == Outcome::solved) e.solution = std::move(composition);
      return finish(std::move(e), StopReason::none);
    }
    // Random fills in place down to `target` free rows, each followed by exact on the residual;
    // rounds of `refills` fills with budget_growth times the budget each round.
    const LimitWatch watch(limits);
    RandomFill fill(composition);
    for (std::uint64_t round = 0;; ++round) {
      for (std::uint32_t attempt = 0; attempt < p.refills; ++attempt) {
        FillStats stats;
        if (const StopReason hit = fill.run(target, rng, stats, &watch, counters.nodes); hit != StopReason::none) {
          counters.nodes += stats.placed;
          fill.reset();
          Result r;
          r.limit = hit;
          return finish(std::move(r), StopReason::none);
        }
        counters.nodes += stats.placed;
        ResidualBoard board;
        const auto f = static_cast<std::uint64_t>(fill.free_rows().size());
        const std::uint64_t budget =
            saturating_mul(linear_budget(p.fill_nodes_per_free_row, p.fill_nodes_base, f), growth(p, round));
        const Limits left = remaining(budget, counters.nodes);
        LimitWatch search_watch(left, exact_poll_interval(static_cast<Index>(f)));
        Result e;
        if (const StopReason hit = board.build(composition.n(), fill.free_rows(), fill.free_cols(), fill.diff_closed(),
                                               fill.sum_closed(), true, &search_watch);
            hit != StopReason::none) {
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
        if (e.outcome == Outcome::gave_up && caller_limit_hit(e, StopReason::max_nodes))
          return finish(std::move(e), StopReason::none);
        // A fill that placed nothing left the composition itself: its infeasibility is a proof.
        if (e.outcome == Outcome::infeasible && stats.placed == 0) return finish(std::move(e), StopReason::none);
        // A residual without completion (no node of the search) still spent the fill's nodes.
        if (caller_nodes_spent()) {
          Result r;
          r.limit = StopReason::max_nodes;
          return finish(std::move(r), StopReason::none);
        }
        ++counters.restarts;
      }
    }
  }

  // A portfolio in rounds with growing budgets. Min-conflicts first: by far the fastest on
  // completable compositions (derived ones at n = 1000: 0.07 ms of CPU, against 0.5 ms for
  // fill + exact), but a few tries can fail where more succeed; `exact` has heavy-tailed
  // runs even on small residuals (a derived n = 80 composition with 24 free rows: 3.5*10^7
  // nodes, 22 s, where min-conflicts with more tries needs 8000). Round r gives
  // min-conflicts 3 * 2^r tries and exact (4f + 1024) * 8^r nodes (AutoParams' defaults);
  // exact's budget grows without bound, so `auto` stays complete and proves infeasibility,
  // at a constant-factor cost over exact alone.
  const LimitWatch watch(limits);
  for (std::uint64_t round = 0;; ++round) {
    MinConflictsParams mc;
    const std::uint64_t tries =
        saturating_mul(p.minconflicts_tries, std::uint64_t{1} << std::min<std::uint64_t>(round, 20));
    mc.max_restarts = static_cast<std::uint32_t>(std::min<std::uint64_t>(tries, std::uint64_t{1} << 32) - 1);
    Result r = complete_minconflicts(composition, rng, remaining(0, 0), mc);
    counters.nodes += r.counters.nodes;
    counters.restarts += r.counters.restarts;
    if (r.outcome == Outcome::solved) {
      r.counters = counters;
      r.counters.placed_search = static_cast<std::uint64_t>(free_rows);
      return r;
    }
    if (caller_limit_hit(r, StopReason::minconflicts_limits))
      return finish(std::move(r), StopReason::minconflicts_limits);

    // Random fill and exact search on the residual, once, for large compositions. A residual
    // may fail at once (a dead line, no node): the caller's limits are checked after each.
    for (std::uint32_t attempt = 0; round == 0 && attempt < p.refills && free_rows > target; ++attempt) {
      Composition work = composition;
      const FillStats fill = random_fill(work, target, rng);
      counters.nodes += fill.placed;
      const std::uint64_t budget =
          linear_budget(p.fill_nodes_per_free_row, p.fill_nodes_base, static_cast<std::uint64_t>(work.n() - work.k()));
      Result e = complete_exact(work, rng, remaining(budget, counters.nodes), counters);
      counters = e.counters;
      if (e.outcome == Outcome::solved) {
        e.counters.placed_random = fill.placed;
        return e;
      }
      if (caller_limit_hit(e, StopReason::max_nodes)) return finish(std::move(e), StopReason::none);
      if (e.outcome == Outcome::infeasible && fill.placed == 0)
        return finish(std::move(e), StopReason::none);  // a proof
      Result stopped;
      if (caller_nodes_spent())
        stopped.limit = StopReason::max_nodes;
      else
        stopped.limit = watch.poll();
      if (stopped.limit != StopReason::none) return finish(std::move(stopped), StopReason::none);
      ++counters.restarts;
    }

    const std::uint64_t budget = saturating_mul(
        linear_budget(p.search_nodes_per_free_row, p.search_nodes_base, static_cast<std::uint64_t>(free_rows)),
        growth(p, round));
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
    if (e.outcome != Outcome::gave_up || caller_limit_hit(e, StopReason::max_nodes))
      return finish(std::move(e), StopReason::none);
  }
}

}  // namespace nqc
