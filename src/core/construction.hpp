// Explicit solutions of the n-queens problem in O(n).
#pragma once

#include <optional>

#include "core/composition.hpp"

namespace nqc {

/// An explicit solution for board size n (the classic construction of [Hoffman69], as
/// [Bernhardsson91] gives it; [Mikhailovskii] has another family of explicit O(n) solutions;
/// docs/REFERENCES.md). Columns of the even rows first, then the odd ones,
/// with the two repairs for n mod 6 in {2, 3}. O(n) time.
/// Returns std::nullopt for n = 2 and n = 3, which have no solution; n = 1 gives {1}.
/// Throws std::invalid_argument for n < 1.
std::optional<Composition> construct_solution(Index n);

}  // namespace nqc
