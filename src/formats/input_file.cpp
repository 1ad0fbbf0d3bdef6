#include "formats/input_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <new>
#include <utility>

#include "system/errors.hpp"
#include "system/std_stream.hpp"

namespace nqc {

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
  // Standard input redirected from a file may have been read partly: then it is read from
  // where it stands, like a pipe.
  if (S_ISREG(st.st_mode) && ::lseek(fd, 0, SEEK_CUR) == 0) {
    in->fd_ = fd;
    in->size_ = static_cast<std::size_t>(st.st_size);
    if (!is_stdin) in->path_ = file;
    return in;
  }
  in->fd_ = -1;
  in->stream_fd_ = fd;
  in->spool(kStreamHead);
  in->stream_ = in->stream_fd_ >= 0;  // else it ended there: bytes in memory
  return in;
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

std::size_t InputFile::read_stream(char* out, std::size_t count) const {
  while (stream_fd_ >= 0 && count > 0) {
    const ssize_t got = ::read(stream_fd_, out, count);
    if (got > 0) return static_cast<std::size_t>(got);
    if (got == 0) {  // the end
      if (close_fd_) ::close(stream_fd_);
      stream_fd_ = -1;
    } else if (errno != EINTR) {
      throw_errno(name_ + ": cannot read", errno);
    }
  }
  return 0;
}

void InputFile::spool(std::uintmax_t max_bytes) const {
  if (stream_fd_ < 0) return;
  std::size_t used = owned_.size();
  while (stream_fd_ >= 0 && used < max_bytes) {
    if (used == owned_.size())
      owned_.resize(static_cast<std::size_t>(std::min<std::uintmax_t>(max_bytes, std::max(2 * used, kStreamHead))));
    used += read_stream(owned_.data() + used, owned_.size() - used);
  }
  owned_.resize(used);
  size_ = used;
  if (stream_ && stream_fd_ >= 0 && close_fd_) ::close(stream_fd_);
  if (stream_) stream_fd_ = -1;  // spooled: bytes in memory, the rest never read
  stream_ = false;
}

std::string_view InputFile::bytes() const {
  if (fd_ < 0) return owned_;
  std::call_once(map_once_, [this] {
    if (size_ == 0) return;
    void* map = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd_, 0);
    if (map != MAP_FAILED) {
      ::madvise(map, size_, MADV_SEQUENTIAL);
      map_ = static_cast<const char*>(map);
      return;
    }
    owned_.resize(size_);
    std::size_t done = 0;
    while (done < size_) {
      const ssize_t got = ::pread(fd_, owned_.data() + done, size_ - done, static_cast<off_t>(done));
      if (got == 0) break;
      if (got < 0 && errno != EINTR) throw_errno(name_ + ": cannot read", errno);
      done += got > 0 ? static_cast<std::size_t>(got) : 0;
    }
    owned_.resize(done);
  });
  return map_ != nullptr ? std::string_view(map_, size_) : std::string_view(owned_);
}

void InputFile::release(std::size_t from, std::size_t to) const {
  if (map_ == nullptr) return;
  static const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  from &= ~(page - 1);
  to = std::min(to, size_) & ~(page - 1);
  if (to > from) ::madvise(const_cast<char*>(map_) + from, to - from, MADV_DONTNEED);
}

SetAside::~SetAside() {
  for (const std::span<Index> c : chunks_) ::munmap(c.data(), c.size_bytes());
}

void SetAside::add(std::vector<Index>& values) {
  if (values.empty()) return;
  void* p = ::mmap(nullptr, values.size() * sizeof(Index), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  std::memcpy(p, values.data(), values.size() * sizeof(Index));
  chunks_.emplace_back(static_cast<Index*>(p), values.size());
  size_ += values.size();
  values.clear();
}

std::vector<Index> SetAside::take(const std::vector<Index>& last) {
  std::vector<Index> out;
  out.reserve(size_ + last.size());
  advise_huge_pages(out.data(), out.capacity() * sizeof(Index));
  for (const std::span<Index> c : chunks_) {
    out.insert(out.end(), c.begin(), c.end());
    ::munmap(c.data(), c.size_bytes());
  }
  chunks_.clear();
  size_ = 0;
  out.insert(out.end(), last.begin(), last.end());
  return out;
}

}  // namespace nqc
