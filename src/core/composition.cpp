#include "core/composition.hpp"

#include <algorithm>

#include "core/memory.hpp"

namespace nqc {

Composition::Composition(Index n) {
  q.reserve(static_cast<std::size_t>(n));
  advise_huge_pages(q.data(), static_cast<std::size_t>(n) * sizeof(Index));
  q.resize(static_cast<std::size_t>(n), 0);
}

Index Composition::k() const {
  return static_cast<Index>(std::count_if(q.begin(), q.end(), [](Index v) { return v != 0; }));
}

FreeLines free_lines(const Composition& c) {
  FreeLines out;
  std::vector<std::uint8_t> column_used(c.q.size(), 0);
  for (Index r = 0; r < c.n(); ++r) {
    const Index j = c.q[static_cast<std::size_t>(r)];
    if (j == 0)
      out.rows.push_back(r);
    else if (j >= 1 && j <= c.n())
      column_used[static_cast<std::size_t>(j - 1)] = 1;
  }
  for (Index col = 0; col < c.n(); ++col)
    if (!column_used[static_cast<std::size_t>(col)]) out.cols.push_back(col);
  return out;
}

void close_excluded_diagonals(const Composition& c, std::vector<std::uint8_t>& difference,
                              std::vector<std::uint8_t>& sum) {
  const std::int64_t last = 2 * static_cast<std::int64_t>(c.n()) - 2;
  for (const Index a : c.excluded_difference)
    if (a >= 0 && a <= last) difference[static_cast<std::size_t>(a)] = 1;
  for (const Index a : c.excluded_sum)
    if (a >= 0 && a <= last) sum[static_cast<std::size_t>(a)] = 1;
}

}  // namespace nqc
