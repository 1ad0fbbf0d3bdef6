// The default engine: random fill, then complete search on the residual.
#pragma once

#include "core/engine.hpp"
#include "core/param_spec.hpp"

namespace nqc {

/// Parameters of complete_auto, one row each: X(A, TYPE, NAME, DEFAULT, MIN, MAX, HELP)
/// (core/param_spec.hpp). f: the free rows of the composition (or of a fill's residual); r: the
/// round, 0, 1, 2, ...
#define NQC_AUTO_PARAMS(X, A)                                                                                          \
  /* Min-conflicts keeps 48 bytes per row: 48 GB at n = 10^9 whatever the free rows. */                                \
  X(A, Index, fill_first_n, 131072, 1, INT32_MAX,                                                                      \
    "board size from which auto works in the composition's own memory (random fills in place, then exact on their "    \
    "residual; no min-conflicts); below it, the portfolio")                                                            \
  /* Measured (50 random fills of the empty board each, then complete_exact): at n = 1000 a residual of 63 free        \
     rows had no completion in 34 of 50 fills, 150 in none; 200 at n = 10^4 failed in 4 of 50, 323 in none;            \
     15 n^(1/3) gave 0 failures at n = 10^3..10^6. [Grigoryan]'s third base level leaves 100 free rows at              \
     n = 1000 and 547 at 10^6, but its final stage is not a complete search. */                                        \
  X(A, Index, residual_min, 32, 0, INT32_MAX,                                                                          \
    "free rows a random fill leaves: max(residual_min, residual_cbrt * n^(1/3)); compositions with no more go to the " \
    "complete search directly")                                                                                        \
  X(A, double, residual_cbrt, 15.0, 0, kUnbounded, "see residual_min")                                                 \
  X(A, std::uint32_t, refills, 8, 1, UINT32_MAX,                                                                       \
    "random fills per round (from fill_first_n on: every round; below: round 0 only)")                                 \
  X(A, std::uint64_t, fill_nodes_per_free_row, 64, 0, UINT64_MAX,                                                      \
    "exact's node budget on a fill's residual of f free rows: fill_nodes_per_free_row * f + fill_nodes_base (from "    \
    "fill_first_n on, times budget_growth^r)")                                                                         \
  X(A, std::uint64_t, fill_nodes_base, 4096, 1, UINT64_MAX, "see fill_nodes_per_free_row")                             \
  /* Min-conflicts is by far the fastest on completable compositions, but a few tries can fail where more succeed. */  \
  X(A, std::uint32_t, minconflicts_tries, 3, 1, UINT32_MAX,                                                            \
    "the portfolio's min-conflicts tries in round 0, doubled each round (up to 2^20 times)")                           \
  X(A, std::uint64_t, search_nodes_per_free_row, 4, 0, UINT64_MAX,                                                     \
    "the portfolio's complete search on the composition itself (bitboard up to n = 128, else exact) in round r: "      \
    "(search_nodes_per_free_row * f + search_nodes_base) * budget_growth^r nodes")                                     \
  X(A, std::uint64_t, search_nodes_base, 1024, 1, UINT64_MAX, "see search_nodes_per_free_row")                         \
  X(A, std::uint32_t, budget_growth, 8, 2, UINT32_MAX,                                                                 \
    "factor by which the search budgets grow each round (at most 2^40 in all); at least 2, so that the portfolio "     \
    "stays complete")

/// The parameters of complete_auto (NQC_AUTO_PARAMS).
struct AutoParams {
  NQC_AUTO_PARAMS(NQC_PARAM_FIELD, _)
};

/// Free rows at which `auto` stops filling at random and searches: max(residual_min,
/// residual_cbrt n^(1/3)), by default max(32, 15 n^(1/3)).
Index auto_residual_rows(Index n, const AutoParams& params = {});

/// `auto` (AutoParams' defaults in brackets). From n = fill_first_n [2^17] on, everything
/// happens in the composition's own memory
/// (O(n) bits of line sets beside it; min-conflicts, which keeps 48 bytes per row, is left
/// out): with at most auto_residual_rows(n) free rows, complete_exact's search on the
/// composition itself (complete: it proves infeasibility, e.g. the paper's challenge); with
/// more, rounds r = 0, 1, ... of `refills` [8] random fills in place (RandomFill) down to that
/// many free rows, each followed by the search on the residual with (64 f + 4096) * 8^r nodes:
/// linear in n in practice, but not complete (a composition without completion and with many
/// free rows runs to the caller's limits). Below fill_first_n a portfolio in rounds
/// r = 0, 1, 2, ...: min-conflicts (complete_minconflicts) with 3 * 2^r tries; in round 0
/// only, for compositions with more than auto_residual_rows(n) free rows, up to 8 random
/// fills (random_fill) down to that many free rows, each followed by complete_exact on the
/// residual with 64 f + 4096 nodes; then a complete search on the composition itself
/// (complete_bitboard up to n = 128 and 128 free rows, else complete_exact) with
/// (4 f + 1024) * 8^r nodes. The search budget
/// grows without bound, so `auto` is complete there: it proves infeasibility when there is
/// no completion. `backtracks` are exact's; `restarts` all thrown-away tries and fills.
/// The rvalue overload returns the solution in the composition's own memory: at n = 10^9 the
/// call needs at most about 4.6 bytes per row beside the composition's 4 (the free columns'
/// list and the line sets; measured 8.6 GB in all, BENCHMARKS.md).
Result complete_auto(const Composition& composition, Rng& rng, const Limits& limits, const AutoParams& params = {});
Result complete_auto(Composition&& composition, Rng& rng, const Limits& limits, const AutoParams& params = {});

}  // namespace nqc
