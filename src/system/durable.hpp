// Files made durable before they are named (fsync, rename, fsync of the directory), and a
// background thread to write them in, so that a rank computes while its files are written.
#pragma once

#include <condition_variable>
#include <exception>
#include <filesystem>
#include <functional>
#include <string>
#include <mutex>
#include <thread>
#include <utility>

namespace nqc {

/// A file written under a temporary name, to be renamed to its final name once durable.
struct PendingFile {
  std::filesystem::path tmp;
  std::filesystem::path target;
};

/// Makes `file` durable and names it: fsync(tmp), rename(tmp, target), fsync of target's
/// directory. On failure removes tmp (and target, when the rename may not be durable) and
/// throws nqc::IoError naming the file and the cause ("cannot fsync PATH: REASON", "cannot
/// rename TMP to TARGET: REASON"). POSIX calls only: safe from any thread.
void commit_file(const PendingFile& file);

/// Writes `text` as the whole content of `file` (created or truncated), flushed to the
/// operating system (not synced). Returns 0, or the errno of the failure (EIO when the
/// stream gave none); on failure `file` is removed.
int write_whole_file(const std::filesystem::path& file, const std::string& text);

/// fsync(2) of a file or directory (`flags`: O_RDONLY, or O_RDONLY | O_DIRECTORY). Throws
/// nqc::IoError "cannot fsync PATH: REASON".
void sync_path(const std::filesystem::path& path, int flags);

/// The file an output path names: symbolic links followed (dangling ones too: the file they
/// would create), "." and ".." resolved. A loop, or more than 40 links, gives the path as is
/// (opening it then fails with the system's reason).
std::filesystem::path resolved_output_path(const std::filesystem::path& path);

/// Where a command's output file is written so that a failure leaves what the path held
/// (construct, generate, derive, convert, export, complete -o, randset and aggregate --csv,
/// challenge): for a path that names a regular file or nothing, a new file beside it (under a
/// name of its own, mode 0666 less the umask) that commit() renames onto it; through a
/// symbolic link, onto the link's target (the link stays; a loop is ELOOP, the link kept). The
/// new file takes the mode (and, for root, the owner) of the one it replaces; a hard link to
/// the old file keeps the old content, as with any rename. Anything else that exists (a device
/// such as /dev/full, a FIFO) is written in place: path() is then the path itself. The
/// destructor removes an uncommitted temporary file, and so does SIGINT, SIGTERM or SIGHUP
/// while it is written (where no other handler is set), before the signal ends the process.
/// Not copyable.
class ReplacingOutput {
 public:
  /// A rule on output targets that a layer above io knows: given the file a path names
  /// (resolved_output_path), why it may not be written, or "" when it may.
  using Rule = std::string (*)(const std::filesystem::path& file);
  /// The rule every ReplacingOutput checks first (nqc's: a run's own files, see
  /// run_file_refusal in experiment/results.hpp); set once at start-up.
  static void set_rule(Rule rule);

  /// Throws "TARGET: cannot write: REASON" (nqc::throw_errno's classes: a missing directory is
  /// bad input, ENOSPC or EACCES an IoError) when the temporary file cannot be made, and
  /// nqc::InputError "TARGET: REASON; choose another file" when the rule refuses it.
  explicit ReplacingOutput(const std::filesystem::path& target);
  ~ReplacingOutput();
  ReplacingOutput(const ReplacingOutput&) = delete;
  ReplacingOutput& operator=(const ReplacingOutput&) = delete;
  /// The file to open for writing.
  [[nodiscard]] const std::filesystem::path& path() const { return path_; }
  /// Names the written file: renames the temporary file onto the target (no fsync: a command's
  /// output, not a result). Throws nqc::IoError "TARGET: cannot write: REASON".
  void commit();

 private:
  std::string name_;  // the target as given, for messages
  std::filesystem::path target_, path_;
  bool temporary_ = false;
};

/// Runs jobs one at a time in a background thread (a rank's shard writes must not hold up its
/// cases): the runner hands it each finished shard, whose file the job writes and commits
/// while the next shard runs. At most one job is in flight: submit() first waits
/// for the one before, so memory holds at most one shard being written, and a killed rank
/// loses at most that shard and the one it was running. The error of a job (an
/// nqc::IoError) is rethrown by the next submit() or by finish().
///
/// HDF5 is not thread-safe here: a caller that submits HDF5 work must call finish() before
/// it calls HDF5 itself.
class BackgroundWriter {
 public:
  BackgroundWriter();
  /// Waits for the job in flight (its error is dropped: call finish() to see it).
  ~BackgroundWriter();
  BackgroundWriter(const BackgroundWriter&) = delete;
  BackgroundWriter& operator=(const BackgroundWriter&) = delete;

  /// Waits for the previous job (rethrowing its error), then starts `job`.
  void submit(std::function<void()> job);
  /// Waits for the job in flight; rethrows its error.
  void finish();
  /// CPU seconds the background thread spent in jobs so far (CLOCK_THREAD_CPUTIME_ID).
  [[nodiscard]] double cpu_seconds();

 private:
  void loop();
  std::mutex mutex_;
  std::condition_variable changed_;
  std::function<void()> next_;
  bool busy_ = false, closing_ = false;
  std::exception_ptr error_;
  double cpu_seconds_ = 0;
  std::thread thread_;
};

}  // namespace nqc
