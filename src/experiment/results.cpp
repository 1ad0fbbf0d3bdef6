// Result files. Layout of every file (shard or merged), schema kSchemaMajor.kSchemaMinor, in
// HDF5's newest format (superblock 3: every piece of metadata checksummed) with Fletcher32 on
// every dataset; the columns and root attributes are declared in case_row.hpp and
// root_attributes.hpp:
//   root attributes  those of the file's kind (root_attributes()), from the caller's
//                    RootAttributes, schema_version ("MAJOR.MINOR") and shard_id set here;
//                    text as variable-length UTF-8 strings (h5py gives str) written first,
//                    then text_checksum (formats/hdf5_text.hpp: their global heap, which HDF5 does
//                    not checksum, checked before any is read); integers as int64.
//   cases            1-D compound dataset, one member per column (NQC_CASE_COLUMNS), matched
//                    by name. outcome an int8 enum, false_negative a uint8 enum FALSE/TRUE
//                    (h5py: bool), engine and limit uint8 enums of their names, instance a
//                    256-byte string left out of generated runs' files. Chunked (unlimited
//                    max size, so an empty shard is valid). Merged file: packed, shuffle +
//                    deflate 4, written shard after shard. Shard and partial files: CaseRow's
//                    own layout, uncompressed, so that writing them is a copy (they are read
//                    once, by the merge).
//   failures/        one int32 dataset `case-<case_id>` per failure record.
//   shards           (merged file only) uint64 ids of the merged shards, ascending.
//   launches         (merged file only) one row per launch of `nqc run` that worked on the
//                    directory (struct Launch; strings fixed-length).
// nqc reads this layout only: a file of another schema_version is refused.
#include "experiment/results.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <functional>
#include <iterator>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <system_error>
#include <type_traits>
#include <vector>

#include "system/dir_lock.hpp"
#include "system/durable.hpp"
#include "system/errors.hpp"
#include "formats/hdf5.hpp"
#include "formats/hash.hpp"
#include "formats/hdf5_text.hpp"
#include "formats/text_input.hpp"
#include "core/engine.hpp"
#include "experiment/aggregate.hpp"
#include "experiment/launches.hpp"
#include "experiment/result_schema.hpp"

namespace nqc {

namespace {

namespace fs = std::filesystem;

constexpr std::size_t kChunkRows = 4096;  // ~700 KB of rows (shard files), ~100 KB packed and compressed (merged)
constexpr int kDeflateLevel = 4;

// The HDF5 type of a column kind: in memory (`file` false) or on disk (little-endian; the
// same bytes here); `bytes`: a text column's width. Enum types carry the names of
// column_value_names(kind).
h5::Handle column_type(ColumnKind kind, bool file, std::size_t bytes) {
  const auto fixed = [](hid_t id) { return h5::Handle(H5Tcopy(id), H5Tclose); };
  switch (kind) {
    case ColumnKind::u64: return fixed(file ? H5T_STD_U64LE : H5T_NATIVE_UINT64);
    case ColumnKind::i64: return fixed(file ? H5T_STD_I64LE : H5T_NATIVE_INT64);
    case ColumnKind::u32: return fixed(file ? H5T_STD_U32LE : H5T_NATIVE_UINT32);
    case ColumnKind::i32: return fixed(file ? H5T_STD_I32LE : H5T_NATIVE_INT32);
    case ColumnKind::f64: return fixed(file ? H5T_IEEE_F64LE : H5T_NATIVE_DOUBLE);
    case ColumnKind::outcome: return h5::enum_type(file ? H5T_STD_I8LE : H5T_NATIVE_INT8, column_value_names(kind));
    case ColumnKind::flag:
    case ColumnKind::engine:
    case ColumnKind::stop_reason:
      return h5::enum_type(file ? H5T_STD_U8LE : H5T_NATIVE_UINT8, column_value_names(kind));
    case ColumnKind::text: return h5::fixed_string_type(bytes);
  }
  throw std::logic_error("column_type: unknown kind");
}

// The compound types of a row: in memory (CaseRow) and on disk (packed, little-endian).
struct RowTypes {
  h5::Handle memory;
  h5::Handle file;
};

// How a file stores its rows (writing).
enum class RowLayout {
  packed,    // the merged file: members one after the other, compressed
  in_place,  // shard and partial files: CaseRow's offsets (a prefix of CaseRow: no conversion)
};

// The types a file of this schema is written with. `instance`: whether the file has the
// `instance` member (instance runs only).
RowTypes row_types(RowLayout layout = RowLayout::packed, bool instance = true) {
  std::vector<h5::Handle> keep;  // member types stay open until build()
  h5::CompoundBuilder memory;
  h5::CompoundBuilder file;
  for (const ColumnInfo& c : case_columns()) {
    if (!instance && c.kind == ColumnKind::text) continue;
    const hid_t m = keep.emplace_back(column_type(c.kind, false, c.size)).id();
    const hid_t f = keep.emplace_back(column_type(c.kind, true, c.size)).id();
    memory.add(std::string(c.name), c.offset, m);
    if (layout == RowLayout::packed)
      file.append(std::string(c.name), f);
    else
      file.add(std::string(c.name), c.offset, f);  // little-endian = native here: the same bytes
  }
  // In place with `instance`: the whole CaseRow, trailing padding included, so that an array
  // of rows is an array of file elements.
  return {memory.build(sizeof(CaseRow)), file.build(layout == RowLayout::in_place && instance ? sizeof(CaseRow) : 0)};
}

// Reads the rows of a `cases` dataset into CaseRow: members matched by name (order does not
// matter), each of its column's HDF5 type class; `instance` may be missing (a generated run's
// file: it reads as empty). Enums are converted by HDF5, by name, so each name of the file's
// enum must be one of this nqc (HDF5 refuses the conversion otherwise).
class RowReader {
 public:
  RowReader(const h5::Handle& cases, fs::path file) : cases_(cases), file_(std::move(file)) {
    std::vector<h5::Handle> keep;  // member types stay open until build()
    h5::CompoundBuilder memory;
    for (const ColumnInfo& c : case_columns()) {
      const std::string name(c.name);
      const H5T_class_t stored = h5::member_class(cases, name);
      if (stored == H5T_NO_CLASS && c.kind == ColumnKind::text) continue;
      if (stored == H5T_NO_CLASS) throw InputError(file_.string() + ": /cases has no member '" + name + "'");
      h5::Handle type = column_type(c.kind, false, c.size);
      if (const H5T_class_t expected = H5Tget_class(type.id()); stored != expected)
        throw InputError(file_.string() + ": /cases member '" + name + "' is " + class_name(stored) + ", expected " +
                         class_name(expected));
      if (stored == H5T_ENUM) check_names(name, column_value_names(c.kind));
      memory.add(name, c.offset, keep.emplace_back(std::move(type)).id());
    }
    memory_ = memory.build(sizeof(CaseRow));
  }

  // Reads rows first .. first + count - 1 into `out` (count rows), checked (check_codes).
  void read(std::size_t first, std::size_t count, CaseRow* out) const {
    h5::read_range(cases_, memory_.id(), first, count, out);
    check_codes(out, count);
  }

 private:
  static std::string class_name(H5T_class_t c) {
    switch (c) {
      case H5T_INTEGER: return "an integer";
      case H5T_FLOAT: return "a float";
      case H5T_STRING: return "a string";
      case H5T_ENUM: return "an enum";
      default: return "of HDF5 type class " + std::to_string(static_cast<int>(c));
    }
  }

  // Refuses an enum member with a name this nqc does not know (a newer nqc's engine).
  void check_names(const std::string& member, const std::vector<std::string>& ours) const {
    for (const auto& [name, value] : h5::enum_members(h5::member_type(cases_, member)))
      if (std::find(ours.begin(), ours.end(), name) == ours.end())
        throw InputError(file_.string() + ": /cases member '" + member + "' has the value '" + text::escaped(name) +
                         "', which this nqc does not know (written by a newer nqc?)");
  }

  // Codes as this nqc knows them: an outcome 0..2, an engine and a limit of their tables.
  void check_codes(const CaseRow* rows, std::size_t count) const {
    const std::size_t engines = column_value_names(ColumnKind::engine).size();
    const std::size_t reasons = column_value_names(ColumnKind::stop_reason).size();
    for (std::size_t i = 0; i < count; ++i) {
      const CaseRow& row = rows[i];
      const std::string at = file_.string() + ": case " + std::to_string(row.case_id);
      if (row.outcome < 0 || row.outcome > 2)
        throw InputError(at + " has outcome " + std::to_string(row.outcome) +
                         " (expected 0 solved, 1 infeasible or 2 gave_up)");
      if (row.engine >= engines)
        throw InputError(at + " has engine code " + std::to_string(row.engine) + ", not one of this nqc");
      if (row.limit >= reasons)
        throw InputError(at + " has limit code " + std::to_string(row.limit) + ", not one of this nqc");
    }
  }

  const h5::Handle& cases_;
  fs::path file_;
  h5::Handle memory_;
};

// Whether rows need the `instance` member (an instance run's).
bool has_instance(const std::vector<CaseRow>& rows) {
  return std::ranges::any_of(rows, [](const CaseRow& r) { return r.instance[0] != '\0'; });
}

std::string schema_version() { return std::to_string(kSchemaMajor) + "." + std::to_string(kSchemaMinor); }

// Refuses a file of another layout: nqc reads the schema it writes (schema_version()) only.
void check_schema(const Attributes& attrs, const h5::Handle& file, const fs::path& path) {
  const auto it = attrs.find("schema_version");
  if (it == attrs.end()) {
    if (H5Aexists(file.id(), "schema_version") > 0)
      throw InputError(path.string() + ": schema_version is not a string (this nqc reads schema " + schema_version() +
                       ")");
    throw InputError(path.string() + ": not an nqc result file (no schema_version attribute)");
  }
  if (it->second != schema_version())
    throw InputError(path.string() + ": schema version " + text::escaped(it->second) + ", this nqc reads " +
                     schema_version() + " only (read it with the nqc that wrote it)");
}

void check_outcomes(const std::vector<CaseRow>& rows, const fs::path& path) {
  for (const CaseRow& row : rows) {
    if (row.outcome < 0 || row.outcome > 2) {
      throw std::invalid_argument("cannot write " + path.string() + ": case " + std::to_string(row.case_id) +
                                  " has outcome " + std::to_string(row.outcome) + " (expected 0, 1 or 2)");
    }
  }
}

// 10^9 rows of about 150 bytes: more than any machine of ours holds.
constexpr std::uint64_t kMaxReadRows = 1'000'000'000;

std::string failure_name(std::uint64_t case_id) { return "case-" + std::to_string(case_id); }

void sort_rows(std::vector<CaseRow>& rows) { std::ranges::stable_sort(rows, {}, &CaseRow::case_id); }

// The root attributes of a file of kind `kind` (shard or merged), as root_attributes() types
// them: the text ones first (write_text_attributes flushes and reads back the file's start).
void write_attributes(const h5::Handle& file, const RootAttributes& attrs, AttributeFiles kind) {
  std::map<std::string, std::string> texts;
  for (const AttributeInfo& a : root_attributes())
    if (carries(kind, a.files) && a.type == AttributeType::text) texts[std::string(a.name)] = attrs.*a.text;
  h5::write_text_attributes(file, texts, std::string(kTextChecksum));
  for (const AttributeInfo& a : root_attributes())
    if (carries(kind, a.files) && a.type == AttributeType::integer)
      h5::write_int_attribute(file, std::string(a.name), attrs.*a.integer);
}

// The rows of a shard or partial file: in CaseRow's layout, uncompressed (see the top). The
// memory type is the file type, so HDF5 copies the bytes as they are: an instance run's rows
// straight from `rows`; a generated run's rows as their first offsetof(CaseRow, instance)
// bytes (the fields before `instance`, without padding), packed here with one memcpy each.
void write_cases(const h5::Handle& file, const std::vector<CaseRow>& rows) {
  const bool instance = has_instance(rows);
  const RowTypes types = row_types(RowLayout::in_place, instance);
  const h5::Layout layout{std::clamp<std::size_t>(rows.size(), 1, kChunkRows), -1};
  if (instance) {
    h5::write_dataset(file, "cases", types.file.id(), types.file.id(), rows.data(), rows.size(), layout);
    return;
  }
  constexpr std::size_t kPrefix = offsetof(CaseRow, instance);
  std::vector<char> packed(rows.size() * kPrefix);
  for (std::size_t i = 0; i < rows.size(); ++i) std::memcpy(packed.data() + i * kPrefix, &rows[i], kPrefix);
  h5::write_dataset(file, "cases", types.file.id(), types.file.id(), packed.data(), rows.size(), layout);
}

void write_failures(const h5::Handle& file, const std::vector<FailureRecord>& failures) {
  const h5::Handle group = h5::create_group(file, "failures");
  for (const FailureRecord& f : failures) h5::write_int32s(group, failure_name(f.case_id), f.q);
}

void make_directory(const fs::path& path) {
  std::error_code ec;
  fs::create_directories(path, ec);
  if (ec) throw_errno("cannot create directory " + path.string(), ec.value());
}

// Writes `target`'s content under "<target>.<host>-<pid>.tmp": fill, flush, close;
// commit_file (or a BackgroundWriter) then makes it durable and names it. The temporary name
// is the writer's own, so that two writers of one file (which the directory lock should
// prevent) can never rename each other's half-written file into place. On failure no .tmp is
// left. A failed HDF5 call is an nqc::IoError here, whatever its cause: nqc writes this file,
// the user's input has no part in it.
PendingFile write_pending(const fs::path& target, const std::function<void(const h5::Handle&)>& fill) {
  const PendingFile pending{target.string() + "." + host_name() + "-" + std::to_string(::getpid()) + ".tmp", target};
  const auto remove_tmp = [&] {
    std::error_code ignored;
    fs::remove(pending.tmp, ignored);
  };
  try {
    h5::Handle file = h5::create_file(pending.tmp);
    fill(file);
    h5::flush(file);
    file.close();
  } catch (const h5::Error& e) {
    remove_tmp();
    throw IoError(e.what());
  } catch (...) {
    remove_tmp();
    throw;
  }
  return pending;
}

// write_pending, then commit_file: on failure neither the .tmp nor the target is left behind.
void write_atomically(const fs::path& target, const std::function<void(const h5::Handle&)>& fill) {
  commit_file(write_pending(target, fill));
}

std::string shard_file_name(const std::string& prefix, std::uint64_t shard_id) {
  char name[48];
  std::snprintf(name, sizeof name, "%s%06llu.h5", prefix.c_str(), static_cast<unsigned long long>(shard_id));
  return name;
}

// "shard-000042.h5" -> 42 (prefix "partial-": "partial-000042.h5" -> 42); anything else
// (other names, "*.tmp") -> nullopt.
std::optional<std::uint64_t> parse_shard_name(const fs::path& file, const std::string& prefix = "shard-") {
  const std::string name = file.filename().string();
  if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) return {};
  std::uint64_t id = 0;
  const char* begin = name.data() + prefix.size();
  const auto [ptr, ec] = std::from_chars(begin, name.data() + name.size(), id);
  if (ec != std::errc{} || ptr == begin) return {};
  // Only the exact name shard_path() / partial_path() writes.
  if (shard_file_name(prefix, id) != name) return {};
  return id;
}

std::vector<std::uint64_t> list_shards(const fs::path& dir, const std::string& prefix) {
  const fs::path shards = dir / "shards";
  std::vector<std::uint64_t> ids;
  std::error_code ec;
  if (!fs::exists(shards, ec)) return ids;
  for (fs::directory_iterator it(shards, ec), end; !ec && it != end; it.increment(ec)) {
    const auto id = parse_shard_name(it->path(), prefix);
    if (id && it->is_regular_file(ec)) ids.push_back(*id);
  }
  if (ec) throw_errno("cannot list " + shards.string(), ec.value());
  std::sort(ids.begin(), ids.end());
  return ids;
}

PendingFile write_shard_file(const fs::path& target, const ShardData& shard, const RootAttributes& attrs) {
  check_outcomes(shard.rows, target);
  make_directory(target.parent_path());
  RootAttributes all = attrs;
  all.schema_version = schema_version();
  all.shard_id = static_cast<std::int64_t>(shard.shard_id);
  return write_pending(target, [&](const h5::Handle& file) {
    write_attributes(file, all, AttributeFiles::shard);
    write_cases(file, shard.rows);
    write_failures(file, shard.failures);
  });
}

}  // namespace

std::string implausible(const CaseRow& r) {
  if (r.n < 1 || r.n > kMaxBoardSize) return "n = " + std::to_string(r.n) + " is not a board size " + kBoardSizes;
  if (r.k < 0 || r.k > r.n) return "k = " + std::to_string(r.k) + " queens, expected 0..n = 0.." + std::to_string(r.n);
  if (r.false_negative > 1) return "false_negative = " + std::to_string(r.false_negative) + ", expected 0 or 1";
  if (r.outcome < 0 || r.outcome > 2)
    return "outcome = " + std::to_string(r.outcome) + ", expected 0 (solved), 1 (infeasible) or 2 (gave_up)";
  if (!std::isfinite(r.wall_s) || r.wall_s < 0 || !std::isfinite(r.cpu_s) || r.cpu_s < 0)
    return "wall_s = " + std::to_string(r.wall_s) + ", cpu_s = " + std::to_string(r.cpu_s) + ", expected seconds >= 0";
  // A generated case is derived from a solution: never infeasible, a false negative exactly
  // when not solved; an instance case is never one.
  const bool instance = is_instance_row(r);
  if (!instance && r.outcome == static_cast<std::int8_t>(Outcome::infeasible))
    return "a generated case (derived from a solution) recorded infeasible";
  const int expected = !instance && r.outcome == static_cast<std::int8_t>(Outcome::gave_up) ? 1 : 0;
  if (r.false_negative != expected)
    return "false_negative = " + std::to_string(r.false_negative) + " for a" +
           (instance ? "n instance case" : " generated case") + " that " + to_string(static_cast<Outcome>(r.outcome)) +
           ", expected " + std::to_string(expected);
  return "";
}

namespace {

// Rows as nqc writes them (implausible), each case once in ascending order. A file that
// passes its checksums holds such rows; one that does not is damaged (checksums miss what was
// damaged before they were computed, in memory).
std::vector<CaseRow> plausible(std::vector<CaseRow> rows, const fs::path& file) {
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const CaseRow& r = rows[i];
    const std::string at = "row " + std::to_string(i) + " (case " + std::to_string(r.case_id) + "): ";
    if (const std::string why = implausible(r); !why.empty()) throw DamagedFileError(file, at + why);
    if (i > 0 && r.case_id <= rows[i - 1].case_id)
      throw DamagedFileError(file, at + "case ids are not ascending (case " + std::to_string(rows[i - 1].case_id) +
                                       " before it): a result file holds each case once, in order");
  }
  return rows;
}

std::vector<CaseRow> rows_of_shards(const fs::path& dir) {
  const std::vector<fs::path> files = unmerged_run_files(dir, false);
  std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges;
  std::vector<CaseRow> rows;
  for (const fs::path& file : files) {
    std::vector<CaseRow> part = plausible(read_rows(file), file);
    std::uint64_t lo = UINT64_MAX, hi = 0;
    for (const CaseRow& r : part) lo = std::min(lo, r.case_id), hi = std::max(hi, r.case_id);
    ranges.emplace_back(lo, hi);
    rows.insert(rows.end(), part.begin(), part.end());
  }
  check_disjoint_cases(dir, files, ranges);
  sort_rows(rows);
  return rows;
}

// A field of Launch as the `launches` table holds it in memory: text as `Width` NUL-padded
// bytes (truncated), a bool as uint8, numbers as they are.
template <typename T, std::size_t Width>
using StoredField = std::conditional_t<Width != 0, std::array<char, Width == 0 ? 1 : Width>,
                                       std::conditional_t<std::is_same_v<T, bool>, std::uint8_t, T>>;

struct LaunchRow {
#define NQC_LAUNCH_ROW_MEMBER(name, type, kind, width, init, doc) StoredField<type, width> name{};
  NQC_LAUNCH_COLUMNS(NQC_LAUNCH_ROW_MEMBER)
#undef NQC_LAUNCH_ROW_MEMBER
};

template <std::size_t N>
void store(const std::string& from, std::array<char, N>& to) {
  to = fixed_string<N>(from);
}
void store(bool from, std::uint8_t& to) { to = from ? 1 : 0; }
template <typename T>
void store(T from, T& to) {
  to = from;
}
template <std::size_t N>
void load(const std::array<char, N>& from, std::string& to) {
  to.assign(from.data(), strnlen(from.data(), N));
}
void load(std::uint8_t from, bool& to) { to = from != 0; }
template <typename T>
void load(T from, T& to) {
  to = from;
}

// The offset of each field in LaunchRow, in launch_columns() order.
constexpr std::array kLaunchOffsets = {
#define NQC_LAUNCH_OFFSET(name, type, kind, width, init, doc) offsetof(LaunchRow, name),
    NQC_LAUNCH_COLUMNS(NQC_LAUNCH_OFFSET)
#undef NQC_LAUNCH_OFFSET
};

// The `launches` table's compound types: (memory, file).
RowTypes launch_types() {
  std::vector<h5::Handle> keep;
  h5::CompoundBuilder memory, file;
  const auto columns = launch_columns();
  for (std::size_t i = 0; i < columns.size(); ++i) {
    const LaunchColumnInfo& c = columns[i];
    memory.add(std::string(c.name), kLaunchOffsets[i], keep.emplace_back(column_type(c.kind, false, c.bytes)).id());
    file.append(std::string(c.name), keep.emplace_back(column_type(c.kind, true, c.bytes)).id());
  }
  return {memory.build(sizeof(LaunchRow)), file.build()};
}

void write_launches(const h5::Handle& file, const std::vector<Launch>& launches) {
  std::vector<LaunchRow> rows;
  for (const Launch& l : launches) {
    LaunchRow& r = rows.emplace_back();
#define NQC_LAUNCH_STORE(name, type, kind, width, init, doc) store(l.name, r.name);
    NQC_LAUNCH_COLUMNS(NQC_LAUNCH_STORE)
#undef NQC_LAUNCH_STORE
  }
  const RowTypes types = launch_types();
  h5::write_dataset(file, "launches", types.file.id(), types.memory.id(), rows.data(), rows.size());
}

std::vector<Launch> read_launch_rows(const h5::Handle& file) {
  std::vector<Launch> out;
  if (!h5::exists(file, "launches")) return out;
  const h5::Handle dataset = h5::open_dataset(file, "launches");
  std::vector<LaunchRow> rows(h5::length(dataset));
  h5::read_all(dataset, launch_types().memory.id(), rows.data());
  for (const LaunchRow& r : rows) {
    Launch& l = out.emplace_back();
#define NQC_LAUNCH_LOAD(name, type, kind, width, init, doc) load(r.name, l.name);
    NQC_LAUNCH_COLUMNS(NQC_LAUNCH_LOAD)
#undef NQC_LAUNCH_LOAD
  }
  return out;
}

std::vector<FailureRecord> read_failure_group(const h5::Handle& h, const fs::path& file) {
  std::vector<FailureRecord> failures;
  if (!h5::exists(h, "failures")) return failures;
  const h5::Handle group = h5::open_group(h, "failures");
  for (const std::string& name : h5::link_names(group)) {
    FailureRecord record;
    const char* end = name.data() + name.size();
    const auto [ptr, ec] = std::from_chars(name.data() + std::min<std::size_t>(5, name.size()), end, record.case_id);
    if (ec != std::errc{} || ptr != end || failure_name(record.case_id) != name) {
      throw InputError(file.string() + ": unexpected object /failures/" + text::escaped(name));
    }
    record.q = h5::read_int32s(group, name);
    failures.push_back(std::move(record));
  }
  std::ranges::sort(failures, {}, &FailureRecord::case_id);
  return failures;
}

// A file that nqc did not write as it is (HDF5 without checksums, text attributes without
// text_checksum): damage for a file of a results directory, else not a result file of this nqc.
[[noreturn]] void refuse_foreign(const fs::path& file, const std::string& detail) {
  if (!damage_advice(file).empty()) throw DamagedFileError(file, detail);
  throw InputError(file.string() + ": not a result file of this nqc (" + detail + ")");
}

// read_result_file without the checks around HDF5 (signature, superblock, damage).
ResultFile read_parts(const fs::path& file, unsigned parts) {
  ResultFile out;
  const h5::Handle h = h5::open_file(file);
  // HDF5 reads the text attributes from a heap without a checksum: compared first.
  if (h5::check_text_attributes(h, std::string(kTextChecksum)) == h5::TextCheck::unchecked)
    refuse_foreign(file, "its text attributes have no " + std::string(kTextChecksum));
  out.attrs = h5::read_attributes_as_text(h);
  check_schema(out.attrs, h, file);
  if ((parts & kRowCount) != 0) {
    if (!h5::exists(h, "cases")) throw InputError(file.string() + ": no cases dataset");
    const h5::Handle cases = h5::open_dataset(h, "cases");
    const RowReader reader(cases, file);  // checks the members
    out.row_count = h5::length(cases);
    // A hostile file can declare any length: refuse what cannot be real.
    if (out.row_count > kMaxReadRows)
      throw InputError(file.string() + ": /cases declares " + std::to_string(out.row_count) + " rows, more than " +
                       std::to_string(kMaxReadRows) + " (damaged file?)");
    if ((parts & kRows) == kRows) {
      out.rows.resize(out.row_count);
      reader.read(0, out.row_count, out.rows.data());
    }
  }
  if ((parts & kFailures) != 0) out.failures = read_failure_group(h, file);
  if ((parts & kLaunches) != 0) out.launches = read_launch_rows(h);
  return out;
}

}  // namespace

DamagedFileError::DamagedFileError(const std::filesystem::path& file, const std::string& detail)
    : InputError(file.string() + ": damaged (" + detail + ")" +
                 (damage_advice(file).empty() ? "" : ": " + damage_advice(file))),
      file_(file),
      detail_(detail) {}

std::string damage_advice(const std::filesystem::path& file) {
  const fs::path parent = file.parent_path();
  if (parent.filename() == "shards" && (parse_shard_name(file, "shard-") || parse_shard_name(file, "partial-")))
    return "delete it and run the config again with --resume (its cases run again)";
  std::error_code ec;
  const fs::path dir = parent.empty() ? fs::path(".") : parent;
  if (file.filename() == "results.h5" && fs::is_directory(dir / "shards", ec))
    return "delete it and rebuild it from the shard files: nqc run " + (dir / "config.json").string() + " -o " +
           dir.string() + " --resume";
  return "";
}

ResultFile read_result_file(const std::filesystem::path& file, unsigned parts) {
  std::error_code ec;
  const fs::file_status status = fs::status(file, ec);
  if (status.type() == fs::file_type::not_found) throw InputError(file.string() + ": no such file or directory");
  if (!fs::is_regular_file(status)) throw InputError(file.string() + ": not a regular file");
  const int version = h5::superblock_version(file);
  if (version < 0) {
    if (!damage_advice(file).empty()) throw DamagedFileError(file, "the HDF5 signature at its start is gone");
    throw InputError(file.string() + ": not an HDF5 file");
  }
  // Superblocks 0 and 1 have no checksums: HDF5 may crash on their damage.
  if (version < 2) refuse_foreign(file, "HDF5 superblock version " + std::to_string(version) + ", without checksums");
  try {
    return read_parts(file, parts);
  } catch (const h5::Error& e) {
    if (e.system()) throw_error(e.code(), e.what());  // the file cannot be opened (permissions): not its content
    throw DamagedFileError(file, e.detail());
  }
}

std::filesystem::path shard_path(const std::filesystem::path& dir, std::uint64_t shard_id) {
  return dir / "shards" / shard_file_name("shard-", shard_id);
}

std::filesystem::path partial_path(const std::filesystem::path& dir, std::uint64_t shard_id) {
  return dir / "shards" / shard_file_name("partial-", shard_id);
}

void write_shard(const std::filesystem::path& dir, const ShardData& shard, const RootAttributes& attrs) {
  commit_file(write_shard_file(shard_path(dir, shard.shard_id), shard, attrs));
}

PendingFile write_shard_pending(const std::filesystem::path& dir, const ShardData& shard, const RootAttributes& attrs) {
  return write_shard_file(shard_path(dir, shard.shard_id), shard, attrs);
}

void write_partial(const std::filesystem::path& dir, const ShardData& partial, const RootAttributes& attrs) {
  commit_file(write_shard_file(partial_path(dir, partial.shard_id), partial, attrs));
}

ShardData read_partial(const std::filesystem::path& dir, std::uint64_t shard_id) {
  ResultFile content = read_result_file(partial_path(dir, shard_id), kEverything);
  return {shard_id, std::move(content.rows), std::move(content.failures)};
}

std::vector<std::uint64_t> partial_shards(const std::filesystem::path& dir) { return list_shards(dir, "partial-"); }

std::vector<std::uint64_t> done_shards(const std::filesystem::path& dir) { return list_shards(dir, "shard-"); }

void read_rows_in_batches(const std::filesystem::path& file, std::size_t batch_rows,
                          const std::function<void(const std::vector<CaseRow>&)>& each) {
  const ResultFile head = read_result_file(file, kRowCount);  // every check but the rows'
  try {
    const h5::Handle h = h5::open_file(file);
    const h5::Handle cases = h5::open_dataset(h, "cases");
    const RowReader reader(cases, file);
    std::vector<CaseRow> rows;
    for (std::uint64_t first = 0; first < head.row_count; first += batch_rows) {
      rows.assign(std::min<std::uint64_t>(batch_rows, head.row_count - first), CaseRow{});
      reader.read(first, rows.size(), rows.data());
      each(plausible(std::move(rows), file));
      rows.clear();
    }
  } catch (const h5::Error& e) {
    if (e.system()) throw_error(e.code(), e.what());
    throw DamagedFileError(file, e.detail());
  }
}

std::vector<CaseRow> read_rows(const std::filesystem::path& file) { return read_result_file(file, kRows).rows; }

Attributes read_attributes(const std::filesystem::path& file) { return read_result_file(file, kAttributes).attrs; }

std::vector<std::filesystem::path> unmerged_run_files(const std::filesystem::path& dir, bool partials) {
  std::vector<fs::path> files;
  const std::vector<std::uint64_t> done = done_shards(dir);
  for (const std::uint64_t id : done) files.push_back(shard_path(dir, id));
  if (partials)
    for (const std::uint64_t id : partial_shards(dir))
      if (!std::binary_search(done.begin(), done.end(), id))
        files.push_back(partial_path(dir, id));  // done: superseded
  std::string run_hash;
  std::error_code ec;
  if (fs::exists(dir / "config.json", ec))
    run_hash = hex64(xxh64(text::read_small_file(dir / "config.json", 16u << 20, "config.json")));
  for (const fs::path& f : files) {
    const std::string hash = read_attributes(f)["config_hash"];
    if (run_hash.empty()) run_hash = hash;
    if (hash != run_hash)
      throw InputError(f.string() + ": belongs to another config (config_hash " + text::escaped(hash) + ", the run's " +
                       run_hash + "): move it out of " + (dir / "shards").string());
  }
  return files;
}

void check_disjoint_cases(const std::filesystem::path& dir, const std::vector<std::filesystem::path>& files,
                          const std::vector<std::pair<std::uint64_t, std::uint64_t>>& ranges) {
  std::vector<std::size_t> order;  // files with rows (an empty one has first > second)
  for (std::size_t i = 0; i < files.size(); ++i)
    if (ranges[i].first <= ranges[i].second) order.push_back(i);
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return ranges[a] < ranges[b]; });
  for (std::size_t i = 1; i < order.size(); ++i) {
    const auto& [lo, hi] = ranges[order[i - 1]];
    if (ranges[order[i]].first <= hi)
      throw InputError(dir.string() + ": case " + std::to_string(std::max(lo, ranges[order[i]].first)) + " is in " +
                       files[order[i - 1]].string() + " and in " + files[order[i]].string() +
                       " (a copy?): each case belongs to one shard file; move the extra one out");
  }
}

std::vector<FailureRecord> read_failures(const std::filesystem::path& file) {
  return read_result_file(file, kFailures).failures;
}

void merge_results(const std::filesystem::path& dir, const RootAttributes& attrs, const ShardCheck& check,
                   std::uint64_t expected_cases, const std::vector<Launch>& launches) {
  const std::vector<std::uint64_t> ids = done_shards(dir);
  if (ids.empty()) {
    throw InputError(dir.string() + ": no shard files to merge (expected " + (dir / "shards").string() + "/*.h5)");
  }
  RootAttributes all = attrs;
  all.schema_version = schema_version();
  write_atomically(dir / "results.h5", [&](const h5::Handle& file) {
    write_attributes(file, all, AttributeFiles::merged);
    const h5::Handle failures = h5::create_group(file, "failures");
    // Shard after shard, in id order, which is case order (make_plan): memory holds one shard.
    std::optional<h5::GrowingDataset> cases;
    std::optional<RowTypes> types;
    bool instance = false;
    std::optional<std::uint64_t> last;  // the last case id written
    for (const std::uint64_t id : ids) {
      const fs::path shard = shard_path(dir, id);
      const ResultFile content = read_result_file(shard, kEverything);
      if (check) check(shard, id, content);
      const std::vector<CaseRow> rows = plausible(content.rows, shard);
      if (!cases) {
        instance = has_instance(rows);
        types = row_types(RowLayout::packed, instance);
        cases.emplace(file, "cases", types->file.id(), h5::Layout{kChunkRows, kDeflateLevel});
      } else if (!instance && has_instance(rows)) {
        throw InputError(shard.string() +
                         ": holds instance cases, the shard files before it generated ones; results.h5 is "
                         "not written");
      }
      for (const CaseRow& row : rows) {
        if (last && row.case_id <= *last)
          throw InputError(
              row.case_id == *last
                  ? dir.string() + ": case " + std::to_string(row.case_id) + " appears in more than one shard file"
                  : shard.string() + ": case " + std::to_string(row.case_id) + " comes after case " +
                        std::to_string(*last) + " (shard files hold ascending case ids); results.h5 is not written");
        last = row.case_id;
      }
      cases->append(types->memory.id(), rows.data(), rows.size());
      for (const FailureRecord& f : content.failures) h5::write_int32s(failures, failure_name(f.case_id), f.q);
    }
    if (expected_cases != 0 && cases->size() != expected_cases)
      throw InputError(dir.string() + ": the shard files hold " + std::to_string(cases->size()) +
                       " cases, the plan has " + std::to_string(expected_cases) + "; results.h5 is not written");
    cases->close();
    h5::write_dataset(file, "shards", H5T_STD_U64LE, H5T_NATIVE_UINT64, ids.data(), ids.size());
    write_launches(file, launches);
  });
}

std::filesystem::path representative_file(const std::filesystem::path& p) {
  std::error_code ec;
  if (!fs::is_directory(p, ec)) return fs::exists(p, ec) ? p : fs::path();
  if (fs::exists(p / "results.h5", ec)) return p / "results.h5";
  const auto ids = done_shards(p);
  return ids.empty() ? fs::path() : shard_path(p, ids.front());
}

std::optional<FailureRecord> find_failure(const std::filesystem::path& path, std::uint64_t case_id) {
  std::vector<fs::path> files;
  std::error_code ec;
  if (!fs::is_directory(path, ec))
    files.push_back(path);
  else if (fs::exists(path / "results.h5", ec))
    files.push_back(path / "results.h5");
  else
    for (const auto id : done_shards(path)) files.push_back(shard_path(path, id));
  for (const auto& f : files)
    for (auto& record : read_failures(f))
      if (record.case_id == case_id) return std::move(record);
  return std::nullopt;
}

std::vector<CaseRow> load_rows(const std::filesystem::path& path) {
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (status.type() == fs::file_type::not_found) {
    throw InputError(path.string() + ": no such file or directory");
  }
  if (ec) throw_error(errno_exit_code(ec.value()), path.string() + ": " + ec.message());
  std::vector<CaseRow> rows;
  if (!fs::is_directory(status)) {
    rows = plausible(read_rows(path), path);
  } else if (fs::exists(path / "results.h5")) {
    rows = plausible(read_rows(path / "results.h5"), path / "results.h5");
  } else if (!done_shards(path).empty()) {
    return rows_of_shards(path);
  } else {
    throw InputError(path.string() + ": no result files (expected " + (path / "shards").string() + "/*.h5 or " +
                     (path / "results.h5").string() + ")");
  }
  sort_rows(rows);
  return rows;
}

}  // namespace nqc

namespace nqc {

std::string run_file_refusal(const std::filesystem::path& file) {
  std::error_code ec;
  const auto is_run = [&](const fs::path& dir) {
    return std::ranges::any_of(kRunFiles,
                               [&](const RunFile& f) { return f.marks_run && fs::exists(dir / f.name, ec); });
  };
  for (const RunFile& entry : kRunFiles) {
    const fs::path& named = entry.folder ? file.parent_path() : file;
    if (named.filename() != entry.name || !is_run(named.parent_path())) continue;
    return "a file of the run in " + named.parent_path().string() + " (" + std::string(entry.what) +
           "; only nqc run writes it)";
  }
  return "";
}

}  // namespace nqc
