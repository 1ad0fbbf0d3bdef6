#include "core/challenge.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <unordered_set>

#include "core/lines.hpp"

namespace nqc {
namespace {

// `count` distinct rows of 0..n-1, uniformly at random, ascending (Floyd's algorithm: O(count)
// draws, whatever n).
std::vector<Index> random_rows(Index n, Index count, Rng& rng) {
  std::unordered_set<Index> chosen;
  chosen.reserve(static_cast<std::size_t>(count) * 2);
  for (Index j = n - count; j < n; ++j) {
    const auto t = static_cast<Index>(rng.below(static_cast<std::uint64_t>(j) + 1));
    chosen.insert(chosen.count(t) != 0 ? j : t);
  }
  std::vector<Index> rows(chosen.begin(), chosen.end());
  std::sort(rows.begin(), rows.end());
  return rows;
}

class Builder {
 public:
  Builder(Composition& c, const std::vector<Index>& free_rows)
      : c_(c),
        n_(c.n()),
        d1_(2 * static_cast<std::size_t>(n_)),
        d2_(2 * static_cast<std::size_t>(n_)),
        pinned_(static_cast<std::size_t>(n_)),
        column_of_(static_cast<std::size_t>(n_), -1) {
    for (const Index r : free_rows) {
      cols_.push_back(c_.q[static_cast<std::size_t>(r)] - 1);
      c_.q[static_cast<std::size_t>(r)] = 0;
      pinned_.set(static_cast<std::size_t>(r));
    }
    std::sort(cols_.begin(), cols_.end());
    for (Index r = 0; r < n_; ++r)
      if (const Index j = c_.q[static_cast<std::size_t>(r)]; j != 0) {
        d1_.set(diff_line(n_, r, j - 1));
        d2_.set(sum_line(r, j - 1));
        column_of_[static_cast<std::size_t>(j - 1)] = r;
      }
  }

  // Free cells of row r now: the free columns whose two diagonals through r are open.
  [[nodiscard]] Index first_free_cell(Index r) const {
    for (const Index col : cols_)
      if (!d1_.test(diff_line(n_, r, col)) && !d2_.test(sum_line(r, col))) return col;
    return -1;
  }

  // One try to close free cell (r, col): a kept row i takes the column on one diagonal
  // through the cell, and the row that held that column takes i's old column. Returns false
  // when the swap would break consistency (nothing changes then).
  bool try_close(Index r, Index col, Rng& rng) {
    const auto i = static_cast<Index>(rng.below(static_cast<std::uint64_t>(n_)));
    const bool on_diff = rng.below(2) == 0;
    // The column of row i on that diagonal: i - c' = r - col, or i + c' = r + col.
    const std::int64_t target =
        on_diff ? static_cast<std::int64_t>(i) - r + col : static_cast<std::int64_t>(r) + col - i;
    if (target < 0 || target >= n_) return false;
    return try_swap(i, column_of_[static_cast<std::size_t>(target)]);
  }

  // One try of a decoy: two kept rows drawn at random swap their columns, when that keeps the
  // composition consistent and leaves row `dead` without a free cell.
  bool try_decoy(Index dead, Rng& rng) {
    const auto i = static_cast<Index>(rng.below(static_cast<std::uint64_t>(n_)));
    const auto i2 = static_cast<Index>(rng.below(static_cast<std::uint64_t>(n_)));
    if (!try_swap(i, i2)) return false;
    if (first_free_cell(dead) < 0) return true;
    undo_swap();
    return false;
  }

  // Swaps the columns of kept rows i and i2 (neither free nor moved before) when the two new
  // queens are attacked by no queen and not by each other.
  bool try_swap(Index i, Index i2) {
    if (i < 0 || i2 < 0 || i == i2 || pinned_.test(static_cast<std::size_t>(i)) ||
        pinned_.test(static_cast<std::size_t>(i2)))
      return false;
    const Index c1 = c_.q[static_cast<std::size_t>(i)] - 1, c2 = c_.q[static_cast<std::size_t>(i2)] - 1;
    // Take the two queens off, then check the two new ones against the board and each other.
    clear(i, c1);
    clear(i2, c2);
    const bool fits = open(i, c2) && open(i2, c1) && diff_line(n_, i, c2) != diff_line(n_, i2, c1) &&
                      sum_line(i, c2) != sum_line(i2, c1);
    if (!fits) {
      put(i, c1);
      put(i2, c2);
      return false;
    }
    put(i, c2);
    put(i2, c1);
    pinned_.set(static_cast<std::size_t>(i));
    pinned_.set(static_cast<std::size_t>(i2));
    moved_.push_back({i, c1 + 1});
    moved_.push_back({i2, c2 + 1});
    return true;
  }

  // Takes back the last swap.
  void undo_swap() {
    const auto [i2, old2] = moved_.back();
    moved_.pop_back();
    const auto [i, old1] = moved_.back();
    moved_.pop_back();
    clear(i, c_.q[static_cast<std::size_t>(i)] - 1);
    clear(i2, c_.q[static_cast<std::size_t>(i2)] - 1);
    put(i, old1 - 1);
    put(i2, old2 - 1);
    pinned_.reset(static_cast<std::size_t>(i));
    pinned_.reset(static_cast<std::size_t>(i2));
  }

  [[nodiscard]] std::size_t moved() const { return moved_.size(); }

  // The rows moved, with their new columns (1-based); restores the first composition.
  std::vector<std::pair<Index, Index>> take_back() {
    std::vector<std::pair<Index, Index>> changes;
    for (const auto& [row, old] : moved_) {
      changes.emplace_back(row, c_.q[static_cast<std::size_t>(row)]);
      c_.q[static_cast<std::size_t>(row)] = old;
    }
    std::sort(changes.begin(), changes.end());
    return changes;
  }

 private:
  [[nodiscard]] bool open(Index r, Index col) const {
    return !d1_.test(diff_line(n_, r, col)) && !d2_.test(sum_line(r, col));
  }
  void clear(Index r, Index col) {
    d1_.reset(diff_line(n_, r, col));
    d2_.reset(sum_line(r, col));
    column_of_[static_cast<std::size_t>(col)] = -1;
    c_.q[static_cast<std::size_t>(r)] = 0;
  }
  void put(Index r, Index col) {
    d1_.set(diff_line(n_, r, col));
    d2_.set(sum_line(r, col));
    column_of_[static_cast<std::size_t>(col)] = r;
    c_.q[static_cast<std::size_t>(r)] = col + 1;
  }

  Composition& c_;
  Index n_;
  Bitset d1_, d2_;
  Bitset pinned_;                               // free rows and rows already moved: never moved (again)
  std::vector<Index> column_of_;                // row holding each column, -1 when none
  std::vector<Index> cols_;                     // the free columns, ascending
  std::vector<std::pair<Index, Index>> moved_;  // (row, its column in the first composition)
};

}  // namespace

Challenge make_challenge(Composition& solution, Index free_rows, Rng& rng, Index changed_rows) {
  const Index n = solution.n();
  if (n < 8) throw std::invalid_argument("challenge: n must be at least 8, got " + std::to_string(n));
  if (free_rows < 1 || free_rows > n / 2)
    throw std::invalid_argument("challenge: free rows must be 1.." + std::to_string(n / 2) + ", got " +
                                std::to_string(free_rows));
  const std::vector<Index> rows = random_rows(n, free_rows, rng);
  Builder b(solution, rows);
  Challenge out;
  out.dead_row = rows[rng.below(rows.size())];
  // Close the dead row's free cells one by one; a swap may reopen a cell another queen had
  // closed, so the row is scanned again after each.
  constexpr int kTries = 100000;
  for (Index col = b.first_free_cell(out.dead_row); col >= 0; col = b.first_free_cell(out.dead_row)) {
    int tries = 0;
    while (!b.try_close(out.dead_row, col, rng))
      if (++tries == kTries)
        throw std::runtime_error("challenge: no swap closes the cell (row " + std::to_string(out.dead_row + 1) +
                                 ", column " + std::to_string(col + 1) + ") after " + std::to_string(kTries) +
                                 " tries");
  }
  // Decoys: more kept rows swap columns, so that the changes do not point at the dead row.
  for (int tries = 0; b.moved() < static_cast<std::size_t>(std::max<Index>(changed_rows, 0)) && tries < 100 * kTries;
       ++tries)
    b.try_decoy(out.dead_row, rng);
  out.changes = b.take_back();
  return out;
}

void apply_changes(Composition& composition, const Challenge& challenge) {
  for (const auto& [row, column] : challenge.changes) composition.q[static_cast<std::size_t>(row)] = column;
}

}  // namespace nqc
