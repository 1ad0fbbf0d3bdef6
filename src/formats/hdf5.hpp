// A small RAII layer over the HDF5 C API: move-only handles, checked calls, and only the
// operations the result files need. Every failure throws nqc::h5::Error whose message names
// the file and object and carries the HDF5 error stack; HDF5 never prints to stderr.
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

/// A failed HDF5 call: what() names the file and object and carries HDF5's cause and where
/// it arose ("FILE: cannot read /cases: data error detected by Fletcher32 checksum
/// (H5Z__filter_fletcher32(): ...)"); detail() is the same without the file and the
/// library's function names ("cannot read /cases: data error detected by Fletcher32
/// checksum"), for a message that says what it means. Its exit code follows its cause:
/// kExitIoError when the system refused (system()), else kExitBadInput (the file's content);
/// writers turn every failure into nqc::IoError (a file nqc writes is not the user's input).
class Error : public nqc::Error {
 public:
  /// `error`: the errno HDF5 reported (0: the cause is the file's content); the exit code is
  /// errno_exit_code(error) for a system cause, else kExitBadInput.
  Error(const std::string& what, std::string detail, int error = 0)
      : nqc::Error(error != 0 ? errno_exit_code(error) : kExitBadInput, what),
        detail_(std::move(detail)),
        error_(error) {}
  [[nodiscard]] const std::string& detail() const { return detail_; }
  /// True when the cause is the operating system's (a file that cannot be opened, a full
  /// disk), not the file's content.
  [[nodiscard]] bool system() const { return error_ != 0; }
  /// The system's errno (0 when the cause is the file's content).
  [[nodiscard]] int error() const { return error_; }

 private:
  std::string detail_;
  int error_ = 0;
};

/// The version of the HDF5 superblock of `file` (0 and 1: the original format, without
/// checksums; 2 and 3: every piece of metadata checksummed), found at offset 0, 512, 1024,
/// ... as the HDF5 signature is; -1 when the file has no HDF5 signature. Throws "FILE: cannot read: REASON"
/// (nqc::throw_errno).
int superblock_version(const std::filesystem::path& file);
/// The same for a file's content `bytes` (a file image, a mapped file).
int superblock_version(std::string_view bytes);
/// The size of an HDF5 file as its superblock gives it (the end-of-file address, counted from
/// the file's start as the HDF5 library checks it), from its first bytes `bytes`, which hold
/// the signature (as superblock_version finds it) and the superblock's first 52 bytes; none
/// when they do not, or the superblock's version (above 3) or size of offsets (not 2, 4 or 8)
/// is not one the format has. For a stream, which is read no further than its file.
std::optional<std::uint64_t> file_end(std::string_view bytes);

/// Owns one HDF5 identifier and closes it with the matching H5?close. Move-only; the
/// destructor never throws (a failed close is dropped, its error stack cleared).
class Handle {
 public:
  using Closer = herr_t (*)(hid_t);

  Handle() = default;
  /// Takes ownership of `id` (which must be valid), closed later by `closer`.
  Handle(hid_t id, Closer closer) noexcept : id_(id), closer_(closer) {}
  Handle(Handle&& other) noexcept
      : id_(std::exchange(other.id_, H5I_INVALID_HID)), closer_(std::exchange(other.closer_, nullptr)) {}
  Handle& operator=(Handle&& other) noexcept;
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  ~Handle();

  /// The identifier, for passing to the C API (still owned by this handle).
  [[nodiscard]] hid_t id() const noexcept { return id_; }
  /// True when the handle owns an identifier.
  explicit operator bool() const noexcept { return id_ >= 0; }
  /// Closes now and throws nqc::IoError if the close fails (e.g. a file's final flush).
  void close();

 private:
  hid_t id_ = H5I_INVALID_HID;
  Closer closer_ = nullptr;
};

/// Creates (or truncates) `path` for writing, in the newest file format (every piece of
/// metadata checksummed); "cannot create PATH: <stack>" on failure.
Handle create_file(const std::filesystem::path& path);
/// Opens an existing file read-only; "PATH: not an HDF5 file" for a file of another kind.
Handle open_file(const std::filesystem::path& path);
/// Opens the HDF5 file image `data` (`size` bytes, copied) read-only, in memory (the core
/// driver); `name` names it in messages.
Handle open_file_image(const void* data, std::size_t size, const std::string& name);
/// Flushes the whole file (H5Fflush, global scope) down to the operating system.
void flush(const Handle& file);
/// The path the file of `object` (a file, group, dataset, ...) was opened or created with
/// ("HDF5" when HDF5 cannot say).
std::string file_name_of(const Handle& object);

/// Creates the group `name` in `loc` (a file or group).
Handle create_group(const Handle& loc, const std::string& name);
/// Opens the group `name` in `loc`.
Handle open_group(const Handle& loc, const std::string& name);
/// True when `loc` has a link called `name` (a direct child; no path).
bool exists(const Handle& loc, const std::string& name);
/// Names of the links in the group `loc`, in name order.
std::vector<std::string> link_names(const Handle& loc);

/// Writes a scalar fixed-length UTF-8 string attribute on `loc` (NUL-padded; stored in the
/// object header, under its checksum; h5py reads it as bytes). Result files of schema 1.2 to
/// 2.0 stored their text so.
void write_string_attribute(const Handle& loc, const std::string& name, const std::string& value);
/// Writes a scalar variable-length UTF-8 string attribute on `loc` (h5py reads it as str). Its
/// value lives in a global heap collection of the file, which HDF5 does not checksum (and whose
/// damage can crash HDF5 1.10 on reading): write_text_attributes (formats/hdf5_text.hpp) adds a
/// checksum. Throws std::invalid_argument for a value holding a NUL byte (the string would end
/// there).
void write_variable_string_attribute(const Handle& loc, const std::string& name, const std::string& value);
/// Writes a scalar int64 attribute on `loc` (little-endian).
void write_int_attribute(const Handle& loc, const std::string& name, std::int64_t value);
/// Writes a 1-D uint64 attribute on `loc` (little-endian; in the object header).
void write_uint64s_attribute(const Handle& loc, const std::string& name, const std::vector<std::uint64_t>& values);
/// Reads every scalar string attribute of `loc` (variable- or fixed-length) as it is and every
/// scalar integer attribute as its decimal text ("42"); others are skipped. Reading a
/// variable-length string reads its global heap: check it first (formats/hdf5_text.hpp).
std::map<std::string, std::string> read_attributes_as_text(const Handle& loc);
/// The names of the attributes of `loc` whose type is a variable-length string, in byte order,
/// from their types alone (no value is read, so no global heap).
std::vector<std::string> variable_string_attributes(const Handle& loc);
/// Reads the attribute `name` of `loc` if it is an unsigned 64-bit integer (scalar or 1-D) of
/// at most `max_values` values; nullopt when `loc` has no attribute `name`. Throws nqc::IoError
/// "FILE: attribute NAME is not a 1-D array of at most N uint64" for one of another type.
std::optional<std::vector<std::uint64_t>> read_uint64s_attribute(const Handle& loc, const std::string& name,
                                                                 std::size_t max_values);

/// Bytes offset .. offset + size - 1 of the open file `file` as they are on disk (fewer at its
/// end), read through the file descriptor HDF5 opened (sec2 driver: files opened by
/// create_file and open_file). Throws h5::Error for a file of another driver, nqc::IoError
/// "FILE: cannot read: REASON" when the system fails.
std::string read_raw(const Handle& file, std::uint64_t offset, std::uint64_t size);
/// The size of the open file `file` on disk, in bytes (the same descriptor).
std::uint64_t raw_size(const Handle& file);

/// A fixed-length NUL-padded (H5T_STR_NULLPAD) ASCII string type of `size` bytes.
Handle fixed_string_type(std::size_t size);
/// An enum type over the integer type `base` with the given (name, value) members.
Handle int8_enum_type(hid_t base, const std::vector<std::pair<std::string, std::int8_t>>& members);
/// An enum type over the 1-byte integer type `base` (int8 or uint8) whose members are
/// `names`, valued 0, 1, ... in order (at most 127).
Handle enum_type(hid_t base, const std::vector<std::string>& names);

/// Builds a compound type member by member. The member types must stay open until build().
class CompoundBuilder {
 public:
  /// Adds a member at byte `offset` (for a C++ struct: offsetof).
  CompoundBuilder& add(std::string name, std::size_t offset, hid_t type);
  /// Adds a member right after the last one (a packed layout, for files).
  CompoundBuilder& append(std::string name, hid_t type);
  /// Creates the type, `size` bytes large (0: just large enough for the members).
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

/// Storage of a new 1-D dataset. Every dataset is chunked and carries HDF5's Fletcher32
/// checksum per chunk (the last filter), so that damage is found on reading.
struct Layout {
  std::size_t chunk_rows = 0;  ///< rows per chunk, the dataset growable; 0 = fixed size, chunks of up to 2^16 rows
  int deflate_level = -1;      ///< 0..9 (adds the shuffle filter); -1 = none
};

/// Creates the 1-D dataset `name` of `count` elements of `file_type` in `loc`, writes
/// `data` (elements of `mem_type`, converted by HDF5) and closes it, checked. Datasets with
/// chunk_rows > 0 have an unlimited maximum size.
void write_dataset(const Handle& loc, const std::string& name, hid_t file_type, hid_t mem_type, const void* data,
                   std::size_t count, const Layout& layout = {});
/// A 1-D dataset written piece by piece (chunked, unlimited maximum size, `layout`'s filters
/// and Fletcher32), for data larger than memory: the merge of shard files.
class GrowingDataset {
 public:
  /// Creates the empty dataset `name` of `file_type` in `loc` (chunk_rows 0: 4096).
  GrowingDataset(const Handle& loc, const std::string& name, hid_t file_type, Layout layout);
  /// Writes `count` elements of `mem_type` at the end (converted by HDF5). Throws h5::Error.
  void append(hid_t mem_type, const void* data, std::size_t count);
  /// Elements written so far.
  [[nodiscard]] std::size_t size() const { return size_; }
  /// Closes the dataset, checked (its last chunks are written here).
  void close();

 private:
  Handle dataset_;
  std::string name_;
  std::size_t size_ = 0;
};

/// Opens the dataset `name` in `loc`.
Handle open_dataset(const Handle& loc, const std::string& name);
/// Number of elements of a 1-D dataset (throws for another rank).
std::size_t length(const Handle& dataset);
/// The extent of a dataset of any rank: one size per dimension (empty for a scalar).
std::vector<std::uint64_t> shape(const Handle& dataset);
/// The element type of a dataset as stored in the file (query it with H5Tget_class etc.).
Handle element_type(const Handle& dataset);
/// Member names of a dataset's compound element type, in stored order (throws if the type
/// is not compound).
std::vector<std::string> member_names(const Handle& dataset);
/// The type class (H5T_INTEGER, H5T_ENUM, H5T_STRING, ...) of member `name` of a dataset's
/// compound element type as stored; H5T_NO_CLASS when it has no such member.
H5T_class_t member_class(const Handle& dataset, const std::string& name);
/// The type of member `name` of a dataset's compound element type, as stored (throws h5::Error
/// when there is no such member).
Handle member_type(const Handle& dataset, const std::string& name);
/// The (name, value) members of an enum type whose base is a 1-byte integer, in stored order;
/// throws h5::Error for another type.
std::vector<std::pair<std::string, int>> enum_members(const Handle& type);
/// Reads the whole dataset into `out` (length() elements of `mem_type`).
void read_all(const Handle& dataset, hid_t mem_type, void* out);
/// Reads elements first .. first + count - 1 of a 1-D dataset into `out` (elements of
/// `mem_type`, converted by HDF5).
void read_range(const Handle& dataset, hid_t mem_type, std::size_t first, std::size_t count, void* out);

/// Writes a 1-D int32 dataset (little-endian on disk; chunked, checksummed).
void write_int32s(const Handle& loc, const std::string& name, const std::vector<std::int32_t>& v);
/// Reads a 1-D integer dataset as int32 (converted by HDF5).
std::vector<std::int32_t> read_int32s(const Handle& loc, const std::string& name);

}  // namespace nqc::h5
