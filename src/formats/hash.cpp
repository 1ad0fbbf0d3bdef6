#include "formats/hash.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <memory>
#include <new>
#include <vector>

// xxHash's own implementation, compiled in (no library to load at start-up).
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "system/errors.hpp"

namespace nqc {

std::uint64_t xxh64(std::string_view bytes, std::uint64_t seed) { return XXH64(bytes.data(), bytes.size(), seed); }

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
  const std::unique_ptr<XXH64_state_t, XXH_errorcode (*)(XXH64_state_t*)> h(XXH64_createState(), XXH64_freeState);
  if (h == nullptr) throw std::bad_alloc();
  XXH64_reset(h.get(), 0);
  FileDigest out;
  while (out.bytes < size) {
    const ssize_t got =
        ::read(fd, buffer.data(), static_cast<std::size_t>(std::min<std::uint64_t>(buffer.size(), size - out.bytes)));
    if (got == 0) break;
    if (got < 0) {
      if (errno == EINTR) continue;
      const int error = errno;
      ::close(fd);
      throw_errno(file.string() + ": cannot read", error);
    }
    XXH64_update(h.get(), buffer.data(), static_cast<std::size_t>(got));
    out.bytes += static_cast<std::uint64_t>(got);
  }
  ::close(fd);
  out.xxh64 = XXH64_digest(h.get());
  return out;
}

}  // namespace nqc
