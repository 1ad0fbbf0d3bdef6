// One owner per results directory: launches of `nqc run` claim the directory, or
// their part of it, with lock files that name the holder.
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

/// The directory is held by another live launch. The message is one line naming the holder
/// (host, PID, Slurm job, start time, what it holds) and what to do.
class LockHeldError : public InputError {
 public:
  using InputError::InputError;
};

/// Who holds a lock: written into the lock file as JSON, read back for messages.
struct LockHolder {
  std::string scope;          ///< "all" or "part-I-of-K"
  std::string host;           ///< gethostname()
  long long pid = 0;          ///< the holder's process
  long long start_ticks = 0;  ///< the process's start time (/proc/PID/stat field 22): PID reuse is not a holder
  std::string slurm_job;      ///< SLURM_JOB_ID, with _TASK for an array task ("" outside Slurm)
  std::string since_utc;      ///< when the lock was taken, ISO 8601
};

/// An exclusive claim on DIR, or on one part of its plan, held until destruction (every exit
/// path: return, exception, a handled signal that ends the run normally).
///
/// Lock files live in DIR/locks/: `all.lock` for a whole run or a merge (no --part), and
/// `part-I-of-K.lock` for `--part I/K`. Each is created whole under a temporary name and
/// linked to its final name (link(2): atomic, and safe on NFS, where O_EXCL is not always),
/// so a second launch of the same scope fails at once. A new lock then checks the others:
/// `all` conflicts with every other lock, and parts conflict with `all` and with parts of
/// another K (their shards overlap); parts I/K and J/K (I != J) share the directory. When two
/// conflicting launches start in the same instant each may see the other and both refuse:
/// nothing is touched, and relaunching one of them works.
///
/// A lock whose holder ran on this host and is gone (no such PID, a zombie, or a PID with
/// another start time) is stale, and so is one of an earlier attempt of this Slurm job (the
/// same job id, a lower SLURM_RESTART_COUNT: requeued, maybe onto other nodes): it is
/// removed, with a warning left to the caller, and the claim retried.
/// A lock of another host cannot be checked from here: it is refused, and the message says to
/// remove the file if that launch is known to be dead (a kill -9 on another node).
class DirectoryLock {
 public:
  /// Claims `scope` ("all" or "part-I-of-K") in `dir` (which must exist). Throws
  /// LockHeldError naming the holder, or IoError "DIR: cannot write to the results
  /// directory: REASON" when DIR/locks cannot be written.
  /// `stale_removed`, when given, receives the message about a stale lock that was removed.
  DirectoryLock(const std::filesystem::path& dir, const std::string& scope, std::string* stale_removed = nullptr);
  ~DirectoryLock();
  DirectoryLock(const DirectoryLock&) = delete;
  DirectoryLock& operator=(const DirectoryLock&) = delete;

  /// This lock's file.
  [[nodiscard]] const std::filesystem::path& file() const { return file_; }

  /// The scope of a run: "all" for parts = 1 (no --part), "part-I-of-K" for part I of K.
  static std::string scope_of(std::uint64_t part, std::uint64_t parts);

  /// Reads a lock file; nullopt when it is gone or not a lock nqc wrote.
  static std::optional<LockHolder> read(const std::filesystem::path& file);

 private:
  std::filesystem::path file_;
};

}  // namespace nqc
