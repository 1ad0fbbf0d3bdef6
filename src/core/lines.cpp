#include "core/lines.hpp"

namespace nqc {

bool close_lines(const Composition& c, Bitset& used, Bitset& diff, Bitset& sum) {
  const Index n = c.n();
  const auto un = static_cast<std::size_t>(n);
  used.assign(un);
  diff.assign(2 * un);
  sum.assign(2 * un);
  constexpr Index kAhead = 64;
  for (const Index a : c.excluded_difference)
    if (a >= 0 && static_cast<std::size_t>(a) < diagonal_lines(n)) diff.set(static_cast<std::size_t>(a));
  for (const Index a : c.excluded_sum)
    if (a >= 0 && static_cast<std::size_t>(a) < diagonal_lines(n)) sum.set(static_cast<std::size_t>(a));
  const Index* q = c.q.data();
  bool consistent = true;
  for (Index r = 0; r < n; ++r) {
    if (r + kAhead < n)
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
  return consistent;
}

std::vector<Index> free_rows_of(const Composition& c) {
  std::size_t count = 0;
  for (const Index v : c.q) count += v == 0 ? 1 : 0;
  std::vector<Index> rows;
  rows.reserve(count);
  for (Index r = 0; r < c.n(); ++r)
    if (c.q[static_cast<std::size_t>(r)] == 0) rows.push_back(r);
  return rows;
}

std::vector<Index> free_columns_of(const Bitset& used, Index n) {
  std::vector<Index> cols;
  cols.reserve(static_cast<std::size_t>(n) - used.count());
  for (Index col = 0; col < n; ++col)
    if (!used.test(static_cast<std::size_t>(col))) cols.push_back(col);
  return cols;
}

}  // namespace nqc
