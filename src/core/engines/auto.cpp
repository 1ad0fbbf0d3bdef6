#include "core/engines/auto.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <utility>

#include "core/engines/bitboard.hpp"
#include "core/engines/exact.hpp"
#include "core/engines/minconflicts.hpp"
#include "core/random_fill.hpp"
#include "core/residual_board.hpp"

namespace nqc {

namespace {

// The most the search budgets grow (budget_growth^r stops there).
// Free rows up to which the word search beats the fill stages on every board measured
// (n = 65 .. 10^4, derived and random compositions: BENCHMARKS.md, "auto and few free rows").
constexpr Index kWordsWinFreeRows = 32;

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

namespace {

// One call of complete_auto: the caller's limits, the counters every stage adds to, and the
// stages of complete_auto (auto.hpp). A stage returns the call's result, or nothing to go on.
class AutoSearch {
 public:
  AutoSearch(Composition&& composition, Rng& rng, const Limits& limits, const AutoParams& params)
      : c_(std::move(composition)),
        rng_(rng),
        limits_(limits),
        p_(params),
        free_rows_(c_.n() - c_.k()),
        target_(auto_residual_rows(c_.n(), params)) {}

  // From fill_first_n on, in the composition's own memory: the search on the composition
  // itself when it has few free rows, else rounds of fills in place.
  Result in_place() { return free_rows_ <= target_ ? search_in_place() : fill_rounds_in_place(); }

  // Below fill_first_n: rounds of min-conflicts, (round 0) fills with exact on the residual,
  // and a complete search of the composition, with growing budgets: complete.
  Result portfolio() {
    for (std::uint64_t round = 0;; ++round) {
      if (auto r = minconflicts_stage(round)) return std::move(*r);
      if (round == 0)
        if (auto r = fill_stage()) return std::move(*r);
      if (auto r = search_stage(round)) return std::move(*r);
    }
  }

 private:
  // Limits for the next call: the caller's left after earlier calls, capped at `node_budget`
  // (0: none); absolute from `from` (engines that count from counters_) or relative (0).
  Limits remaining(std::uint64_t node_budget, std::uint64_t from) const {
    Limits left = limits_;
    if (limits_.time_limit_s > 0.0) {
      const double spent = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
      left.time_limit_s = std::max(limits_.time_limit_s - spent, 1e-9);
    }
    std::uint64_t cap = limits_.max_nodes == 0 ? 0 : limits_.max_nodes - std::min(limits_.max_nodes, counters_.nodes);
    if (limits_.max_nodes != 0 && cap == 0) cap = 1;
    if (node_budget != 0) cap = cap == 0 ? node_budget : std::min(cap, node_budget);
    left.max_nodes = cap == 0 ? 0 : saturating_add(from, cap);
    return left;
  }
  bool caller_nodes_spent() const { return limits_.max_nodes != 0 && counters_.nodes >= limits_.max_nodes; }
  // A gave_up that is not our own budget running out ends the call.
  bool caller_limit_hit(const Result& r, StopReason own_budget) const {
    if (r.outcome != Outcome::gave_up) return false;
    return r.limit != own_budget || caller_nodes_spent();
  }
  Result finish(Result r, StopReason limit_if_hit) const {
    r.counters = counters_;
    if (r.outcome == Outcome::gave_up && r.limit == limit_if_hit) r.limit = StopReason::max_nodes;
    return r;
  }
  // A limit stopped the call: the caller's nodes, or the watch's time or stop flag.
  Result stopped(StopReason hit) const {
    Result r;
    r.limit = hit;
    return finish(std::move(r), StopReason::none);
  }

  // Few free rows: exact on the composition itself, complete (the paper's challenge).
  Result search_in_place() {
    LimitWatch watch(limits_, exact_poll_interval(free_rows_));
    ResidualBoard board;
    Result e;
    if ((e.limit = board.build(c_, true, &watch)) == StopReason::none)
      e.outcome = search_residual(board, rng_, watch, counters_, c_, e.limit);
    if (e.outcome == Outcome::solved) e.solution = std::move(c_);
    return finish(std::move(e), StopReason::none);
  }

  // Random fills in place down to `target_` free rows, each followed by exact on the residual;
  // rounds of `refills` fills with budget_growth times the budget each round.
  Result fill_rounds_in_place() {
    RandomFill fill(c_);
    for (std::uint64_t round = 0;; ++round)
      for (std::uint32_t attempt = 0; attempt < p_.refills; ++attempt)
        if (auto r = fill_in_place(fill, round)) return std::move(*r);
  }

  std::optional<Result> fill_in_place(RandomFill& fill, std::uint64_t round) {
    FillStats stats;
    if (const StopReason hit = fill.run(target_, rng_, stats, &watch_, counters_.nodes); hit != StopReason::none) {
      counters_.nodes += stats.placed;
      fill.reset();
      return stopped(hit);
    }
    counters_.nodes += stats.placed;
    ResidualBoard board;
    const auto f = static_cast<std::uint64_t>(fill.free_rows().size());
    const std::uint64_t budget =
        saturating_mul(linear_budget(p_.fill_nodes_per_free_row, p_.fill_nodes_base, f), growth(p_, round));
    const Limits left = remaining(budget, counters_.nodes);
    LimitWatch search_watch(left, exact_poll_interval(static_cast<Index>(f)));
    Result e;
    e.limit = board.build(c_.n(), fill.free_rows(), fill.free_cols(), fill.diff_closed(), fill.sum_closed(), true,
                          &search_watch);
    if (e.limit == StopReason::none) e.outcome = search_residual(board, rng_, search_watch, counters_, c_, e.limit);
    if (e.outcome == Outcome::solved) {
      e.counters = counters_;
      e.counters.placed_random = stats.placed;
      e.solution = std::move(c_);
      return e;
    }
    fill.reset();
    if (e.outcome == Outcome::gave_up && caller_limit_hit(e, StopReason::max_nodes))
      return finish(std::move(e), StopReason::none);
    // A fill that placed nothing left the composition itself: its infeasibility is a proof.
    if (e.outcome == Outcome::infeasible && stats.placed == 0) return finish(std::move(e), StopReason::none);
    // A residual without completion (no node of the search) still spent the fill's nodes.
    if (caller_nodes_spent()) return stopped(StopReason::max_nodes);
    ++counters_.restarts;
    return std::nullopt;
  }

  // Min-conflicts first: by far the fastest on completable compositions, but a few tries can
  // fail where more succeed.
  std::optional<Result> minconflicts_stage(std::uint64_t round) {
    MinConflictsParams mc;
    const std::uint64_t tries =
        saturating_mul(p_.minconflicts_tries, std::uint64_t{1} << std::min<std::uint64_t>(round, 20));
    mc.max_restarts = static_cast<std::uint32_t>(std::min<std::uint64_t>(tries, std::uint64_t{1} << 32) - 1);
    Result r = complete_minconflicts(c_, rng_, remaining(0, 0), mc);
    counters_.nodes += r.counters.nodes;
    counters_.restarts += r.counters.restarts;
    if (r.outcome == Outcome::solved) {
      r.counters = counters_;
      r.counters.placed_search = static_cast<std::uint64_t>(free_rows_);
      return r;
    }
    if (caller_limit_hit(r, StopReason::minconflicts_limits))
      return finish(std::move(r), StopReason::minconflicts_limits);
    return std::nullopt;
  }

  // Random fill and exact search on the residual, for large compositions. A residual may
  // fail at once (a dead line, no node): the caller's limits are checked after each.
  std::optional<Result> fill_stage() {
    for (std::uint32_t attempt = 0; attempt < p_.refills && free_rows_ > target_; ++attempt) {
      Composition work = c_;
      const FillStats fill = random_fill(work, target_, rng_);
      counters_.nodes += fill.placed;
      const std::uint64_t budget = linear_budget(p_.fill_nodes_per_free_row, p_.fill_nodes_base,
                                                 static_cast<std::uint64_t>(work.n() - work.k()));
      Result e = complete_exact(work, rng_, remaining(budget, counters_.nodes), counters_);
      counters_ = e.counters;
      if (e.outcome == Outcome::solved) {
        e.counters.placed_random = fill.placed;
        return e;
      }
      if (caller_limit_hit(e, StopReason::max_nodes)) return finish(std::move(e), StopReason::none);
      if (e.outcome == Outcome::infeasible && fill.placed == 0)
        return finish(std::move(e), StopReason::none);  // a proof
      if (caller_nodes_spent()) return stopped(StopReason::max_nodes);
      if (const StopReason hit = watch_.poll(); hit != StopReason::none) return stopped(hit);
      ++counters_.restarts;
    }
    return std::nullopt;
  }

  // A complete search on the composition itself with a budget growing without bound: `auto`
  // stays complete at a constant factor (exact alone has heavy-tailed runs even on small residuals).
  std::optional<Result> search_stage(std::uint64_t round) {
    const std::uint64_t budget = saturating_mul(
        linear_budget(p_.search_nodes_per_free_row, p_.search_nodes_base, static_cast<std::uint64_t>(free_rows_)),
        growth(p_, round));
    Result e;
    if (c_.n() <= 128 && free_rows_ <= kBitboardMaxFree) {
      // The same search on words (one or two per row, by board column), as complete.
      e = complete_bitboard(c_, rng_, remaining(budget, 0));
      counters_.nodes += e.counters.nodes;
      counters_.backtracks += e.counters.backtracks;
      counters_.restarts += e.counters.restarts;
      counters_.placed_search += e.counters.placed_search;
    } else {
      e = complete_exact(c_, rng_, remaining(budget, counters_.nodes), counters_);
      counters_ = e.counters;
    }
    if (e.outcome != Outcome::gave_up || caller_limit_hit(e, StopReason::max_nodes))
      return finish(std::move(e), StopReason::none);
    return std::nullopt;
  }

  Composition c_;
  Rng& rng_;
  const Limits& limits_;
  const AutoParams& p_;
  const Index free_rows_, target_;
  const std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  const LimitWatch watch_{limits_};  // the caller's time and stop flag, from the call's start
  Counters counters_;
};

}  // namespace

Result complete_auto(Composition&& composition, Rng& rng, const Limits& limits, const AutoParams& params) {
  const Index free_rows = composition.n() - composition.k();
  if (free_rows == 0) return complete_exact(composition, rng, limits);
  // Words first where they win (BENCHMARKS.md): boards of n <= 64 and CSPLib prob079's boards
  // with at most kBitboardMaxFree free rows, and any board with at most kWordsWinFreeRows, where
  // the fill stages cost more than the whole search (infeasible cases most). Complete by itself.
  if (free_rows <= kWordsWinFreeRows ||
      (free_rows <= kBitboardMaxFree && (composition.n() <= 64 || composition.has_excluded_diagonals())))
    return complete_bitboard(composition, rng, limits);
  const bool large = composition.n() >= params.fill_first_n;
  AutoSearch search(std::move(composition), rng, limits, params);
  return large ? search.in_place() : search.portfolio();
}

}  // namespace nqc
