// Explicit solutions of the n-queens problem in O(n).
#pragma once

#include <optional>

#include "core/composition.hpp"

namespace nqc {

/// An explicit solution for board size n in O(n) ([Hoffman69] as [Bernhardsson91] gives it;
/// [Mikhailovskii] has another such family):
/// even columns first, then odd, with the repairs for n mod 6 in {2, 3}. std::nullopt for
/// n = 2, 3; throws std::invalid_argument for n < 1.
std::optional<Composition> construct_solution(Index n);

}  // namespace nqc
