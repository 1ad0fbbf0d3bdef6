// CSPLib prob079 "Excluded Diagonals" instances (.param files).
#pragma once

#include <atomic>
#include <filesystem>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/composition.hpp"
#include "core/rng.hpp"
#include "formats/input_file.hpp"

namespace nqc {

/// One excluded diagonal of a prob079 instance: `index` 0..2n-2 of type 1 (sum, r + c =
/// index) or 0 (difference, r - c = index - (n - 1)), 0-based r, c.
struct DiagonalPair {
  Index index = 0;
  int type = 0;
  bool operator==(const DiagonalPair&) const = default;
};

/// An instance read from a .param file: the empty n x n board with the first `used`
/// of its `numdiags` diagonal pairs excluded.
struct ParamInstance {
  Composition board;                ///< k = 0, excluded_difference / excluded_sum set
  int numdiags = 0;                 ///< pairs in the file
  int used = 0;                     ///< pairs applied (the first `used`)
  std::vector<DiagonalPair> pairs;  ///< every pair of the file, in its order (the first `used` applied)
};

/// Parses a CSPLib prob079 generator output ([CSPLib079]; tests/data/csplib-prob079/README.md):
/// lines "n = N", "numdiags = D", "diags = [[a, t], ...]" (t as in DiagonalPair). An instance
/// is the first `diags` pairs (all when not given). Throws nqc::InputError naming SOURCE:LINE
/// and what was expected: a missing or malformed line, n < 1, a list that is not pairs [index,
/// 0 or 1] with index in 0..2n-2 or whose length is not numdiags, `diags` above numdiags.
ParamInstance parse_param(const std::string& text, const std::string& source, std::optional<int> diags);

/// The most bytes a .param text may have, in a file or on standard input (CSPLib's are < 1 KB).
inline constexpr std::uintmax_t kMaxParamBytes = 16u << 20;

/// Reads a .param file (see parse_param) as text::read_small_file does, at most kMaxParamBytes.
ParamInstance read_param(const std::filesystem::path& file, std::optional<int> diags);

/// Parses the .param text of `in` (standard input), at most kMaxParamBytes ("NAME: at least
/// 16777217 bytes, more than a .param file may have (16 MiB)" for a stream, read no further).
ParamInstance read_param(const InputFile& in, std::optional<int> diags);

/// True when `text` (standard input, which has no extension) reads as a .param file: its first
/// byte that is not blank is a letter (a composition holds integers and `#` comments only).
bool looks_like_param(std::string_view text);

/// A random prob079 instance list as CSPLib's generator draws one (queens-diag-gen.py in
/// [CSPLib079]; [Gent17]): the sum and the difference diagonals each in random order; repeatedly
/// a random direction (the other when one is used up) and its next diagonal, excluded unless a
/// row or column it crosses would keep `mininfile` or fewer open cells (CSPLib: 4). Returns
/// the pairs excluded, in order, stopping after `most` (the first `most` of the whole list).
/// The same procedure, not the same draws. O(n) memory; time O(n) per diagonal tried.
std::vector<DiagonalPair> random_excluded_diagonals(Index n, int mininfile, Rng& rng,
                                                    std::size_t most = std::numeric_limits<std::size_t>::max());

/// A random composition as CSPLib's placed-queens generator draws one (queens-gen-fast.py in
/// [CSPLib079]; [Gent17]): up to n^2 attempts, each a random free row and free column, the queen
/// kept when neither of its diagonals holds one, until `queens` (0..n) stand; std::nullopt when
/// the attempts ran out, or as soon as no free row and free column meet on open diagonals (the
/// attempts left could place none), or when `stop` is set (polled every 2^16 attempts). The same
/// procedure, not the same draws. About 16 n bytes; seconds per draw at n = 10^7.
std::optional<Composition> random_placed_queens(Index n, Index queens, Rng& rng,
                                                const std::atomic<bool>* stop = nullptr);

/// The largest boards of the generators in configs: a placed-queens draw needs 16 n bytes and
/// about 4 s at 10^7 (the phase transition of f free rows lies near n = 2 f); an Excluded
/// Diagonals draw costs up to 8 n^2 steps.
inline constexpr Index kMaxPlacedQueensBoard = 10'000'000;
inline constexpr Index kMaxExcludedDiagonalsBoard = 1 << 14;

/// The empty n x n board with the first `d` of `pairs` excluded (d <= pairs.size()).
Composition excluded_board(Index n, const std::vector<DiagonalPair>& pairs, std::size_t d);

/// The .param text of `pairs` ("n = ", "numdiags = ", "diags = [[a, t], ...]"), as
/// CSPLib's files: parse_param reads it back.
std::string format_param(Index n, const std::vector<DiagonalPair>& pairs);

/// True when the path names a CSPLib .param file (by its extension).
bool is_param_file(const std::filesystem::path& file);

}  // namespace nqc
