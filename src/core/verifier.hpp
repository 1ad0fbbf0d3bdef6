// The O(n) verifier of [Grigoryan] (control vectors D1 and D2 over the diagonals).
#pragma once

#include <string>

#include "core/composition.hpp"
#include "core/lines.hpp"

namespace nqc {

/// What the verifier found first.
enum class Conflict { none, out_of_range, column, diagonal, anti_diagonal, excluded_diagonal };

/// "column", "diagonal", "anti-diagonal", "out-of-range value", "excluded diagonal" (or "none").
const char* to_string(Conflict kind);

/// The verifier's verdict. Rows are 0-based; `row_a < row_b` for a two-queen conflict,
/// `row_a == row_b` for an out-of-range value or a queen on an excluded diagonal.
struct Verdict {
  Conflict kind = Conflict::none;
  Index row_a = -1;
  Index row_b = -1;

  [[nodiscard]] bool ok() const { return kind == Conflict::none; }
  /// One sentence naming the rows 1-based, e.g.
  /// "rows 2 and 5: two queens on one column (column 3)". Empty when ok().
  [[nodiscard]] std::string describe(const Composition& c) const;
};

/// Checks that a composition is consistent: values in 0..n, no two queens on one line, none on
/// an excluded diagonal. Returns the conflict whose later row is smallest, with the earliest
/// partner row. O(n) time and bits ([Grigoryan]'s control vectors); never throws but bad_alloc.
Verdict verify(const Composition& c);

/// True when `solution` is a full (k == n) consistent composition.
bool is_solution(const Composition& solution);

/// True when `completion` holds every queen of `composition` in the same place
/// (same n, and q[i] equal wherever composition.q[i] != 0).
bool extends(const Composition& completion, const Composition& composition);

/// What a completion must keep of a composition: the rows holding a queen and a 64-bit sum of a
/// mix of (row, column) over them, so that an engine may work in the composition's own memory
/// and the completion still be checked (n = 10^9: 125 MB instead of a 4 GB copy).
struct CompositionDigest {
  Index n = 0;
  Index k = 0;
  Bitset rows;             ///< rows (0-based) that hold a queen
  std::uint64_t hash = 0;  ///< sum over them of splitmix64((row << 32) | column)
};

/// The digest of `composition`. O(n).
CompositionDigest digest(const Composition& composition);

/// extends() against the digest: the completion's (row, column) pairs over the digest's rows
/// sum to its hash (a moved or dropped queen passes with probability about 2^-64).
bool extends(const Composition& completion, const CompositionDigest& digest);

}  // namespace nqc
