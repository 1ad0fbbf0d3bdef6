// Provenance of a results directory: one record per launch of `nqc run` in DIR/launches/,
// copied into results.h5's `launches` table by the merge.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace nqc {

// The fields of a launch, declared once:
//   X(name, C++ type, ColumnKind as stored, bytes of a text field (0: not text), default, description)
#define NQC_LAUNCH_COLUMNS(X)                                                                                      \
  X(id, std::uint32_t, u32, 0, 0, "1, 2, ...: the order in which launches registered in the directory")            \
  X(start_utc, std::string, text, 32, {}, "when the launch took the directory (UTC, ISO 8601)")                    \
  X(end_utc, std::string, text, 32, {}, "when it ended; empty while it runs, or when it was killed")               \
  X(hosts, std::string, text, 4096, {},                                                                            \
    "every host with its ranks, in rank order: HOST:RANKS,... (RANKS as ranges joined by +: h0:0-1,h1:2-3)")       \
  X(world_size, std::int32_t, i32, 0, 0, "MPI ranks")                                                              \
  X(nqc_version, std::string, text, 32, {}, "the nqc that ran it")                                                 \
  X(git_revision, std::string, text, 64, {}, "its git revision")                                                   \
  X(slurm_job_id, std::string, text, 32, {}, "SLURM_JOB_ID")                                                       \
  X(slurm_array_task, std::string, text, 32, {}, "ARRAYJOB_TASK for an array task")                                \
  X(slurm_restart_count, std::string, text, 32, {}, "SLURM_RESTART_COUNT (a requeued attempt)")                    \
  X(part, std::uint64_t, u64, 0, 0, "--part I/K: I (0-based)")                                                     \
  X(parts, std::uint64_t, u64, 0, 1, "--part I/K: K; 1 for a whole run")                                           \
  X(exit_status, std::int32_t, i32, 0, -1, "nqc's exit code; -1 while it runs, or when it was killed")             \
  X(shards_done, std::uint64_t, u64, 0, 0, "shard files this launch wrote")                                        \
  X(cases_done, std::uint64_t, u64, 0, 0, "cases this launch ran (a continued shard's earlier cases not counted)") \
  X(merged, bool, flag, 0, false, "this launch wrote results.h5")

/// One launch of `nqc run` on a results directory; strings empty when unknown.
struct Launch {
#define NQC_LAUNCH_MEMBER(name, type, kind, width, init, doc) type name = init;
  NQC_LAUNCH_COLUMNS(NQC_LAUNCH_MEMBER)
#undef NQC_LAUNCH_MEMBER
};

/// This process's launch (now, this host, the Slurm environment); id 0 until register_launch.
Launch launch_here(const std::string& nqc_version, const std::string& git_revision, std::uint64_t part,
                   std::uint64_t parts, int world_size);

/// Registers `launch` in DIR/launches/ as the next id (linked into place: distinct ids for
/// concurrent parts, also on NFS). Throws nqc::IoError.
void register_launch(const std::filesystem::path& dir, Launch& launch);

/// Rewrites the record of a registered launch (its end, exit status and counts), atomically.
/// Throws nqc::IoError.
void update_launch(const std::filesystem::path& dir, const Launch& launch);

/// Every launch recorded in DIR/launches/, by id; an unreadable record as its id with hosts
/// "(record damaged)", and one line about it in `problems` (when given).
std::vector<Launch> read_launches(const std::filesystem::path& dir, std::vector<std::string>* problems = nullptr);

/// A launch as its JSON record (DIR/launches/launch-ID.json): an object of its fields by name.
void to_json(nlohmann::json& j, const Launch& launch);
/// The launch of a JSON record; throws nlohmann::json::exception for a missing or mistyped field.
void from_json(const nlohmann::json& j, Launch& launch);

/// The launch records as JSON text (one object per line), for `nqc info` and tests.
std::string launch_json(const Launch& launch);

}  // namespace nqc
