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

/// A .param instance: the empty n x n board with the first `used` of `numdiags` pairs excluded.
struct ParamInstance {
  Composition board;                ///< k = 0, excluded_difference / excluded_sum set
  int numdiags = 0;                 ///< pairs in the file
  int used = 0;                     ///< pairs applied (the first `used`)
  std::vector<DiagonalPair> pairs;  ///< every pair of the file, in its order (the first `used` applied)
};

/// Parses a CSPLib prob079 generator output ([CSPLib079]): lines "n = N", "numdiags = D", "diags
/// = [[a, t], ...]"; the instance is the first `diags` pairs (default all). Throws nqc::InputError
/// "SOURCE:LINE: ..." naming what was expected (a missing or malformed line, n < 1, pairs not
/// [0..2n-2, 0 or 1], a list not of numdiags pairs, `diags` above numdiags).
ParamInstance parse_param(const std::string& text, const std::string& source, std::optional<int> diags);

/// The most bytes a .param text may have, in a file or on standard input (CSPLib's are < 1 KB).
inline constexpr std::uintmax_t kMaxParamBytes = 16u << 20;

/// Reads a .param file (see parse_param) as text::read_small_file does, at most kMaxParamBytes.
ParamInstance read_param(const std::filesystem::path& file, std::optional<int> diags);

/// Parses the .param text of `in` (standard input), at most kMaxParamBytes (a stream read no
/// further).
ParamInstance read_param(const InputFile& in, std::optional<int> diags);

/// True when `text` (standard input) reads as a .param file: its first non-blank byte is a letter.
bool looks_like_param(std::string_view text);

/// A random prob079 list as CSPLib's queens-diag-gen.py draws one ([CSPLib079]; [Gent17]): sum
/// and difference diagonals each shuffled; repeatedly a random direction (the other when one is
/// used up) and its next diagonal, excluded unless a row or column it crosses would keep
/// `mininfile` or fewer open cells. The pairs excluded, in order, at most `most`. Same
/// procedure, not the same draws; O(n) memory, O(n) time per diagonal tried.
std::vector<DiagonalPair> random_excluded_diagonals(Index n, int mininfile, Rng& rng,
                                                    std::size_t most = std::numeric_limits<std::size_t>::max());

/// A random composition as CSPLib's queens-gen-fast.py draws one ([CSPLib079]; [Gent17]): up to
/// n^2 attempts of a random free row and column, kept when both diagonals are open, until
/// `queens` (0..n) stand; nullopt when the attempts run out, as soon as no free row and column
/// meet on open diagonals, or when `stop` is set (polled every 2^16 attempts). Same procedure,
/// not the same draws; about 16 n bytes.
std::optional<Composition> random_placed_queens(Index n, Index queens, Rng& rng,
                                                const std::atomic<bool>* stop = nullptr);

/// The largest boards of the generators in configs: a placed-queens draw takes about 4 s at 10^7,
/// an Excluded Diagonals draw up to 8 n^2 steps.
inline constexpr Index kMaxPlacedQueensBoard = 10'000'000;
inline constexpr Index kMaxExcludedDiagonalsBoard = 1 << 14;

/// The empty n x n board with the first `d` of `pairs` excluded (d <= pairs.size()).
Composition excluded_board(Index n, const std::vector<DiagonalPair>& pairs, std::size_t d);

/// The .param text of `pairs`, as CSPLib's files (parse_param reads it back).
std::string format_param(Index n, const std::vector<DiagonalPair>& pairs);

/// True when the path names a CSPLib .param file (by its extension).
bool is_param_file(const std::filesystem::path& file);

}  // namespace nqc
