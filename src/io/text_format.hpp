// Composition files in the paper's text format: whitespace-separated integers Q(1..n).
#pragma once

#include <filesystem>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include "core/composition.hpp"

namespace nqc {

/// A composition as read from a text file, with the file line of every board row so that
/// messages can point at the line to fix.
struct LoadedComposition {
  Composition composition;
  std::vector<int> line_of_row;  ///< 1-based file line of board row i (0-based i)
  std::string source;            ///< file name as given, used in messages
};

/// Parses the text format of 000_*: whitespace-separated integers, Q(i) the 1-based column of
/// the queen in row i, 0 for an empty row; n is the number of values. `#` starts a comment
/// that runs to the end of its line. Checks every value is in 0..n but not consistency.
/// Throws nqc::InputError: "SOURCE:LINE: row I: expected an integer 0..n, got 'TOKEN'",
/// "SOURCE:LINE: row I: value V is out of range 0..N", "SOURCE: no values (expected
/// whitespace-separated integers Q(1..n), 0 for an empty row)", "SOURCE: too many values
/// (n must be at most 2147483647)".
LoadedComposition parse_composition(std::string_view text, const std::string& source);

/// Reads and parses a composition file (see parse_composition). "-" reads standard input.
/// Throws nqc::InputError "FILE: cannot open: REASON" when it cannot be read.
LoadedComposition read_composition(const std::filesystem::path& file);

/// Throws nqc::InputError "SOURCE:LINE: rows A and B: two queens on one column (column C)"
/// (or the diagonal / anti-diagonal / out-of-range variants, see nqc::Verdict::describe)
/// when the composition is not consistent; LINE is the line of the later row.
void require_consistent(const LoadedComposition& loaded);

/// Writes `c` in the text format: a `#` header line with n and k, then one value per line
/// (so file line 1 + i holds board row i). Throws nqc::IoError when the file cannot be
/// written.
void write_composition(const Composition& c, std::ostream& out);
void write_composition(const Composition& c, const std::filesystem::path& file);

}  // namespace nqc
