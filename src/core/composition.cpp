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

}  // namespace nqc
