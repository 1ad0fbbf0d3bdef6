// Provenance of a results directory (issue 14): one record per launch of `nqc run` that
// worked on it, kept in DIR/launches/ while the run goes on and copied into results.h5's
// `launches` table by the merge.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace nqc {

/// One launch of `nqc run` on a results directory (a whole run, a `--part`, a `--resume`, a
/// merge). Times are UTC, ISO 8601. Strings are empty when unknown or not applicable.
struct Launch {
  std::uint32_t id = 0;             ///< 1, 2, ...: the order in which launches registered in DIR
  std::string start_utc;            ///< when the launch took the directory
  std::string end_utc;              ///< when it ended; empty while it runs, or when it was killed
  std::string hosts;                ///< the distinct host names of its ranks, comma-separated
  std::int32_t world_size = 0;      ///< MPI ranks
  std::string nqc_version;
  std::string git_revision;
  std::string slurm_job_id;         ///< SLURM_JOB_ID
  std::string slurm_array_task;     ///< "ARRAYJOB_TASK" for an array task
  std::string slurm_restart_count;  ///< SLURM_RESTART_COUNT (a requeued attempt)
  std::uint64_t part = 0;           ///< --part I/K: I (0-based) ...
  std::uint64_t parts = 1;          ///< ... and K; 1 for a whole run
  std::int32_t exit_status = -1;    ///< nqc's exit code; -1 while it runs, or when it was killed
  std::uint64_t shards_done = 0;    ///< shard files this launch wrote
  std::uint64_t cases_done = 0;     ///< cases this launch ran (a continued shard's earlier cases not counted)
  bool merged = false;              ///< this launch wrote results.h5
};

/// This process's launch: start time now, this host, the Slurm variables of the environment,
/// the given version and revision; id 0 until register_launch.
Launch launch_here(const std::string& nqc_version, const std::string& git_revision, std::uint64_t part,
                   std::uint64_t parts, int world_size);

/// Registers `launch` in DIR/launches/ as the next id (launch-<id, 6 digits>.json, created
/// whole and linked into place: concurrent parts get distinct ids, also on NFS) and sets its
/// id. Throws nqc::IoError "DIR/launches: cannot write: REASON".
void register_launch(const std::filesystem::path& dir, Launch& launch);

/// Rewrites the record of a registered launch (its end, exit status and counts), atomically.
/// Throws nqc::IoError.
void update_launch(const std::filesystem::path& dir, const Launch& launch);

/// Every launch recorded in DIR/launches/, by id. A record that cannot be read is returned
/// with its id and `hosts` = "(record damaged)" (all else unknown: exit_status -1), so that a
/// table built from it stays truthful about what is known; `problems` (when given) receives
/// one line per such record, "FILE: damaged (REASON); launch ID is listed with its id only".
std::vector<Launch> read_launches(const std::filesystem::path& dir, std::vector<std::string>* problems = nullptr);

/// The launch records as JSON text (one object per line), for `nqc info` and tests.
std::string launch_json(const Launch& launch);

}  // namespace nqc
