#include "core/symmetry.hpp"

#include <algorithm>
#include <compare>
#include <stdexcept>
#include <string>

namespace nqc {

std::vector<Cell> queens_of(const Composition& c) {
  std::vector<Cell> queens;
  for (Index r = 0; r < c.n(); ++r)
    if (!c.is_free_row(r)) queens.push_back({r, c.q[static_cast<std::size_t>(r)] - 1});
  return queens;
}

Composition composition_of(Index n, const std::vector<Cell>& queens) {
  Composition c(n);
  for (const Cell& q : queens) c.q[static_cast<std::size_t>(q.row)] = q.col + 1;
  return c;
}

Cell transform(Cell cell, Index n, int t) {
  for (int turn = 0; turn < (t & 3); ++turn) cell = {cell.col, n - 1 - cell.row};
  if (t & 4) cell.col = n - 1 - cell.col;
  return cell;
}

Orbit orbit(const std::vector<Cell>& queens, Index n) {
  std::vector<std::vector<Cell>> images(8);
  for (int t = 0; t < 8; ++t) {
    for (const Cell& q : queens) images[static_cast<std::size_t>(t)].push_back(transform(q, n, t));
    std::sort(images[static_cast<std::size_t>(t)].begin(), images[static_cast<std::size_t>(t)].end());
  }
  std::sort(images.begin(), images.end());
  const auto distinct = std::unique(images.begin(), images.end()) - images.begin();
  return {std::move(images.front()), static_cast<int>(distinct)};
}

std::vector<Cell> canonical_first_cells(Index n) {
  std::vector<Cell> cells;
  for (Index r = 0; 2 * r < n; ++r)
    for (Index c = r; c < n - r; ++c) {
      const Cell p{r, c};
      bool least = true;
      for (int t = 1; t < 8 && least; ++t) least = !(transform(p, n, t) < p);
      if (least) cells.push_back(p);
    }
  return cells;
}

namespace {

// Depth-first enumeration of the queens after the first, inside the square lo..hi.
struct CanonicalSearch {
  Index n, k, lo, hi;
  const std::function<bool(const std::vector<Cell>&, int)>& visit;
  std::vector<std::uint8_t> col, sum, difference;
  std::vector<Cell> queens, image;

  void place(Cell q, bool on) {
    col[static_cast<std::size_t>(q.col)] = on;
    sum[static_cast<std::size_t>(q.row + q.col)] = on;
    difference[static_cast<std::size_t>(q.row - q.col + n - 1)] = on;
  }
  bool free(Cell q) const {
    return !col[static_cast<std::size_t>(q.col)] && !sum[static_cast<std::size_t>(q.row + q.col)] &&
           !difference[static_cast<std::size_t>(q.row - q.col + n - 1)];
  }
  // The orbit size of `queens` (in row order) when it is the least of its images, else 0: as
  // orbit() does, without its allocations, stopping at the first smaller image. The images
  // equal to it are its stabilizer, of 8 / orbit size elements.
  int orbit_size_if_canonical() {
    int same = 1;
    for (int t = 1; t < 8; ++t) {
      image.clear();
      for (const Cell& q : queens) image.push_back(transform(q, n, t));
      std::sort(image.begin(), image.end());
      const auto order =
          std::lexicographical_compare_three_way(image.begin(), image.end(), queens.begin(), queens.end());
      if (order < 0) return 0;
      same += order == 0;
    }
    return 8 / same;
  }

  // False once visit asked to stop.
  bool extend(Index next_row) {
    if (static_cast<Index>(queens.size()) == k) {
      const int size = orbit_size_if_canonical();
      return size == 0 || visit(queens, size);
    }
    // Rows left must hold the queens still missing.
    for (Index r = next_row; r <= hi - (k - static_cast<Index>(queens.size()) - 1); ++r)
      for (Index c = lo; c <= hi; ++c) {
        const Cell q{r, c};
        if (!free(q)) continue;
        place(q, true);
        queens.push_back(q);
        const bool go_on = extend(r + 1);
        queens.pop_back();
        place(q, false);
        if (!go_on) return false;
      }
    return true;
  }
};

}  // namespace

void for_each_canonical_composition(Index n, Index k, Cell first,
                                    const std::function<bool(const std::vector<Cell>&, int)>& visit) {
  if (n < 1 || n > kMaxCanonicalBoard || k < 1 || k > n)
    throw std::invalid_argument(
        "canonical compositions: expected 1 <= k <= n <= " + std::to_string(kMaxCanonicalBoard) +
        ", got n = " + std::to_string(n) + ", k = " + std::to_string(k));
  const auto un = static_cast<std::size_t>(n);
  CanonicalSearch s{n,
                    k,
                    first.row,
                    n - 1 - first.row,
                    visit,
                    std::vector<std::uint8_t>(un),
                    std::vector<std::uint8_t>(2 * un - 1),
                    std::vector<std::uint8_t>(2 * un - 1),
                    {},
                    {}};
  if (first.col < s.lo || first.col > s.hi) return;
  s.place(first, true);
  s.queens.push_back(first);
  s.extend(first.row + 1);
}

}  // namespace nqc
