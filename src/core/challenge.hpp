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
/// place: `free_rows` rows drawn uniformly at random are emptied, so it has a completion (the
/// solution). Returns the changes that make the second: queens of kept rows swap columns in
/// pairs, each swap putting a queen on a diagonal through one of the free cells of one free
/// row until that row has none left, then decoy swaps elsewhere until at least
/// `changed_rows` rows differ; every swap keeps the composition consistent (the second is a
/// composition, without completion). Use a random solution: the residuals of the explicit
/// construction are so regular that no engine here completes them quickly (518 free rows of
/// it at n = 10^6 took minutes), while those of random solutions take milliseconds. O(n)
/// time; 4 bytes and 5 bits per row beside the composition. Draws everything from `rng`.
/// Throws std::invalid_argument unless 8 <= n and 1 <= free_rows <= n / 2, and
/// std::runtime_error when no swap fits (not seen for n >= 1000).
Challenge make_challenge(Composition& solution, Index free_rows, Rng& rng, Index changed_rows = 0);

/// Applies the changes of a challenge to its first composition: the result is the second.
void apply_changes(Composition& composition, const Challenge& challenge);

}  // namespace nqc
