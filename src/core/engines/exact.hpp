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

/// Depth-first search on the residual board (core/residual_board.hpp): minimum-remaining-values
/// row ([Grigoryan]'s "minimum risk"), least-damage cells first ("minimum damage"), forward
/// checking on rows and columns, ties broken with `rng`, Luby restarts. O(n) time and 5n bits of
/// set-up plus O(f^2) bit tests; memory O(free cells). Outcome: solved, infeasible (only after
/// exhausting the space), or gave_up at a limit.
Result complete_exact(const Composition& composition, Rng& rng, const Limits& limits, Counters counters = {},
                      const ExactParams& params = {});

/// complete_exact's search on a residual board built with check_columns (e.g. a random fill's):
/// solved (the board's rows written into `solution`), infeasible, or gave_up with `limit` set.
/// Counters accumulate.
Outcome search_residual(ResidualBoard& board, Rng& rng, LimitWatch& watch, Counters& counters, Composition& solution,
                        StopReason& limit, const ExactParams& params = {});

/// How often exact's LimitWatch polls the clock: a node costs more on larger residuals.
constexpr std::uint64_t exact_poll_interval(Index free_rows) {
  return free_rows >= 4096 ? 1 : free_rows >= 256 ? 16 : 1024;
}

/// count_completions for residuals beyond kBitboardMaxFree free rows: complete_exact's search
/// through every completion, without restarts. Requires a consistent composition.
CountResult count_completions_reduced(const Composition& composition, const Limits& limits);

}  // namespace nqc
