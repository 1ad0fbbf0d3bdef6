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

/// Parses the text format of [Grigoryan]: whitespace-separated integers, Q(i) the 1-based column of
/// the queen in row i, 0 for an empty row; n is the number of values. `#` starts a comment
/// that runs to the end of its line; a leading UTF-8 byte-order mark is skipped; LF, CRLF and
/// CR end lines alike. Checks every value is in 0..n but not consistency (require_consistent).
/// Throws nqc::InputError, the first problem in this order: "SOURCE:LINE: row I: expected an
/// integer 0..n, got 'TOKEN'" (bytes that are not printable ASCII shown as \xNN, at most 40
/// bytes), "SOURCE: too many values (n must be at most 2147483647)", "SOURCE: no values
/// (expected whitespace-separated integers Q(1..n), 0 for an empty row)", "SOURCE:LINE: row
/// I: value V is out of range 0..N" (the first such row).
LoadedComposition parse_composition(std::string text, const std::string& source);

/// What a text read from a stream (InputFile::is_stream) may have, read no further
/// (docs/formats.md, "Streams"). The defaults are nqc's; smaller ones serve tests.
struct StreamLimits {
  /// Values: the largest n, 2^31 - 1 (one more: "SOURCE: too many values (n must be at most
  /// 2147483647)").
  std::uint64_t max_rows = static_cast<std::uint64_t>(kMaxBoardSize);
  /// Bytes in all, 16 a row at the largest n, 32 GiB: a stream without values (blanks,
  /// comments) or with long gaps between them ends too ("SOURCE: at least 34359738369 bytes,
  /// more than a text composition on a stream may have (32768 MiB)").
  std::uint64_t max_bytes = 16 * (max_rows + 1);
  /// A text of at most this many bytes (16 MiB) is kept for messages after it is read (the
  /// line of a value above n, of a conflict: line_of_row); of a longer one they name rows only.
  std::size_t keep_bytes = std::size_t{16} << 20;
};

/// The same for an input file: a regular file is mapped and parsed in one pass (its pages
/// given back after; kept in the result for line_of_row). A stream is parsed as it arrives
/// (memory: the composition, a 256 KiB piece and the text kept up to limits.keep_bytes; a
/// token or comment that never ends is not kept), with the messages of a file of the same
/// bytes, but that a problem found after reading a stream longer than limits.keep_bytes names
/// the row, not the line: "SOURCE: row I: value V is out of range 0..N" (a value above n; a
/// negative value or one above 2^31 - 1 keeps its line), "SOURCE: rows A and B: ..."
/// (require_consistent).
LoadedComposition parse_composition(std::shared_ptr<const InputFile> in, const StreamLimits& limits = {});

/// The 1-based file line of board row `row` (0-based) of a composition parsed from text,
/// found by reading the text again up to that row (O(file size): for messages). 0 when
/// `loaded` has no text (binary, HDF5) or fewer rows.
std::int64_t line_of_row(const LoadedComposition& loaded, Index row);

/// Writes `c` in the text format: a `#` header line with n and k, then one value per line
/// (so file line 1 + i holds board row i). Throws nqc::IoError when the stream fails.
void write_composition(const Composition& c, std::ostream& out);

}  // namespace nqc
