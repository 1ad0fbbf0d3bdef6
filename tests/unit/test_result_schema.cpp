// The result files' schema as data (experiment/result_schema.hpp): the committed JSON, the
// types files are written with, and schema 1.x files read into the same rows.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/engine.hpp"
#include "experiment/result_schema.hpp"
#include "experiment/results.hpp"
#include "formats/hdf5.hpp"

namespace nqc {
namespace {

namespace fs = std::filesystem;

// Member names of a dataset's compound type, in stored order.
std::vector<std::string> member_names(const h5::Handle& dataset) {
  const h5::Handle type = h5::element_type(dataset);
  std::vector<std::string> names;
  for (int i = 0; i < H5Tget_nmembers(type.id()); ++i) {
    char* name = H5Tget_member_name(type.id(), static_cast<unsigned>(i));
    names.emplace_back(name);
    H5free_memory(name);
  }
  return names;
}

class ResultSchemaTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("nqc-schema-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

CaseRow row(std::uint64_t id) {
  CaseRow r;
  r.case_id = id;
  r.n = 10;
  r.k = 3;
  r.outcome = id % 2 == 0 ? 0 : 2;
  r.false_negative = id % 2 == 0 ? 0 : 1;
  r.engine = engine_code("sat");
  r.limit = id % 2 == 0 ? 0 : 2;  // none, time_limit
  return r;
}

// analysis/result_schema.json is what the Python loader reads; this table is its source.
TEST(ResultSchema, CommittedJsonIsTheGeneratedOne) {
  std::ifstream in(NQC_SOURCE_DIR "/analysis/result_schema.json", std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  EXPECT_TRUE(text.str() == result_schema_json().dump(2) + "\n")
      << "analysis/result_schema.json differs from the result schema: regenerate it with\n"
         "  build/src/cli/nqc info --columns --json > analysis/result_schema.json";
}

TEST(ResultSchema, EnumValuesAreTheirTables) {
  EXPECT_EQ(column_value_names(ColumnKind::outcome), (std::vector<std::string>{"solved", "infeasible", "gave_up"}));
  EXPECT_EQ(column_value_names(ColumnKind::flag), (std::vector<std::string>{"FALSE", "TRUE"}));
  // The engines by their codes (EngineInfo::code), which result files store.
  const std::vector<std::string> engines = column_value_names(ColumnKind::engine);
  EXPECT_EQ(engines, (std::vector<std::string>{"auto", "bitboard", "exact", "grigoryan", "minconflicts", "sat"}));
  for (const EngineInfo& e : engine_infos()) {
    EXPECT_EQ(engines[e.code], e.name);
    EXPECT_EQ(engine_code(e.name), e.code);
    EXPECT_EQ(engine_name(e.code), e.name);
  }
  EXPECT_EQ(engine_name(static_cast<std::uint8_t>(engines.size())), "");
  EXPECT_THROW(engine_code("backtrack"), std::invalid_argument);
  // The stop reasons: core's StopReason, by code.
  const auto reasons = column_value_names(ColumnKind::stop_reason);
  EXPECT_EQ(reasons, (std::vector<std::string>{"none", "max_nodes", "time_limit", "stop", "grigoryan_limits",
                                               "minconflicts_limits"}));
  for (std::size_t code = 0; code < reasons.size(); ++code)
    EXPECT_EQ(to_string(static_cast<StopReason>(code)), reasons[code]);
  EXPECT_EQ(stop_reason_name(static_cast<std::uint8_t>(StopReason::minconflicts_limits)), "minconflicts_limits");
  EXPECT_EQ(stop_reason_name(static_cast<std::uint8_t>(reasons.size())), "");
  for (const ColumnKind k : {ColumnKind::u64, ColumnKind::f64, ColumnKind::text})
    EXPECT_TRUE(column_value_names(k).empty());
}

TEST(ResultSchema, ColumnsAreCaseRowsMembersInOrder) {
  std::size_t end = 0;
  std::set<std::string_view> names;
  for (const ColumnInfo& c : case_columns()) {
    EXPECT_EQ(c.offset, end) << c.name;  // no padding between columns
    end = c.offset + c.size;
    EXPECT_TRUE(names.insert(c.name).second) << c.name;
    EXPECT_FALSE(c.description.empty()) << c.name;
  }
  EXPECT_EQ(end, offsetof(CaseRow, instance) + sizeof(CaseRow::instance));
  EXPECT_EQ(case_columns().size(), 24u);
}

// What a file holds: every column under its name and the kind's HDF5 class; integer root
// attributes as integers.
TEST_F(ResultSchemaTest, FilesStoreEveryColumnWithItsType) {
  CaseRow r = row(0);
  r.instance = fixed_string<256>("a.txt");
  r.origin = static_cast<std::uint8_t>(Origin::instance);
  write_shard(dir_, {0, {r}, {}}, {.hostname = "h", .world_size = 2});
  const h5::Handle file = h5::open_file(shard_path(dir_, 0));
  const h5::Handle cases = h5::open_dataset(file, "cases");
  std::vector<std::string> expected;
  for (const ColumnInfo& c : case_columns()) {
    expected.emplace_back(c.name);
    const H5T_class_t cls = h5::member_class(cases, std::string(c.name));
    const bool is_enum = !column_value_names(c.kind).empty();
    EXPECT_EQ(cls, is_enum                      ? H5T_ENUM
                   : c.kind == ColumnKind::f64  ? H5T_FLOAT
                   : c.kind == ColumnKind::text ? H5T_STRING
                                                : H5T_INTEGER)
        << c.name;
  }
  EXPECT_EQ(member_names(cases), expected);
  EXPECT_EQ(h5::member_class(cases, "nothing"), H5T_NO_CLASS);
  for (const char* name : {"world_size", "shard_id", "hostname", "schema_version"}) {
    const h5::Handle attr(H5Aopen(file.id(), name, H5P_DEFAULT), H5Aclose);
    const h5::Handle type(H5Aget_type(attr.id()), H5Tclose);
    EXPECT_EQ(H5Tget_class(type.id()), attribute_type(name) == AttributeType::integer ? H5T_INTEGER : H5T_STRING)
        << name;
    EXPECT_EQ(H5Tis_variable_str(type.id()) > 0, attribute_type(name) == AttributeType::text) << name;
  }
  EXPECT_EQ(read_attributes(shard_path(dir_, 0)).at("world_size"), "2");
}

// A file whose engine enum has a name this nqc lacks (written by a newer nqc).
TEST_F(ResultSchemaTest, EnumNameOfANewerNqcIsNamed) {
  std::vector<std::string> engines = column_value_names(ColumnKind::engine);
  engines.insert(engines.begin(), "quantum");
  const h5::Handle newer = h5::enum_type(H5T_NATIVE_UINT8, engines);
  const h5::Handle outcome = h5::enum_type(H5T_NATIVE_INT8, column_value_names(ColumnKind::outcome));
  h5::CompoundBuilder b;
  for (const ColumnInfo& c : case_columns()) {
    if (c.kind == ColumnKind::text || c.kind == ColumnKind::stop_reason || c.kind == ColumnKind::flag) continue;
    const hid_t t = c.kind == ColumnKind::engine    ? newer.id()
                    : c.kind == ColumnKind::outcome ? outcome.id()
                    : c.kind == ColumnKind::f64     ? H5T_NATIVE_DOUBLE
                    : c.size == 8                   ? H5T_NATIVE_UINT64
                                                    : H5T_NATIVE_UINT32;
    b.add(std::string(c.name), c.offset, t);
  }
  const h5::Handle flag = h5::enum_type(H5T_NATIVE_UINT8, column_value_names(ColumnKind::flag));
  const h5::Handle reason = h5::enum_type(H5T_NATIVE_UINT8, column_value_names(ColumnKind::stop_reason));
  b.add("false_negative", offsetof(CaseRow, false_negative), flag.id());
  b.add("limit", offsetof(CaseRow, limit), reason.id());
  const h5::Handle type = b.build(sizeof(CaseRow));
  CaseRow r = row(5);
  r.engine = 0;  // "quantum"
  const fs::path path = dir_ / "newer.h5";
  {
    h5::Handle file = h5::create_file(path);
    h5::write_string_attribute(file, "schema_version", schema_version());
    h5::write_dataset(file, "cases", type.id(), type.id(), &r, 1);
    file.close();
  }
  try {
    read_rows(path);
    FAIL() << "no exception";
  } catch (const InputError& e) {
    EXPECT_EQ(
        std::string(e.what()),
        path.string() +
            ": /cases member 'engine' has the value 'quantum', which this nqc does not know (written by a newer nqc?)");
  }
}

// A member whose type cannot be the column's: named with what was expected, not called damage.
TEST_F(ResultSchemaTest, MemberOfTheWrongTypeIsNamed) {
  const fs::path path = dir_ / "wrong.h5";
  CaseRow r = row(0);
  std::vector<h5::Handle> keep;
  h5::CompoundBuilder b;
  for (const ColumnInfo& c : case_columns()) {
    if (c.kind == ColumnKind::text) continue;
    hid_t t = c.kind == ColumnKind::f64 ? H5T_NATIVE_DOUBLE
              : c.size == 8             ? H5T_NATIVE_UINT64
              : c.size == 4             ? H5T_NATIVE_UINT32
                                        : H5T_NATIVE_UINT8;
    if (c.kind == ColumnKind::outcome || c.kind == ColumnKind::flag)
      t = keep.emplace_back(h5::enum_type(H5T_NATIVE_UINT8, column_value_names(c.kind))).id();
    b.add(std::string(c.name), c.offset, t);  // engine and limit: plain uint8 codes
  }
  const h5::Handle type = b.build(sizeof(CaseRow));
  {
    h5::Handle file = h5::create_file(path);
    h5::write_string_attribute(file, "schema_version", schema_version());
    h5::write_dataset(file, "cases", type.id(), type.id(), &r, 1);
    file.close();
  }
  try {
    read_rows(path);
    FAIL() << "no exception";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), path.string() + ": /cases member 'engine' is an integer, expected an enum");
  }
}

// The launches table: every field round trips (texts truncated to their width), merged a
// bool enum.
TEST_F(ResultSchemaTest, LaunchesTableRoundTripsEveryField) {
  Launch a;
  a.id = 3;
  a.start_utc = "2026-12-01T10:00:00Z";
  a.end_utc = "2026-12-01T10:05:00Z";
  a.hosts = std::string(5000, 'h');  // longer than its 4096 bytes
  a.world_size = 64;
  a.nqc_version = "0.1.0";
  a.git_revision = "0123456789ab-dirty";
  a.slurm_job_id = "991";
  a.slurm_array_task = "990_1";
  a.slurm_restart_count = "2";
  a.part = 1;
  a.parts = 4;
  a.exit_status = 4;
  a.shards_done = 17;
  a.cases_done = 12345;
  a.merged = true;
  Launch b;
  b.id = 4;
  write_shard(dir_, {0, {row(0)}, {}}, {});
  merge_results(dir_, {}, {}, 0, {a, b});
  const std::vector<Launch> back = read_result_file(dir_ / "results.h5", kLaunches).launches;
  ASSERT_EQ(back.size(), 2u);
  a.hosts.resize(4095);
  EXPECT_EQ(launch_json(back[0]), launch_json(a));
  EXPECT_EQ(launch_json(back[1]), launch_json(b));
  const h5::Handle file = h5::open_file(dir_ / "results.h5");
  const h5::Handle table = h5::open_dataset(file, "launches");
  std::vector<std::string> names;
  for (const LaunchColumnInfo& c : launch_columns()) names.emplace_back(c.name);
  EXPECT_EQ(member_names(table), names);
  EXPECT_EQ(h5::member_class(table, "merged"), H5T_ENUM);
  EXPECT_EQ(nlohmann::json::parse(launch_json(a)).size(), launch_columns().size());
}

TEST(ResultSchema, TextListsEveryColumnAndAttribute) {
  const std::string text = result_schema_text();
  for (const ColumnInfo& c : case_columns())
    EXPECT_NE(text.find("\n  " + std::string(c.name) + " "), std::string::npos) << c.name;
  for (const AttributeInfo& a : root_attributes())
    EXPECT_NE(text.find("\n  " + std::string(a.name) + " "), std::string::npos) << a.name;
  for (const LaunchColumnInfo& c : launch_columns())
    EXPECT_NE(text.find("\n  " + std::string(c.name) + " "), std::string::npos) << c.name;
  EXPECT_NE(text.find("  hosts                string 4096 bytes  every host with its ranks"), std::string::npos)
      << text;
  EXPECT_NE(text.find("  false_negative       bool               true when a completable"), std::string::npos) << text;
  EXPECT_NE(text.find("(0 solved, 1 infeasible, 2 gave_up)"), std::string::npos);
}

}  // namespace
}  // namespace nqc
