// Incomplete local search for n-queens completion: min-conflicts repair by column swaps
// ([Minton92]; [SosicGu91]; docs/REFERENCES.md) with the prescribed rows held fixed.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "core/engine.hpp"
#include "core/param_spec.hpp"

namespace nqc {

/// How each try assigns the free rows before repair. Both give the free rows a permutation
/// of the free columns, so no two queens ever share a column.
enum class MinConflictsInit : std::int8_t {
  greedy = 0,  ///< Sosic-Gu QS4 style: row by row, up to `greedy_probes` random unused
               ///< columns, the first without conflict (else the least conflicted) is taken
  random = 1,  ///< a uniformly random permutation of the free columns
};

/// The names of MinConflictsInit's values, in the order of the values (for configs).
inline constexpr std::string_view kMinConflictsInitNames[] = {"greedy", "random"};
constexpr std::span<const std::string_view> param_choices(MinConflictsInit) { return kMinConflictsInitNames; }

/// Parameters of complete_minconflicts, one row each: X(A, TYPE, NAME, DEFAULT, MIN, MAX, HELP)
/// (core/param_spec.hpp). The defaults were measured on derived compositions (k uniform on
/// 1..n-1) at n = 100 .. 10^6; see minconflicts.cpp.
#define NQC_MINCONFLICTS_PARAMS(X, A)                                                                                \
  /* Checked between repair steps, so a try may exceed its budget by up to partner_samples. */                       \
  X(A, double, moves_per_free_row, 32.0, 0, kUnbounded,                                                              \
    "swap evaluations allowed per try: moves_per_free_row * f + min_moves_per_try (f: free rows)")                   \
  X(A, std::uint64_t, min_moves_per_try, 2048, 0, UINT64_MAX,                                                        \
    "the floor of a try's swap evaluations (see moves_per_free_row), so that small residuals wander long enough")    \
  X(A, std::uint32_t, max_restarts, 100, 0, UINT32_MAX,                                                              \
    "tries thrown away and redone from a new initial assignment before giving up (at most 1 + max_restarts tries)")  \
  /* When f - 1 <= partner_samples every other free row is tried (in random cyclic order). At least 1: with          \
     none, a repair step would make no move and count no node, and a try would never end. */                         \
  X(A, std::uint32_t, partner_samples, 64, 1, UINT32_MAX,                                                            \
    "swap partners sampled for a conflicted row per repair step; the first that lowers the conflict count is taken") \
  /* Measured at n = 100 (1000 derived compositions): noise 0 solved 96% within the default budgets,                 \
     0.05 needed 5000 nodes per case, 0.2 1650, 0.5 890, 1.0 670 (but 1.0 with 16 partners tripled                   \
     the nodes at n = 1000). */                                                                                      \
  X(A, double, noise, 0.5, 0, 1,                                                                                     \
    "probability of the random-walk step: when no sampled partner lowers the conflict count, make the least bad "    \
    "swap sampled anyway (ties at random); otherwise leave the row")                                                 \
  X(A, MinConflictsInit, init, MinConflictsInit::greedy, 0, 1,                                                       \
    "initial assignment of each try: greedy (Sosic-Gu QS4 style) or random (a random permutation of the free "       \
    "columns)")                                                                                                      \
  /* Measured at n = 10^5: 16 probes took 4.6 nodes per free row (placement plus repair), 64 took 1.0. */            \
  X(A, std::uint32_t, greedy_probes, 64, 0, UINT32_MAX,                                                              \
    "random unused columns probed per row by the greedy initial assignment")

/// The parameters of complete_minconflicts (NQC_MINCONFLICTS_PARAMS).
struct MinConflictsParams {
  NQC_MINCONFLICTS_PARAMS(NQC_PARAM_FIELD, _)
};

/// Completes a consistent `composition` by local search: the free rows a permutation of the
/// free columns, repaired by swapping two of them; excluded diagonals respected. O(n) memory,
/// O(1) per swap evaluated. `solved` or `gave_up` (never `infeasible`: a local minimum proves
/// nothing), limits "minconflicts_limits", "max_nodes", "time_limit", "stop". Counters: nodes =
/// initial placements (f per try) plus swap evaluations; restarts = tries thrown away;
/// placed_search = f when solved. Throws std::invalid_argument for an inconsistent composition.
Result complete_minconflicts(const Composition& composition, Rng& rng, const Limits& limits,
                             const MinConflictsParams& params = {});

}  // namespace nqc
