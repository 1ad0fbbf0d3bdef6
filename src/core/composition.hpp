// A composition: k consistent queens on an n x n board, in the paper's Q(i) format.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace nqc {

/// A row, a column or a board size.
using Index = std::int32_t;

/// The largest board size, n <= 2^31 - 1 (rows and columns are Index). Python reads it from
/// analysis/result_schema.json ("max_board_size"), which `nqc info --columns --json` writes.
inline constexpr Index kMaxBoardSize = std::numeric_limits<Index>::max();

/// "1..2147483647": the board sizes, as messages name them.
inline const std::string kBoardSizes = "1.." + std::to_string(kMaxBoardSize);

/// A composition in the format of [Grigoryan] ("The algorithm begins by reading a file ..."):
/// `q[i]` is the 1-based column of the queen in board row i+1 (rows are 0-based in code,
/// 1-based in files and messages), and 0 marks an empty (free) row. A solution is a
/// composition with k == n that the verifier accepts.
///
/// A composition may also exclude diagonals, as in the Excluded Diagonals problem of CSPLib
/// prob079 ([CSPLib079], [Gent17]): no queen may stand on them.
/// Indices are 0-based as in CSPLib: difference diagonal a holds the cells with
/// r - c = a - (n - 1), sum diagonal a those with r + c = a (r, c 0-based), 0 <= a <= 2n - 2.
struct Composition {
  std::vector<Index> q;
  std::vector<Index> excluded_difference;  ///< excluded diagonals r - c = a - (n - 1)
  std::vector<Index> excluded_sum;         ///< excluded diagonals r + c = a

  Composition() = default;
  /// n empty rows (the array advised for huge pages before it is zeroed: see memory.hpp).
  explicit Composition(Index n);
  explicit Composition(std::vector<Index> values) : q(std::move(values)) {}

  /// Board size n.
  [[nodiscard]] Index n() const { return static_cast<Index>(q.size()); }
  /// Number of queens k (non-zero entries); O(n).
  [[nodiscard]] Index k() const;
  /// True when some diagonal is excluded.
  [[nodiscard]] bool has_excluded_diagonals() const { return !excluded_difference.empty() || !excluded_sum.empty(); }
  /// True when row i (0-based) holds no queen.
  [[nodiscard]] bool is_free_row(Index i) const { return q[static_cast<std::size_t>(i)] == 0; }

  friend bool operator==(const Composition&, const Composition&) = default;
};

/// The free rows and free columns of a composition, 0-based and increasing: the rows
/// without a queen, and the columns no queen uses. For a consistent composition both have
/// n - k entries. O(n).
struct FreeLines {
  std::vector<Index> rows;
  std::vector<Index> cols;
};
FreeLines free_lines(const Composition& c);

/// Sets closed[a] = 1 in `difference` (size >= 2n-1, index r - c + n - 1) and `sum` (index
/// r + c) for every excluded diagonal of `c` in range 0..2n-2.
void close_excluded_diagonals(const Composition& c, std::vector<std::uint8_t>& difference,
                              std::vector<std::uint8_t>& sum);

}  // namespace nqc
