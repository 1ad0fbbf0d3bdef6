// Result files: exact round trips, atomic writes, merging, error messages, and the
// one-line h5py/pandas read (with Debian's /usr/bin/python3).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/engine.hpp"
#include "experiment/result_schema.hpp"
#include "experiment/results.hpp"
#include "system/dir_lock.hpp"
#include "system/errors.hpp"
#include "formats/hdf5.hpp"
#include "formats/hdf5_text.hpp"

namespace nqc {
namespace {

namespace fs = std::filesystem;

// A fresh directory per test, removed afterwards.
class ResultsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("nqc-results-" + std::string(info->name()) + "-" + std::to_string(std::random_device{}()));
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }

  fs::path dir_;
};

CaseRow make_row(std::uint64_t case_id, std::uint64_t shard_id, std::int64_t n) {
  CaseRow row;
  row.case_id = case_id;
  row.shard_id = shard_id;
  row.n = n;
  row.k = n / 2;
  row.solution_id = case_id / 3;
  row.composition_id = case_id % 3;
  row.seed = 0x9e3779b97f4a7c15ULL ^ case_id;
  // Rows as a run writes them (plausible: the readers check): every outcome, an infeasible one
  // of an instance file; a generated case that gave up is a false negative.
  row.outcome = static_cast<std::int8_t>(case_id % 3);
  if (row.outcome == 1) {
    row.origin = static_cast<std::uint8_t>(Origin::instance);
    row.instance = fixed_string<256>("/data/instance-" + std::to_string(case_id) + ".txt");
  }
  row.false_negative = row.outcome == 2 ? 1 : 0;
  row.wall_s = 0.25 * static_cast<double>(case_id);
  row.cpu_s = 0.125 * static_cast<double>(case_id);
  row.backtracks = case_id * 7;
  row.nodes = case_id * 11;
  row.placed_random = case_id + 1;
  row.placed_search = case_id + 2;
  row.restarts = case_id + 3;
  row.rank = static_cast<std::int32_t>(case_id % 4);
  row.engine = engine_code("exact");
  row.limit = row.outcome == 2 ? 1 : 0;  // max_nodes, none
  return row;
}

// Rows with extreme values in every field, as far as the rule of result files (implausible) lets them.
std::vector<CaseRow> extreme_rows() {
  CaseRow big = make_row(std::numeric_limits<std::uint64_t>::max(), 7, 1000);
  big.n = kMaxBoardSize;
  big.k = kMaxBoardSize;
  big.solution_id = std::numeric_limits<std::uint64_t>::max() - 1;
  big.composition_id = 1ULL << 63;
  big.seed = 0xffffffffffffffffULL;
  big.outcome = 2;
  big.false_negative = 0;  // an instance case
  big.wall_s = 1e300;
  big.cpu_s = -0.0;
  big.backtracks = std::numeric_limits<std::uint64_t>::max();
  big.nodes = 123456789012345ULL;
  big.rank = std::numeric_limits<std::int32_t>::min();
  big.engine = static_cast<std::uint8_t>(column_value_names(ColumnKind::engine).size() - 1);      // the last engine
  big.limit = static_cast<std::uint8_t>(column_value_names(ColumnKind::stop_reason).size() - 1);  // the last reason
  big.instance = fixed_string<256>(std::string(255, 'p'));  // the longest path a row holds
  big.origin = static_cast<std::uint8_t>(Origin::instance);
  CaseRow neg = make_row(0, 7, 1);
  neg.k = 0;
  neg.outcome = 1;
  neg.wall_s = 1e-300;
  neg.cpu_s = 0.0;
  neg.rank = -1;
  neg.engine = engine_code("minconflicts");
  neg.instance = fixed_string<256>("/data/prob079/diag-10/diag-10-4-1.param");
  neg.origin = static_cast<std::uint8_t>(Origin::instance);
  return {neg, make_row(42, 7, 8), big};
}

void expect_same(const CaseRow& a, const CaseRow& b) {
  EXPECT_EQ(a.case_id, b.case_id);
  EXPECT_EQ(a.shard_id, b.shard_id);
  EXPECT_EQ(a.n, b.n);
  EXPECT_EQ(a.k, b.k);
  EXPECT_EQ(a.solution_id, b.solution_id);
  EXPECT_EQ(a.composition_id, b.composition_id);
  EXPECT_EQ(a.seed, b.seed);
  EXPECT_EQ(a.outcome, b.outcome);
  EXPECT_EQ(a.false_negative, b.false_negative);
  EXPECT_EQ(a.wall_s, b.wall_s);
  EXPECT_EQ(std::signbit(a.cpu_s), std::signbit(b.cpu_s));
  EXPECT_EQ(a.cpu_s, b.cpu_s);
  EXPECT_EQ(a.backtracks, b.backtracks);
  EXPECT_EQ(a.nodes, b.nodes);
  EXPECT_EQ(a.placed_random, b.placed_random);
  EXPECT_EQ(a.placed_search, b.placed_search);
  EXPECT_EQ(a.restarts, b.restarts);
  EXPECT_EQ(a.rank, b.rank);
  EXPECT_EQ(a.engine, b.engine);
  EXPECT_EQ(a.limit, b.limit);
  EXPECT_EQ(a.instance, b.instance);
}

// Runs `f`, which must throw an E, and returns the message ("" and a failure if it throws
// nothing or another kind: InputError (exit 1) for a file's content, IoError (7) for a write).
template <typename E, typename F>
std::string message_of(F f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "another exception than expected: " << e.what();
    return "";
  }
  ADD_FAILURE() << "no exception thrown";
  return "";
}

// Writes a file with the given root attributes and no datasets.
void write_bare_file(const fs::path& path, const Attributes& attrs) {
  h5::Handle file = h5::create_file(path);
  for (const auto& [name, value] : attrs) h5::write_string_attribute(file, name, value);
  file.close();
}

TEST(ShardPath, SixDigitsAtLeast) {
  EXPECT_EQ(shard_path("/r", 3), fs::path("/r/shards/shard-000003.h5"));
  EXPECT_EQ(shard_path("/r", 1234567), fs::path("/r/shards/shard-1234567.h5"));
}

TEST_F(ResultsTest, RowsRoundTripExactly) {
  const ShardData shard{7, extreme_rows(), {}};
  write_shard(dir_, shard, {.hostname = "node01"});
  const std::vector<CaseRow> back = read_rows(shard_path(dir_, 7));
  ASSERT_EQ(back.size(), 3U);
  for (std::size_t i = 0; i < back.size(); ++i) expect_same(back[i], shard.rows[i]);  // file order
  EXPECT_EQ(engine_name(back[2].engine), engine_infos().back().name);
  EXPECT_EQ(engine_name(back[0].engine), "minconflicts");
  EXPECT_EQ(std::string(back[2].instance.data()), std::string(255, 'p'));
  EXPECT_EQ(std::string(back[0].instance.data()), "/data/prob079/diag-10/diag-10-4-1.param");
  EXPECT_EQ(back[2].outcome, 2);
  EXPECT_EQ(back[0].outcome, 1);
  EXPECT_FALSE(fs::exists(shard_path(dir_, 7).string() + ".tmp"));
}

TEST_F(ResultsTest, FailuresRoundTripSortedByCaseId) {
  const ShardData shard{1, {make_row(2, 1, 8)}, {{33, {1, 3, 0, 0}}, {2, {}}, {10, {-7, 2147483647}}}};
  write_shard(dir_, shard, {});
  const std::vector<FailureRecord> back = read_result_file(shard_path(dir_, 1), kFailures).failures;
  ASSERT_EQ(back.size(), 3U);
  EXPECT_EQ(back[0].case_id, 2U);
  EXPECT_TRUE(back[0].q.empty());
  EXPECT_EQ(back[1].case_id, 10U);
  EXPECT_EQ(back[1].q, (std::vector<std::int32_t>{-7, 2147483647}));
  EXPECT_EQ(back[2].case_id, 33U);
  EXPECT_EQ(back[2].q, (std::vector<std::int32_t>{1, 3, 0, 0}));
}

// Every root attribute of both kinds of file comes back with its value and the type of
// root_attributes(): text a scalar variable-length UTF-8 string (h5py: str), integers a scalar
// int64; schema_version and shard_id the writer's; text_checksum 1 + 2 uint64 (one heap).
TEST_F(ResultsTest, EveryRootAttributeRoundTripsWithItsType) {
  RootAttributes attrs;
  attrs.schema_version = "9.9";  // the writer's own instead
  attrs.nqc_version = "0.1.0";
  attrs.git_revision = "";
  attrs.config = "{\n  \"name\": \"x\",\n  \"n\": [8, 9]\n}" + std::string(9000, ' ');  // longer than a 4 KiB heap
  attrs.config_hash = "0123456789abcdef";
  attrs.plan_hash = "fedcba9876543210";
  attrs.case_generation = 1;
  attrs.start_utc = "2026-12-01T10:00:00Z";
  attrs.end_utc = "2026-12-01T10:00:00Z";  // the same value twice
  attrs.hostname = "n\303\266de-7";        // UTF-8 "nöde-7"
  attrs.world_size = std::numeric_limits<std::int64_t>::max();
  attrs.rank = std::numeric_limits<std::int64_t>::min();
  attrs.launch = 4294967295;
  attrs.shard_id = 77;  // the shard's own instead
  attrs.launches = 12;
  write_shard(dir_, {4, {make_row(1, 4, 8)}, {}}, attrs);
  merge_results(dir_, attrs);
  const Attributes shard{{"case_generation", "1"},
                         {"config", attrs.config},
                         {"config_hash", "0123456789abcdef"},
                         {"end_utc", "2026-12-01T10:00:00Z"},
                         {"git_revision", ""},
                         {"hostname", "n\303\266de-7"},
                         {"launch", "4294967295"},
                         {"nqc_version", "0.1.0"},
                         {"plan_hash", "fedcba9876543210"},
                         {"rank", "-9223372036854775808"},
                         {"schema_version", schema_version()},
                         {"shard_id", "4"},
                         {"start_utc", "2026-12-01T10:00:00Z"},
                         {"world_size", "9223372036854775807"}};
  EXPECT_EQ(read_attributes(shard_path(dir_, 4)), shard);
  Attributes merged = shard;
  for (const char* only_shards : {"hostname", "launch", "rank", "shard_id", "world_size"}) merged.erase(only_shards);
  merged["launches"] = "12";
  EXPECT_EQ(read_attributes(dir_ / "results.h5"), merged);
  for (const fs::path& path : {shard_path(dir_, 4), dir_ / "results.h5"}) {
    const AttributeFiles kind = path.filename() == "results.h5" ? AttributeFiles::merged : AttributeFiles::shard;
    const h5::Handle file = h5::open_file(path);
    std::vector<std::string> expected;
    for (const AttributeInfo& a : root_attributes()) {
      if (!carries(kind, a.files)) continue;
      const std::string name(a.name);
      expected.push_back(name);
      const h5::Handle attr(H5Aopen(file.id(), name.c_str(), H5P_DEFAULT), H5Aclose);
      ASSERT_TRUE(attr) << path << " " << name;
      const h5::Handle type(H5Aget_type(attr.id()), H5Tclose);
      const h5::Handle space(H5Aget_space(attr.id()), H5Sclose);
      switch (a.type) {
        case AttributeType::text:
          EXPECT_EQ(H5Tget_class(type.id()), H5T_STRING) << name;
          EXPECT_GT(H5Tis_variable_str(type.id()), 0) << name;
          EXPECT_EQ(H5Tget_cset(type.id()), H5T_CSET_UTF8) << name;
          EXPECT_EQ(H5Sget_simple_extent_type(space.id()), H5S_SCALAR) << name;
          break;
        case AttributeType::integer:
          EXPECT_GT(H5Tequal(type.id(), H5T_STD_I64LE), 0) << name;
          EXPECT_EQ(H5Sget_simple_extent_type(space.id()), H5S_SCALAR) << name;
          break;
        case AttributeType::checksum: {
          EXPECT_GT(H5Tequal(type.id(), H5T_STD_U64LE), 0) << name;
          const auto values = h5::read_uint64s_attribute(file, name, 100);
          ASSERT_TRUE(values) << name;
          EXPECT_EQ(values->size() % 2, 1u) << name;
          EXPECT_GE(values->size(), 3u) << name;
          break;
        }
      }
    }
    std::vector<std::string> stored;
    H5Aiterate2(
        file.id(), H5_INDEX_NAME, H5_ITER_INC, nullptr,
        [](hid_t, const char* name, const H5A_info_t*, void* out) {
          static_cast<std::vector<std::string>*>(out)->emplace_back(name);
          return herr_t{0};
        },
        &stored);
    std::sort(expected.begin(), expected.end());
    EXPECT_EQ(stored, expected) << path;  // exactly the attributes of its kind
  }
}

// The bytes of a text attribute's value lie in a global heap collection, outside HDF5's
// checksums: one flipped byte there is damage, found by text_checksum before HDF5 reads it.
TEST_F(ResultsTest, FlippedByteOfATextAttributeIsDamage) {
  RootAttributes attrs;
  attrs.config = "{\"name\": \"flip-me\"}";
  attrs.hostname = "node-17";
  write_shard(dir_, {2, {make_row(1, 2, 8)}, {}}, attrs);
  merge_results(dir_, attrs);
  const auto flip = [](const fs::path& path, const std::string& text) {
    std::string bytes;
    {
      std::ifstream in(path, std::ios::binary);
      bytes.assign(std::istreambuf_iterator<char>(in), {});
    }
    const std::size_t at = bytes.find(text);
    ASSERT_NE(at, std::string::npos) << text;
    ASSERT_EQ(bytes.find(text, at + 1), std::string::npos) << text;  // stored once
    bytes[at + text.size() / 2] ^= 0x20;
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
  };
  flip(shard_path(dir_, 2), "node-17");
  EXPECT_EQ(message_of<InputError>([&] { read_attributes(shard_path(dir_, 2)); }),
            shard_path(dir_, 2).string() +
                ": damaged (the text attributes do not match text_checksum): delete it and run the config again with "
                "--resume (its cases run again)");
  flip(dir_ / "results.h5", "flip-me");
  EXPECT_EQ(message_of<InputError>([&] { load_rows(dir_ / "results.h5"); }),
            (dir_ / "results.h5").string() +
                ": damaged (the text attributes do not match text_checksum): delete it and rebuild it from the shard "
                "files: nqc run " +
                (dir_ / "config.json").string() + " -o " + dir_.string() + " --resume");
}

// A text attribute added after nqc wrote the file is not under text_checksum: the file is not
// as nqc wrote it. One without any text_checksum (written by other tools) is not read.
TEST_F(ResultsTest, TextAttributesNotUnderTheChecksum) {
  write_shard(dir_, {0, {make_row(1, 0, 8)}, {}}, {.nqc_version = "0.1.0"});
  {
    const h5::Handle file(H5Fopen(shard_path(dir_, 0).c_str(), H5F_ACC_RDWR, H5P_DEFAULT), H5Fclose);
    h5::write_variable_string_attribute(file, "note", "added later");
  }
  EXPECT_EQ(message_of<InputError>([&] { read_rows(shard_path(dir_, 0)); }),
            shard_path(dir_, 0).string() +
                ": damaged (the text attributes do not match text_checksum): delete it and run the config again with "
                "--resume (its cases run again)");
  const fs::path other = dir_ / "other.h5";
  {
    h5::Handle file = h5::create_file(other);
    h5::write_variable_string_attribute(file, "schema_version", "2.1");
    h5::write_variable_string_attribute(file, "config", "{}");
    file.close();
  }
  EXPECT_EQ(message_of<InputError>([&] { read_attributes(other); }),
            other.string() + ": not a result file of this nqc (its text attributes have no text_checksum)");
  // text_checksum of another shape, or naming bytes the file does not have.
  const auto with_checksum = [&](const std::vector<std::uint64_t>& values) {
    h5::Handle file = h5::create_file(other);
    h5::write_variable_string_attribute(file, "schema_version", "2.1");
    h5::write_uint64s_attribute(file, "text_checksum", values);
    file.close();
  };
  with_checksum({1, 2});
  EXPECT_EQ(message_of<InputError>([&] { read_attributes(other); }),
            other.string() + ": attribute text_checksum holds 2 values, expected 1 + 2 per heap collection");
  {
    h5::Handle file = h5::create_file(other);
    h5::write_variable_string_attribute(file, "schema_version", "2.1");
    h5::write_int_attribute(file, "text_checksum", 5);
    file.close();
  }
  EXPECT_EQ(message_of<InputError>([&] { read_attributes(other); }),
            other.string() + ": attribute text_checksum is not a 1-D array of at most 2049 uint64");
  with_checksum({1, 1000000000, 5});
  EXPECT_EQ(message_of<InputError>([&] { read_attributes(other); }),
            other.string() + ": damaged (text_checksum names bytes 1000000000..1000000005, beyond the file's end at " +
                std::to_string(fs::file_size(other)) + ")");
  with_checksum({1, 0, 1, 0, 1});
  const std::uint64_t size = fs::file_size(other);
  with_checksum({1, 0, size, 0, size});  // each within the file, both not
  ASSERT_EQ(fs::file_size(other), size);
  EXPECT_EQ(message_of<InputError>([&] { read_attributes(other); }),
            other.string() + ": damaged (text_checksum names " + std::to_string(2 * size) +
                " bytes or more, the file has " + std::to_string(size) + ")");
  with_checksum({1});  // no heap named: the value's heap is not checked
  EXPECT_EQ(message_of<InputError>([&] { read_attributes(other); }),
            other.string() + ": damaged (the text attributes do not match text_checksum)");
}

// Attributes written by other tools: fixed-length strings with each padding, and an integer
// attribute (read as its decimal text).
TEST_F(ResultsTest, ReadsFixedLengthStringAttributes) {
  const fs::path path = dir_ / "fixed.h5";
  {
    h5::Handle file = h5::create_file(path);
    const h5::Handle scalar(H5Screate(H5S_SCALAR), H5Sclose);
    const auto write_fixed = [&](const char* name, const char(&text)[9], H5T_str_t pad) {
      const h5::Handle type = h5::fixed_string_type(8);
      ASSERT_GE(H5Tset_strpad(type.id(), pad), 0);
      const h5::Handle attr(H5Acreate2(file.id(), name, type.id(), scalar.id(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
      ASSERT_GE(H5Awrite(attr.id(), type.id(), text), 0);
    };
    write_fixed("schema_version", "2.3\0\0\0\0\0", H5T_STR_NULLPAD);  // schema_version()
    write_fixed("space", "abc     ", H5T_STR_SPACEPAD);
    write_fixed("term", "1234567\0", H5T_STR_NULLTERM);  // full: 7 characters and a NUL
    const int number = 5;
    const h5::Handle attr(H5Acreate2(file.id(), "number", H5T_STD_I32LE, scalar.id(), H5P_DEFAULT, H5P_DEFAULT),
                          H5Aclose);
    ASSERT_GE(H5Awrite(attr.id(), H5T_NATIVE_INT, &number), 0);
    h5::write_string_attribute(file, "variable", "v");
  }
  EXPECT_EQ(read_attributes(path), (Attributes{{"number", "5"},
                                               {"schema_version", schema_version()},
                                               {"space", "abc"},
                                               {"term", "1234567"},
                                               {"variable", "v"}}));
}

TEST_F(ResultsTest, EmptyShardIsWritableAndReadable) {
  write_shard(dir_, {0, {}, {}}, {});
  EXPECT_TRUE(read_rows(shard_path(dir_, 0)).empty());
  EXPECT_TRUE(read_result_file(shard_path(dir_, 0), kFailures).failures.empty());
  EXPECT_EQ(done_shards(dir_), (std::vector<std::uint64_t>{0}));
  EXPECT_TRUE(load_rows(dir_).empty());
}

TEST_F(ResultsTest, DoneShardsIgnoresTmpAndOtherFiles) {
  EXPECT_TRUE(done_shards(dir_).empty());  // no shards directory yet
  write_shard(dir_, {5, {make_row(50, 5, 9)}, {}}, {});
  write_shard(dir_, {2, {make_row(20, 2, 9)}, {}}, {});
  std::ofstream(dir_ / "shards" / "shard-000009.h5.tmp") << "partial";
  std::ofstream(dir_ / "shards" / "notes.txt") << "x";
  fs::create_directory(dir_ / "shards" / "shard-000011.h5");  // a directory, not a shard
  EXPECT_EQ(done_shards(dir_), (std::vector<std::uint64_t>{2, 5}));
}

TEST_F(ResultsTest, MergeStreamsTheShardsInIdOrder) {
  // Shards of consecutive case ids (as make_plan gives them), written out of order; the
  // merge appends them in id order, which is case order.
  const std::vector<std::vector<std::uint64_t>> ids{{0, 1, 2}, {3, 4, 5, 6}, {7, 8, 9, 10}};
  for (std::uint64_t s : {2, 0, 1}) {
    ShardData shard{s, {}, {{ids[s][1], {static_cast<std::int32_t>(s) + 1}}}};
    for (std::uint64_t id : ids[s]) shard.rows.push_back(make_row(id, s, 8 + static_cast<std::int64_t>(s)));
    write_shard(dir_, shard, {.start_utc = "2024-01-01T00:00:00Z"});
  }
  Launch launch;
  launch.id = 3;
  launch.hosts = "node1,node2";
  launch.world_size = 64;
  launch.slurm_array_task = "700_1";
  launch.exit_status = 0;
  launch.merged = true;
  merge_results(dir_, {.nqc_version = "0.1.0"}, {}, 11, {launch});
  const fs::path merged = dir_ / "results.h5";
  const std::vector<CaseRow> rows = read_rows(merged);
  ASSERT_EQ(rows.size(), 11U);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i].case_id, i);
    const std::uint64_t s = rows[i].shard_id;
    expect_same(rows[i], make_row(i, s, 8 + static_cast<std::int64_t>(s)));
  }
  const std::vector<FailureRecord> failures = read_result_file(merged, kFailures).failures;
  ASSERT_EQ(failures.size(), 3U);
  EXPECT_EQ(failures[0].case_id, 1U);
  EXPECT_EQ(failures[0].q, (std::vector<std::int32_t>{1}));
  EXPECT_EQ(failures[1].case_id, 4U);
  EXPECT_EQ(failures[2].case_id, 8U);
  EXPECT_EQ(read_attributes(merged), (Attributes{{"case_generation", "0"},
                                                 {"config", ""},
                                                 {"config_hash", ""},
                                                 {"end_utc", ""},
                                                 {"git_revision", ""},
                                                 {"launches", "0"},
                                                 {"nqc_version", "0.1.0"},
                                                 {"plan_hash", ""},
                                                 {"schema_version", schema_version()},
                                                 {"start_utc", ""}}));
  const std::vector<Launch> back = read_result_file(merged, kLaunches).launches;
  ASSERT_EQ(back.size(), 1U);
  EXPECT_EQ(back[0].id, 3U);
  EXPECT_EQ(back[0].hosts, "node1,node2");
  EXPECT_EQ(back[0].world_size, 64);
  EXPECT_EQ(back[0].slurm_array_task, "700_1");
  EXPECT_EQ(back[0].exit_status, 0);
  EXPECT_TRUE(back[0].merged);

  const h5::Handle file = h5::open_file(merged);
  const h5::Handle shards = h5::open_dataset(file, "shards");
  std::vector<std::uint64_t> shard_ids(h5::length(shards));
  h5::read_all(shards, H5T_NATIVE_UINT64, shard_ids.data());
  EXPECT_EQ(shard_ids, (std::vector<std::uint64_t>{0, 1, 2}));

  // A directory reads its shards while it has any, else its merged file.
  EXPECT_EQ(load_rows(dir_).size(), 11U);
  fs::remove_all(dir_ / "shards");
  const std::vector<CaseRow> from_merged = load_rows(dir_);
  ASSERT_EQ(from_merged.size(), 11U);
  EXPECT_EQ(from_merged.back().case_id, 10U);
}

// Shard files whose case ids are not ascending in id order (not what make_plan gives) are
// refused by the streaming merge, naming the case, and nothing is written.
TEST_F(ResultsTest, MergeRefusesCasesOutOfOrderOrTwice) {
  write_shard(dir_, {0, {make_row(0, 0, 8), make_row(5, 0, 8)}, {}}, {});
  write_shard(dir_, {1, {make_row(3, 1, 8)}, {}}, {});
  try {
    merge_results(dir_, {});
    FAIL() << "merged";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              shard_path(dir_, 1).string() +
                  ": case 3 comes after case 5 (shard files hold ascending case ids); results.h5 "
                  "is not written");
  }
  write_shard(dir_, {1, {make_row(5, 1, 8)}, {}}, {});
  try {
    merge_results(dir_, {});
    FAIL() << "merged";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), dir_.string() + ": case 5 appears in more than one shard file");
  }
  EXPECT_FALSE(fs::exists(dir_ / "results.h5"));
  EXPECT_FALSE(fs::exists(dir_ / "results.h5.tmp"));
}

TEST_F(ResultsTest, LoadRowsOfShardsIsSorted) {
  write_shard(dir_, {1, {make_row(3, 1, 8), make_row(5, 1, 8)}, {}}, {});
  write_shard(dir_, {0, {make_row(0, 0, 8), make_row(1, 0, 8)}, {}}, {});
  std::vector<std::uint64_t> ids;
  for (const CaseRow& row : load_rows(dir_)) ids.push_back(row.case_id);
  EXPECT_EQ(ids, (std::vector<std::uint64_t>{0, 1, 3, 5}));
  // Rows out of order in a file are damage (nqc writes each file's cases ascending): its two
  // rows swapped in place (the writer refuses such rows).
  write_shard(dir_, {2, {make_row(7, 2, 8), make_row(9, 2, 8)}, {}}, {});
  {
    const hid_t file = H5Fopen(shard_path(dir_, 2).c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    const hid_t cases = H5Dopen2(file, "cases", H5P_DEFAULT);
    const hid_t type = H5Dget_type(cases);
    std::vector<char> bytes(2 * H5Tget_size(type));
    ASSERT_GE(H5Dread(cases, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, bytes.data()), 0);
    std::rotate(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(bytes.size() / 2), bytes.end());
    ASSERT_GE(H5Dwrite(cases, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, bytes.data()), 0);
    H5Tclose(type);
    H5Dclose(cases);
    H5Fclose(file);
  }
  EXPECT_EQ(message_of<DamagedFileError>([&] { (void)load_rows(dir_); }),
            shard_path(dir_, 2).string() +
                ": damaged (row 1 (case 7): case ids are not ascending (case 9 before it): a result "
                "file holds each case once, in order): delete it and run the config again with --resume (its cases run "
                "again)");
  fs::remove(shard_path(dir_, 2));
  ids.clear();
  for (const CaseRow& row : load_rows(shard_path(dir_, 1))) ids.push_back(row.case_id);
  EXPECT_EQ(ids, (std::vector<std::uint64_t>{3, 5}));
}

TEST_F(ResultsTest, MergeRejectsDuplicateCasesAndNoShards) {
  EXPECT_EQ(message_of<InputError>([&] { merge_results(dir_, {}); }),
            dir_.string() + ": no shard files to merge (expected " + (dir_ / "shards").string() + "/*.h5)");
  write_shard(dir_, {0, {make_row(3, 0, 8)}, {}}, {});
  write_shard(dir_, {1, {make_row(3, 1, 8)}, {}}, {});
  EXPECT_EQ(message_of<InputError>([&] { merge_results(dir_, {}); }),
            dir_.string() + ": case 3 appears in more than one shard file");
  EXPECT_FALSE(fs::exists(dir_ / "results.h5"));
}

// A file written by someone else: members in reverse order, other integer widths, an extra
// member: read by member name, converted by HDF5. Members of another type class (engine and
// limit as strings, as nqc wrote them before schema 2.0) are refused, named.
TEST_F(ResultsTest, ReadsMembersByNameRefusesOtherClasses) {
  struct Foreign {
    char limit[16];
    char engine[16];
    std::uint32_t launch;
    std::int64_t rank;
    double extra, start_s;
    std::uint64_t restarts, placed_search, placed_random, nodes, backtracks;
    double cpu_s, wall_s;
    std::uint8_t false_negative;
    std::int8_t outcome;
    std::uint64_t seed, composition_id, solution_id;
    std::int32_t k, n;
    std::uint64_t shard_id, case_id;
    std::uint16_t orbit_size;
    std::uint8_t origin;
  };
  const fs::path path = dir_ / "foreign.h5";
  const auto write = [&](bool enums) {
    Foreign in{"stop", "exact", 1, -3, 1.5, 2.5, 4, 5, 6, 7, 8, 0.5, 0.75, 1, 2, 99, 10, 11, 12, 13, 14, 15, 0, 0};
    h5::Handle file = h5::create_file(path);
    h5::write_string_attribute(file, "schema_version", schema_version());
    const h5::Handle outcome = h5::int8_enum_type(H5T_NATIVE_INT8, {{"gave_up", 2}, {"solved", 0}, {"infeasible", 1}});
    const h5::Handle flag = h5::enum_type(H5T_NATIVE_UINT8, {"FALSE", "TRUE"});
    const h5::Handle name = h5::fixed_string_type(16);
    h5::CompoundBuilder b;
    const h5::Handle engines = h5::enum_type(H5T_NATIVE_UINT8, column_value_names(ColumnKind::engine));
    const h5::Handle reasons = h5::enum_type(H5T_NATIVE_UINT8, column_value_names(ColumnKind::stop_reason));
    if (enums) {
      in.engine[0] = static_cast<char>(engine_code("exact"));
      in.limit[0] = 3;  // stop
      b.add("limit", offsetof(Foreign, limit), reasons.id()).add("engine", offsetof(Foreign, engine), engines.id());
    } else {
      b.add("limit", offsetof(Foreign, limit), name.id()).add("engine", offsetof(Foreign, engine), name.id());
    }
    b.add("launch", offsetof(Foreign, launch), H5T_NATIVE_UINT32)
        .add("rank", offsetof(Foreign, rank), H5T_NATIVE_INT64);
    b.add("extra", offsetof(Foreign, extra), H5T_NATIVE_DOUBLE)
        .add("start_s", offsetof(Foreign, start_s), H5T_NATIVE_DOUBLE);
    for (const auto& [member, offset] :
         std::vector<std::pair<const char*, std::size_t>>{{"restarts", offsetof(Foreign, restarts)},
                                                          {"placed_search", offsetof(Foreign, placed_search)},
                                                          {"placed_random", offsetof(Foreign, placed_random)},
                                                          {"nodes", offsetof(Foreign, nodes)},
                                                          {"backtracks", offsetof(Foreign, backtracks)},
                                                          {"seed", offsetof(Foreign, seed)},
                                                          {"composition_id", offsetof(Foreign, composition_id)},
                                                          {"solution_id", offsetof(Foreign, solution_id)},
                                                          {"shard_id", offsetof(Foreign, shard_id)},
                                                          {"case_id", offsetof(Foreign, case_id)}})
      b.add(member, offset, H5T_NATIVE_UINT64);
    b.add("cpu_s", offsetof(Foreign, cpu_s), H5T_NATIVE_DOUBLE)
        .add("wall_s", offsetof(Foreign, wall_s), H5T_NATIVE_DOUBLE);
    b.add("false_negative", offsetof(Foreign, false_negative), flag.id())
        .add("outcome", offsetof(Foreign, outcome), outcome.id());
    b.add("k", offsetof(Foreign, k), H5T_NATIVE_INT32).add("n", offsetof(Foreign, n), H5T_NATIVE_INT32);
    const h5::Handle origins = h5::enum_type(H5T_NATIVE_UINT8, column_value_names(ColumnKind::origin));
    b.add("orbit_size", offsetof(Foreign, orbit_size), H5T_NATIVE_UINT16)
        .add("origin", offsetof(Foreign, origin), origins.id());
    const h5::Handle type = b.build(sizeof(Foreign));
    h5::write_dataset(file, "cases", type.id(), type.id(), &in, 1);
    file.close();
  };
  write(false);
  EXPECT_EQ(message_of<InputError>([&] { read_rows(path); }),
            path.string() + ": /cases member 'engine' is a string, expected an enum");
  write(true);
  const std::vector<CaseRow> rows = read_rows(path);
  ASSERT_EQ(rows.size(), 1U);
  CaseRow expected;
  expected.case_id = 15;
  expected.shard_id = 14;
  expected.n = 13;
  expected.k = 12;
  expected.solution_id = 11;
  expected.composition_id = 10;
  expected.seed = 99;
  expected.outcome = 2;
  expected.false_negative = 1;
  expected.wall_s = 0.75;
  expected.cpu_s = 0.5;
  expected.start_s = 2.5;
  expected.backtracks = 8;
  expected.nodes = 7;
  expected.placed_random = 6;
  expected.placed_search = 5;
  expected.restarts = 4;
  expected.rank = -3;
  expected.launch = 1;
  expected.engine = engine_code("exact");
  expected.limit = 3;  // stop
  expect_same(rows[0], expected);
}

TEST_F(ResultsTest, MissingMemberIsNamed) {
  const fs::path path = dir_ / "partial.h5";
  {
    h5::Handle file = h5::create_file(path);
    h5::write_string_attribute(file, "schema_version", schema_version());
    const std::uint64_t id = 1;
    const h5::Handle type = h5::CompoundBuilder{}.append("case_id", H5T_NATIVE_UINT64).build();
    h5::write_dataset(file, "cases", type.id(), type.id(), &id, 1);
    file.close();
  }
  EXPECT_EQ(message_of<InputError>([&] { read_rows(path); }), path.string() + ": /cases has no member 'shard_id'");
}

TEST_F(ResultsTest, SchemaVersionIsChecked) {
  const fs::path v3 = dir_ / "v3.h5";
  write_bare_file(v3, {{"schema_version", "3.0"}});
  EXPECT_EQ(message_of<InputError>([&] { read_rows(v3); }), v3.string() + ": schema version 3.0, this nqc reads " +
                                                                schema_version() +
                                                                " only (read it with the nqc that wrote it)");
  const fs::path none = dir_ / "none.h5";
  write_bare_file(none, {{"hostname", "x"}});
  EXPECT_EQ(message_of<InputError>([&] { read_rows(none); }),
            none.string() + ": not an nqc result file (no schema_version attribute)");
  const fs::path no_cases = dir_ / "no-cases.h5";
  write_bare_file(no_cases, {{"schema_version", schema_version()}});
  EXPECT_EQ(message_of<InputError>([&] { read_rows(no_cases); }), no_cases.string() + ": no cases dataset");
  for (const char* bad : {"2.1", "2", "2.2.0", "02.2", "2.2 ", "1.0", ""}) {
    const fs::path f = dir_ / "bad-version.h5";
    write_bare_file(f, {{"schema_version", bad}});
    EXPECT_EQ(message_of<InputError>([&] { read_rows(f); }), f.string() + ": schema version " + bad +
                                                                 ", this nqc reads " + schema_version() +
                                                                 " only (read it with the nqc that wrote it)")
        << bad;
  }
  const fs::path number = dir_ / "number-version.h5";
  {
    h5::Handle file = h5::create_file(number);
    const h5::Handle scalar(H5Screate(H5S_SCALAR), H5Sclose);
    const h5::Handle attr(
        H5Acreate2(file.id(), "schema_version", H5T_IEEE_F64LE, scalar.id(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
    const double two = 2.0;
    ASSERT_GE(H5Awrite(attr.id(), H5T_NATIVE_DOUBLE, &two), 0);
  }
  EXPECT_EQ(message_of<InputError>([&] { read_rows(number); }),
            number.string() + ": schema_version is not a string (this nqc reads schema " + schema_version() + ")");
}

TEST_F(ResultsTest, NonHdf5FileIsNamed) {
  const fs::path text = dir_ / "rows.csv";
  std::ofstream(text) << "case_id,n\n0,8\n";
  EXPECT_EQ(message_of<InputError>([&] { read_rows(text); }), text.string() + ": not an HDF5 file");
  EXPECT_EQ(message_of<InputError>([&] { load_rows(text); }), text.string() + ": not an HDF5 file");
}

TEST_F(ResultsTest, MissingPathsAreNamed) {
  const fs::path missing = dir_ / "nope";
  EXPECT_EQ(message_of<InputError>([&] { load_rows(missing); }), missing.string() + ": no such file or directory");
  EXPECT_EQ(message_of<InputError>([&] { read_rows(missing / "x.h5"); }),
            (missing / "x.h5").string() + ": no such file or directory");
  EXPECT_EQ(message_of<InputError>([&] { load_rows(dir_); }), dir_.string() + ": no result files (expected " +
                                                                  (dir_ / "shards").string() + "/*.h5 or " +
                                                                  (dir_ / "results.h5").string() + ")");
}

TEST_F(ResultsTest, UnwritableDirectoryThrowsAndLeavesNoFile) {
  const fs::path file = dir_ / "plain-file";
  std::ofstream(file) << "x";
  const fs::path run = file / "run";  // a directory below a regular file cannot exist: a bad path (exit 1)
  const std::string message = message_of<InputError>([&] { write_shard(run, {3, {make_row(1, 3, 8)}, {}}, {}); });
  EXPECT_NE(message.find((run / "shards").string()), std::string::npos) << message;
  EXPECT_FALSE(fs::exists(shard_path(run, 3)));
}

TEST_F(ResultsTest, Hdf5CreateFailureCarriesTheErrorStack) {
  // The .tmp path is taken by a directory: H5Fcreate fails.
  const fs::path tmp = shard_path(dir_, 3).string() + "." + host_name() + "-" + std::to_string(::getpid()) + ".tmp";
  fs::create_directories(tmp / "keep");
  const std::string message = message_of<IoError>([&] { write_shard(dir_, {3, {make_row(1, 3, 8)}, {}}, {}); });
  // One short line: the system's error text, the innermost function, the API call.
  EXPECT_EQ(message.rfind("cannot create " + tmp.string() + ": Is a directory (", 0), 0U) << message;
  EXPECT_NE(message.find("; called from H5Fcreate())"), std::string::npos) << message;
  EXPECT_LT(message.size(), tmp.string().size() + 120) << message;
  EXPECT_FALSE(fs::exists(shard_path(dir_, 3)));
  EXPECT_TRUE(done_shards(dir_).empty());
}

TEST_F(ResultsTest, FailedWriteRemovesTheTmpFile) {
  // Two failure records for one case: the second dataset cannot be created mid-write.
  const ShardData shard{6, {make_row(1, 6, 8)}, {{1, {1}}, {1, {2}}}};
  const std::string message = message_of<IoError>([&] { write_shard(dir_, shard, {}); });
  const std::string tmp = shard_path(dir_, 6).string() + "." + host_name() + "-" + std::to_string(::getpid()) + ".tmp";
  EXPECT_EQ(message, tmp +
                         ": cannot create dataset /failures/case-1: name already exists (H5L__link_cb(): name "
                         "already exists; called from H5Dcreate2())");
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  EXPECT_FALSE(fs::exists(tmp));
  EXPECT_FALSE(fs::exists(shard_path(dir_, 6)));
}

TEST_F(ResultsTest, InvalidOutcomeIsRejected) {
  CaseRow row = make_row(6, 0, 8);
  row.outcome = 7;
  const std::string message = message_of<std::invalid_argument>([&] {
    write_shard(dir_, {0, {row}, {}}, {});
  });  // a bug, not input
  EXPECT_EQ(message, "cannot write " + shard_path(dir_, 0).string() +
                         ": row 0 (case 6): outcome = 7, expected 0 (solved), 1 (infeasible) or 2 (gave_up)");
  EXPECT_FALSE(fs::exists(shard_path(dir_, 0)));
}

TEST_F(ResultsTest, PandasReadsCasesInOneLine) {
  if (std::system("/usr/bin/python3 -c 'import h5py, pandas' >/dev/null 2>&1") != 0) {
    GTEST_SKIP() << "/usr/bin/python3 lacks h5py or pandas";
  }
  ShardData shard{0, {}, {}};
  for (std::uint64_t id = 0; id < 5000; ++id)
    shard.rows.push_back(make_row(id, 0, 8 + static_cast<std::int64_t>(id % 5)));
  write_shard(dir_, shard, {});
  // docs/results.md's lines ("Reading a run"): enums named from the file's own types, false_negative a
  // bool, integer attributes integers.
  const std::string script = dir_.string() + "/read.py";
  std::ofstream(script)
      << "import h5py, pandas as pd\n"
         "with h5py.File('"
      << shard_path(dir_, 0).string()
      << "') as f:\n"
         "    cases = f['cases']\n"
         "    df = pd.DataFrame(cases[()])\n"
         "    for c in ('outcome', 'engine', 'limit'):\n"
         "        df[c] = df[c].map({v: k for k, v in h5py.check_enum_dtype(cases.dtype[c]).items()})\n"
         "    shard = f.attrs['shard_id']\n"
         "print(len(df), int(df['n'].sum()), df['engine'][0], df['limit'][2], df['limit'][1], df['outcome'][2],\n"
         "      df['false_negative'].dtype, int(df['false_negative'].sum()), type(shard).__name__, shard,\n"
         "      int(df['case_id'][4999]), ','.join(df.columns))\n";
  const std::string command = "/usr/bin/python3 " + script;
  FILE* pipe = popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::array<char, 1024> buffer{};
  std::string output;
  while (std::fgets(buffer.data(), static_cast<int>(buffer.size()), pipe) != nullptr) output += buffer.data();
  ASSERT_EQ(pclose(pipe), 0) << output;
  // n = 8 + id % 5 over 5000 rows: 5000 * 8 + 1000 * (0 + 1 + 2 + 3 + 4).
  EXPECT_EQ(
      output,
      "5000 50000 exact max_nodes none gave_up bool 1666 int64 0 4999 case_id,shard_id,n,k,solution_id,composition_id,"
      "seed,wall_s,cpu_s,start_s,backtracks,nodes,placed_random,placed_search,restarts,rank,launch,orbit_size,outcome,"
      "false_negative,engine,limit,origin,instance\n");
}

}  // namespace
}  // namespace nqc
