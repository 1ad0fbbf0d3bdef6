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
  /* 15 n^(1/3) left no residual without completion in 50 fills each at n = 10^3..10^6. */                             \
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

/// `auto` (docs/engines.md). From n = fill_first_n on, in the composition's own memory: with at
/// most auto_residual_rows(n) free rows, exact's search on the composition itself (complete);
/// with more, rounds of `refills` random fills in place, each followed by exact on the residual
/// with a budget growing by budget_growth per round (linear in n in practice, not complete).
/// Below fill_first_n, a portfolio in rounds: min-conflicts, in round 0 random fills with exact
/// on their residual, then a complete search on the composition (bitboard up to n = 128, else
/// exact) whose budget grows without bound: complete, it proves infeasibility. Counters:
/// `backtracks` are exact's; `restarts` all thrown-away tries and fills. The rvalue overload
/// returns the solution in the composition's own memory (n = 10^9: about 4.6 bytes per row beside it).
Result complete_auto(const Composition& composition, Rng& rng, const Limits& limits, const AutoParams& params = {});
Result complete_auto(Composition&& composition, Rng& rng, const Limits& limits, const AutoParams& params = {});

}  // namespace nqc
