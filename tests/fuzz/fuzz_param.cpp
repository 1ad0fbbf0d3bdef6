// Fuzz target: the CSPLib prob079 .param reader (read_param, all pairs and the first one).
// Contract: an instance, or nqc::InputError, one line naming the file.
#include <cstddef>
#include <cstdint>
#include <new>

#include "fuzz_common.hpp"
#include "formats/csplib.hpp"
#include "system/errors.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::filesystem::path file = nqc::fuzz::as_file(data, size, "instance.param");
  for (const std::optional<int> diags : {std::optional<int>(), std::optional<int>(1)}) {
    try {
      (void)nqc::read_param(file, diags);
    } catch (const nqc::InputError& e) {
      nqc::fuzz::require_one_line(e.what(), file.string() + ":", "InputError");
    } catch (const std::bad_alloc&) {
      // n up to 2^31 - 1 is valid: a board larger than this process may allocate.
    }
  }
  return 0;
}
