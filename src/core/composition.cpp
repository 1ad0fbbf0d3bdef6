#include "core/composition.hpp"

#include <algorithm>

namespace nqc {

Index Composition::k() const {
  return static_cast<Index>(std::count_if(q.begin(), q.end(), [](Index v) { return v != 0; }));
}

}  // namespace nqc
