// Text attributes that h5py reads as str and that nqc reads only once they are known to be
// undamaged. h5py gives str only for variable-length strings, whose bytes HDF5 keeps in global
// heap collections: the one part of HDF5's newest format without a checksum, and one whose
// damage makes HDF5 1.10 crash, loop or copy out of bounds on reading (tests/fuzz/failed/
// result_file_old). So the writer adds a checksum attribute in the object header (which HDF5
// checksums): 1 + 2N uint64 values,
//   [0]             XXH64 (seed 0) of the names of the variable-length string attributes in
//                   byte order, each followed by a NUL byte, then of the bytes of each heap
//                   collection that holds their values, in file order;
//   [1 + 2i, 2 + 2i] collection i: its byte offset in the file and its size in bytes.
// A reader compares it before HDF5 reads any of these values (so HDF5 parses only heaps
// exactly as written), and refuses a file that differs: damage, or an attribute added later.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "formats/hdf5.hpp"

namespace nqc::h5 {

/// Writes `texts` (name -> UTF-8) as variable-length string attributes of the root group of
/// `file`, then the attribute `checksum` (the file flushed and read back: call it before anything
/// large is written). Throws std::invalid_argument for a NUL byte, h5::Error when the heap
/// collections are not found as written.
void write_text_attributes(const Handle& file, const std::map<std::string, std::string>& texts,
                           const std::string& checksum);

/// What check_text_attributes found.
enum class TextCheck {
  none,       ///< no variable-length string attribute: nothing to check
  passed,     ///< the checksum matches: HDF5 may read the values
  unchecked,  ///< such attributes but no `checksum`: reading them may crash HDF5, refuse the file
};

/// Checks the variable-length string attributes of the root group of `file` against the
/// attribute `checksum`, reading none of their values. Throws h5::Error ("the text attributes do
/// not match CHECKSUM", "CHECKSUM names bytes A..B, beyond the file's end at S") when they differ,
/// nqc::InputError when `checksum` is not 1 + 2N uint64.
TextCheck check_text_attributes(const Handle& file, const std::string& checksum);

/// The most heap collections a checksum attribute may name (nqc's result files have 1 or 2).
inline constexpr std::size_t kMaxTextHeaps = 1024;

}  // namespace nqc::h5
