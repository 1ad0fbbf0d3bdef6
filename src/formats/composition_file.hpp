// Composition files in every format nqc reads and writes: the text format (text_format.hpp),
// the binary format and HDF5. An input's format is found from its content, an output's from
// its name. docs/formats.md describes the three.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

#include "core/composition.hpp"

namespace nqc {

class InputFile;

/// The composition file formats.
enum class CompositionFormat {
  text,    ///< whitespace-separated integers Q(1..n), `#` comments (text_format.hpp)
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
  /// The bytes a text composition was parsed from, kept (a mapped file's pages are given
  /// back, not resident) so that a message can name the line of a row (line_of_row in
  /// text_format.hpp); null for the binary and HDF5 formats, which have no lines.
  std::shared_ptr<const InputFile> text;
};

/// The format of a file from its content `bytes` (its first 8 bytes decide, except for an
/// HDF5 user block): bytes starting with "\x89NQC" (the binary magic's first half) are
/// binary, so that a damaged magic is reported as such; the HDF5 signature
/// "\x89HDF\r\n\x1a\n" at offset 0, 512, 1024, 2048, ... is HDF5; anything else is text.
CompositionFormat detect_format(std::string_view bytes);

/// The format an output file gets from its name: ".bin" binary, ".h5" or ".hdf5" HDF5
/// (any letter case), anything else (and "-", standard output) text.
CompositionFormat format_for_output(const std::filesystem::path& file);

/// Reads a composition file in any format, found by content (detect_format); "-" reads
/// standard input (any format). Checks that n >= 1 and every value is in 0..n, not consistency
/// (require_consistent). A file is memory-mapped: binary copied in cache-sized steps, its
/// pages given back as it goes (peak memory about the 4n-byte composition); text parsed in
/// parallel parts (text_format.hpp). A stream (a pipe, a FIFO,
/// a device: InputFile::is_stream) is read no further than it must be, its format told by its
/// first 64 KiB: text as it arrives (parse_composition: StreamLimits); binary up to its 24 +
/// 4n bytes and one more (trailing data: "FILE: trailing data: header says n = 10 (24 + 4n =
/// 64 bytes), the file has at least 65 bytes"); HDF5 into memory up to the end its
/// superblock gives, at most 17407 MiB ("FILE: the HDF5 superblock gives the file N bytes,
/// more than an HDF5 composition on a stream may have (17407 MiB)", "FILE: unreadable HDF5
/// composition: no superblock that gives the file's end"). Throws nqc::InputError (one
/// line, naming the file) for a file that does not exist ("FILE: cannot open: REASON"; the
/// system refusing a read: nqc::IoError), the
/// text errors of parse_composition, and the binary and HDF5 errors listed in docs/formats.md,
/// e.g. "FILE: truncated: header says n = 10 (24 + 4n = 64 bytes),
/// the file has 60 bytes", "FILE: row 3: value 11 is out of range 0..10", "FILE: no dataset
/// /composition ...".
LoadedComposition read_composition(const std::filesystem::path& file);
/// The same for a file already open (InputFile::open), e.g. standard input whose first bytes
/// were looked at.
LoadedComposition read_composition(std::shared_ptr<const InputFile> in);

/// Throws nqc::InputError "SOURCE:LINE: rows A and B: two queens on one column (column C)"
/// (or the diagonal / anti-diagonal / out-of-range variants, see nqc::Verdict::describe)
/// when the composition is not consistent; LINE is the text file's line of the later row
/// (the binary and HDF5 formats have no lines: "SOURCE: rows A and B: ...").
void require_consistent(const LoadedComposition& loaded);

/// Writes `c` (n >= 1) to `file` in `format`; "-" is standard output (text or binary; HDF5
/// needs a file: nqc::InputError). Text as write_composition(c, std::ostream&); binary and
/// HDF5 as described at CompositionFormat (HDF5: /composition as H5T_STD_U32LE, chunks of
/// 2^20 values, Fletcher32 checksums). Throws "FILE: cannot write: REASON" when the
/// file cannot be written: nqc::IoError (the HDF5 layer's errors too), or nqc::InputError for
/// a path that cannot name a file (a missing directory, a directory: nqc::throw_errno).
void write_composition(const Composition& c, const std::filesystem::path& file, CompositionFormat format);
/// Writes `c` in the format its name asks for (format_for_output).
void write_composition(const Composition& c, const std::filesystem::path& file);

}  // namespace nqc
