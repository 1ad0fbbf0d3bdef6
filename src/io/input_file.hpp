// An input file read in place (pread, or memory-mapped on demand) when it is a regular
// file, read into memory otherwise (a pipe, a terminal).
#pragma once

#include "core/memory.hpp"

#include <cstddef>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

namespace nqc {

/// A whole input file, read-only. A regular file (also standard input redirected from one)
/// is read in place: copied piecewise with read_at (pread), or memory-mapped by bytes() on
/// first use; anything else (a pipe) is read to its end with read() at once. Not copyable;
/// closes and unmaps on destruction.
class InputFile {
 public:
  /// Looks at a stream's bytes as they arrive (a pipe or a device is read into memory to its
  /// end): called with the name for messages (name()) and all the bytes read so far after
  /// each read(2); throws to stop reading, e.g. at a size limit (param_stream_check in
  /// csplib.hpp). Not called for a regular file.
  using StreamCheck = std::function<void(const std::string& name, std::string_view so_far)>;

  /// Opens `file`; "-" is standard input. Throws "FILE: cannot open: REASON": nqc::InputError
  /// for a directory (REASON "is a directory") or a missing file, else as nqc::throw_errno
  /// classes the system's error (EACCES: IoError); and what `check` throws.
  static std::shared_ptr<const InputFile> open(const std::filesystem::path& file, const StreamCheck& check = {});
  /// Wraps bytes already in memory (`name` is used in messages).
  static std::shared_ptr<const InputFile> from_memory(std::string bytes, std::string name);

  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;
  ~InputFile();

  /// The size in bytes.
  [[nodiscard]] std::size_t size() const { return size_; }
  /// The whole content. A regular file is memory-mapped on the first call (read-ahead
  /// advised as sequential; read into memory if it cannot be mapped). Thread-safe.
  [[nodiscard]] std::string_view bytes() const;
  /// Copies bytes offset .. offset + count - 1 (fewer at the end) to `out` and returns how
  /// many: pread(2) for a file, so the bytes pass through the processor's cache once and
  /// nothing is mapped. Throws "NAME: cannot read: REASON" (nqc::throw_errno: EIO is an IoError). Thread-safe.
  std::size_t read_at(std::size_t offset, char* out, std::size_t count) const;
  /// The name for messages: the path as given, "<stdin>" for "-".
  [[nodiscard]] const std::string& name() const { return name_; }
  /// The path to open again by name; empty for standard input and bytes in memory.
  [[nodiscard]] const std::filesystem::path& path() const { return path_; }
  /// Tells the kernel that the mapped bytes from `from` to `to` are done with: the pages
  /// from the one holding `from` up to the one holding `to` (exclusive) leave this process's
  /// memory. Only a hint: a page touched again is read again (from the page cache). A no-op
  /// for bytes in memory. Thread-safe.
  void release(std::size_t from, std::size_t to) const;

 private:
  InputFile() = default;

  int fd_ = -1;               ///< the regular file read in place; -1 for bytes in memory
  bool close_fd_ = false;     ///< false for standard input
  std::size_t size_ = 0;
  mutable std::string owned_;  ///< the bytes in memory (a pipe, from_memory, or a file that cannot be mapped)
  mutable std::once_flag map_once_;
  mutable const char* map_ = nullptr;  ///< the mapping made by bytes(), or null
  std::string name_;
  std::filesystem::path path_;
};

}  // namespace nqc
