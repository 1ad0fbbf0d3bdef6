#include "core/construction.hpp"

#include <stdexcept>
#include <string>
#include <utility>

namespace nqc {

std::optional<Composition> construct_solution(Index n) {
  if (n < 1) throw std::invalid_argument("board size n must be >= 1, got " + std::to_string(n));
  if (n == 2 || n == 3) return std::nullopt;
  // Row i (0-based) holds the i-th value of the list "evens, then odds" (2, 4, ..., then
  // 1, 3, ...), written straight into the solution: no other array, so n = 10^9 needs only
  // its 4 GB. The repairs for n mod 6 in {2, 3} rewrite a few values at the ends.
  Composition s(n);
  Index* q = s.q.data();
  const Index evens = n / 2;
  for (Index i = 0; i < evens; ++i) q[i] = 2 * (i + 1);
  for (Index i = evens; i < n; ++i) q[i] = 2 * (i - evens) + 1;
  const Index r = n % 6;
  Index* odds = q + evens;
  const Index odd_count = n - evens;
  if (r == 2) {
    // Odd list 1,3,5,7,... becomes 3,1,7,9,...,5: swap 1 and 3, move 5 to the end.
    std::swap(odds[0], odds[1]);
    for (Index i = 2; i + 1 < odd_count; ++i) odds[i] = odds[i + 1];
    odds[odd_count - 1] = 5;
  } else if (r == 3) {
    // Even list: move 2 to the end. Odd list: move 1 and 3 to the end.
    for (Index i = 0; i + 1 < evens; ++i) q[i] = q[i + 1];
    q[evens - 1] = 2;
    for (Index i = 0; i + 2 < odd_count; ++i) odds[i] = odds[i + 2];
    odds[odd_count - 2] = 1;
    odds[odd_count - 1] = 3;
  }
  return s;
}

}  // namespace nqc
