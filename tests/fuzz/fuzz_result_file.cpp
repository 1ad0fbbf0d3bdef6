// Fuzz target: the result-file reader (read_result_file, every part; load_rows, which also
// refuses rows nqc never writes) on a shard file of a results directory, as `nqc run
// --resume` and `nqc aggregate` read it. Contract: the content, or an nqc::Error (InputError,
// its DamagedFileError for damage: exit code 1; IoError if the system refuses a read), one
// line naming the file.
// Every input: files in HDF5's newest format are read in this process (the text attributes
// once text_checksum matches); files without the HDF5 signature or in its original format
// (superblock 0 or 1, no checksums) are refused before HDF5 reads them.
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <new>

#include "experiment/results.hpp"
#include "fuzz_common.hpp"
#include "system/errors.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
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
