#include "io/hash.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

#include "io/errors.hpp"

namespace nqc {
namespace {

constexpr std::uint64_t kP1 = 0x9E3779B185EBCA87ULL;
constexpr std::uint64_t kP2 = 0xC2B2AE3D27D4EB4FULL;
constexpr std::uint64_t kP3 = 0x165667B19E3779F9ULL;
constexpr std::uint64_t kP4 = 0x85EBCA77C2B2AE63ULL;
constexpr std::uint64_t kP5 = 0x27D4EB2F165667C5ULL;

inline std::uint64_t rotl(std::uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

// Little-endian loads, as the algorithm reads its input.
inline std::uint64_t load64(const char* p) {
  std::uint64_t v = 0;
  std::memcpy(&v, p, sizeof v);
  if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap64(v);
  return v;
}

inline std::uint32_t load32(const char* p) {
  std::uint32_t v = 0;
  std::memcpy(&v, p, sizeof v);
  if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap32(v);
  return v;
}

inline std::uint64_t round(std::uint64_t acc, std::uint64_t input) { return rotl(acc + input * kP2, 31) * kP1; }

inline std::uint64_t merge_round(std::uint64_t acc, std::uint64_t v) { return (acc ^ round(0, v)) * kP1 + kP4; }

// XXH64 fed piece by piece: whole 32-byte stripes go through the four lanes at once, the
// rest waits in `tail`.
class Xxh64 {
 public:
  explicit Xxh64(std::uint64_t seed) : seed_(seed), v_{seed + kP1 + kP2, seed + kP2, seed, seed - kP1} {}

  void update(std::string_view bytes) {
    total_ += bytes.size();
    if (!tail_.empty()) {
      const std::size_t take = std::min(bytes.size(), 32 - tail_.size());
      tail_.append(bytes.substr(0, take));
      bytes.remove_prefix(take);
      if (tail_.size() < 32) return;
      stripe(tail_.data());
      tail_.clear();
    }
    while (bytes.size() >= 32) {
      stripe(bytes.data());
      bytes.remove_prefix(32);
    }
    tail_.assign(bytes);
  }

  [[nodiscard]] std::uint64_t digest() const {
    std::uint64_t h = total_ >= 32 ? rotl(v_[0], 1) + rotl(v_[1], 7) + rotl(v_[2], 12) + rotl(v_[3], 18) : seed_ + kP5;
    if (total_ >= 32)
      for (const std::uint64_t v : v_) h = merge_round(h, v);
    h += total_;
    std::string_view rest = tail_;
    while (rest.size() >= 8) {
      h = rotl(h ^ round(0, load64(rest.data())), 27) * kP1 + kP4;
      rest.remove_prefix(8);
    }
    if (rest.size() >= 4) {
      h = rotl(h ^ (static_cast<std::uint64_t>(load32(rest.data())) * kP1), 23) * kP2 + kP3;
      rest.remove_prefix(4);
    }
    for (const char c : rest) h = rotl(h ^ (static_cast<unsigned char>(c) * kP5), 11) * kP1;
    h ^= h >> 33;
    h *= kP2;
    h ^= h >> 29;
    h *= kP3;
    h ^= h >> 32;
    return h;
  }

 private:
  void stripe(const char* p) {
    for (int lane = 0; lane < 4; ++lane) v_[lane] = round(v_[lane], load64(p + 8 * lane));
  }

  std::uint64_t seed_;
  std::uint64_t v_[4];
  std::uint64_t total_ = 0;
  std::string tail_;
};

}  // namespace

std::uint64_t fnv1a64(std::string_view bytes) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (const char ch : bytes) h = (h ^ static_cast<unsigned char>(ch)) * 0x100000001b3ULL;
  return h;
}

std::uint64_t xxh64(std::string_view bytes, std::uint64_t seed) {
  Xxh64 h(seed);
  h.update(bytes);
  return h.digest();
}

std::string hex64(std::uint64_t value) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(value));
  return buf;
}

FileDigest digest_file(const std::filesystem::path& file) {
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw_errno(file.string() + ": cannot read", errno);
  // No further than its size when opened, as read_composition reads a file: not on through a
  // file that grows meanwhile, nor one of /proc that says 0 bytes and reads on
  // (/proc/self/pagemap: 512 GiB).
  struct stat st {};
  const std::uint64_t size = ::fstat(fd, &st) == 0 ? static_cast<std::uint64_t>(st.st_size) : 0;
  std::vector<char> buffer(std::size_t{1} << 20);
  Xxh64 h(0);
  FileDigest out;
  while (out.bytes < size) {
    const ssize_t got = ::read(fd, buffer.data(), static_cast<std::size_t>(std::min<std::uint64_t>(buffer.size(), size - out.bytes)));
    if (got == 0) break;
    if (got < 0) {
      if (errno == EINTR) continue;
      const int error = errno;
      ::close(fd);
      throw_errno(file.string() + ": cannot read", error);
    }
    h.update(std::string_view(buffer.data(), static_cast<std::size_t>(got)));
    out.bytes += static_cast<std::uint64_t>(got);
  }
  ::close(fd);
  out.xxh64 = h.digest();
  return out;
}

}  // namespace nqc
