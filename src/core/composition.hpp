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

/// A composition in the format of [Grigoryan]: `q[i]` is the 1-based column of the queen in
/// board row i+1 (rows 0-based in code, 1-based in files and messages), 0 an empty (free) row.
/// It may exclude diagonals (CSPLib prob079, [CSPLib079], [Gent17]), 0-based as in CSPLib:
/// difference diagonal a holds r - c = a - (n - 1), sum diagonal a holds r + c = a.
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

}  // namespace nqc
