// One owner per results directory: launches of `nqc run` claim the directory, or their part
// of it, with lock files that name the holder.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "system/errors.hpp"

namespace nqc {

/// The current UTC time, ISO 8601 ("2026-12-01T04:00:00Z"): lock files and result files.
std::string utc_now();

/// This machine's host name (gethostname; "unknown" when it fails).
std::string host_name();

/// The Slurm job this process runs in, from its environment (every field empty outside Slurm).
struct SlurmJob {
  std::string job_id;         ///< SLURM_JOB_ID
  std::string array_task;     ///< "SLURM_ARRAY_JOB_ID_SLURM_ARRAY_TASK_ID" for an array task, else ""
  std::string restart_count;  ///< SLURM_RESTART_COUNT (set in a requeued attempt)
  static SlurmJob here();
  /// "4242", "4240_3", "4242 (restart 2)"; "" outside Slurm.
  [[nodiscard]] std::string describe() const;
};

/// The directory is held by another live launch: one line naming the holder and what to do.
class LockHeldError : public InputError {
 public:
  using InputError::InputError;
};

/// Who holds a lock: the lock file's JSON.
struct LockHolder {
  std::string scope;          ///< "all" or "part-I-of-K"
  std::string host;           ///< gethostname()
  long long pid = 0;          ///< the holder's process
  long long start_ticks = 0;  ///< the process's start time (/proc/PID/stat field 22): PID reuse is not a holder
  std::string slurm_job;      ///< SlurmJob::describe()
  std::string since_utc;      ///< when the lock was taken
};

/// An exclusive claim on DIR, or one part of its plan, until destruction: DIR/locks/all.lock for
/// a whole run or a merge, part-I-of-K.lock for `--part I/K`. `all` conflicts with every lock,
/// parts with `all` and with parts of another K. Two conflicting launches starting in the same
/// instant may both refuse. A lock whose holder ran on this host and is gone (no such PID, a
/// zombie, a PID with another start time), or of an earlier attempt of this Slurm job (lower
/// SLURM_RESTART_COUNT), is stale: removed, the claim retried. Another host's lock is refused
/// (the message says to remove it if that launch is dead).
class DirectoryLock {
 public:
  /// Claims `scope` in `dir` (which must exist). Throws LockHeldError naming the holder, or
  /// IoError "DIR: cannot write to the results directory: REASON". `stale_removed`, when
  /// given, receives the message about a stale lock that was removed.
  DirectoryLock(const std::filesystem::path& dir, const std::string& scope, std::string* stale_removed = nullptr);
  ~DirectoryLock();
  DirectoryLock(const DirectoryLock&) = delete;
  DirectoryLock& operator=(const DirectoryLock&) = delete;

  [[nodiscard]] const std::filesystem::path& file() const { return file_; }

  /// "all" for parts <= 1 (no --part), "part-I-of-K" for part I of K.
  static std::string scope_of(std::uint64_t part, std::uint64_t parts);

  /// Reads a lock file; nullopt when it is gone or not a lock nqc wrote.
  static std::optional<LockHolder> read(const std::filesystem::path& file);

 private:
  std::filesystem::path file_;
};

}  // namespace nqc
