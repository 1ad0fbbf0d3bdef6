#include "formats/input_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <utility>

#include "system/errors.hpp"
#include "system/std_stream.hpp"

namespace nqc {
namespace {

std::size_t page_size() {
  static const auto size = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  return size;
}

}  // namespace

std::shared_ptr<const InputFile> InputFile::open(const std::filesystem::path& file) {
  std::shared_ptr<InputFile> in(new InputFile());
  const bool is_stdin = is_std_stream(file);
  in->name_ = is_stdin ? "<stdin>" : file.string();
  int fd = 0;
  if (!is_stdin) {
    fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw_errno(in->name_ + ": cannot open", errno);
    in->fd_ = fd;  // closed by the destructor from here on
    in->close_fd_ = true;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) throw_errno(in->name_ + ": cannot open", errno);
  if (S_ISDIR(st.st_mode)) throw InputError(in->name_ + ": cannot open: is a directory");
  // A regular file read from its start is read in place (standard input redirected from a
  // file may have been read partly: it is read from where it stands, like a pipe).
  if (S_ISREG(st.st_mode) && ::lseek(fd, 0, SEEK_CUR) == 0) {
    in->fd_ = fd;
    in->size_ = static_cast<std::size_t>(st.st_size);
    if (!is_stdin) in->path_ = file;
    return in;
  }
  // A stream: its first bytes, and the rest as read_stream asks.
  in->fd_ = -1;
  in->stream_fd_ = fd;
  in->fill(kStreamHead);
  in->stream_ = in->stream_fd_ >= 0;  // else it ended there: bytes in memory
  return in;
}

std::size_t InputFile::read_stream(char* out, std::size_t count) const {
  while (stream_fd_ >= 0 && count > 0) {
    const ssize_t got = ::read(stream_fd_, out, count);
    if (got > 0) return static_cast<std::size_t>(got);
    if (got == 0) {  // the end: nothing more to read
      if (close_fd_) ::close(stream_fd_);
      stream_fd_ = -1;
      break;
    }
    if (errno != EINTR) throw_errno(name_ + ": cannot read", errno);
  }
  return 0;
}

void InputFile::fill(std::uintmax_t max_bytes) const {
  if (stream_fd_ < 0) return;
  std::size_t used = owned_.size();
  while (stream_fd_ >= 0 && used < max_bytes) {
    if (used == owned_.size())
      owned_.resize(static_cast<std::size_t>(std::min<std::uintmax_t>(max_bytes, std::max(2 * used, kStreamHead))));
    used += read_stream(owned_.data() + used, owned_.size() - used);
  }
  owned_.resize(used);
  size_ = used;
}

void InputFile::spool(std::uintmax_t max_bytes) const {
  if (!stream_) return;
  fill(max_bytes);
  if (stream_fd_ >= 0 && close_fd_) ::close(stream_fd_);
  stream_fd_ = -1;
  stream_ = false;
}

std::shared_ptr<const InputFile> InputFile::from_memory(std::string bytes, std::string name) {
  std::shared_ptr<InputFile> in(new InputFile());
  in->owned_ = std::move(bytes);
  in->size_ = in->owned_.size();
  in->name_ = std::move(name);
  return in;
}

InputFile::~InputFile() {
  if (map_ != nullptr) ::munmap(const_cast<char*>(map_), size_);
  if (close_fd_ && fd_ >= 0) ::close(fd_);
  if (close_fd_ && stream_fd_ >= 0) ::close(stream_fd_);
}

std::string_view InputFile::bytes() const {
  if (fd_ < 0) return owned_;
  std::call_once(map_once_, [this] {
    if (size_ == 0) return;
    void* map = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd_, 0);
    if (map != MAP_FAILED) {
      ::madvise(map, size_, MADV_SEQUENTIAL);
      map_ = static_cast<const char*>(map);
    } else {
      owned_.resize(size_);
      owned_.resize(read_at(0, owned_.data(), size_));
    }
  });
  return map_ != nullptr ? std::string_view(map_, size_) : std::string_view(owned_);
}

std::size_t InputFile::read_at(std::size_t offset, char* out, std::size_t count) const {
  if (fd_ < 0) {
    const std::size_t n = offset < owned_.size() ? std::min(count, owned_.size() - offset) : 0;
    if (n > 0) std::memcpy(out, owned_.data() + offset, n);
    return n;
  }
  std::size_t done = 0;
  while (done < count) {
    const ssize_t got = ::pread(fd_, out + done, count - done, static_cast<off_t>(offset + done));
    if (got == 0) break;
    if (got < 0) {
      if (errno == EINTR) continue;
      throw_errno(name_ + ": cannot read", errno);
    }
    done += static_cast<std::size_t>(got);
  }
  return done;
}

void InputFile::release(std::size_t from, std::size_t to) const {
  if (map_ == nullptr) return;
  const std::size_t page = page_size();
  from &= ~(page - 1);
  to = std::min(to, size_) & ~(page - 1);
  if (to > from) ::madvise(const_cast<char*>(map_) + from, to - from, MADV_DONTNEED);
}

}  // namespace nqc
