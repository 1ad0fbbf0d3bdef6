// Result files (HDF5): per-shard files written atomically, and the merged results file.
#pragma once

#include <array>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "experiment/case_row.hpp"
#include "experiment/launches.hpp"
#include "experiment/root_attributes.hpp"
#include "system/durable.hpp"
#include "system/errors.hpp"

namespace nqc {

/// Root attributes of a result file as read, as text (integers in decimal), text_checksum left out.
using Attributes = std::map<std::string, std::string>;

/// DIR/shards/shard-<id, 6 digits>.h5.
std::filesystem::path shard_path(const std::filesystem::path& dir, std::uint64_t shard_id);

/// Writes one shard file durably (.tmp, fsync, rename; schema_version and shard_id set here).
/// Throws std::invalid_argument for rows a reader would refuse, nqc::IoError for a failed write
/// (then no file is left).
void write_shard(const std::filesystem::path& dir, const ShardData& shard, const RootAttributes& attrs);

/// write_shard without the commit_file (system/durable.hpp) that makes it durable and names it.
PendingFile write_shard_pending(const std::filesystem::path& dir, const ShardData& shard, const RootAttributes& attrs);

/// DIR/shards/partial-<id, 6 digits>.h5: the first cases of an interrupted shard, in order.
std::filesystem::path partial_path(const std::filesystem::path& dir, std::uint64_t shard_id);

/// Writes a partial file as write_shard writes a shard file.
void write_partial(const std::filesystem::path& dir, const ShardData& partial, const RootAttributes& attrs);

/// The rows and failures of partial_path(dir, shard_id); throws as read_result_file does.
ShardData read_partial(const std::filesystem::path& dir, std::uint64_t shard_id);

/// Ids of the shards that have a partial file in DIR/shards, ascending.
std::vector<std::uint64_t> partial_shards(const std::filesystem::path& dir);

/// Ids of the shards whose files exist in DIR/shards, ascending ("*.tmp" and partial files ignored).
std::vector<std::uint64_t> done_shards(const std::filesystem::path& dir);

/// A result file that cannot be read as it was written. what(): "FILE: damaged (DETAIL)", then
/// for a file of a results directory what to do (damage_advice).
class DamagedFileError : public InputError {
 public:
  DamagedFileError(const std::filesystem::path& file, const std::string& detail);
  [[nodiscard]] const std::filesystem::path& file() const { return file_; }
  [[nodiscard]] const std::string& detail() const { return detail_; }

 private:
  std::filesystem::path file_;
  std::string detail_;
};

/// For a damaged shard, partial or results.h5 file of a results directory, what to do; else "".
std::string damage_advice(const std::filesystem::path& file);

/// The parts of a result file that read_result_file reads (bits; the root attributes always).
enum ResultParts : unsigned {
  kAttributes = 0,        ///< the root attributes (and the schema version's check)
  kRowCount = 1,          ///< the length of `cases` (its metadata only)
  kRows = 2 | kRowCount,  ///< the rows of `cases`
  kFailures = 4,          ///< the failure compositions
  kEverything = kRows | kFailures,
  kLaunches = 8,  ///< the `launches` table (results.h5)
};

/// What read_result_file read.
struct ResultFile {
  Attributes attrs;
  std::uint64_t row_count = 0;          ///< with kRowCount
  std::vector<CaseRow> rows;            ///< with kRows: in file order
  std::vector<FailureRecord> failures;  ///< with kFailures: by case_id
  std::vector<Launch> launches;         ///< with kLaunches: by id (none in shard files)
};

/// Reads `parts` of one result file. Throws DamagedFileError for damage (an HDF5 failure, a
/// row nqc never writes, unchecksummed metadata in a results directory), nqc::InputError naming
/// the file for one that is not nqc's (or of another schema), h5::Error or nqc::IoError when the
/// system refuses the read.
ResultFile read_result_file(const std::filesystem::path& file, unsigned parts = kEverything);

/// Calls `each` with the rows of one result file, `batch_rows` at a time (as read_result_file).
void read_rows_in_batches(const std::filesystem::path& file, std::size_t batch_rows,
                          const std::function<void(const std::vector<CaseRow>&)>& each);

/// read_result_file with kRows: the rows.
std::vector<CaseRow> read_rows(const std::filesystem::path& file);

/// read_result_file with kAttributes: the root attributes.
Attributes read_attributes(const std::filesystem::path& file);

/// The result files that stand for `path`: the file itself, DIR/results.h5, else DIR's shard
/// files and the partial files of shards not done, in id order. Throws nqc::InputError for a
/// file whose config_hash is not that of DIR/config.json (without one: of the first file).
std::vector<std::filesystem::path> result_files(const std::filesystem::path& path);

/// Throws nqc::InputError when two of `files` hold one case id; `ranges`: each file's smallest
/// and largest case id (first > second for a file without rows).
void check_disjoint_cases(const std::filesystem::path& dir, const std::vector<std::filesystem::path>& files,
                          const std::vector<std::pair<std::uint64_t, std::uint64_t>>& ranges);

/// Checks one shard file before it is merged (throws to refuse it).
using ShardCheck =
    std::function<void(const std::filesystem::path& file, std::uint64_t shard_id, const ResultFile& content)>;

/// Merges the shard files of DIR into DIR/results.h5 atomically, one shard in memory at a time;
/// `check` sees each shard file first, `expected_cases` (when not 0) is the total. Throws
/// nqc::InputError (or what `check` throws) or nqc::IoError; then no results.h5 is written.
void merge_results(const std::filesystem::path& dir, const RootAttributes& attrs, const ShardCheck& check = {},
                   std::uint64_t expected_cases = 0, const std::vector<Launch>& launches = {});

/// The result file whose attributes stand for a path: the file itself, DIR/results.h5, or
/// the first of result_files; empty when there is none.
std::filesystem::path representative_file(const std::filesystem::path& path);

/// The stored composition of case `case_id` under a path (result_files); nullopt when none.
std::optional<FailureRecord> find_failure(const std::filesystem::path& path, std::uint64_t case_id);

/// All rows under a path (result_files), sorted by case_id. Throws nqc::InputError for a path
/// without result files, and as read_result_file and check_disjoint_cases do.
std::vector<CaseRow> load_rows(const std::filesystem::path& path);

/// Why a row is one nqc never writes (an unknown enum code, n, k, seconds, outcome or
/// false_negative impossible for its origin), "" for one it may have written.
std::string implausible(const CaseRow& row);

/// One entry of a results directory: a file, or (`folder`) a directory of files; `marks_run`:
/// a directory that holds it is a results directory.
struct RunFile {
  std::string_view name;
  std::string_view what;
  bool folder;
  bool marks_run;
};

/// A results directory's own entries, which only nqc run writes (result_schema.json's "run_files").
inline constexpr std::array<RunFile, 6> kRunFiles = {{{"results.h5", "its results", false, false},
                                                      {"plan.json", "its plan", false, true},
                                                      {"config.json", "its config", false, false},
                                                      {"shards", "a shard file", true, true},
                                                      {"launches", "a launch record", true, false},
                                                      {"locks", "a lock file", true, false}}};

/// Why `file` may be written by `nqc run` only (a results directory's own file, kRunFiles); "" else.
std::string run_file_refusal(const std::filesystem::path& file);

}  // namespace nqc
