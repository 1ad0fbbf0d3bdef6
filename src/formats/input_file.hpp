// An input file read in place (pread, or memory-mapped on demand) when it is a regular
// file; a stream (a pipe, a FIFO, a device, a terminal) is read in order, its first bytes
// into memory, the rest as its reader asks.
#pragma once

#include "core/memory.hpp"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

namespace nqc {

/// An input file, read-only. A regular file (also standard input redirected from one) is
/// read in place: copied piecewise with read_at (pread), or memory-mapped by bytes() on first
/// use. Anything else is a stream (a pipe, a FIFO, a character device such as /dev/zero, a
/// socket, or standard input read partly already), which may never end: open() reads its
/// first kStreamHead bytes into memory (all of it when it ends there: then it is bytes in
/// memory like any other), and a reader takes the rest in order with read_stream(), or into
/// memory up to a limit with spool(), so that nothing reads a stream further than it needs
/// (docs/formats.md). Not copyable; closes and unmaps on destruction.
class InputFile {
 public:
  /// The bytes of a stream that open() reads before anything looks at it (a format is told
  /// from them): 64 KiB, what a pipe holds.
  static constexpr std::size_t kStreamHead = std::size_t{1} << 16;

  /// Opens `file`; "-" is standard input. Opening a FIFO waits for a writer, reading a stream
  /// waits for its bytes (as any Unix tool does). Throws "FILE: cannot open: REASON":
  /// nqc::InputError for a directory (REASON "is a directory") or a missing file, else as
  /// nqc::throw_errno classes the system's error (EACCES: IoError); "FILE: cannot read: REASON"
  /// likewise.
  static std::shared_ptr<const InputFile> open(const std::filesystem::path& file);
  /// Wraps bytes already in memory (`name` is used in messages).
  static std::shared_ptr<const InputFile> from_memory(std::string bytes, std::string name);

  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;
  ~InputFile();

  /// True for a stream that did not end within its first kStreamHead bytes (until spool()):
  /// size(), bytes() and read_at() then cover those first bytes only, and read_stream() gives
  /// the rest. False for a regular file and bytes in memory.
  [[nodiscard]] bool is_stream() const { return stream_; }
  /// The next bytes of a stream after all read so far (bytes(), then earlier calls): at most
  /// `count`, what one read(2) gives; 0 at its end, and for what is not a stream. Throws
  /// nqc::InputError "NAME: cannot read: REASON". Not thread-safe.
  std::size_t read_stream(char* out, std::size_t count) const;
  /// Reads a stream (not read by read_stream yet) on into memory until its end or until it
  /// has `max_bytes` in all (the rest is never read): from then on it is bytes in memory
  /// (is_stream() false) whose size() tells which. A no-op for anything else. Throws as
  /// read_stream. Not thread-safe.
  void spool(std::uintmax_t max_bytes) const;

  /// The size in bytes (of a stream: of the bytes in memory).
  [[nodiscard]] std::size_t size() const { return size_; }
  /// The whole content (of a stream: the bytes in memory). A regular file is memory-mapped on the first call
  /// (read-ahead advised as sequential; read into memory if it cannot be mapped). Thread-safe.
  [[nodiscard]] std::string_view bytes() const;
  /// Copies bytes offset .. offset + count - 1 (fewer at the end) to `out` and returns how
  /// many: pread(2) for a file, so the bytes pass through the processor's cache once and
  /// nothing is mapped. Throws "NAME: cannot read: REASON" (nqc::throw_errno: EIO is an IoError). Thread-safe.
  std::size_t read_at(std::size_t offset, char* out, std::size_t count) const;
  /// The name for messages: the path as given, "<stdin>" for "-".
  [[nodiscard]] const std::string& name() const { return name_; }
  /// The path to open again by name: that of a regular file; empty for standard input, a
  /// stream and bytes in memory.
  [[nodiscard]] const std::filesystem::path& path() const { return path_; }
  /// Tells the kernel that the mapped bytes from `from` to `to` are done with: the pages
  /// from the one holding `from` up to the one holding `to` (exclusive) leave this process's
  /// memory. Only a hint: a page touched again is read again (from the page cache). A no-op
  /// for bytes in memory. Thread-safe.
  void release(std::size_t from, std::size_t to) const;

 private:
  InputFile() = default;
  /// Reads a stream on into owned_ until its end or `max_bytes` in all.
  void fill(std::uintmax_t max_bytes) const;

  int fd_ = -1;                  ///< the regular file read in place; -1 for bytes in memory
  mutable bool stream_ = false;  ///< is_stream()
  mutable int stream_fd_ = -1;   ///< a stream's descriptor, until its end is read
  bool close_fd_ = false;        ///< false for standard input
  mutable std::size_t size_ = 0;
  mutable std::string
      owned_;  ///< the bytes in memory (a stream's first bytes, from_memory, or a file that cannot be mapped)
  mutable std::once_flag map_once_;
  mutable const char* map_ = nullptr;  ///< the mapping made by bytes(), or null
  std::string name_;
  std::filesystem::path path_;
};

}  // namespace nqc
