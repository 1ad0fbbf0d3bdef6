// Fuzz target: the experiment config reader (load_config: the text discipline, JSON with
// duplicate keys refused, the config table's checks and those after it) and the reader of
// DIR/plan.json (parse_pinned_plan), which meet the same kind of text. Contract: a config, or
// nqc::InputError, one line naming the file (plan.json's reason is wrapped by the caller:
// one line, no file).
#include <cstddef>
#include <cstdint>
#include <string>

#include "experiment/config.hpp"
#include "experiment/pinning.hpp"
#include "fuzz_common.hpp"
#include "system/errors.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::filesystem::path file = nqc::fuzz::as_file(data, size, "config.json");
  try {
    (void)nqc::load_config(file);
  } catch (const nqc::InputError& e) {
    nqc::fuzz::require_one_line(e.what(), file.string() + ":", "InputError");
  }
  try {
    (void)nqc::parse_pinned_plan(std::string(reinterpret_cast<const char*>(data), size));
  } catch (const nqc::InputError& e) {
    nqc::fuzz::require_one_line(e.what(), "", "plan.json InputError");
  }
  return 0;
}
