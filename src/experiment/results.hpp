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

/// Root attributes of a result file as read, as text: root_attributes() (result_schema.hpp)
/// lists those nqc writes (schema_version, nqc_version, git_revision, config, config_hash,
/// plan_hash, case_generation, start_utc, end_utc; shard files: hostname, world_size, rank,
/// launch, shard_id; results.h5: launches). Integers (int64) come as decimal text;
/// text_checksum, which checks the text ones before they are read, is left out. Writers take
/// a RootAttributes (root_attributes.hpp).
using Attributes = std::map<std::string, std::string>;

/// Path of the file that holds shard `shard_id`: DIR/shards/shard-<id, 6 digits>.h5.
std::filesystem::path shard_path(const std::filesystem::path& dir, std::uint64_t shard_id);

/// Writes one shard durably: to "<path>.tmp", flushed and fsync'ed, then renamed into
/// place, so that a file at shard_path() is always complete. Layout: the root attributes of
/// shard files (root_attributes()) from `attrs`, schema_version and shard_id set here; dataset `cases` (compound of
/// CaseRow, chunked, deflate); group `failures` with one int32 dataset `case-<case_id>` per failure. Throws
/// nqc::IoError naming the path and the HDF5 error stack (or the system's reason) on any failure (then no file is left
/// at the final path).
void write_shard(const std::filesystem::path& dir, const ShardData& shard, const RootAttributes& attrs);

/// write_shard without the last step: the file is written and closed under its temporary
/// name, and commit_file (system/durable.hpp; or a BackgroundWriter) makes it durable and names
/// it. Throws nqc::IoError (then no temporary file is left).
PendingFile write_shard_pending(const std::filesystem::path& dir, const ShardData& shard, const RootAttributes& attrs);

/// Path of the partial file of shard `shard_id`: DIR/shards/partial-<id, 6 digits>.h5, the
/// finished cases of an interrupted shard (its first cases, in order).
std::filesystem::path partial_path(const std::filesystem::path& dir, std::uint64_t shard_id);

/// Writes the finished cases of an interrupted shard to partial_path(), atomically, in the
/// layout of write_shard (root attributes from `attrs`). Throws nqc::IoError.
void write_partial(const std::filesystem::path& dir, const ShardData& partial, const RootAttributes& attrs);

/// Reads partial_path(dir, shard_id): rows (file order) and failures. Throws as
/// read_result_file does.
ShardData read_partial(const std::filesystem::path& dir, std::uint64_t shard_id);

/// Ids of the shards that have a partial file in DIR/shards.
std::vector<std::uint64_t> partial_shards(const std::filesystem::path& dir);

/// Ids of the shards whose files exist in DIR/shards (complete by construction);
/// leftover "*.tmp" files and partial files are ignored.
std::vector<std::uint64_t> done_shards(const std::filesystem::path& dir);

/// A result file that cannot be read as it was written: a checksum fails (HDF5's, or
/// text_checksum: "the text attributes do not match text_checksum"), it is truncated, or a
/// piece of its metadata is not what HDF5 wrote. what() is one line naming the file,
/// "FILE: damaged (DETAIL)", and for a file of a results directory what to do: a shard or
/// partial file ": delete it and run the config again with --resume (its cases run again)",
/// DIR/results.h5 ": delete it and rebuild it from the shard files: nqc run DIR/config.json -o
/// DIR --resume".
class DamagedFileError : public InputError {
 public:
  DamagedFileError(const std::filesystem::path& file, const std::string& detail);
  [[nodiscard]] const std::filesystem::path& file() const { return file_; }
  [[nodiscard]] const std::string& detail() const { return detail_; }

 private:
  std::filesystem::path file_;
  std::string detail_;
};

/// What to do about a damaged file of a results directory (see DamagedFileError), or "".
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

/// Reads `parts` of one result file (a shard, partial or merged file). Throws
/// DamagedFileError for damage (any failure of the HDF5 library on a file that has the HDF5
/// signature; no signature, HDF5 superblock 0 or 1 (no checksums) or text attributes without
/// text_checksum for a file that a results directory holds), and nqc::InputError naming the
/// file for a file that is not nqc's: missing, not HDF5, no checksums, no schema_version
/// ("FILE: not an nqc result file (no schema_version attribute)"), another schema version
/// ("FILE: schema version 2.1, this nqc reads 2.2 only ..."), no `cases` dataset, a missing
/// member or one of another type class, an outcome other than 0, 1, 2; the system refusing
/// the read (EACCES, EIO): h5::Error or nqc::IoError (exit code 7). The text attributes are
/// read only after text_checksum matches.
ResultFile read_result_file(const std::filesystem::path& file, unsigned parts = kEverything);

/// Calls `each` with the rows of one result file, `batch_rows` at a time in file order, so
/// that a file of any size is read in bounded memory. The same checks and errors as read_result_file.
void read_rows_in_batches(const std::filesystem::path& file, std::size_t batch_rows,
                          const std::function<void(const std::vector<CaseRow>&)>& each);

/// Reads the `cases` rows of one result file (read_result_file with kRows).
std::vector<CaseRow> read_rows(const std::filesystem::path& file);

/// Reads the root attributes of a result file, as text (read_result_file with kAttributes).
Attributes read_attributes(const std::filesystem::path& file);

/// The result files of a run not merged yet, as `nqc info` and `aggregate` read them: DIR's
/// shard files and (with `partials`) the partial files of shards not done, in id order. Each
/// must be the run's: its config_hash that of DIR/config.json (or, without one, of the first
/// file). Throws nqc::InputError "FILE: belongs to another config (config_hash X, the run's
/// Y): move it out of DIR/shards" otherwise (a resume refuses it too).
std::vector<std::filesystem::path> unmerged_run_files(const std::filesystem::path& dir, bool partials);

/// Throws nqc::InputError "DIR: case C is in FILE and in FILE2 (a copy?): ..." when two of
/// `files` hold one case id: `ranges` are each file's smallest and largest case id (shard
/// files hold ascending, disjoint runs of ids), in the order of `files`; a file without rows
/// has first > second.
void check_disjoint_cases(const std::filesystem::path& dir, const std::vector<std::filesystem::path>& files,
                          const std::vector<std::pair<std::uint64_t, std::uint64_t>>& ranges);

/// Reads the stored failure compositions of a result file (empty if none).
std::vector<FailureRecord> read_failures(const std::filesystem::path& file);

/// Checks one shard file before it is merged (throws to refuse it): called with the file,
/// its id and everything read from it.
using ShardCheck =
    std::function<void(const std::filesystem::path& file, std::uint64_t shard_id, const ResultFile& content)>;

/// Merges every shard file of DIR into DIR/results.h5 (written to a .tmp and renamed):
/// the root attributes of results.h5 from `attrs` (schema_version set here), `cases` in case_id order, `shards` (uint64
/// ids of the merged shards), `failures` and `launches`. Streams: the shard files are read one at a time in id order
/// (which is case order) and appended, so memory holds one shard, whatever the study's size. `check` (when given) sees
/// each shard file first; `expected_cases` (when not 0) is the number of rows the merged file must hold. Throws
/// nqc::InputError (or what `check` throws) for a case id that is not above the one before it (a case in two shard
/// files, or shards out of order), a wrong total or a damaged shard file, nqc::IoError for a failed read or write; then
/// no results.h5 is written (nor a .tmp left), and the shard files are untouched.
void merge_results(const std::filesystem::path& dir, const RootAttributes& attrs, const ShardCheck& check = {},
                   std::uint64_t expected_cases = 0, const std::vector<Launch>& launches = {});

/// The result file whose attributes stand for a path: the file itself, DIR/results.h5, or
/// DIR's first shard file; empty when there is none.
std::filesystem::path representative_file(const std::filesystem::path& path);

/// The stored composition of case `case_id` under a path (a result file, or a results
/// directory: its results.h5, else its shard files); nullopt when none is stored.
std::optional<FailureRecord> find_failure(const std::filesystem::path& path, std::uint64_t case_id);

/// All rows under a path: a result file, or a results directory (its results.h5 when the
/// run finished, else the shard files done so far). Sorted by case_id. Throws nqc::InputError when the path does
/// not exist or holds no result file.
std::vector<CaseRow> load_rows(const std::filesystem::path& path);

/// Why a row is one nqc never writes (a board size out of 1..2^31-1, k outside 0..n, seconds
/// not finite or negative, an outcome or false_negative that disagrees with the kind of case);
/// "" for a row nqc may have written.
std::string implausible(const CaseRow& row);

/// One entry of a results directory DIR: DIR/name is a file, or (`folder`) a directory of
/// files; `what` names it (or one of its files) in messages; `marks_run`: a directory that
/// holds it is a results directory.
struct RunFile {
  std::string_view name;
  std::string_view what;
  bool folder;
  bool marks_run;
};

/// A results directory's own entries, which only nqc run writes (run_file_refusal). One
/// table for nqc and, through result_schema.json's "run_files", the analysis' outputs.
inline constexpr std::array<RunFile, 6> kRunFiles = {{{"results.h5", "its results", false, false},
                                                      {"plan.json", "its plan", false, true},
                                                      {"config.json", "its config", false, false},
                                                      {"shards", "a shard file", true, true},
                                                      {"launches", "a launch record", true, false},
                                                      {"locks", "a lock file", true, false}}};

/// Why `file` (a resolved output path) may not be written by any command but `nqc run`: it is
/// one of a results directory's own files (kRunFiles), e.g. "a file of the run in DIR (its
/// results; only nqc run writes it)"; "" for any other file.
std::string run_file_refusal(const std::filesystem::path& file);

}  // namespace nqc
