// An input file: a regular file read in place (memory-mapped), or a stream (a pipe, a FIFO, a
// device, a terminal) read in order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <span>
#include <string_view>
#include <vector>

#include "core/composition.hpp"
#include "core/memory.hpp"

namespace nqc {

/// An input file, read-only. A regular file (also standard input redirected from one, read from
/// its start) is memory-mapped by bytes(). Anything else is a stream, which may never end: open()
/// reads its first kStreamHead bytes (all when it ends there); a reader takes the rest in order
/// with read_stream(), or into memory up to a limit with spool(): no stream is read further than
/// needed.
class InputFile {
 public:
  static constexpr std::size_t kStreamHead = std::size_t{1} << 16;

  /// Opens `file`; "-" is standard input; a FIFO waits for a writer. Throws "FILE: cannot
  /// open|read: REASON" (a directory or a missing file nqc::InputError, else as throw_errno).
  static std::shared_ptr<const InputFile> open(const std::filesystem::path& file);
  /// Wraps bytes already in memory (`name` is used in messages).
  static std::shared_ptr<const InputFile> from_memory(std::string bytes, std::string name);

  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;
  ~InputFile();

  /// True for a stream that did not end within kStreamHead bytes (until spool()): size() and
  /// bytes() then cover those bytes only.
  [[nodiscard]] bool is_stream() const { return stream_; }
  /// The next bytes of a stream, at most `count` in one read(2); 0 at its end and for what is not
  /// a stream. Throws "NAME: cannot read: REASON". Not thread-safe.
  std::size_t read_stream(char* out, std::size_t count) const;
  /// Reads a stream on into memory up to its end or `max_bytes` in all (the rest is never read).
  /// A no-op for anything else. Not thread-safe.
  void spool(std::uintmax_t max_bytes) const;

  [[nodiscard]] std::size_t size() const { return size_; }
  /// The content (of a stream: the bytes in memory), mapped on the first call (read if it
  /// cannot be). Thread-safe.
  [[nodiscard]] std::string_view bytes() const;
  /// The name for messages: the path as given, "<stdin>" for "-".
  [[nodiscard]] const std::string& name() const { return name_; }
  /// The path of a regular file, to open again by name; empty for stdin, streams and memory.
  [[nodiscard]] const std::filesystem::path& path() const { return path_; }
  /// Gives the whole mapped pages of bytes `from` .. `to` - 1 back to the kernel.
  void release(std::size_t from, std::size_t to) const;

 private:
  InputFile() = default;

  int fd_ = -1;                  ///< the regular file mapped by bytes(); -1 for bytes in memory
  mutable int stream_fd_ = -1;   ///< a stream's descriptor, until its end is read
  mutable bool stream_ = false;  ///< is_stream()
  bool close_fd_ = false;        ///< false for standard input
  mutable std::size_t size_ = 0;
  mutable std::string owned_;  ///< the bytes in memory (a stream's, from_memory, a file that cannot be mapped)
  mutable std::once_flag map_once_;
  mutable const char* map_ = nullptr;
  std::string name_;
  std::filesystem::path path_;
};

/// A stream's values (their count unknown while read) set aside in chunks of memory mapped from
/// the system: a growing vector would hold about twice its values while it copies them.
class SetAside {
 public:
  SetAside() = default;
  SetAside(const SetAside&) = delete;
  SetAside& operator=(const SetAside&) = delete;
  ~SetAside();
  /// Sets aside `values` (and clears it, keeping its capacity for the next chunk).
  void add(std::vector<Index>& values);
  [[nodiscard]] std::size_t size() const { return size_; }
  /// All values set aside, then `last`, in one vector (each chunk given back as it is copied).
  std::vector<Index> take(const std::vector<Index>& last);

 private:
  std::vector<std::span<Index>> chunks_;
  std::size_t size_ = 0;
};

}  // namespace nqc
