#include "formats/composition_file.hpp"

#include <algorithm>
#include <bit>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <optional>
#include <ostream>
#include <stdexcept>

#include "core/verifier.hpp"
#include "system/durable.hpp"
#include "system/errors.hpp"
#include "formats/hdf5.hpp"
#include "formats/input_file.hpp"
#include "system/std_stream.hpp"

namespace nqc {
namespace {

constexpr std::uint64_t kMaxN = kMaxBoardSize;
constexpr std::string_view kBinaryMagic{"\x89NQC\r\n\x1a\n", 8};
constexpr std::size_t kHeaderBytes = 24;
constexpr std::uint32_t kBinaryVersion = 1;
constexpr char kDataset[] = "composition";
constexpr std::size_t kHdf5ChunkValues = std::size_t{1} << 20;

std::string out_of_range(const std::string& source, std::size_t row, const std::string& value, std::uint64_t n) {
  return source + ": row " + std::to_string(row + 1) + ": value " + value + " is out of range 0.." + std::to_string(n);
}

// --- binary ----------------------------------------------------------------------------------

// `v` from or to little-endian (uint32 or uint64).
template <typename T>
T swap_le(T v) {
  if constexpr (std::endian::native == std::endian::little)
    return v;
  else if constexpr (sizeof(T) == 4)
    return __builtin_bswap32(v);
  else
    return __builtin_bswap64(v);
}

template <typename T>
T little_endian(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return swap_le(v);
}

template <typename T>
void put_little_endian(char* p, T v) {
  v = swap_le(v);
  std::memcpy(p, &v, sizeof v);
}

// The n of a binary header, its magic, version, flags and n checked: `b` is the file's first
// bytes (all of them when it has fewer than 24).
std::uint64_t binary_n(std::string_view b, const std::string& name) {
  const std::size_t head = std::min(b.size(), kBinaryMagic.size());
  if (b.substr(0, head) != kBinaryMagic.substr(0, head))
    throw InputError(name + ": not an nqc binary composition: bad magic");
  if (b.size() < kHeaderBytes)
    throw InputError(name + ": truncated: the binary header has 24 bytes, the file has " + std::to_string(b.size()) +
                     " bytes");
  if (const auto version = little_endian<std::uint32_t>(b.data() + 8); version != kBinaryVersion)
    throw InputError(name + ": unsupported nqc binary version " + std::to_string(version) +
                     " (this nqc reads version 1)");
  if (const auto flags = little_endian<std::uint32_t>(b.data() + 12); flags != 0) {
    char hex[16];
    std::snprintf(hex, sizeof hex, "0x%08x", flags);
    throw InputError(name + ": unsupported nqc binary flags " + hex + " (this nqc reads flags 0)");
  }
  const auto n = little_endian<std::uint64_t>(b.data() + 16);
  if (n == 0 || n > kMaxN)
    throw InputError(name + ": header n = " + std::to_string(n) + " is out of range " + kBoardSizes);
  return n;
}

// "NAME: truncated: ..." or "NAME: trailing data: ..." for a file of `size` bytes ("at least"
// for a stream read no further) whose header says n.
std::string wrong_size(const std::string& name, std::uint64_t n, std::uint64_t size, bool at_least = false) {
  const std::uint64_t expected = kHeaderBytes + 4 * n;
  return name + (size < expected ? ": truncated" : ": trailing data") + ": header says n = " + std::to_string(n) +
         " (24 + 4n = " + std::to_string(expected) + " bytes), the file has " + (at_least ? "at least " : "") +
         std::to_string(size) + " bytes";
}

// A binary composition: a file mapped, its pages given back as copied (memory peaks at the 4n
// bytes of the values); a stream as its values arrive (a header's n is not believed before
// they do), then one byte more to find trailing data. The size is reported before a value.
LoadedComposition read_binary(const InputFile& in) {
  const std::string_view head = in.bytes();
  const std::string& name = in.name();
  const std::uint64_t n = binary_n(head, name);
  const std::uint64_t expected = kHeaderBytes + 4 * n;
  if (!in.is_stream() && head.size() != expected) throw InputError(wrong_size(name, n, head.size()));
  LoadedComposition out;
  out.source = name;
  out.format = CompositionFormat::binary;
  std::vector<Index>& q = out.composition.q;
  if (!in.is_stream()) q.reserve(n);
  advise_huge_pages(q.data(), q.capacity() * sizeof(Index));
  constexpr std::size_t kStep = std::size_t{1} << 16;  // values copied at a time, checked in the cache
  std::size_t at = kHeaderBytes;                       // the bytes of `head` taken
  std::uint64_t size = kHeaderBytes;
  std::optional<std::size_t> first_above;  // the first row with a value above n
  SetAside store;                          // a stream's values (a file's size is known)
  while (store.size() + q.size() < n) {
    const std::size_t first = q.size();
    const auto count = static_cast<std::size_t>(std::min<std::uint64_t>(kStep, n - store.size() - first));
    q.resize(first + count);
    char* const to = reinterpret_cast<char*>(q.data() + first);
    std::size_t got = std::min(4 * count, head.size() - std::min(at, head.size()));
    std::memcpy(to, head.data() + std::min(at, head.size()), got);
    in.release(at, at + got);
    at += got;
    for (std::size_t more = 1; got < 4 * count && more > 0; got += more)
      more = in.read_stream(to + got, 4 * count - got);
    size += got;
    q.resize(first + got / 4);
    std::uint32_t largest = 0;
    for (std::size_t i = first; i < q.size(); ++i) {
      q[i] = static_cast<Index>(swap_le(static_cast<std::uint32_t>(q[i])));
      largest = std::max(largest, static_cast<std::uint32_t>(q[i]));
    }
    const auto above = [n](Index v) { return static_cast<std::uint32_t>(v) > n; };
    if (largest > n && !first_above)
      first_above =
          store.size() + static_cast<std::size_t>(std::find_if(q.begin() + first, q.end(), above) - q.begin());
    if (got < 4 * count) break;  // the end
    if (in.is_stream() && q.size() >= 16 * kStep) store.add(q);
  }
  if (size < expected) throw InputError(wrong_size(name, n, size));
  char more = 0;
  if (in.is_stream() && (head.size() > expected || in.read_stream(&more, 1) > 0))
    throw InputError(wrong_size(name, n, expected + 1, true));
  if (store.size() > 0) q = store.take(q);
  if (first_above)
    throw InputError(out_of_range(name, *first_above, std::to_string(static_cast<std::uint32_t>(q[*first_above])), n));
  return out;
}

// Writes `c` in the binary format, 4 MiB at a time.
void write_binary(const Composition& c, std::ostream& out) {
  constexpr std::size_t kBufferValues = std::size_t{1} << 20;
  std::vector<char> buffer(kHeaderBytes + 4 * std::min(kBufferValues, c.q.size()));
  std::memcpy(buffer.data(), kBinaryMagic.data(), kBinaryMagic.size());
  put_little_endian<std::uint32_t>(buffer.data() + 8, kBinaryVersion);
  put_little_endian<std::uint32_t>(buffer.data() + 12, 0);
  put_little_endian<std::uint64_t>(buffer.data() + 16, c.q.size());
  std::size_t used = kHeaderBytes;
  for (std::size_t first = 0; first < c.q.size(); first += kBufferValues) {
    const std::size_t count = std::min(kBufferValues, c.q.size() - first);
    for (std::size_t i = 0; i < count; ++i)
      put_little_endian<std::uint32_t>(buffer.data() + used + 4 * i, static_cast<std::uint32_t>(c.q[first + i]));
    out.write(buffer.data(), static_cast<std::streamsize>(used + 4 * count));
    used = 0;
  }
}

// --- HDF5 ------------------------------------------------------------------------------------

// HDF5's type classes by value (H5T_INTEGER = 0 .. H5T_ARRAY = 10).
constexpr const char* kClassNames[] = {"integer",  "floating-point", "time", "string",          "bitfield", "opaque",
                                       "compound", "reference",      "enum", "variable-length", "array"};

// Reads the n values of /composition into `q`, 2^20 at a time, refusing values outside 0..n.
// Wide has the stored sign and at least the stored size: every integer type converts exactly.
template <typename Wide>
void read_values(const h5::Handle& dataset, hid_t mem_type, std::uint64_t n, const std::string& name,
                 std::vector<Index>& q) {
  q.reserve(n);
  advise_huge_pages(q.data(), n * sizeof(Index));
  std::vector<Wide> buffer(std::min<std::uint64_t>(n, kHdf5ChunkValues));
  for (std::size_t first = 0; first < n; first += buffer.size()) {
    const std::size_t count = std::min<std::size_t>(buffer.size(), n - first);
    h5::read_range(dataset, mem_type, first, count, buffer.data());
    const auto end = buffer.begin() + static_cast<std::ptrdiff_t>(count);
    const auto [low, high] = std::minmax_element(buffer.begin(), end);
    if (*low < 0 || static_cast<std::uint64_t>(*high) > n) {
      const auto bad =
          std::find_if(buffer.begin(), end, [n](Wide v) { return v < 0 || static_cast<std::uint64_t>(v) > n; });
      throw InputError(
          out_of_range(name, first + static_cast<std::size_t>(bad - buffer.begin()), std::to_string(*bad), n));
    }
    q.insert(q.end(), buffer.begin(), end);
  }
}

// HDF5's original format (superblock 0 or 1: h5py's default) has no checksums, and damage to
// its metadata can crash HDF5 1.10, make it loop or corrupt its memory: such a file is refused
// before the library reads it, with the command that rewrites it in the checksummed format.
void require_checksummed(const InputFile& in) {
  if (const int version = h5::superblock_version(in.bytes()); version < 2)
    throw InputError(in.name() + ": HDF5 composition in HDF5's original file format (superblock version " +
                     std::to_string(version) +
                     ", no checksums), which nqc does not read: rewrite it with 'h5repack -L IN OUT' or write it "
                     "with h5py.File(..., libver='latest')");
}

LoadedComposition read_hdf5(const InputFile& in) {
  require_checksummed(in);
  const std::string& name = in.name();
  LoadedComposition out;
  out.source = name;
  out.format = CompositionFormat::hdf5;
  // HDF5 1.10 opens a file image's name to check no such file exists: below /dev/null no
  // file can be, so nothing is opened (a FIFO that would block, a file called "<stdin>").
  const std::string image = "/dev/null/" + name;
  try {
    const h5::Handle file =
        in.path().empty() ? h5::open_file_image(in.bytes().data(), in.bytes().size(), image) : h5::open_file(in.path());
    if (!h5::exists(file, kDataset))
      throw InputError(
          name +
          ": no dataset /composition (an nqc HDF5 composition holds Q(1..n) in the 1-D integer dataset /composition)");
    const h5::Handle dataset = h5::open_dataset(file, kDataset);
    const std::vector<std::uint64_t> shape = h5::shape(dataset);
    if (shape.size() != 1)
      throw InputError(name + ": /composition has rank " + std::to_string(shape.size()) +
                       ", expected rank 1 (the values Q(1..n))");
    const h5::Handle type = h5::element_type(dataset);
    const H5T_class_t type_class = H5Tget_class(type.id());
    if (type_class != H5T_INTEGER)
      throw InputError(name + ": /composition holds " +
                       (type_class > 0 && type_class <= H5T_ARRAY ? kClassNames[type_class] : "non-integer") +
                       " values, expected integers");
    const std::uint64_t n = shape[0];
    if (n == 0) throw InputError(name + ": /composition is empty (n must be at least 1)");
    if (n > kMaxN)
      throw InputError(name + ": /composition has " + std::to_string(n) + " values (n must be at most " +
                       std::to_string(kMaxBoardSize) + ")");
    const bool is_signed = H5Tget_sign(type.id()) != H5T_SGN_NONE;
    std::vector<Index>& q = out.composition.q;
    if (H5Tget_size(type.id()) <= 4)
      is_signed ? read_values<std::int32_t>(dataset, H5T_NATIVE_INT32, n, name, q)
                : read_values<std::uint32_t>(dataset, H5T_NATIVE_UINT32, n, name, q);
    else
      is_signed ? read_values<std::int64_t>(dataset, H5T_NATIVE_INT64, n, name, q)
                : read_values<std::uint64_t>(dataset, H5T_NATIVE_UINT64, n, name, q);
  } catch (const h5::Error& e) {
    // The file is named once; the class stays the cause's (content or system).
    std::string_view what = e.what();
    for (const std::string& file : {name, image})
      for (const std::string& prefix : {file + ": ", "cannot open " + file + ": "})
        if (what.starts_with(prefix)) what.remove_prefix(prefix.size());
    throw_error(e.code(), name + ": unreadable HDF5 composition: " + std::string(what));
  }
  return out;
}

// The most an HDF5 composition read from a stream may have: /composition at the largest n
// in 8-byte integers, and 1 GiB of metadata (17407 MiB).
constexpr std::uint64_t kMaxStreamHdf5Bytes = 8 * kMaxN + (std::uint64_t{1} << 30);

// HDF5 reads in any order: a stream is read into memory up to its superblock's end-of-file
// address (HDF5 ignores what follows).
LoadedComposition read_hdf5_stream(const InputFile& in) {
  const std::optional<std::uint64_t> end = h5::file_end(in.bytes());
  if (!end) throw InputError(in.name() + ": unreadable HDF5 composition: no superblock that gives the file's end");
  if (*end > kMaxStreamHdf5Bytes)
    throw InputError(in.name() + ": the HDF5 superblock gives the file " + std::to_string(*end) +
                     " bytes, more than an HDF5 composition on a stream may have (" +
                     std::to_string(kMaxStreamHdf5Bytes >> 20) + " MiB)");
  require_checksummed(in);
  in.spool(*end);
  return read_hdf5(in);
}

// A failed write is the system's (classed by its errno) or else an IoError, never the content's.
void write_hdf5(const Composition& c, const std::filesystem::path& file) {
  ReplacingOutput output(file);
  try {
    h5::Handle h = h5::create_file(output.path());
    const h5::Layout layout{std::min(kHdf5ChunkValues, c.q.size()), -1};
    h5::write_dataset(h, kDataset, H5T_STD_U32LE, H5T_NATIVE_INT32, c.q.data(), c.q.size(), layout);
    h.close();
  } catch (const h5::Error& e) {
    // HDF5 names the file it opened: the temporary one; the message names the output.
    std::string message = e.what();
    const std::string tmp = output.path().string();
    for (std::size_t at = message.find(tmp); at != std::string::npos; at = message.find(tmp, at + file.string().size()))
      message.replace(at, tmp.size(), file.string());
    throw_error(e.system() ? e.code() : kExitIoError, message);
  }
  output.commit();
}

}  // namespace

const char* to_string(CompositionFormat format) {
  constexpr const char* kNames[] = {"text", "binary", "hdf5"};  // in the enum's order
  static_assert(std::size(kNames) == static_cast<std::size_t>(CompositionFormat::hdf5) + 1);
  return kNames[static_cast<int>(format)];
}

CompositionFormat detect_format(std::string_view bytes) {
  if (bytes.starts_with(kBinaryMagic.substr(0, 4))) return CompositionFormat::binary;
  if (h5::superblock_version(bytes) >= 0) return CompositionFormat::hdf5;
  return CompositionFormat::text;
}

CompositionFormat format_for_output(const std::filesystem::path& file) {
  std::string ext = file.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  if (ext == ".bin") return CompositionFormat::binary;
  if (ext == ".h5" || ext == ".hdf5") return CompositionFormat::hdf5;
  return CompositionFormat::text;
}

LoadedComposition read_composition(const std::filesystem::path& file) {
  return read_composition(InputFile::open(file));
}

LoadedComposition read_composition(std::shared_ptr<const InputFile> in) {
  switch (detect_format(in->bytes())) {  // a stream's: by its first bytes
    case CompositionFormat::binary: return read_binary(*in);
    case CompositionFormat::hdf5: return in->is_stream() ? read_hdf5_stream(*in) : read_hdf5(*in);
    case CompositionFormat::text: break;
  }
  return parse_composition(std::move(in));
}

void require_consistent(const LoadedComposition& loaded) {
  const Verdict v = verify(loaded.composition);
  if (v.ok()) return;
  const std::int64_t line = line_of_row(loaded, v.row_b);
  throw InputError(loaded.source + (line > 0 ? ":" + std::to_string(line) : "") + ": " +
                   v.describe(loaded.composition));
}

void write_composition(const Composition& c, const std::filesystem::path& file, CompositionFormat format) {
  if (format != CompositionFormat::text && c.q.empty()) throw std::invalid_argument("write_composition: n = 0");
  if (format == CompositionFormat::hdf5) {
    if (is_std_stream(file)) throw InputError("-: an HDF5 file cannot be written to standard output (name a file)");
    return write_hdf5(c, file);
  }
  TextOutput out(file);
  format == CompositionFormat::binary ? write_binary(c, out.stream()) : write_composition(c, out.stream());
  out.close();
}

void write_composition(const Composition& c, const std::filesystem::path& file) {
  write_composition(c, file, format_for_output(file));
}

}  // namespace nqc
