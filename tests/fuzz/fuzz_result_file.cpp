// Fuzz target: the result-file reader (read_result_file, every part; load_rows, which also
// refuses rows nqc never writes) on a shard file of a results directory, as `nqc run
// --resume` and `nqc aggregate` read it. Contract: the content, or an nqc::Error (InputError,
// its DamagedFileError for damage: exit code 1; IoError if the system refuses a read), one
// line naming the file.
//
// Two targets from this file. fuzz_result_file: inputs in HDF5's newest format (superblock
// 2 or 3, schema 1.2 on: read in this process, text attributes of 2.1 once text_checksum
// matches) and inputs without the HDF5 signature.
// fuzz_result_file_old (NQC_FUZZ_OLD_FORMAT): inputs in the original format (superblock 0
// or 1, schema 1.0 and 1.1), which nqc reads in a child process (formats/isolated.hpp): a fork
// per input, and up to 5 s for an input on which HDF5 loops, so it runs about 100x fewer
// inputs per second and would starve the first kind if they shared a target. Each rejects the
// other's inputs (-1: not kept in its corpus).
#include <cstddef>
#include <cstdint>
#include <new>
#include <string_view>

#include "experiment/results.hpp"
#include "fuzz_common.hpp"
#include "system/errors.hpp"
#include "formats/hdf5.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const int version = nqc::h5::superblock_version(std::string_view(reinterpret_cast<const char*>(data), size));
#ifdef NQC_FUZZ_OLD_FORMAT
  if (version < 0 || version >= 2) return -1;
#else
  if (version >= 0 && version < 2) return -1;
#endif
  // DIR/shards/shard-000000.h5: a shard file's name, so messages carry the shard advice.
  static const std::filesystem::path shards = [] {
    const std::filesystem::path dir = nqc::fuzz::work_dir() / "run" / "shards";
    std::filesystem::create_directories(dir);
    return dir;
  }();
  const std::filesystem::path file = shards / "shard-000000.h5";
  {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  try {
    (void)nqc::read_result_file(file, nqc::kEverything);
    (void)nqc::load_rows(file);
  } catch (const nqc::Error& e) {
    nqc::fuzz::require_one_line(e.what(), file.string() + ":", "nqc::Error");
  } catch (const std::bad_alloc&) {
    // Rows up to the reader's bound (10^9) are valid: more than this process may allocate.
  }
  return 0;
}
