// A composition: k consistent queens on an n x n board, in the paper's Q(i) format.
#pragma once

#include <cstdint>
#include <vector>

namespace nqc {

/// Board sizes are 1 <= n <= 2^31 - 1 (DESIGN.md, "Core contracts").
using Index = std::int32_t;

/// A composition in the format of 000_* ("The algorithm begins by reading a file ..."):
/// `q[i]` is the 1-based column of the queen in board row i+1 (rows are 0-based in code,
/// 1-based in files and messages), and 0 marks an empty (free) row. A solution is a
/// composition with k == n that the verifier accepts.
struct Composition {
  std::vector<Index> q;

  Composition() = default;
  explicit Composition(Index n) : q(static_cast<std::size_t>(n), 0) {}
  explicit Composition(std::vector<Index> values) : q(std::move(values)) {}

  /// Board size n.
  [[nodiscard]] Index n() const { return static_cast<Index>(q.size()); }
  /// Number of queens k (non-zero entries); O(n).
  [[nodiscard]] Index k() const;
  /// True when row i (0-based) holds no queen.
  [[nodiscard]] bool is_free_row(Index i) const { return q[static_cast<std::size_t>(i)] == 0; }

  friend bool operator==(const Composition&, const Composition&) = default;
};

}  // namespace nqc
