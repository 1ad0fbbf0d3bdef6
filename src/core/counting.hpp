// Counting the completions of a composition (Q(n) for the empty board).
#pragma once

#include <cstdint>

#include "core/composition.hpp"
#include "core/engine.hpp"

namespace nqc {

/// The number of completions of a composition, and the work it took.
struct CountResult {
  std::uint64_t completions = 0;
  std::uint64_t nodes = 0;   ///< placements tried
  bool gave_up = false;      ///< a limit stopped the count: `completions` is a lower bound
  std::string limit;         ///< which limit, when gave_up
};

/// Counts the completions of a consistent composition; the empty board gives Q(n)
/// (OEIS A000170). For n <= 64, row-by-row backtracking over uint64_t masks of the closed
/// columns and diagonals, lowest free bit first (the classic bit-parallel counter, as in
/// 004_*'s baseline but without arrays): O(1) per node. For n > 64, the reduced-board search
/// of complete_exact without stopping at the first solution. Throws std::invalid_argument for
/// an inconsistent composition.
CountResult count_completions(const Composition& composition, const Limits& limits);

}  // namespace nqc
