// Result files (docs/results.md): superblock 3 (checksummed metadata), Fletcher32 datasets; text
// attributes under text_checksum; `cases` in CaseRow's layout (shard and partial files) or packed
// and deflated (results.h5); failures/case-<id>; results.h5 adds `shards` and `launches`.
#include "experiment/results.hpp"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/engine.hpp"
#include "experiment/aggregate.hpp"
#include "experiment/result_schema.hpp"
#include "formats/hash.hpp"
#include "formats/hdf5.hpp"
#include "formats/hdf5_text.hpp"
#include "formats/text_input.hpp"
#include "system/dir_lock.hpp"
#include "system/errors.hpp"

namespace nqc {

namespace {

namespace fs = std::filesystem;

constexpr std::size_t kChunkRows = 4096;  // ~700 KB of rows (shard files), ~100 KB packed and compressed (merged)
constexpr int kDeflateLevel = 4;
// 10^9 rows of about 150 bytes: more than any machine of ours holds.
constexpr std::uint64_t kMaxReadRows = 1'000'000'000;

// The HDF5 type of a column kind, in memory or on disk (`file`: little-endian); `bytes`: text width.
h5::Handle column_type(ColumnKind kind, bool file, std::size_t bytes) {
  const auto fixed = [](hid_t id) { return h5::Handle(H5Tcopy(id), H5Tclose); };
  switch (kind) {
    case ColumnKind::u64: return fixed(file ? H5T_STD_U64LE : H5T_NATIVE_UINT64);
    case ColumnKind::i64: return fixed(file ? H5T_STD_I64LE : H5T_NATIVE_INT64);
    case ColumnKind::u32: return fixed(file ? H5T_STD_U32LE : H5T_NATIVE_UINT32);
    case ColumnKind::i32: return fixed(file ? H5T_STD_I32LE : H5T_NATIVE_INT32);
    case ColumnKind::f64: return fixed(file ? H5T_IEEE_F64LE : H5T_NATIVE_DOUBLE);
    case ColumnKind::outcome: return h5::enum_type(file ? H5T_STD_I8LE : H5T_NATIVE_INT8, column_value_names(kind));
    case ColumnKind::text: return h5::fixed_string_type(bytes);
    default: return h5::enum_type(file ? H5T_STD_U8LE : H5T_NATIVE_UINT8, column_value_names(kind));
  }
}

struct RowTypes {
  h5::Handle memory;
  h5::Handle file;
};

// `packed`: results.h5's layout, else CaseRow's offsets; `instance`: with the `instance` member.
RowTypes row_types(bool packed, bool instance) {
  std::vector<h5::Handle> keep;  // member types stay open until build()
  h5::CompoundBuilder memory, file;
  for (const ColumnInfo& c : case_columns()) {
    if (!instance && c.kind == ColumnKind::text) continue;
    memory.add(std::string(c.name), c.offset, keep.emplace_back(column_type(c.kind, false, c.size)).id());
    const hid_t f = keep.emplace_back(column_type(c.kind, true, c.size)).id();
    if (packed)
      file.append(std::string(c.name), f);
    else
      file.add(std::string(c.name), c.offset, f);
  }
  // In place with `instance`: the whole CaseRow, trailing padding included.
  return {memory.build(sizeof(CaseRow)), file.build(!packed && instance ? sizeof(CaseRow) : 0)};
}

std::string row_label(std::uint64_t index, const CaseRow& r) {
  return "row " + std::to_string(index) + " (case " + std::to_string(r.case_id) + "): ";
}

// Why rows [0, count) (the file's from `first` on) are not plausible with ascending case ids, or
// ""; `last`: the case id before them, updated.
std::string rows_problem(const CaseRow* rows, std::size_t count, std::uint64_t first,
                         std::optional<std::uint64_t>& last) {
  for (std::size_t i = 0; i < count; ++i) {
    const CaseRow& r = rows[i];
    if (const std::string why = implausible(r); !why.empty()) return row_label(first + i, r) + why;
    if (last && r.case_id <= *last)
      return row_label(first + i, r) + "case ids are not ascending (case " + std::to_string(*last) +
             " before it): a result file holds each case once, in order";
    last = r.case_id;
  }
  return "";
}

// Reads a `cases` dataset into CaseRow by member name (`instance` may be missing); HDF5 converts
// enums by name, so each of the file's names must be one of this nqc's.
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

  // Reads the next `count` rows; rows_problem there is damage from before the checksums.
  void read(std::size_t count, CaseRow* out) {
    h5::read_range(cases_, memory_.id(), next_, count, out);
    if (const std::string why = rows_problem(out, count, next_, last_); !why.empty())
      throw DamagedFileError(file_, why);
    next_ += count;
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

  void check_names(const std::string& member, const std::vector<std::string>& ours) const {
    for (const auto& [name, value] : h5::enum_members(h5::member_type(cases_, member)))
      if (std::find(ours.begin(), ours.end(), name) == ours.end())
        throw InputError(file_.string() + ": /cases member '" + member + "' has the value '" + text::escaped(name) +
                         "', which this nqc does not know (written by a newer nqc?)");
  }

  const h5::Handle& cases_;
  fs::path file_;
  h5::Handle memory_;
  std::size_t next_ = 0;
  std::optional<std::uint64_t> last_;
};

bool has_instance(const std::vector<CaseRow>& rows) { return std::ranges::any_of(rows, is_instance_row); }

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

std::string failure_name(std::uint64_t case_id) { return "case-" + std::to_string(case_id); }

// The text attributes first (write_text_attributes flushes and reads back the file's start).
void write_attributes(const h5::Handle& file, const RootAttributes& attrs, AttributeFiles kind) {
  std::map<std::string, std::string> texts;
  for (const AttributeInfo& a : root_attributes())
    if (carries(kind, a.files) && a.type == AttributeType::text) texts[std::string(a.name)] = attrs.*a.text;
  h5::write_text_attributes(file, texts, std::string(kTextChecksum));
  for (const AttributeInfo& a : root_attributes())
    if (carries(kind, a.files) && a.type == AttributeType::integer)
      h5::write_int_attribute(file, std::string(a.name), attrs.*a.integer);
}

// Rows in CaseRow's layout; a generated run's without `instance` (its offset: no padding before).
void write_cases(const h5::Handle& file, const std::vector<CaseRow>& rows) {
  const bool instance = has_instance(rows);
  const RowTypes types = row_types(false, instance);
  const h5::Layout layout{std::clamp<std::size_t>(rows.size(), 1, kChunkRows), -1};
  constexpr std::size_t kPrefix = offsetof(CaseRow, instance);
  std::vector<char> packed(instance ? 0 : rows.size() * kPrefix);
  for (std::size_t i = 0; i < packed.size() / kPrefix; ++i) std::memcpy(&packed[i * kPrefix], &rows[i], kPrefix);
  const void* data = instance ? static_cast<const void*>(rows.data()) : packed.data();
  h5::write_dataset(file, "cases", types.file.id(), types.file.id(), data, rows.size(), layout);
}

// Writes `target` as "<target>.<host>-<pid>.tmp" (each writer its own) for commit_file; on failure
// no .tmp is left, and an HDF5 failure is an nqc::IoError (no input has a part in it).
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

std::string shard_file_name(const std::string& prefix, std::uint64_t shard_id) {
  char name[48];
  std::snprintf(name, sizeof name, "%s%06llu.h5", prefix.c_str(), static_cast<unsigned long long>(shard_id));
  return name;
}

// "shard-000042.h5" -> 42 (prefix "shard-"); any other name -> nullopt.
std::optional<std::uint64_t> parse_shard_name(const fs::path& file, const std::string& prefix) {
  const std::string name = file.filename().string();
  if (!name.starts_with(prefix)) return {};
  std::uint64_t id = 0;
  const char* begin = name.data() + prefix.size();
  const auto [ptr, ec] = std::from_chars(begin, name.data() + name.size(), id);
  if (ec != std::errc{} || ptr == begin || shard_file_name(prefix, id) != name) return {};
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

// Throws std::invalid_argument for rows the readers would refuse as damaged.
PendingFile write_shard_file(const fs::path& target, const ShardData& shard, const RootAttributes& attrs) {
  std::optional<std::uint64_t> last;
  if (const std::string why = rows_problem(shard.rows.data(), shard.rows.size(), 0, last); !why.empty())
    throw std::invalid_argument("cannot write " + target.string() + ": " + why);
  std::error_code ec;
  fs::create_directories(target.parent_path(), ec);
  if (ec) throw_errno("cannot create directory " + target.parent_path().string(), ec.value());
  RootAttributes all = attrs;
  all.schema_version = schema_version();
  all.shard_id = static_cast<std::int64_t>(shard.shard_id);
  return write_pending(target, [&](const h5::Handle& file) {
    write_attributes(file, all, AttributeFiles::shard);
    write_cases(file, shard.rows);
    const h5::Handle group = h5::create_group(file, "failures");
    for (const FailureRecord& f : shard.failures) h5::write_int32s(group, failure_name(f.case_id), f.q);
  });
}

// The `launches` table: one packed compound of launch_columns(), and its row size.
std::pair<h5::Handle, std::size_t> launch_type() {
  std::vector<h5::Handle> keep;
  h5::CompoundBuilder builder;
  std::size_t size = 0;
  for (const LaunchColumnInfo& c : launch_columns()) {
    const hid_t type = keep.emplace_back(column_type(c.kind, true, c.bytes)).id();
    builder.append(std::string(c.name), type);
    size += H5Tget_size(type);
  }
  return {builder.build(), size};
}

// Stores the fields of `record` into the packed row at `row` (`store`), or loads them from there:
// text NUL-padded (truncated), a flag as uint8, numbers as they are.
void convert_row(char* row, nlohmann::json& record, bool store) {
  for (const LaunchColumnInfo& c : launch_columns()) {
    nlohmann::json& value = record[std::string(c.name)];
    const auto number = [&]<typename T>(T v) {
      if (store) v = value.get<T>();
      std::memcpy(store ? row : reinterpret_cast<char*>(&v), store ? reinterpret_cast<char*>(&v) : row, sizeof v);
      if (!store) value = v;
      row += sizeof v;
    };
    switch (c.kind) {
      case ColumnKind::u64: number(std::uint64_t{}); break;
      case ColumnKind::u32: number(std::uint32_t{}); break;
      case ColumnKind::i32: number(std::int32_t{}); break;
      case ColumnKind::flag: number(bool{}); break;
      case ColumnKind::text:
        if (store)
          std::memcpy(row, value.get_ref<const std::string&>().data(),
                      std::min(value.get_ref<const std::string&>().size(), c.bytes - 1));
        else
          value = std::string(row, strnlen(row, c.bytes));
        row += c.bytes;
        break;
      default: throw std::logic_error("launch column " + std::string(c.name) + ": no conversion for its kind");
    }
  }
}

void write_launches(const h5::Handle& file, const std::vector<Launch>& launches) {
  const auto [type, size] = launch_type();
  std::vector<char> bytes(launches.size() * size);
  for (std::size_t i = 0; i < launches.size(); ++i) {
    nlohmann::json record = launches[i];
    convert_row(&bytes[i * size], record, true);
  }
  h5::write_dataset(file, "launches", type.id(), type.id(), bytes.data(), launches.size());
}

std::vector<Launch> read_launch_rows(const h5::Handle& file) {
  if (!h5::exists(file, "launches")) return {};
  const h5::Handle dataset = h5::open_dataset(file, "launches");
  const auto [type, size] = launch_type();
  std::vector<char> bytes(h5::length(dataset) * size);
  h5::read_all(dataset, type.id(), bytes.data());
  std::vector<Launch> out;
  for (std::size_t i = 0; i < bytes.size() / size; ++i) {
    nlohmann::json record;
    convert_row(&bytes[i * size], record, false);
    out.push_back(record.get<Launch>());
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
    if (ec != std::errc{} || ptr != end || failure_name(record.case_id) != name)
      throw InputError(file.string() + ": unexpected object /failures/" + text::escaped(name));
    record.q = h5::read_int32s(group, name);
    failures.push_back(std::move(record));
  }
  std::ranges::sort(failures, {}, &FailureRecord::case_id);
  return failures;
}

// A file without checksums: damage in a results directory, else not a result file of this nqc.
[[noreturn]] void refuse_foreign(const fs::path& file, const std::string& detail) {
  if (!damage_advice(file).empty()) throw DamagedFileError(file, detail);
  throw InputError(file.string() + ": not a result file of this nqc (" + detail + ")");
}

using RowBatches = std::function<void(const std::vector<CaseRow>&)>;

// read_result_file inside the HDF5 checks; with `each`, the rows go to it `batch_rows` at a time.
ResultFile read_parts(const fs::path& file, unsigned parts, std::size_t batch_rows, const RowBatches& each) {
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
    RowReader reader(cases, file);  // checks the members
    out.row_count = h5::length(cases);
    // A hostile file can declare any length: refuse what cannot be real.
    if (out.row_count > kMaxReadRows)
      throw InputError(file.string() + ": /cases declares " + std::to_string(out.row_count) + " rows, more than " +
                       std::to_string(kMaxReadRows) + " (damaged file?)");
    if ((parts & kRows) == kRows && !each) {
      out.rows.resize(out.row_count);
      reader.read(out.row_count, out.rows.data());
    }
    for (std::uint64_t first = 0; each && first < out.row_count; first += batch_rows) {
      std::vector<CaseRow> rows(std::min<std::uint64_t>(batch_rows, out.row_count - first));
      reader.read(rows.size(), rows.data());
      each(rows);
    }
  }
  if ((parts & kFailures) != 0) out.failures = read_failure_group(h, file);
  if ((parts & kLaunches) != 0) out.launches = read_launch_rows(h);
  return out;
}

ResultFile read_checked(const fs::path& file, unsigned parts, std::size_t batch_rows = 0, const RowBatches& each = {}) {
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
    return read_parts(file, parts, batch_rows, each);
  } catch (const h5::Error& e) {
    if (e.system()) throw_error(e.code(), e.what());  // the file cannot be opened (permissions): not its content
    throw DamagedFileError(file, e.detail());
  }
}

// result_files, at least one: throws nqc::InputError for a directory with none.
std::vector<fs::path> files_of(const fs::path& path) {
  std::vector<fs::path> files = result_files(path);
  if (files.empty())
    throw InputError(path.string() + ": no result files (expected " + (path / "shards").string() + "/*.h5 or " +
                     (path / "results.h5").string() + ")");
  return files;
}

}  // namespace

std::string implausible(const CaseRow& r) {
  // The enum columns: each code one of its column's names.
  static const auto enums = [] {
    std::vector<std::pair<ColumnInfo, std::vector<std::string>>> out;
    for (const ColumnInfo& c : case_columns())
      if (!column_value_names(c.kind).empty()) out.emplace_back(c, column_value_names(c.kind));
    return out;
  }();
  for (const auto& [c, names] : enums) {
    const auto byte = *(reinterpret_cast<const unsigned char*>(&r) + c.offset);
    const int code = c.kind == ColumnKind::outcome ? static_cast<std::int8_t>(byte) : byte;
    if (code >= 0 && static_cast<std::size_t>(code) < names.size()) continue;
    std::string expected;
    for (std::size_t i = 0; i < names.size(); ++i)
      expected += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + std::to_string(i) + " (" + names[i] + ")";
    return std::string(c.name) + " = " + std::to_string(code) + ", expected " + expected;
  }
  if (r.n < 1 || r.n > kMaxBoardSize) return "n = " + std::to_string(r.n) + " is not a board size " + kBoardSizes;
  if (r.k < 0 || r.k > r.n) return "k = " + std::to_string(r.k) + " queens, expected 0..n = 0.." + std::to_string(r.n);
  if (!std::isfinite(r.wall_s) || r.wall_s < 0 || !std::isfinite(r.cpu_s) || r.cpu_s < 0)
    return "wall_s = " + std::to_string(r.wall_s) + ", cpu_s = " + std::to_string(r.cpu_s) + ", expected seconds >= 0";
  // A derived case has a completion: never infeasible, a false negative exactly when gave_up.
  const auto origin = static_cast<Origin>(r.origin);
  const bool derived = origin == Origin::derived;
  if (derived && r.outcome == static_cast<std::int8_t>(Outcome::infeasible))
    return "a derived case (it has a completion) recorded infeasible";
  const int expected = derived && r.outcome == static_cast<std::int8_t>(Outcome::gave_up) ? 1 : 0;
  if (r.false_negative != expected)
    return "false_negative = " + std::to_string(r.false_negative) + " for a " +
           (derived ? std::string("derived case") : "case of origin " + std::string(kOriginNames[r.origin])) +
           " that " + to_string(static_cast<Outcome>(r.outcome)) + ", expected " + std::to_string(expected);
  if ((origin == Origin::instance) != (r.instance[0] != '\0'))
    return std::string("origin ") + kOriginNames[r.origin].data() +
           (origin == Origin::instance ? " without" : " with") + " an instance file";
  const bool canonical = origin == Origin::canonical;
  const std::uint32_t o = r.orbit_size;
  if (canonical ? o != 1 && o != 2 && o != 4 && o != 8 : o != 0)
    return "orbit_size = " + std::to_string(o) + ", expected " +
           (canonical ? std::string("1, 2, 4 or 8 for a canonical case")
                      : "0 for a case of origin " + std::string(kOriginNames[r.origin]));
  return "";
}

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

ResultFile read_result_file(const std::filesystem::path& file, unsigned parts) { return read_checked(file, parts); }

void read_rows_in_batches(const std::filesystem::path& file, std::size_t batch_rows,
                          const std::function<void(const std::vector<CaseRow>&)>& each) {
  read_checked(file, kRowCount, batch_rows, each);
}

std::vector<CaseRow> read_rows(const std::filesystem::path& file) { return read_result_file(file, kRows).rows; }

Attributes read_attributes(const std::filesystem::path& file) { return read_result_file(file, kAttributes).attrs; }

std::filesystem::path shard_path(const std::filesystem::path& dir, std::uint64_t shard_id) {
  return dir / "shards" / shard_file_name("shard-", shard_id);
}

std::filesystem::path partial_path(const std::filesystem::path& dir, std::uint64_t shard_id) {
  return dir / "shards" / shard_file_name("partial-", shard_id);
}

void write_shard(const std::filesystem::path& dir, const ShardData& shard, const RootAttributes& attrs) {
  commit_file(write_shard_pending(dir, shard, attrs));
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

std::vector<std::filesystem::path> result_files(const std::filesystem::path& path) {
  std::error_code ec;
  if (!fs::is_directory(path, ec)) return {path};
  if (fs::exists(path / "results.h5")) return {path / "results.h5"};  // throws for a link loop, naming it
  const fs::path& dir = path;
  std::vector<fs::path> files;
  const std::vector<std::uint64_t> done = done_shards(dir);
  for (const std::uint64_t id : done) files.push_back(shard_path(dir, id));
  for (const std::uint64_t id : partial_shards(dir))
    if (!std::binary_search(done.begin(), done.end(), id)) files.push_back(partial_path(dir, id));  // done: superseded
  std::string run_hash;
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

void merge_results(const std::filesystem::path& dir, const RootAttributes& attrs, const ShardCheck& check,
                   std::uint64_t expected_cases, const std::vector<Launch>& launches) {
  const std::vector<std::uint64_t> ids = done_shards(dir);
  if (ids.empty())
    throw InputError(dir.string() + ": no shard files to merge (expected " + (dir / "shards").string() + "/*.h5)");
  RootAttributes all = attrs;
  all.schema_version = schema_version();
  commit_file(write_pending(dir / "results.h5", [&](const h5::Handle& file) {
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
      if (!cases) {
        instance = has_instance(content.rows);
        types = row_types(true, instance);
        cases.emplace(file, "cases", types->file.id(), h5::Layout{kChunkRows, kDeflateLevel});
      } else if (!instance && has_instance(content.rows)) {
        throw InputError(shard.string() +
                         ": holds instance cases, the shard files before it generated ones; results.h5 is not written");
      }
      if (!content.rows.empty() && last && content.rows.front().case_id <= *last) {
        const std::uint64_t first = content.rows.front().case_id;
        throw InputError(first == *last
                             ? dir.string() + ": case " + std::to_string(first) + " appears in more than one shard file"
                             : shard.string() + ": case " + std::to_string(first) + " comes after case " +
                                   std::to_string(*last) +
                                   " (shard files hold ascending case ids); results.h5 is not written");
      }
      if (!content.rows.empty()) last = content.rows.back().case_id;
      cases->append(types->memory.id(), content.rows.data(), content.rows.size());
      for (const FailureRecord& f : content.failures) h5::write_int32s(failures, failure_name(f.case_id), f.q);
    }
    if (expected_cases != 0 && cases->size() != expected_cases)
      throw InputError(dir.string() + ": the shard files hold " + std::to_string(cases->size()) +
                       " cases, the plan has " + std::to_string(expected_cases) + "; results.h5 is not written");
    cases->close();
    h5::write_dataset(file, "shards", H5T_STD_U64LE, H5T_NATIVE_UINT64, ids.data(), ids.size());
    write_launches(file, launches);
  }));
}

std::filesystem::path representative_file(const std::filesystem::path& p) {
  std::error_code ec;
  if (!fs::is_directory(p, ec)) return fs::exists(p, ec) ? p : fs::path();
  const std::vector<fs::path> files = result_files(p);
  return files.empty() ? fs::path() : files.front();
}

std::optional<FailureRecord> find_failure(const std::filesystem::path& path, std::uint64_t case_id) {
  for (const auto& f : files_of(path))
    for (auto& record : read_result_file(f, kFailures).failures)
      if (record.case_id == case_id) return std::move(record);
  return std::nullopt;
}

std::vector<CaseRow> load_rows(const std::filesystem::path& path) {
  const std::vector<fs::path> files = files_of(path);
  std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges;  // each file's ascending case ids
  std::vector<CaseRow> rows;
  for (const fs::path& file : files) {
    const std::vector<CaseRow> part = read_rows(file);
    ranges.emplace_back(part.empty() ? 1 : part.front().case_id, part.empty() ? 0 : part.back().case_id);
    rows.insert(rows.end(), part.begin(), part.end());
  }
  check_disjoint_cases(path, files, ranges);
  std::ranges::stable_sort(rows, {}, &CaseRow::case_id);
  return rows;
}

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
