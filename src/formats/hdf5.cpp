#include "formats/hdf5.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <stdexcept>

#include "formats/input_file.hpp"

namespace nqc::h5 {

namespace {

constexpr std::string_view kSignature = "\x89HDF\r\n\x1a\n";

// Where the HDF5 signature is: offset 0, 512, 1024, 2048, ...
std::optional<std::size_t> signature_at(std::string_view bytes) {
  for (std::size_t at = 0; at + kSignature.size() <= bytes.size(); at = at == 0 ? 512 : 2 * at)
    if (bytes.substr(at, kSignature.size()) == kSignature) return at;
  return std::nullopt;
}

// HDF5's error stack becomes exception text, not stderr: per thread, so every function that
// can start a sequence of HDF5 calls makes it.
void silence() {
  // HDF5's atexit handler crashes on a file whose close failed (a full disk; HDF5 1.10.8):
  // our handles close what they own. H5dont_atexit must come before any other HDF5 call.
  static const bool no_atexit = H5dont_atexit() >= 0;
  (void)no_atexit;
  thread_local bool silenced = false;
  if (!silenced) silenced = H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr) >= 0;
}

struct StackEntry {
  std::string func;
  std::string desc;
};

herr_t append_entry(unsigned /*depth*/, const H5E_error2_t* entry, void* entries_ptr) {
  StackEntry e{entry->func_name != nullptr ? entry->func_name : "?", ""};
  for (const char* c = entry->desc != nullptr ? entry->desc : ""; *c != '\0'; ++c) {
    if (*c != '\n') e.desc += *c;  // some descriptions embed ctime() output: keep one line
  }
  static_cast<std::vector<StackEntry>*>(entries_ptr)->push_back(std::move(e));
  return 0;
}

// "file write failed: time = ..., errno = 28, ..." -> "file write failed".
std::string headline(const std::string& desc) { return desc.substr(0, desc.find(':')); }

// The current error stack in one short line (HDF5's runs to 2 KB for one full disk), then
// cleared: the cause (the system's error text when a driver call failed, else the innermost
// description), then where. Must run right after the failed call (every call clears the stack).
struct Stack {
  std::string cause;  ///< e.g. "incorrect metadata checksum after all read attempts"
  std::string where;  ///< e.g. "H5C_load_entry(): ...; called from H5Aiterate2()"
  int error = 0;      ///< the system's errno when the cause is the system's error text, else 0
  [[nodiscard]] std::string text() const { return cause + " (" + where + ")"; }
};

Stack take_stack() {
  std::vector<StackEntry> entries;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, append_entry, &entries);
  H5Eclear2(H5E_DEFAULT);
  if (entries.empty()) return {"no HDF5 error details", "unknown"};
  std::string cause;
  int error = 0;
  const std::string key = "error message = '", errno_key = "errno = ";
  for (const StackEntry& e : entries) {
    if (const auto at = e.desc.find(key); at != std::string::npos && cause.empty()) {
      const auto from = at + key.size();
      cause = e.desc.substr(from, e.desc.find('\'', from) - from);
      // "..., errno = 28, error message = 'No space left on device'": the errno before it.
      if (const auto e_at = e.desc.rfind(errno_key, at); e_at != std::string::npos)
        error = std::atoi(e.desc.c_str() + e_at + errno_key.size());
      if (error <= 0) error = EIO;
    }
  }
  // The API function first; the innermost is the last entry before a second chain repeats it.
  const StackEntry& api = entries.front();
  std::size_t inner = 0;
  while (inner + 1 < entries.size() && entries[inner + 1].func != api.func) ++inner;
  const StackEntry& innermost = entries[inner];
  Stack stack{cause.empty() ? headline(innermost.desc) : cause, innermost.func + "(): " + headline(innermost.desc),
              error};
  if (inner > 0) stack.where += "; called from " + api.func + "()";
  return stack;
}

// Reads a name through HDF5's two-call protocol (size first); "" on failure.
template <typename Getter>
std::string read_name(Getter get) {
  const auto size = get(nullptr, 0);
  if (size <= 0) {
    H5Eclear2(H5E_DEFAULT);
    return "";
  }
  std::string name(static_cast<std::size_t>(size) + 1, '\0');
  get(name.data(), name.size());
  name.resize(static_cast<std::size_t>(size));
  return name;
}

std::string file_name(hid_t id) {
  const std::string name = read_name([id](char* buf, std::size_t n) { return H5Fget_name(id, buf, n); });
  return name.empty() ? "HDF5" : name;
}

// Path of `name` inside the object `loc` ("/failures" + "case-3" -> "/failures/case-3").
std::string object_path(hid_t loc, const std::string& name) {
  std::string path = read_name([loc](char* buf, std::size_t n) { return H5Iget_name(loc, buf, n); });
  if (name.empty()) return path;
  if (path.empty() || path.back() != '/') path += '/';
  return path + name;
}

// Throws "FILE: cannot ACTION OBJECT: STACK" for a failed call on `name` in `loc`.
[[noreturn]] void fail(hid_t loc, const std::string& action, const std::string& name = "") {
  const Stack stack = take_stack();  // before any other HDF5 call
  const std::string detail = "cannot " + action + " " + object_path(loc, name) + ": " + stack.cause;
  throw Error(file_name(loc) + ": cannot " + action + " " + object_path(loc, name) + ": " + stack.text(), detail,
              stack.error);
}

// Throws "cannot VERB WHAT: STACK" for a failed call on a whole file, "HDF5: cannot VERB: STACK"
// without one (WHAT empty: types).
[[noreturn]] void fail_file(const std::string& verb, const std::string& what) {
  const Stack stack = take_stack();
  if (what.empty()) throw Error("HDF5: cannot " + verb + ": " + stack.text(), "cannot " + verb + ": " + stack.cause);
  throw Error("cannot " + verb + " " + what + ": " + stack.text(), "cannot " + verb + ": " + stack.cause, stack.error);
}

template <typename T>
T check(T result, hid_t loc, const std::string& action, const std::string& name = "") {
  if (result < 0) fail(loc, action, name);
  return result;
}

template <typename T>
T check_type(T result, const std::string& action) {
  if (result < 0) fail_file(action, "");
  return result;
}

// Whether flock() works in the directory of `path`: not where refused as unsupported (ENOLCK:
// NFS without a lock daemon; 524: the kernel's ENOTSUPP, Lustre, Cray DVS); HDF5 tolerates ENOSYS only.
bool flock_works(const std::string& path) {
  const auto slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return true;  // let HDF5 report what is wrong with the path
  const int rc = ::flock(fd, LOCK_SH | LOCK_NB);
  const int error = errno;
  if (rc == 0) ::flock(fd, LOCK_UN);
  ::close(fd);
  constexpr int kKernelEnotsupp = 524;
  return rc == 0 ||
         !(error == ENOSYS || error == ENOLCK || error == EOPNOTSUPP || error == ENOTSUP || error == kKernelEnotsupp);
}

// File access: HDF5's file locking where flock works, none elsewhere (docs/configs.md, "Results
// on network file systems"): files are renamed once written, and lock files need no flock.
Handle file_access(const std::string& path) {
  silence();
  Handle fapl(check_type(H5Pcreate(H5P_FILE_ACCESS), "create a property list for " + path), H5Pclose);
#if H5_VERSION_GE(1, 10, 7)
  check_type(H5Pset_file_locking(fapl.id(), flock_works(path), true), "set file locking for " + path);
#endif
  return fapl;
}

// Opens `name` read-only with `fapl`.
Handle open_with(const std::string& name, const Handle& fapl) {
  const hid_t id = H5Fopen(name.c_str(), H5F_ACC_RDONLY, fapl.id());
  if (id < 0) fail_file("open", name);
  return {id, H5Fclose};
}

// H5T_C_S1 of `size` bytes (H5T_VARIABLE for variable length), NUL-padded, in `cset`.
Handle string_type(std::size_t size, H5T_cset_t cset = H5T_CSET_ASCII) {
  silence();
  Handle type(check_type(H5Tcopy(H5T_C_S1), "copy the string type"), H5Tclose);
  check_type(H5Tset_size(type.id(), size), "set the size of a string type");
  if (size != H5T_VARIABLE) check_type(H5Tset_strpad(type.id(), H5T_STR_NULLPAD), "make a NUL-padded string type");
  check_type(H5Tset_cset(type.id(), cset), "set the character set of a string type");
  return type;
}

// The space of `count` values: scalar for none (nullopt), else 1-D.
Handle space_of(hid_t loc, const std::string& name, std::optional<hsize_t> count) {
  const hid_t id = count ? H5Screate_simple(1, &*count, nullptr) : H5Screate(H5S_SCALAR);
  return {check(id, loc, "write attribute", name), H5Sclose};
}

// Creates the attribute `name` of `type` and `space` on `loc` and writes `data` (of `mem`).
void write_attribute(const Handle& loc, const std::string& name, hid_t type, const Handle& space, hid_t mem,
                     const void* data) {
  Handle attr(check(H5Acreate2(loc.id(), name.c_str(), type, space.id(), H5P_DEFAULT, H5P_DEFAULT), loc.id(),
                    "create attribute", name),
              H5Aclose);
  check(H5Awrite(attr.id(), mem, data), loc.id(), "write attribute", name);
  attr.close();
}

// An open attribute with its stored type and the number of its values.
struct Attribute {
  Handle attr, type;
  hssize_t count = 0;
};

Attribute open_attribute(const Handle& loc, const std::string& name) {
  Attribute a{{check(H5Aopen(loc.id(), name.c_str(), H5P_DEFAULT), loc.id(), "open attribute", name), H5Aclose}, {}};
  a.type = {check(H5Aget_type(a.attr.id()), loc.id(), "read the type of attribute", name), H5Tclose};
  const Handle space(check(H5Aget_space(a.attr.id()), loc.id(), "read the shape of attribute", name), H5Sclose);
  a.count = check(H5Sget_simple_extent_npoints(space.id()), loc.id(), "read the shape of attribute", name);
  if (check(H5Sget_simple_extent_ndims(space.id()), loc.id(), "read the shape of attribute", name) > 1) a.count = -1;
  return a;
}

herr_t append_name(hid_t /*loc*/, const char* name, const H5A_info_t* /*info*/, void* names) {
  static_cast<std::vector<std::string>*>(names)->emplace_back(name);
  return 0;
}

std::vector<std::string> attribute_names(const Handle& loc) {
  std::vector<std::string> names;
  check(H5Aiterate2(loc.id(), H5_INDEX_NAME, H5_ITER_INC, nullptr, append_name, &names), loc.id(),
        "list the attributes of");
  return names;
}

std::string read_string(const Attribute& a, hid_t loc, const std::string& name) {
  const hid_t stored = a.type.id();
  const H5T_cset_t cset = H5Tget_cset(stored);
  if (check(H5Tis_variable_str(stored), loc, "read attribute", name) > 0) {
    const Handle mem = string_type(H5T_VARIABLE, cset);
    char* text = nullptr;
    check(H5Aread(a.attr.id(), mem.id(), &text), loc, "read attribute", name);
    std::string value = text != nullptr ? text : "";
    H5free_memory(text);
    return value;
  }
  const std::size_t size = H5Tget_size(stored);
  std::string value(size, '\0');
  check(H5Aread(a.attr.id(), string_type(size, cset).id(), value.data()), loc, "read attribute", name);
  value.resize(value.find('\0') == std::string::npos ? size : value.find('\0'));  // HDF5 converts space padding
  return value;
}

// The type of a dataset's compound member `name`, or an empty handle without one.
Handle find_member_type(const Handle& dataset, const std::string& name) {
  const Handle type = element_type(dataset);
  if (H5Tget_class(type.id()) != H5T_COMPOUND) return {};
  silence();
  const int index = H5Tget_member_index(type.id(), name.c_str());
  if (index < 0) {
    H5Eclear2(H5E_DEFAULT);
    return {};
  }
  return {check(H5Tget_member_type(type.id(), static_cast<unsigned>(index)), dataset.id(),
                "read the type of member '" + name + "' of"),
          H5Tclose};
}

// The space of `dataset` with elements first .. first + count - 1 selected.
Handle select(hid_t dataset, const std::string& name, std::size_t first, std::size_t count) {
  Handle space(check(H5Dget_space(dataset), dataset, "read the shape of", name), H5Sclose);
  const hsize_t start[1] = {first}, size[1] = {count};
  check(H5Sselect_hyperslab(space.id(), H5S_SELECT_SET, start, nullptr, size, nullptr), dataset, "select rows of",
        name);
  return space;
}

// Creates the 1-D dataset `name` of `count` elements (see write_dataset).
Handle create_dataset(const Handle& loc, const std::string& name, hid_t file_type, std::size_t count,
                      const Layout& layout) {
  const hid_t at = loc.id();
  const bool growable = layout.chunk_rows > 0;
  const hsize_t dims[1] = {count}, max_dims[1] = {growable ? H5S_UNLIMITED : count};
  const Handle space(check(H5Screate_simple(1, dims, max_dims), at, "create the shape of", name), H5Sclose);
  const Handle dcpl(check(H5Pcreate(H5P_DATASET_CREATE), at, "create dataset", name), H5Pclose);
  const hsize_t chunk[1] = {growable ? layout.chunk_rows : std::clamp<std::size_t>(count, 1, std::size_t{1} << 16)};
  check(H5Pset_chunk(dcpl.id(), 1, chunk), at, "set the chunks of", name);
  if (layout.deflate_level >= 0) {
    check(H5Pset_shuffle(dcpl.id()), at, "set the shuffle filter of", name);
    check(H5Pset_deflate(dcpl.id(), static_cast<unsigned>(layout.deflate_level)), at, "set the compression of", name);
  }
  // Last: the checksum covers the bytes as stored, damage found before decompression.
  check(H5Pset_fletcher32(dcpl.id()), at, "set the checksum filter of", name);
  return {check(H5Dcreate2(at, name.c_str(), file_type, space.id(), H5P_DEFAULT, dcpl.id(), H5P_DEFAULT), at,
                "create dataset", name),
          H5Dclose};
}

}  // namespace

Handle& Handle::operator=(Handle&& other) noexcept {
  if (this != &other) {
    Handle old(std::move(*this));  // closes the current id at the end of this scope
    id_ = std::exchange(other.id_, H5I_INVALID_HID);
    closer_ = std::exchange(other.closer_, nullptr);
  }
  return *this;
}

Handle::~Handle() {
  if (id_ >= 0 && closer_ != nullptr && closer_(id_) < 0) H5Eclear2(H5E_DEFAULT);
}

void Handle::close() {
  if (id_ < 0 || closer_ == nullptr) return;
  const std::string what = file_name(id_) + " " + object_path(id_, "");
  const hid_t id = std::exchange(id_, H5I_INVALID_HID);
  if (std::exchange(closer_, nullptr)(id) < 0) fail_file("close", what);
}

Handle create_file(const std::filesystem::path& path) {
  const std::string name = path.string();
  const Handle fapl = file_access(name);
  // Strong close: H5Fclose really closes the file, so it can be fsync'ed and renamed.
  check_type(H5Pset_fclose_degree(fapl.id(), H5F_CLOSE_STRONG), "set the close degree for " + name);
  // The newest file format: all metadata checksummed, so a damaged file is refused on reading.
  check_type(H5Pset_libver_bounds(fapl.id(), H5F_LIBVER_LATEST, H5F_LIBVER_LATEST), "set the file format of " + name);
  // No aggregation blocks: their unused tails were 28% of a shard file, bytes no reader looks at
  // (bench/damage_campaign.py, "no effect").
  check_type(H5Pset_meta_block_size(fapl.id(), 0), "set the metadata block size of " + name);
  check_type(H5Pset_small_data_block_size(fapl.id(), 0), "set the small data block size of " + name);
  const hid_t id = H5Fcreate(name.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl.id());
  if (id < 0) fail_file("create", name);
  return {id, H5Fclose};
}

Handle open_file(const std::filesystem::path& path) {
  const std::string name = path.string();
  const Handle fapl = file_access(name);
#if H5_VERSION_GE(1, 12, 0)
  const htri_t is_hdf5 = H5Fis_accessible(name.c_str(), fapl.id());
#else
  const htri_t is_hdf5 = H5Fis_hdf5(name.c_str());
#endif
  if (is_hdf5 == 0) throw Error(name + ": not an HDF5 file", "not an HDF5 file");
  if (is_hdf5 < 0) fail_file("open", name);
  return open_with(name, fapl);
}

Handle open_file_image(const void* data, std::size_t size, const std::string& name) {
  const Handle fapl = file_access(name);
  check_type(H5Pset_fapl_core(fapl.id(), std::size_t{1} << 20, false), "use the in-memory driver for " + name);
  check_type(H5Pset_file_image(fapl.id(), const_cast<void*>(data), size), "set the file image of " + name);
  return open_with(name, fapl);
}

int superblock_version(const std::filesystem::path& file) {
  return superblock_version(InputFile::open(file)->bytes());  // mapped: only the pages looked at are read
}

int superblock_version(std::string_view bytes) {
  const std::optional<std::size_t> at = signature_at(bytes);
  if (!at) return -1;
  const std::size_t version = *at + kSignature.size();
  return version < bytes.size() ? static_cast<unsigned char>(bytes[version]) : 0;  // cut after the signature: as old
}

std::optional<std::uint64_t> file_end(std::string_view bytes) {
  const std::optional<std::size_t> at = signature_at(bytes);
  if (!at) return std::nullopt;
  // The superblock (HDF5 File Format Specification, "Superblock"): versions 0 and 1 give the
  // size of offsets at byte 13 and the base address at 24 (1: 28), 2 and 3 at 9 and 12; the
  // end-of-file address is the third address from the base address on.
  const auto byte = [&](std::size_t i) { return i < bytes.size() ? static_cast<unsigned char>(bytes[i]) : 0U; };
  const unsigned version = byte(*at + 8);
  if (version > 3) return std::nullopt;
  const unsigned size = byte(*at + (version < 2 ? 13 : 9));
  const std::size_t base = *at + (version == 0 ? 24 : version == 1 ? 28 : 12);
  if ((size != 2 && size != 4 && size != 8) || base + 3 * size > bytes.size()) return std::nullopt;
  std::uint64_t end = 0;
  for (std::size_t k = size; k-- > 0;) end = end << 8 | byte(base + 2 * size + k);  // little-endian
  return end;
}

void flush(const Handle& file) {
  const std::string name = file_name(file.id());  // before the call: HDF5 calls clear its error stack
  if (H5Fflush(file.id(), H5F_SCOPE_GLOBAL) < 0) fail_file("flush", name);
}

std::string file_name_of(const Handle& object) { return file_name(object.id()); }

Handle create_group(const Handle& loc, const std::string& name) {
  return {
      check(H5Gcreate2(loc.id(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), loc.id(), "create group", name),
      H5Gclose};
}

Handle open_group(const Handle& loc, const std::string& name) {
  return {check(H5Gopen2(loc.id(), name.c_str(), H5P_DEFAULT), loc.id(), "open group", name), H5Gclose};
}

bool exists(const Handle& loc, const std::string& name) {
  return check(H5Lexists(loc.id(), name.c_str(), H5P_DEFAULT), loc.id(), "look up", name) > 0;
}

std::vector<std::string> link_names(const Handle& loc) {
  // One pass: H5Lget_name_by_idx per index is quadratic (10 minutes for 20,000 failure records).
  std::vector<std::string> names;
  const auto append = [](hid_t, const char* name, const H5L_info_t*, void* out) -> herr_t {
    static_cast<std::vector<std::string>*>(out)->emplace_back(name);
    return 0;
  };
  hsize_t index = 0;
  check(H5Literate(loc.id(), H5_INDEX_NAME, H5_ITER_INC, &index, append, &names), loc.id(), "list group");
  return names;
}

void write_string_attribute(const Handle& loc, const std::string& name, const std::string& value) {
  const std::string padded = value.empty() ? std::string(1, '\0') : value;
  const Handle type = string_type(padded.size(), H5T_CSET_UTF8);
  write_attribute(loc, name, type.id(), space_of(loc.id(), name, std::nullopt), type.id(), padded.data());
}

void write_variable_string_attribute(const Handle& loc, const std::string& name, const std::string& value) {
  if (value.find('\0') != std::string::npos)
    throw std::invalid_argument("attribute " + name + ": a variable-length string cannot hold a NUL byte");
  const Handle type = string_type(H5T_VARIABLE, H5T_CSET_UTF8);
  const char* text = value.c_str();
  write_attribute(loc, name, type.id(), space_of(loc.id(), name, std::nullopt), type.id(), &text);
}

void write_uint64s_attribute(const Handle& loc, const std::string& name, const std::vector<std::uint64_t>& values) {
  write_attribute(loc, name, H5T_STD_U64LE, space_of(loc.id(), name, values.size()), H5T_NATIVE_UINT64, values.data());
}

void write_int_attribute(const Handle& loc, const std::string& name, std::int64_t value) {
  write_attribute(loc, name, H5T_STD_I64LE, space_of(loc.id(), name, std::nullopt), H5T_NATIVE_INT64, &value);
}

std::map<std::string, std::string> read_attributes_as_text(const Handle& loc) {
  std::map<std::string, std::string> values;
  for (const std::string& name : attribute_names(loc)) {
    const Attribute a = open_attribute(loc, name);
    const hid_t type = a.type.id();
    if (a.count != 1) continue;
    if (H5Tget_class(type) == H5T_STRING) {
      values[name] = read_string(a, loc.id(), name);
    } else if (H5Tget_class(type) == H5T_INTEGER && H5Tget_size(type) <= 8 &&
               !(H5Tget_size(type) == 8 && H5Tget_sign(type) == H5T_SGN_NONE)) {  // what converts to int64
      std::int64_t value = 0;
      check(H5Aread(a.attr.id(), H5T_NATIVE_INT64, &value), loc.id(), "read attribute", name);
      values[name] = std::to_string(value);
    }
  }
  return values;
}

std::vector<std::string> variable_string_attributes(const Handle& loc) {
  std::vector<std::string> variable;
  for (const std::string& name : attribute_names(loc)) {
    const Attribute a = open_attribute(loc, name);
    if (H5Tget_class(a.type.id()) == H5T_STRING &&
        check(H5Tis_variable_str(a.type.id()), loc.id(), "read the type of attribute", name) > 0)
      variable.push_back(name);
  }
  std::sort(variable.begin(), variable.end());
  return variable;
}

std::optional<std::vector<std::uint64_t>> read_uint64s_attribute(const Handle& loc, const std::string& name,
                                                                 std::size_t max_values) {
  if (check(H5Aexists(loc.id(), name.c_str()), loc.id(), "look up attribute", name) <= 0) return std::nullopt;
  const Attribute a = open_attribute(loc, name);
  const hid_t type = a.type.id();
  if (H5Tget_class(type) != H5T_INTEGER || H5Tget_size(type) != 8 || H5Tget_sign(type) != H5T_SGN_NONE || a.count < 1 ||
      static_cast<std::uint64_t>(a.count) > max_values)
    throw InputError(file_name(loc.id()) + ": attribute " + name + " is not a 1-D array of at most " +
                     std::to_string(max_values) + " uint64");
  std::vector<std::uint64_t> values(static_cast<std::size_t>(a.count));
  check(H5Aread(a.attr.id(), H5T_NATIVE_UINT64, values.data()), loc.id(), "read attribute", name);
  return values;
}

Handle fixed_string_type(std::size_t size) { return string_type(size); }

Handle int8_enum_type(hid_t base, const std::vector<std::pair<std::string, std::int8_t>>& members) {
  silence();
  if (H5Tget_size(base) != 1 || members.size() > 127)
    throw std::invalid_argument("h5::enum_type: " + std::to_string(members.size()) + " names over a base of " +
                                std::to_string(H5Tget_size(base)) + " bytes");
  Handle type(check_type(H5Tenum_create(base), "create an enum type"), H5Tclose);
  for (const auto& [name, value] : members)  // the same byte for int8 and uint8 below 128
    check_type(H5Tenum_insert(type.id(), name.c_str(), &value), "add enum member '" + name + "'");
  return type;
}

Handle enum_type(hid_t base, const std::vector<std::string>& names) {
  std::vector<std::pair<std::string, std::int8_t>> members;
  for (const std::string& name : names) members.emplace_back(name, static_cast<std::int8_t>(members.size()));
  return int8_enum_type(base, members);
}

CompoundBuilder& CompoundBuilder::add(std::string name, std::size_t offset, hid_t type) {
  silence();
  const std::size_t size = H5Tget_size(type);
  if (size == 0) fail_file("get the size of compound member '" + name + "'", "");
  members_.push_back({std::move(name), offset, type});
  end_ = std::max(end_, offset + size);
  return *this;
}

CompoundBuilder& CompoundBuilder::append(std::string name, hid_t type) { return add(std::move(name), end_, type); }

Handle CompoundBuilder::build(std::size_t size) const {
  silence();
  Handle type(check_type(H5Tcreate(H5T_COMPOUND, size != 0 ? size : end_), "create a compound type"), H5Tclose);
  for (const Member& m : members_)
    check_type(H5Tinsert(type.id(), m.name.c_str(), m.offset, m.type), "add compound member '" + m.name + "'");
  return type;
}

void write_dataset(const Handle& loc, const std::string& name, hid_t file_type, hid_t mem_type, const void* data,
                   std::size_t count, const Layout& layout) {
  Handle dataset = create_dataset(loc, name, file_type, count, layout);
  if (count > 0)
    check(H5Dwrite(dataset.id(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), loc.id(), "write dataset", name);
  dataset.close();  // writes the cached chunks: checked, unlike a destructor
}

GrowingDataset::GrowingDataset(const Handle& loc, const std::string& name, hid_t file_type, Layout layout)
    : name_(name) {
  if (layout.chunk_rows == 0) layout.chunk_rows = std::size_t{1} << 12;
  dataset_ = create_dataset(loc, name, file_type, 0, layout);
}

void GrowingDataset::append(hid_t mem_type, const void* data, std::size_t count) {
  if (count == 0) return;
  const hid_t id = dataset_.id();
  const hsize_t size[1] = {size_ + count};
  check(H5Dset_extent(id, size), id, "extend", name_);
  const Handle file_space = select(id, name_, size_, count);
  const hsize_t counts[1] = {count};
  const Handle memory_space(check(H5Screate_simple(1, counts, nullptr), id, "create the shape of", name_), H5Sclose);
  check(H5Dwrite(id, mem_type, memory_space.id(), file_space.id(), H5P_DEFAULT, data), id, "write dataset", name_);
  size_ += count;
}

void GrowingDataset::close() { dataset_.close(); }

Handle open_dataset(const Handle& loc, const std::string& name) {
  return {check(H5Dopen2(loc.id(), name.c_str(), H5P_DEFAULT), loc.id(), "open dataset", name), H5Dclose};
}

std::size_t length(const Handle& dataset) {
  const std::vector<std::uint64_t> dims = shape(dataset);
  if (dims.size() != 1) {
    const std::string what = object_path(dataset.id(), "") + " is not a 1-D dataset";
    throw Error(file_name(dataset.id()) + ": " + what, what);
  }
  return static_cast<std::size_t>(dims[0]);
}

std::vector<std::uint64_t> shape(const Handle& dataset) {
  const hid_t id = dataset.id();
  const Handle space(check(H5Dget_space(id), id, "read the shape of"), H5Sclose);
  const int rank = check(H5Sget_simple_extent_ndims(space.id()), id, "read the shape of");
  std::vector<hsize_t> dims(static_cast<std::size_t>(rank));
  check(H5Sget_simple_extent_dims(space.id(), dims.data(), nullptr), id, "read the shape of");
  return {dims.begin(), dims.end()};
}

Handle element_type(const Handle& dataset) {
  return {check(H5Dget_type(dataset.id()), dataset.id(), "read the type of"), H5Tclose};
}

H5T_class_t member_class(const Handle& dataset, const std::string& name) {
  const Handle type = find_member_type(dataset, name);
  return type ? H5Tget_class(type.id()) : H5T_NO_CLASS;
}

Handle member_type(const Handle& dataset, const std::string& name) {
  Handle type = find_member_type(dataset, name);
  if (!type) {
    const std::string what = "cannot find member '" + name + "' of " + object_path(dataset.id(), "");
    throw Error(file_name(dataset.id()) + ": " + what, what);
  }
  return type;
}

std::vector<std::pair<std::string, int>> enum_members(const Handle& type) {
  silence();
  if (H5Tget_class(type.id()) != H5T_ENUM || H5Tget_size(type.id()) != 1)
    throw Error("not an enum type of 1 byte", "not an enum type of 1 byte");
  const Handle base(check_type(H5Tget_super(type.id()), "read the base of an enum type"), H5Tclose);
  const bool is_signed = H5Tget_sign(base.id()) == H5T_SGN_2;
  std::vector<std::pair<std::string, int>> members;
  for (int i = 0; i < check_type(H5Tget_nmembers(type.id()), "read the members of an enum type"); ++i) {
    char* name = H5Tget_member_name(type.id(), static_cast<unsigned>(i));
    if (name == nullptr) fail_file("read the name of an enum member", "");
    std::string text(name);
    H5free_memory(name);
    unsigned char byte = 0;
    check_type(H5Tget_member_value(type.id(), static_cast<unsigned>(i), &byte),
               "read the value of enum member '" + text + "'");
    members.emplace_back(std::move(text),
                         is_signed ? static_cast<int>(static_cast<signed char>(byte)) : static_cast<int>(byte));
  }
  return members;
}

void read_all(const Handle& dataset, hid_t mem_type, void* out) {
  read_range(dataset, mem_type, 0, length(dataset), out);
}

void read_range(const Handle& dataset, hid_t mem_type, std::size_t first, std::size_t count, void* out) {
  if (count == 0) return;
  const hid_t id = dataset.id();
  const Handle file_space = select(id, "", first, count);
  const hsize_t size[1] = {count};
  const Handle mem_space(check(H5Screate_simple(1, size, nullptr), id, "read"), H5Sclose);
  check(H5Dread(id, mem_type, mem_space.id(), file_space.id(), H5P_DEFAULT, out), id, "read");
}

void write_int32s(const Handle& loc, const std::string& name, const std::vector<std::int32_t>& v) {
  write_dataset(loc, name, H5T_STD_I32LE, H5T_NATIVE_INT32, v.data(), v.size());
}

std::vector<std::int32_t> read_int32s(const Handle& loc, const std::string& name) {
  const Handle dataset = open_dataset(loc, name);
  std::vector<std::int32_t> values(length(dataset));
  read_all(dataset, H5T_NATIVE_INT32, values.data());
  return values;
}

}  // namespace nqc::h5
