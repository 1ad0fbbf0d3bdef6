#include "formats/hash.hpp"

#include <cstdio>

// xxHash's own implementation, compiled in (no library to load at start-up).
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "formats/input_file.hpp"

namespace nqc {

std::uint64_t xxh64(std::string_view bytes, std::uint64_t seed) { return XXH64(bytes.data(), bytes.size(), seed); }

std::string hex64(std::uint64_t value) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(value));
  return buf;
}

FileDigest digest_file(const std::filesystem::path& file) {
  // Mapped, as read_composition reads a file: up to its size when opened, not on through a
  // file that grows meanwhile, nor one of /proc that says 0 bytes and reads on.
  const auto in = InputFile::open(file);
  return {in->size(), xxh64(in->bytes())};
}

}  // namespace nqc
