// Composition files in the paper's text format: whitespace-separated integers Q(1..n).
// read_composition, require_consistent and the writers by file name: composition_file.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>

#include "core/composition.hpp"
#include "formats/composition_file.hpp"

namespace nqc {

/// Parses the text format of [Grigoryan] (docs/formats.md): whitespace-separated integers Q(i),
/// the 1-based column of the queen in row i, 0 for an empty row; n is the number of values; `#`
/// comments; the text discipline of text_input.hpp. Checks every value is in 0..n, not
/// consistency. Throws nqc::InputError, the first problem in this order: "SOURCE:LINE: row I:
/// expected an integer 0..n, got 'TOKEN'", "SOURCE: too many values (n must be at most
/// 2147483647)", "SOURCE: no values (...)", "SOURCE:LINE: row I: value V is out of range 0..N".
LoadedComposition parse_composition(std::string text, const std::string& source);

/// What a text read from a stream may have, read no further (docs/formats.md, "Streams"). The
/// defaults are nqc's; smaller ones serve tests.
struct StreamLimits {
  std::uint64_t max_rows = static_cast<std::uint64_t>(kMaxBoardSize);  ///< values
  std::uint64_t max_bytes = 16 * (max_rows + 1);                       ///< bytes in all: 32 GiB
  /// A text of at most this many bytes (16 MiB) is kept, so that a message found after reading
  /// it can name a line (line_of_row); of a longer one messages name rows only.
  std::size_t keep_bytes = std::size_t{16} << 20;
};

/// The same for an input file: a regular file is mapped and parsed in parallel parts; a stream
/// as it arrives (memory: the values, a 256 KiB piece and the text kept up to
/// limits.keep_bytes), with the messages of a file of the same bytes.
LoadedComposition parse_composition(std::shared_ptr<const InputFile> in, const StreamLimits& limits = {});

/// The 1-based line of board row `row` (0-based) of a composition parsed from text, found by
/// reading the text again (for messages); 0 without a text or with fewer rows.
std::int64_t line_of_row(const LoadedComposition& loaded, Index row);

/// Writes `c` in the text format: a `#` header line with n and k, then one value per line (file
/// line 1 + i holds row i). Throws nqc::IoError when the stream fails.
void write_composition(const Composition& c, std::ostream& out);

}  // namespace nqc
