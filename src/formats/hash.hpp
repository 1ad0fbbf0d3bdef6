// XXH64 (xxHash, Debian's libxxhash-dev, compiled in): the same on every platform and release
// (std::hash is not), for a config's hash, the pinned plan's instance files and the text
// attributes' checksum. Not cryptographic: it tells a changed file from the same one, not
// from a forgery.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace nqc {

/// XXH64 (Yann Collet's xxHash, 64 bits) of `bytes` with `seed`, as `xxhsum -H1` prints it.
std::uint64_t xxh64(std::string_view bytes, std::uint64_t seed = 0);

/// `value` as 16 lowercase hexadecimal digits.
std::string hex64(std::uint64_t value);

/// The size and XXH64 of a file's content, up to its size when opened. Throws as
/// InputFile::open ("FILE: cannot open: REASON").
struct FileDigest {
  std::uint64_t bytes = 0;
  std::uint64_t xxh64 = 0;
};
FileDigest digest_file(const std::filesystem::path& file);

}  // namespace nqc
