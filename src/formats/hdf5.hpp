// A small RAII layer over the HDF5 C API: move-only handles and checked calls, for the result
// files and HDF5 compositions. A failure throws nqc::h5::Error naming the file, the object and
// the HDF5 error stack; HDF5 never prints to stderr.
#pragma once

#include <hdf5.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "system/errors.hpp"

namespace nqc::h5 {

/// A failed HDF5 call. what(): "FILE: cannot read /cases: data error detected by Fletcher32
/// checksum (H5Z__filter_fletcher32(): ...)"; detail(): without the file and function names.
/// `error`: the errno HDF5 reported, 0 for the content (exit code errno_exit_code or bad input).
class Error : public nqc::Error {
 public:
  Error(const std::string& what, std::string detail, int error = 0)
      : nqc::Error(error != 0 ? errno_exit_code(error) : kExitBadInput, what),
        detail_(std::move(detail)),
        error_(error) {}
  [[nodiscard]] const std::string& detail() const { return detail_; }
  /// True when the system refused (a file that cannot be opened, a full disk), not the content.
  [[nodiscard]] bool system() const { return error_ != 0; }
  /// The system's errno (0 when the cause is the file's content).
  [[nodiscard]] int error() const { return error_; }

 private:
  std::string detail_;
  int error_ = 0;
};

/// The version of the HDF5 superblock (0, 1: no checksums; 2, 3: all metadata checksummed) at
/// the signature (offset 0, 512, 1024, ...); -1 without one. The path form throws as
/// InputFile::open.
int superblock_version(const std::filesystem::path& file);
int superblock_version(std::string_view bytes);
/// The end-of-file address the superblock in the first bytes gives (a stream's size); none
/// without a whole superblock of versions 0..3.
std::optional<std::uint64_t> file_end(std::string_view bytes);

/// Owns one HDF5 identifier and closes it with its H5?close. Move-only; the destructor never
/// throws (a failed close is dropped).
class Handle {
 public:
  using Closer = herr_t (*)(hid_t);

  Handle() = default;
  Handle(hid_t id, Closer closer) noexcept : id_(id), closer_(closer) {}
  Handle(Handle&& other) noexcept
      : id_(std::exchange(other.id_, H5I_INVALID_HID)), closer_(std::exchange(other.closer_, nullptr)) {}
  Handle& operator=(Handle&& other) noexcept;
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  ~Handle();

  [[nodiscard]] hid_t id() const noexcept { return id_; }
  explicit operator bool() const noexcept { return id_ >= 0; }
  /// Closes now, checked (a file's final flush): throws h5::Error.
  void close();

 private:
  hid_t id_ = H5I_INVALID_HID;
  Closer closer_ = nullptr;
};

/// Creates (truncates) `path` in the newest file format (all metadata checksummed).
Handle create_file(const std::filesystem::path& path);
/// Opens an existing file read-only; "PATH: not an HDF5 file" for a file of another kind.
Handle open_file(const std::filesystem::path& path);
/// Opens the file image `data` (`size` bytes) read-only in memory; `name` names it in messages.
Handle open_file_image(const void* data, std::size_t size, const std::string& name);
/// Flushes the whole file down to the operating system.
void flush(const Handle& file);
/// The path the file of `object` was opened with ("HDF5" when HDF5 cannot say).
std::string file_name_of(const Handle& object);

Handle create_group(const Handle& loc, const std::string& name);
Handle open_group(const Handle& loc, const std::string& name);
/// True when `loc` has a link called `name` (a direct child; no path).
bool exists(const Handle& loc, const std::string& name);
/// Names of the links in the group `loc`, in name order.
std::vector<std::string> link_names(const Handle& loc);

/// A scalar fixed-length NUL-padded UTF-8 string attribute (h5py reads it as bytes).
void write_string_attribute(const Handle& loc, const std::string& name, const std::string& value);
/// A scalar variable-length UTF-8 string attribute (h5py: str), in an unchecksummed global heap
/// (see hdf5_text.hpp). Throws std::invalid_argument for a value holding a NUL byte.
void write_variable_string_attribute(const Handle& loc, const std::string& name, const std::string& value);
/// A scalar int64 attribute (little-endian).
void write_int_attribute(const Handle& loc, const std::string& name, std::int64_t value);
/// A 1-D uint64 attribute (little-endian; in the object header).
void write_uint64s_attribute(const Handle& loc, const std::string& name, const std::vector<std::uint64_t>& values);
/// Every scalar string attribute of `loc`, and every scalar integer one (up to int64) as decimal
/// text; others skipped. Check variable-length strings first (hdf5_text.hpp).
std::map<std::string, std::string> read_attributes_as_text(const Handle& loc);
/// The names of the variable-length string attributes of `loc`, in byte order (no value read).
std::vector<std::string> variable_string_attributes(const Handle& loc);
/// The uint64 attribute `name` (scalar or 1-D, at most `max_values`); nullopt without one. Throws
/// nqc::InputError "FILE: attribute NAME is not a 1-D array of at most N uint64" otherwise.
std::optional<std::vector<std::uint64_t>> read_uint64s_attribute(const Handle& loc, const std::string& name,
                                                                 std::size_t max_values);

/// A fixed-length NUL-padded ASCII string type of `size` bytes.
Handle fixed_string_type(std::size_t size);
/// An enum type over the 1-byte integer type `base` with the given (name, value) members.
Handle int8_enum_type(hid_t base, const std::vector<std::pair<std::string, std::int8_t>>& members);
/// The same with members `names` valued 0, 1, ... in order (at most 127).
Handle enum_type(hid_t base, const std::vector<std::string>& names);

/// Builds a compound type member by member. The member types must stay open until build().
class CompoundBuilder {
 public:
  /// Adds a member at byte `offset` (for a C++ struct: offsetof).
  CompoundBuilder& add(std::string name, std::size_t offset, hid_t type);
  /// Adds a member right after the last one (a packed layout, for files).
  CompoundBuilder& append(std::string name, hid_t type);
  /// The type, `size` bytes large (0: just large enough for the members).
  [[nodiscard]] Handle build(std::size_t size = 0) const;

 private:
  struct Member {
    std::string name;
    std::size_t offset;
    hid_t type;
  };
  std::vector<Member> members_;
  std::size_t end_ = 0;  ///< first byte after the members
};

/// Storage of a new 1-D dataset: always chunked, Fletcher32 per chunk (damage found on reading).
struct Layout {
  std::size_t chunk_rows = 0;  ///< rows per chunk, the dataset growable; 0 = fixed size, chunks of up to 2^16 rows
  int deflate_level = -1;      ///< 0..9 (adds the shuffle filter); -1 = none
};

/// Creates the 1-D dataset `name` of `count` `file_type`, writes `data` (of `mem_type`) and
/// closes it, checked.
void write_dataset(const Handle& loc, const std::string& name, hid_t file_type, hid_t mem_type, const void* data,
                   std::size_t count, const Layout& layout = {});
/// A 1-D dataset written piece by piece (unlimited size), for data larger than memory.
class GrowingDataset {
 public:
  /// Creates the empty dataset `name` of `file_type` in `loc` (chunk_rows 0: 4096).
  GrowingDataset(const Handle& loc, const std::string& name, hid_t file_type, Layout layout);
  /// Writes `count` elements of `mem_type` at the end.
  void append(hid_t mem_type, const void* data, std::size_t count);
  [[nodiscard]] std::size_t size() const { return size_; }
  /// Closes the dataset, checked (its last chunks are written here).
  void close();

 private:
  Handle dataset_;
  std::string name_;
  std::size_t size_ = 0;
};

Handle open_dataset(const Handle& loc, const std::string& name);
/// Number of elements of a 1-D dataset (throws h5::Error for another rank).
std::size_t length(const Handle& dataset);
/// The extent of a dataset: one size per dimension (empty for a scalar).
std::vector<std::uint64_t> shape(const Handle& dataset);
/// The element type of a dataset as stored.
Handle element_type(const Handle& dataset);
/// The class of member `name` of a dataset's compound type; H5T_NO_CLASS without one.
H5T_class_t member_class(const Handle& dataset, const std::string& name);
/// The type of member `name` of a dataset's compound type (throws h5::Error without one).
Handle member_type(const Handle& dataset, const std::string& name);
/// The (name, value) members of an enum type of 1 byte, in stored order.
std::vector<std::pair<std::string, int>> enum_members(const Handle& type);
/// Reads the whole 1-D dataset into `out` (length() elements of `mem_type`).
void read_all(const Handle& dataset, hid_t mem_type, void* out);
/// Reads elements first .. first + count - 1 of a 1-D dataset into `out`.
void read_range(const Handle& dataset, hid_t mem_type, std::size_t first, std::size_t count, void* out);

/// A 1-D int32 dataset (little-endian on disk; chunked, checksummed), and back.
void write_int32s(const Handle& loc, const std::string& name, const std::vector<std::int32_t>& v);
std::vector<std::int32_t> read_int32s(const Handle& loc, const std::string& name);

}  // namespace nqc::h5
