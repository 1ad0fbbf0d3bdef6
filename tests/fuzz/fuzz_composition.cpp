// Fuzz target: the composition reader (read_composition: text, binary and HDF5, told apart by
// content) and the consistency check that every command runs next (require_consistent).
// Contract: a composition, or nqc::InputError, one line naming the file.
#include <cstddef>
#include <cstdint>
#include <new>

#include "fuzz_common.hpp"
#include "formats/composition_file.hpp"
#include "system/errors.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::filesystem::path file = nqc::fuzz::as_file(data, size, "composition");
  try {
    const nqc::LoadedComposition loaded = nqc::read_composition(file);
    nqc::require_consistent(loaded);
  } catch (const nqc::InputError& e) {
    nqc::fuzz::require_one_line(e.what(), file.string() + ":", "InputError");
  } catch (const std::bad_alloc&) {
    // A header or dataset that declares more values than this process may allocate (a board
    // of 2^31 - 1 rows is valid): nqc reports "out of memory".
  }
  return 0;
}
