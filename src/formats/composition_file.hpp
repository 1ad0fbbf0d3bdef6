// Composition files in every format nqc reads and writes: the text format (text_format.cpp),
// the binary format and HDF5. An input's format is found from its content, an output's from
// its name. docs/formats.md describes the three.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <memory>
#include <string>
#include <string_view>

#include "core/composition.hpp"

namespace nqc {

class InputFile;

/// The composition file formats.
enum class CompositionFormat {
  text,    ///< whitespace-separated integers Q(1..n), `#` comments
  binary,  ///< 24-byte header (magic "\x89NQC\r\n\x1a\n", version 1, flags 0, n) + n uint32 LE
  hdf5,    ///< HDF5 file whose 1-D integer dataset /composition holds Q(1..n)
};

/// "text", "binary" or "hdf5".
const char* to_string(CompositionFormat format);

/// A composition as read from a file, with what messages about it need.
struct LoadedComposition {
  Composition composition;
  std::string source;  ///< file name as given ("<stdin>" for standard input), used in messages
  CompositionFormat format = CompositionFormat::text;
  /// The text parsed (mapped, not resident) for line_of_row; null for binary and HDF5 (no lines).
  std::shared_ptr<const InputFile> text;
};

/// The format of content `bytes`: "\x89NQC" (the binary magic's first half: a damaged magic is
/// reported as such) binary, the HDF5 signature at offset 0, 512, 1024, ... HDF5, else text.
CompositionFormat detect_format(std::string_view bytes);

/// The format an output gets from its name: ".bin" binary, ".h5" or ".hdf5" HDF5 (any case),
/// anything else (and "-", standard output) text.
CompositionFormat format_for_output(const std::filesystem::path& file);

/// Reads a composition in any format (detect_format); "-" is standard input. Checks n >= 1 and
/// every value in 0..n, not consistency. A file is mapped, its pages given back as read; a stream
/// is read no further than it must be (docs/formats.md, "Streams"). Throws nqc::InputError, one
/// line naming the file, for the errors of docs/formats.md; nqc::IoError when the system refuses.
LoadedComposition read_composition(const std::filesystem::path& file);
/// The same for a file already open, e.g. standard input whose first bytes were looked at.
LoadedComposition read_composition(std::shared_ptr<const InputFile> in);

/// Throws nqc::InputError "SOURCE[:LINE]: rows A and B: ..." (Verdict::describe; LINE of the later
/// row, text only) when the composition is not consistent.
void require_consistent(const LoadedComposition& loaded);

/// Writes `c` (n >= 1) to `file` in `format`; "-" is standard output (text or binary; HDF5:
/// nqc::InputError). HDF5: /composition as uint32 LE in chunks of 2^20 values with Fletcher32.
/// Throws "FILE: cannot write: REASON" as nqc::throw_errno.
void write_composition(const Composition& c, const std::filesystem::path& file, CompositionFormat format);
/// Writes `c` in the format its name asks for (format_for_output).
void write_composition(const Composition& c, const std::filesystem::path& file);

// --- the text format (text_format.cpp) ---

/// Parses the text format of [Grigoryan] (docs/formats.md): whitespace-separated integers Q(i)
/// (0 for an empty row), n the number of values, `#` comments, text_input.hpp's discipline.
/// Checks every value is in 0..n. Throws nqc::InputError, the first problem in this order:
/// "SOURCE:LINE: row I: expected an integer 0..n, got 'TOKEN'", "SOURCE: too many values (n must
/// be at most 2147483647)", "SOURCE: no values (...)", "SOURCE:LINE: row I: value V is out of
/// range 0..N".
LoadedComposition parse_composition(std::string text, const std::string& source);

/// What a text read from a stream may have, read no further (docs/formats.md, "Streams"); smaller
/// limits serve tests.
struct StreamLimits {
  std::uint64_t max_rows = static_cast<std::uint64_t>(kMaxBoardSize);  ///< values
  std::uint64_t max_bytes = 16 * (max_rows + 1);                       ///< bytes in all: 32 GiB
  /// A text up to this size (16 MiB) is kept, so that a message found after reading it can name
  /// a line (line_of_row); of a longer one messages name rows only.
  std::size_t keep_bytes = std::size_t{16} << 20;
};

/// The same for an input file: a regular file mapped and parsed in one pass, a stream as it
/// arrives (memory: the values, a 256 KiB piece, the text kept), with a file's messages.
LoadedComposition parse_composition(std::shared_ptr<const InputFile> in, const StreamLimits& limits = {});

/// The 1-based line of row `row` (0-based) of a composition parsed from text, by reading the
/// text again (for messages); 0 without a text or with fewer rows.
std::int64_t line_of_row(const LoadedComposition& loaded, Index row);

/// Writes `c` in the text format: a `#` line with n and k, then one value per line (file line
/// 1 + i holds row i). Throws nqc::IoError when the stream fails.
void write_composition(const Composition& c, std::ostream& out);

}  // namespace nqc
