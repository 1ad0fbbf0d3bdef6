// Reading in a child process: for files that the HDF5 library may crash on, loop on or
// corrupt memory on (HDF5 files without checksums, superblock 0 or 1: result files of schema
// 1.0 and 1.1, HDF5 compositions written by other programs). The library runs only in the
// child; what it read comes back through a pipe, so that nqc's own process never runs HDF5 on
// such a file, and a crash, a loop or a sanitizer's report becomes a message.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

namespace nqc {

/// How a function run by run_isolated ended.
struct IsolatedOutcome {
  enum class Kind {
    returned,    ///< it returned: `bytes` is its result
    error,       ///< it threw an nqc::Error (InputError, IoError, ...): `bytes` is what(), `error` its code
    hdf5_error,  ///< it threw nqc::h5::Error: `bytes` is what(), `detail` and `error` (errno) its own
    died,        ///< the child died: `bytes` says how ("crashed the HDF5 library (SIGSEGV)", ...)
  };
  Kind kind = Kind::returned;
  std::string bytes;
  std::string detail;
  int error = 0;  ///< Kind::error: the exit code; Kind::hdf5_error: the errno of a system cause (h5::Error::error())
};

/// Runs `work` in a child process (fork; its stdout and stderr go to /dev/null) and returns
/// what it returned, or what it threw, or how it died: by a signal ("crashed the HDF5 library
/// (SIGSEGV)"), by exiting without a result (a sanitizer's report: "crashed the HDF5 library
/// (exit status 1)"), or by running past `seconds` ("did not end within N s"). When no child
/// can be made (fork fails), `work` runs in this process.
IsolatedOutcome run_isolated(const std::function<std::string()>& work, unsigned seconds);

/// In the child of run_isolated: `seconds` more for the work, from now on (for work whose size
/// is known once it has begun: the values of an HDF5 dataset, once its metadata is read; the
/// limit the parent reports grows with it). A no-op outside such a child.
void isolated_allow_more(unsigned seconds);

/// The time limit of run_isolated for reading a file of `file_bytes` bytes: 5 s plus 1 s
/// per 8 MiB. Damaged metadata can make HDF5 1.10 loop for ever (a global heap read again and
/// again: tests/fuzz/failed/result_file_old/timeout-*), and a good file is read at 100 MB/s and
/// more (13 KB in 10 ms: the margin holds on a machine loaded many times over).
inline unsigned isolated_seconds(std::uintmax_t file_bytes) {
  return static_cast<unsigned>(5 + (file_bytes >> 23 < 86400 ? file_bytes >> 23 : 86400));
}

/// Throws the exception an isolated function threw, as its type (InputError, IoError,
/// OutOfMemoryError, h5::Error); returns for Kind::returned and Kind::died.
void rethrow_error(const IsolatedOutcome& outcome);

/// Builds the bytes an isolated function returns: values of trivially copyable types and
/// strings, read back in the same order by ByteReader (same program, same machine).
class ByteWriter {
 public:
  /// Appends `count` objects from `data`.
  template <typename T>
  void put(const T* data, std::size_t count) {
    static_assert(std::is_trivially_copyable_v<T>);
    put_value(static_cast<std::uint64_t>(count));
    out_.append(reinterpret_cast<const char*>(data), count * sizeof(T));
  }
  /// Appends one value.
  template <typename T>
  void put_value(const T& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    out_.append(reinterpret_cast<const char*>(&v), sizeof v);
  }
  /// Appends a string.
  void put_string(const std::string& s) { put(s.data(), s.size()); }
  /// The bytes so far (moved out).
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

/// Reads what a ByteWriter wrote. Throws std::runtime_error when the bytes end early.
class ByteReader {
 public:
  explicit ByteReader(const std::string& bytes) : bytes_(bytes) {}
  /// Reads one value.
  template <typename T>
  T value() {
    static_assert(std::is_trivially_copyable_v<T>);
    T v;
    std::memcpy(&v, take(sizeof v), sizeof v);
    return v;
  }
  /// Reads what put(data, count) wrote.
  template <typename T>
  std::vector<T> vector() {
    const auto count = value<std::uint64_t>();
    if (count > (bytes_.size() - at_) / (sizeof(T) == 0 ? 1 : sizeof(T))) take(bytes_.size() + 1);  // throws
    std::vector<T> v(count);
    if (count > 0) std::memcpy(v.data(), take(count * sizeof(T)), count * sizeof(T));
    return v;
  }
  /// Reads what put_string wrote.
  std::string string() {
    const std::vector<char> chars = vector<char>();
    return {chars.begin(), chars.end()};
  }

 private:
  const char* take(std::size_t n);
  const std::string& bytes_;
  std::size_t at_ = 0;
};

}  // namespace nqc
