// Checked variable-length text attributes (see hdf5_text.hpp).
#include "formats/hdf5_text.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string_view>

#include "system/errors.hpp"
#include "formats/hash.hpp"
#include "formats/input_file.hpp"

namespace nqc::h5 {

namespace {

// A global heap collection (HDF5 file format, "Global Heap"): "GCOL", version 1, 3 reserved
// bytes, its size (8 bytes, the files' size of lengths), then objects of a 16-byte header
// (index 2 bytes, reference count 2, reserved 4, size 8) and their data padded to 8 bytes;
// index 0 is the free space, whose size counts its header.
constexpr std::string_view kSignature{"GCOL\x01\0\0\0", 8};
constexpr std::size_t kHeader = 16;

std::uint64_t load_le(std::string_view bytes, std::size_t at, std::size_t width) {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < width; ++i)
    v |= static_cast<std::uint64_t>(static_cast<unsigned char>(bytes[at + i])) << (8 * i);
  return v;
}

struct Collection {
  std::uint64_t offset = 0;
  std::uint64_t size = 0;
  std::vector<std::string> objects;  ///< the data of objects 1, 2, ...
};

// The collection whose signature is at `at` of `bytes`, or an empty one (size 0) when the bytes
// there are not a whole collection.
Collection parse_collection(std::string_view bytes, std::size_t at) {
  Collection c{at, 0, {}};
  if (bytes.size() - at < kHeader) return {};
  const std::uint64_t size = load_le(bytes, at + 8, 8);
  if (size < kHeader || size > bytes.size() - at) return {};
  std::uint64_t p = kHeader;
  while (p < size) {
    if (size - p < kHeader) break;  // too small for an object header: free space
    const std::uint64_t index = load_le(bytes, at + p, 2);
    const std::uint64_t object = load_le(bytes, at + p + 8, 8);
    const std::uint64_t need = index == 0 ? object : kHeader + ((object + 7) / 8) * 8;
    if (need == 0 || need > size - p || (index != 0 && object > size - p - kHeader)) return {};
    if (index != 0) c.objects.emplace_back(bytes.substr(at + p + kHeader, object));
    p += need;
  }
  c.size = size;
  return c;
}

// The bytes the checksum covers: the names, NUL after each, then the collections' bytes.
std::string covered(const std::vector<std::string>& names, const std::vector<std::string>& heaps) {
  std::string text;
  for (const std::string& name : names) text.append(name).push_back('\0');
  for (const std::string& heap : heaps) text += heap;
  return text;
}

}  // namespace

void write_text_attributes(const Handle& file, const std::map<std::string, std::string>& texts,
                           const std::string& checksum) {
  std::vector<std::string> names;
  std::vector<std::string> values;  // non-empty ones: an empty string may have no heap object
  for (const auto& [name, value] : texts) {
    write_variable_string_attribute(file, name, value);
    names.push_back(name);
    if (!value.empty()) values.push_back(value);
  }
  flush(file);
  const auto disk = InputFile::open(file_name_of(file));  // as written, by the name HDF5 created it with
  const std::string_view bytes = disk->bytes();
  // Collections in file order; one whose objects are not values written here (a signature in
  // other bytes) is skipped.
  std::vector<std::uint64_t> stored{0};
  std::vector<std::string> heaps;
  std::vector<std::string> missing = values;
  std::sort(missing.begin(), missing.end());
  for (std::size_t at = bytes.find(kSignature); at != std::string::npos; at = bytes.find(kSignature, at + 1)) {
    const Collection c = parse_collection(bytes, at);
    if (c.size == 0) continue;
    std::vector<std::string> left = missing;
    bool ours = !c.objects.empty();
    for (const std::string& object : c.objects) {
      if (object.empty()) continue;
      const auto it = std::lower_bound(left.begin(), left.end(), object);
      if (it == left.end() || *it != object) {
        ours = false;
        break;
      }
      left.erase(it);
    }
    if (!ours) continue;
    missing = std::move(left);
    stored.push_back(c.offset);
    stored.push_back(c.size);
    heaps.emplace_back(bytes.substr(c.offset, c.size));
    at = c.offset + c.size - 1;
  }
  if (!missing.empty() || heaps.size() > kMaxTextHeaps)
    throw Error("cannot write attribute " + checksum + ": " + std::to_string(missing.size()) +
                    " text attribute values not found in the file's global heap collections",
                "cannot write attribute " + checksum + ": the text attributes' global heap collections were not found");
  stored[0] = xxh64(covered(names, heaps));
  write_uint64s_attribute(file, checksum, stored);
}

TextCheck check_text_attributes(const Handle& file, const std::string& checksum) {
  const std::vector<std::string> names = variable_string_attributes(file);
  if (names.empty()) return TextCheck::none;
  const auto stored = read_uint64s_attribute(file, checksum, 1 + 2 * kMaxTextHeaps);
  if (!stored) return TextCheck::unchecked;
  if (stored->size() % 2 == 0)
    throw InputError(file_name_of(file) + ": attribute " + checksum + " holds " + std::to_string(stored->size()) +
                     " values, expected 1 + 2 per heap collection");
  const auto disk = InputFile::open(file_name_of(file));
  const std::uint64_t end = disk->size();
  std::vector<std::string> heaps;
  std::uint64_t named = 0;  // collections do not overlap: all of them fit in the file
  for (std::size_t i = 1; i < stored->size(); i += 2) {
    const std::uint64_t offset = (*stored)[i];
    const std::uint64_t size = (*stored)[i + 1];
    std::string detail;
    if (offset > end || size > end - offset)
      detail = checksum + " names bytes " + std::to_string(offset) + ".." + std::to_string(offset + size) +
               ", beyond the file's end at " + std::to_string(end);
    else if ((named += size) > end)
      detail = checksum + " names " + std::to_string(named) + " bytes or more, the file has " + std::to_string(end);
    if (!detail.empty()) throw Error(file_name_of(file) + ": " + detail, detail);
    heaps.emplace_back(disk->bytes().substr(offset, size));
  }
  if (xxh64(covered(names, heaps)) != (*stored)[0]) {
    const std::string detail = "the text attributes do not match " + checksum;
    throw Error(file_name_of(file) + ": " + detail, detail);
  }
  return TextCheck::passed;
}

}  // namespace nqc::h5
