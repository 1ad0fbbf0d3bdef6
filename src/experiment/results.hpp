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

/// Root attributes of a result file as read, as text (integers in decimal), text_checksum left
/// out; root_attributes() (result_schema.hpp) lists them. Writers take a RootAttributes.
using Attributes = std::map<std::string, std::string>;

/// DIR/shards/shard-<id, 6 digits>.h5.
std::filesystem::path shard_path(const std::filesystem::path& dir, std::uint64_t shard_id);

/// Writes one shard durably (to a .tmp, fsync'ed, renamed: a file at shard_path() is always
/// complete) with the root attributes of shard files from `attrs` (schema_version and shard_id
/// set here), `cases` and `failures`. Throws std::invalid_argument for rows a reader would
/// refuse (implausible, case ids not ascending), nqc::IoError naming the path and the HDF5
/// error stack for a failed write (then no file is left).
void write_shard(const std::filesystem::path& dir, const ShardData& shard, const RootAttributes& attrs);

/// write_shard without the last step: commit_file (system/durable.hpp) or a BackgroundWriter
/// makes the closed temporary file durable and names it.
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

/// A result file that cannot be read as it was written (a checksum fails, it is truncated, a
/// row breaks the rule of result files). what(): "FILE: damaged (DETAIL)", then for a file of a
/// results directory what to do (damage_advice).
class DamagedFileError : public InputError {
 public:
  DamagedFileError(const std::filesystem::path& file, const std::string& detail);
  [[nodiscard]] const std::filesystem::path& file() const { return file_; }
  [[nodiscard]] const std::string& detail() const { return detail_; }

 private:
  std::filesystem::path file_;
  std::string detail_;
};

/// For a damaged file of a results directory, what to do: a shard or partial file "delete it
/// and run the config again with --resume (its cases run again)", DIR/results.h5 "delete it
/// and rebuild it from the shard files: nqc run DIR/config.json -o DIR --resume"; else "".
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

/// Reads `parts` of one result file. Throws DamagedFileError for damage: any HDF5 failure on
/// a file with the HDF5 signature, a row that breaks the rule of result files (implausible, or
/// case ids not ascending), and in a results directory no signature, superblock 0 or 1 (no
/// checksums) or text attributes without text_checksum. Throws nqc::InputError naming the file
/// for one that is not nqc's: missing, not HDF5, no checksums, no schema_version, another
/// schema version, no `cases`, a missing member or one of another type class, an enum name
/// this nqc does not know. h5::Error or nqc::IoError (exit 7) when the system refuses the read.
ResultFile read_result_file(const std::filesystem::path& file, unsigned parts = kEverything);

/// Calls `each` with the rows of one result file, `batch_rows` at a time in file order (bounded
/// memory), with the checks and errors of read_result_file.
void read_rows_in_batches(const std::filesystem::path& file, std::size_t batch_rows,
                          const std::function<void(const std::vector<CaseRow>&)>& each);

/// read_result_file with kRows: the rows.
std::vector<CaseRow> read_rows(const std::filesystem::path& file);

/// read_result_file with kAttributes: the root attributes.
Attributes read_attributes(const std::filesystem::path& file);

/// The result files that stand for `path`, as every command reads them: the file itself,
/// DIR/results.h5, else (a run not merged yet) DIR's shard files and the partial files of
/// shards not done (their finished cases), in id order; empty when DIR has none. Throws
/// nqc::InputError "FILE: belongs to another config (config_hash X, the run's Y): move it out
/// of DIR/shards" for a file whose config_hash is not that of DIR/config.json (without one: of
/// the first file).
std::vector<std::filesystem::path> result_files(const std::filesystem::path& path);

/// Throws nqc::InputError "DIR: case C is in FILE and in FILE2 (a copy?): ..." when two of
/// `files` hold one case id; `ranges`: each file's smallest and largest case id (first > second
/// for a file without rows).
void check_disjoint_cases(const std::filesystem::path& dir, const std::vector<std::filesystem::path>& files,
                          const std::vector<std::pair<std::uint64_t, std::uint64_t>>& ranges);

/// Checks one shard file before it is merged (throws to refuse it).
using ShardCheck =
    std::function<void(const std::filesystem::path& file, std::uint64_t shard_id, const ResultFile& content)>;

/// Merges the shard files of DIR into DIR/results.h5 (atomically): root attributes from `attrs`,
/// `cases` in case_id order, `shards`, `failures` and `launches`, one shard file in memory at a
/// time. `check` sees each shard file first; `expected_cases` (when not 0) is the number of rows
/// results.h5 must hold. Throws nqc::InputError (or what `check` throws) for a case id not above
/// the one before it, a wrong total or a damaged shard file, nqc::IoError for a failed read or
/// write; then no results.h5 (nor .tmp) is written and the shard files are untouched.
void merge_results(const std::filesystem::path& dir, const RootAttributes& attrs, const ShardCheck& check = {},
                   std::uint64_t expected_cases = 0, const std::vector<Launch>& launches = {});

/// The result file whose attributes stand for a path: the file itself, DIR/results.h5, or
/// the first of result_files; empty when there is none.
std::filesystem::path representative_file(const std::filesystem::path& path);

/// The stored composition of case `case_id` under a path (a result file, or a results directory:
/// its results.h5, else its shard files); nullopt when none is stored.
std::optional<FailureRecord> find_failure(const std::filesystem::path& path, std::uint64_t case_id);

/// All rows under a path (a result file; a results directory: its results.h5, else its shard
/// files), sorted by case_id. Throws nqc::InputError for a path that does not exist or holds no
/// result file, and as read_result_file and check_disjoint_cases do.
std::vector<CaseRow> load_rows(const std::filesystem::path& path);

/// Why a row is one nqc never writes, "" for one it may have written: an enum code that is not
/// one of its column's (outcome, false_negative, engine, limit), n not a board size, k outside
/// 0..n, wall_s or cpu_s not finite seconds >= 0, a generated case infeasible, or
/// false_negative other than (generated case and gave_up). Rows from any source are checked
/// with it: result files (read and written) and the CSV of `nqc aggregate --rows`.
std::string implausible(const CaseRow& row);

/// One entry of a results directory DIR: DIR/name is a file, or (`folder`) a directory of
/// files; `what` names it in messages; `marks_run`: a directory that holds it is a results directory.
struct RunFile {
  std::string_view name;
  std::string_view what;
  bool folder;
  bool marks_run;
};

/// A results directory's own entries, which only nqc run writes (run_file_refusal); the
/// analysis reads them from result_schema.json's "run_files".
inline constexpr std::array<RunFile, 6> kRunFiles = {{{"results.h5", "its results", false, false},
                                                      {"plan.json", "its plan", false, true},
                                                      {"config.json", "its config", false, false},
                                                      {"shards", "a shard file", true, true},
                                                      {"launches", "a launch record", true, false},
                                                      {"locks", "a lock file", true, false}}};

/// Why `file` (a resolved output path) may not be written by any command but `nqc run`: "a file
/// of the run in DIR (its results; only nqc run writes it)" for a results directory's own file
/// (kRunFiles); "" for any other.
std::string run_file_refusal(const std::filesystem::path& file);

}  // namespace nqc
