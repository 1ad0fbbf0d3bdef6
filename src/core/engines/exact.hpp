// Complete search for n-queens completion over the reduced board of free rows x free columns.
#pragma once

#include <cstdint>
#include <string>

#include "core/counting.hpp"
#include "core/engine.hpp"
#include "core/limit_watch.hpp"
#include "core/param_spec.hpp"
#include "core/residual_board.hpp"

namespace nqc {

/// Parameters of complete_exact, one row each: X(A, TYPE, NAME, DEFAULT, MIN, MAX, HELP)
/// (core/param_spec.hpp): the unit of its Luby restarts (NQC_LUBY_PARAMS, shared with bitboard).
#define NQC_EXACT_PARAMS(X, A) NQC_LUBY_PARAMS(X, A, UINT64_MAX, 0)

/// The parameters of complete_exact (NQC_EXACT_PARAMS).
struct ExactParams {
  NQC_EXACT_PARAMS(NQC_PARAM_FIELD, _)
};

/// Depth-first search with the minimum-remaining-values row choice ([Grigoryan]'s "minimum
/// risk" rule), least-damage value order ("minimum damage": a cell's damage is the number
/// of free cells on its column and its two diagonals) and forward checking (a free row or a
/// free column left with no free cell fails the placement at once). Ties are broken with
/// `rng`. It works on the residual board (core/residual_board.hpp: the free cells of the free
/// rows x free columns), so a composition with f free rows costs O(n) time and 5n bits plus
/// O(f^2) bit tests to set up, memory O(free cells) beyond that whatever n, and per
/// placement a visit of the free cells on the queen's four lines; free-cell counts per row,
/// column and diagonal are restored on backtrack by recounting, with no trail.
/// Outcome: solved, infeasible (only after exhausting the space), or gave_up at a limit.
/// Restarts: run i of the search may try luby_budget(params' unit, f, i) nodes.
Result complete_exact(const Composition& composition, Rng& rng, const Limits& limits, Counters counters = {},
                      const ExactParams& params = {});

/// complete_exact's search on a residual board already built with check_columns
/// (ResidualBoard::build), e.g. the residual of a random fill. Restarts with Luby budgets
/// until: solved (the board's rows get their columns in `solution`, 1-based, whose other rows
/// are left as they are), infeasible (this board has no completion: the search exhausted it),
/// or gave_up with `limit` set to the limit `watch` reported. Counters accumulate: nodes,
/// backtracks, restarts, placed_search.
Outcome search_residual(ResidualBoard& board, Rng& rng, LimitWatch& watch, Counters& counters, Composition& solution,
                        StopReason& limit, const ExactParams& params = {});

/// How often exact's LimitWatch polls the clock: a node costs more on larger residuals, so
/// from 4096 free rows on it polls at every node (a time limit stops within a few nodes).
constexpr std::uint64_t exact_poll_interval(Index free_rows) {
  return free_rows >= 4096 ? 1 : free_rows >= 256 ? 16 : 1024;
}

/// count_completions (core/counting.hpp) for residuals of more than kBitboardMaxFree free
/// rows: the same search as complete_exact without stopping at the first solution and
/// without restarts.
/// Requires a consistent composition.
CountResult count_completions_reduced(const Composition& composition, const Limits& limits);

}  // namespace nqc
