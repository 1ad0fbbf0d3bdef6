#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "system/errors.hpp"
#include "formats/hash.hpp"

namespace nqc {
namespace {

TEST(Hash, Xxh64KnownValues) {
  EXPECT_EQ(hex64(xxh64("")), "ef46db3751d8e999");
  EXPECT_EQ(hex64(xxh64("abc")), "44bc2cf5ad770999");
  EXPECT_EQ(hex64(xxh64("Nobody inspects the spammish repetition")), "fbcea83c8a378bf1");
}

TEST(Hash, Xxh64WithASeed) {
  // xxhsum's reference values for seed 1 (xxHash's sanity test).
  EXPECT_EQ(hex64(xxh64("", 1)), "d5afba1336a3be4b");
}

TEST(Hash, FileDigestEqualsTheDigestOfItsBytesAcrossPieces) {
  const auto file = std::filesystem::temp_directory_path() / ("nqc-hash-" + std::to_string(::getpid()));
  std::string bytes;
  for (std::size_t i = 0; i < (std::size_t{3} << 20) + 77; ++i)
    bytes.push_back(static_cast<char>((i * 2654435761u) >> 13));
  std::ofstream(file, std::ios::binary) << bytes;
  const FileDigest d = digest_file(file);
  EXPECT_EQ(d.bytes, bytes.size());
  EXPECT_EQ(d.xxh64, xxh64(bytes));
  std::filesystem::remove(file);
  EXPECT_THROW((void)digest_file(file), InputError);
}

// A file is digested up to its size when opened, as it is read: not on through one of /proc
// that says 0 bytes and reads on (/proc/self/pagemap: 8 bytes for every page of the address
// space, 512 GiB).
TEST(Hash, FileDigestStopsAtTheSizeWhenOpened) {
  if (!std::filesystem::exists("/proc/self/pagemap")) GTEST_SKIP() << "no /proc/self/pagemap";
  const FileDigest d = digest_file("/proc/self/pagemap");
  EXPECT_EQ(d.bytes, 0U);
  EXPECT_EQ(d.xxh64, xxh64(""));
}

}  // namespace
}  // namespace nqc
