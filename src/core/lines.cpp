#include "core/lines.hpp"

#include <stdexcept>

#include "core/limit_watch.hpp"
#include "core/verifier.hpp"

namespace nqc {

void close_excluded_diagonals(const Composition& c, Bitset& diff, Bitset& sum) {
  for (const Index a : c.excluded_difference)
    if (a >= 0 && static_cast<std::size_t>(a) < diagonal_lines(c.n())) diff.set(static_cast<std::size_t>(a));
  for (const Index a : c.excluded_sum)
    if (a >= 0 && static_cast<std::size_t>(a) < diagonal_lines(c.n())) sum.set(static_cast<std::size_t>(a));
}

void close_lines(const Composition& c, Bitset& used, Bitset& diff, Bitset& sum, SetupWatch* setup) {
  SetupWatch unpolled;
  SetupWatch& watch = setup != nullptr ? *setup : unpolled;
  if (watch.stopped()) return;
  const Index n = c.n();
  const auto un = static_cast<std::size_t>(n);
  used.assign(un);
  diff.assign(2 * un);
  sum.assign(2 * un);
  constexpr Index kAhead = 64;
  close_excluded_diagonals(c, diff, sum);
  const Index* q = c.q.data();
  bool consistent = true;
  watch.chunks(n, [&](std::int64_t from, std::int64_t to) {
    for (auto r = static_cast<Index>(from); r < static_cast<Index>(to); ++r) {
      if (r < n - kAhead)
        if (const Index ja = q[r + kAhead]; ja >= 1 && ja <= n) {
          used.prefetch(static_cast<std::size_t>(ja - 1));
          diff.prefetch(diff_line(n, r + kAhead, ja - 1));
          sum.prefetch(sum_line(r + kAhead, ja - 1));
        }
      const Index j = q[r];
      if (j == 0) continue;
      if (j < 0 || j > n) {
        consistent = false;
        continue;
      }
      const std::size_t col = static_cast<std::size_t>(j - 1), d = diff_line(n, r, j - 1), s = sum_line(r, j - 1);
      if (used.test(col) || diff.test(d) || sum.test(s)) consistent = false;
      used.set(col);
      diff.set(d);
      sum.set(s);
    }
  });
  if (!consistent && watch.hit() == StopReason::none)
    throw std::invalid_argument("inconsistent composition: " + verify(c).describe(c));
}

std::vector<Index> free_rows_of(const Composition& c, SetupWatch* setup) {
  SetupWatch unpolled;
  SetupWatch& watch = setup != nullptr ? *setup : unpolled;
  const Index* q = c.q.data();
  std::size_t count = 0;
  std::vector<Index> rows;
  if (watch.stopped() || !watch.chunks(c.n(), [&](std::int64_t from, std::int64_t to) {
        for (std::int64_t r = from; r < to; ++r) count += q[r] == 0 ? 1 : 0;
      }))
    return rows;
  rows.reserve(count);
  watch.chunks(c.n(), [&](std::int64_t from, std::int64_t to) {
    for (std::int64_t r = from; r < to; ++r)
      if (q[r] == 0) rows.push_back(static_cast<Index>(r));
  });
  return rows;
}

std::vector<Index> free_columns_of(const Bitset& used, Index n, SetupWatch* setup) {
  SetupWatch unpolled;
  SetupWatch& watch = setup != nullptr ? *setup : unpolled;
  std::vector<Index> cols;
  if (watch.stopped()) return cols;
  cols.reserve(static_cast<std::size_t>(n) - used.count());
  watch.chunks(n, [&](std::int64_t from, std::int64_t to) {
    for (std::int64_t col = from; col < to; ++col)
      if (!used.test(static_cast<std::size_t>(col))) cols.push_back(static_cast<Index>(col));
  });
  return cols;
}

}  // namespace nqc
