// The eight symmetries of the square board, canonical compositions and their enumeration.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "core/composition.hpp"

namespace nqc {

/// A queen: 0-based row and column.
struct Cell {
  Index row = 0;
  Index col = 0;
  friend auto operator<=>(const Cell&, const Cell&) = default;
};

/// The cells of a composition in row order (excluded diagonals are ignored).
std::vector<Cell> queens_of(const Composition& c);

/// The composition of board size n with these queens (any order).
Composition composition_of(Index n, const std::vector<Cell>& queens);

/// Symmetry t (0..7) of the n x n board applied to a cell: t & 3 quarter turns clockwise,
/// then a mirror of the columns when t & 4. Symmetry 0 is the identity.
Cell transform(Cell cell, Index n, int t);

/// A set of queens up to the board's symmetries: its canonical form (the least of its eight
/// images, each as cells sorted in row order, compared lexicographically) and the number of
/// distinct images (its orbit size: 1, 2, 4 or 8).
struct Orbit {
  std::vector<Cell> canonical;
  int size = 0;
};

/// The orbit of a set of queens on the n x n board. O(8 k log k).
Orbit orbit(const std::vector<Cell>& queens, Index n);

/// The first cells that start canonical compositions, in row order: the cells p whose eight
/// images are all >= p (the upper-left triangle of the board's upper-left quarter, r <= c <=
/// n - 1 - r). Every queen of a canonical composition whose first queen is p lies in the square
/// rows and columns p.row .. n - 1 - p.row (else an image would start before p).
std::vector<Cell> canonical_first_cells(Index n);

/// The largest board for_each_canonical_composition takes.
inline constexpr Index kMaxCanonicalBoard = 1024;

/// Calls visit(queens, orbit size) for every canonical consistent composition of k queens on
/// the n x n board whose first queen (the queen of its smallest row) is `first`, in
/// lexicographic order of (row, column) of its queens, until visit returns false. Every consistent k-queen composition
/// is the image of exactly one canonical one, so over canonical_first_cells(n) the orbit sizes
/// add up to the number of consistent k-queen compositions. Depth-first over rows with column
/// and diagonal marks; O(n) memory. Requires 1 <= k <= n <= kMaxCanonicalBoard; throws std::invalid_argument
/// otherwise.
void for_each_canonical_composition(Index n, Index k, Cell first,
                                    const std::function<bool(const std::vector<Cell>&, int)>& visit);

}  // namespace nqc
