// Result files (HDF5): per-shard files written atomically, and the merged results file.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "experiment/case_row.hpp"

namespace nqc {

/// String attributes stored on the root group of every result file: schema_version
/// ("1.0"), nqc_version, git_revision, config (the resolved config JSON), config_hash,
/// hostname, world_size, start_utc, end_utc (ISO 8601), and any others the caller adds.
using Attributes = std::map<std::string, std::string>;

/// Path of the file that holds shard `shard_id`: DIR/shards/shard-<id, 6 digits>.h5.
std::filesystem::path shard_path(const std::filesystem::path& dir, std::uint64_t shard_id);

/// Writes one shard durably: to "<path>.tmp", flushed and fsync'ed, then renamed into
/// place, so that a file at shard_path() is always complete. Layout: root attributes
/// `attrs` plus shard_id; dataset `cases` (compound of CaseRow, chunked, deflate);
/// group `failures` with one int32 dataset `case-<case_id>` per failure.
/// Throws nqc::IoError naming the path and the HDF5 error stack on any failure (then no
/// file is left at the final path).
void write_shard(const std::filesystem::path& dir, const ShardData& shard, const Attributes& attrs);

/// Path of the partial file of shard `shard_id`: DIR/shards/partial-<id, 6 digits>.h5, the
/// finished cases of an interrupted shard (its first cases, in order).
std::filesystem::path partial_path(const std::filesystem::path& dir, std::uint64_t shard_id);

/// Writes the finished cases of an interrupted shard to partial_path(), atomically, in the
/// layout of write_shard (root attributes `attrs` plus shard_id). Throws nqc::IoError.
void write_partial(const std::filesystem::path& dir, const ShardData& partial, const Attributes& attrs);

/// Reads partial_path(dir, shard_id): rows (file order) and failures. Throws nqc::IoError
/// for a file that cannot be read.
ShardData read_partial(const std::filesystem::path& dir, std::uint64_t shard_id);

/// Ids of the shards that have a partial file in DIR/shards.
std::vector<std::uint64_t> partial_shards(const std::filesystem::path& dir);

/// Ids of the shards whose files exist in DIR/shards (complete by construction);
/// leftover "*.tmp" files and partial files are ignored.
std::vector<std::uint64_t> done_shards(const std::filesystem::path& dir);

/// Reads the `cases` rows of one result file (a shard file or a merged file).
/// Throws nqc::IoError naming the file when it cannot be read, has no `cases` dataset, or
/// has another schema major version ("FILE: schema version 2.0, this nqc reads 1.x"), or
/// holds an outcome other than 0, 1, 2.
std::vector<CaseRow> read_rows(const std::filesystem::path& file);

/// Reads the root string attributes of a result file.
Attributes read_attributes(const std::filesystem::path& file);

/// Reads the stored failure compositions of a result file (empty if none).
std::vector<FailureRecord> read_failures(const std::filesystem::path& file);

/// Merges every shard file of DIR into DIR/results.h5 (written to a .tmp and renamed):
/// root attributes `attrs`, `cases` sorted by case_id, `shards` (uint64 ids of the merged
/// shards) and `failures`. Throws nqc::IoError on failure.
void merge_results(const std::filesystem::path& dir, const Attributes& attrs);

/// The result file whose attributes stand for a path: the file itself, DIR/results.h5, or
/// DIR's first shard file; empty when there is none.
std::filesystem::path representative_file(const std::filesystem::path& path);

/// The stored composition of case `case_id` under a path (a result file, or a results
/// directory: its results.h5, else its shard files); nullopt when none is stored.
std::optional<FailureRecord> find_failure(const std::filesystem::path& path, std::uint64_t case_id);

/// All rows under a path: a result file, or a results directory (its results.h5 when the
/// run finished, else the shard files done so far). Sorted by case_id. Throws nqc::IoError when the path does
/// not exist or holds no result file.
std::vector<CaseRow> load_rows(const std::filesystem::path& path);

}  // namespace nqc
