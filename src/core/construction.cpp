#include "core/construction.hpp"

#include <stdexcept>
#include <string>
#include <vector>

namespace nqc {

std::optional<Composition> construct_solution(Index n) {
  if (n < 1) throw std::invalid_argument("board size n must be >= 1, got " + std::to_string(n));
  if (n == 2 || n == 3) return std::nullopt;
  // Read as: queen of row (1-based) r stands in column list[r-1].
  std::vector<Index> evens, odds;
  evens.reserve(static_cast<std::size_t>(n) / 2 + 1);
  odds.reserve(static_cast<std::size_t>(n) / 2 + 1);
  for (Index v = 2; v <= n; v += 2) evens.push_back(v);
  for (Index v = 1; v <= n; v += 2) odds.push_back(v);
  const Index r = n % 6;
  if (r == 2) {
    // Odd list 1,3,5,7,... becomes 3,1,7,9,...,5: swap 1 and 3, move 5 to the end.
    std::swap(odds[0], odds[1]);
    odds.erase(odds.begin() + 2);
    odds.push_back(5);
  } else if (r == 3) {
    // Even list: move 2 to the end. Odd list: move 1 and 3 to the end.
    evens.erase(evens.begin());
    evens.push_back(2);
    odds.erase(odds.begin(), odds.begin() + 2);
    odds.push_back(1);
    odds.push_back(3);
  }
  Composition s;
  s.q.reserve(static_cast<std::size_t>(n));
  s.q.insert(s.q.end(), evens.begin(), evens.end());
  s.q.insert(s.q.end(), odds.begin(), odds.end());
  return s;
}

}  // namespace nqc
