// The bytes of an input file: memory-mapped when the file can be mapped, read into memory
// otherwise (a pipe, a terminal).
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

namespace nqc {

/// A whole input file as one read-only byte range. A regular file (also standard input
/// redirected from one) is memory-mapped, read-ahead advised as sequential; anything else
/// (a pipe) is read to its end with read(). Move-only; unmaps or frees on destruction.
class InputFile {
 public:
  /// Opens `file`; "-" is standard input. Throws nqc::InputError "FILE: cannot open:
  /// REASON" (REASON "is a directory" for a directory, else the system's error text).
  static std::shared_ptr<const InputFile> open(const std::filesystem::path& file);
  /// Wraps bytes already in memory (`name` is used in messages).
  static std::shared_ptr<const InputFile> from_memory(std::string bytes, std::string name);

  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;
  ~InputFile();

  /// The whole content.
  [[nodiscard]] std::string_view bytes() const { return {data_, size_}; }
  /// The name for messages: the path as given, "<stdin>" for "-".
  [[nodiscard]] const std::string& name() const { return name_; }
  /// The path to open again by name; empty for standard input and bytes in memory.
  [[nodiscard]] const std::filesystem::path& path() const { return path_; }
  /// Tells the kernel that the bytes from `from` to `to` are done with: a mapped file's pages
  /// from the one holding `from` up to the one holding `to` (exclusive) leave this process's
  /// memory. Only a hint: a page touched again is read again (from the page cache). A no-op
  /// for bytes read into memory. Thread-safe.
  void release(std::size_t from, std::size_t to) const;

 private:
  InputFile() = default;

  const char* data_ = nullptr;
  std::size_t size_ = 0;
  bool mapped_ = false;
  std::string owned_;  ///< the bytes when not mapped
  std::string name_;
  std::filesystem::path path_;
};

/// Asks for transparent huge pages on the (not yet touched) memory [data, data + bytes):
/// faulting in a large array then costs one fault per 2 MiB instead of per 4 KiB. A hint:
/// ignored where unsupported.
void advise_huge_pages(void* data, std::size_t bytes);

}  // namespace nqc
