#include "core/composition.hpp"

#include <algorithm>

namespace nqc {

Index Composition::k() const {
  return static_cast<Index>(std::count_if(q.begin(), q.end(), [](Index v) { return v != 0; }));
}

void close_excluded_diagonals(const Composition& c, std::vector<std::uint8_t>& difference,
                              std::vector<std::uint8_t>& sum) {
  const Index last = 2 * c.n() - 2;
  for (const Index a : c.excluded_difference)
    if (a >= 0 && a <= last) difference[static_cast<std::size_t>(a)] = 1;
  for (const Index a : c.excluded_sum)
    if (a >= 0 && a <= last) sum[static_cast<std::size_t>(a)] = 1;
}

}  // namespace nqc
