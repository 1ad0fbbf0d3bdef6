// The paper's billion-queen challenge ([Grigoryan], "Conclusion"): two compositions
// of the same n with the same free rows, identical but for a few thousand kept rows, one with
// a completion and one without.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "core/composition.hpp"
#include "core/rng.hpp"

namespace nqc {

/// How the second composition of a challenge differs from the first.
struct Challenge {
  /// The free row (0-based) of the second composition none of whose free cells is free: every
  /// column it could take is attacked along a diagonal by a moved queen. The proof that the
  /// second composition has no completion.
  Index dead_row = -1;
  /// (row, column) pairs, 0-based row and 1-based column as in Q(i): the kept rows whose
  /// queen the second composition moves (pairs of rows that swap their columns), ascending by
  /// row. The columns in use and the free rows stay those of the first.
  std::vector<std::pair<Index, Index>> changes;
};

/// Turns `solution` (a full solution of n >= 8) into the first composition of a challenge, in
/// place: `free_rows` random rows emptied. Returns the changes that make the second: kept rows
/// swap columns in pairs, each swap keeping it consistent, until one free row has no free cell
/// left, then decoy swaps until at least `changed_rows` rows differ. Use a random solution (the
/// explicit construction's residuals are too regular to complete quickly). O(n) time. Throws
/// std::invalid_argument unless 8 <= n and 1 <= free_rows <= n / 2, std::runtime_error when no
/// swap fits.
Challenge make_challenge(Composition& solution, Index free_rows, Rng& rng, Index changed_rows = 0);

/// Applies the changes of a challenge to its first composition: the result is the second.
void apply_changes(Composition& composition, const Challenge& challenge);

}  // namespace nqc
