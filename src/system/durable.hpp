// Files made durable before they are named, outputs that replace a file only once whole, and a
// background thread to write files in.
#pragma once

#include <exception>
#include <filesystem>
#include <functional>
#include <future>
#include <string>
#include <utility>

namespace nqc {

/// A file written under a temporary name, to be renamed to its final name once durable.
struct PendingFile {
  std::filesystem::path tmp;
  std::filesystem::path target;
};

/// fsync(tmp), rename(tmp, target), fsync of target's directory. On failure removes tmp (and
/// target when the rename may not be durable) and throws nqc::IoError ("cannot fsync PATH:
/// REASON", "cannot rename TMP to TARGET: REASON"). POSIX calls only: safe from any thread.
void commit_file(const PendingFile& file);

/// Writes `text` as the whole of `file`, flushed (not synced). Returns 0, or the errno of the
/// failure (EIO when none), `file` then removed.
int write_whole_file(const std::filesystem::path& file, const std::string& text);

/// The file an output path names: symbolic links followed (dangling ones too), "." and ".."
/// resolved; a loop or more than 40 links gives the path as is.
std::filesystem::path resolved_output_path(const std::filesystem::path& path);

/// A command's output file, written so that a failure leaves what the path held: a new file
/// beside it (mode 0666 less the umask, or the mode and, for root, owner of the file it
/// replaces) that commit() renames onto it (through a symbolic link: onto its target). A device
/// or FIFO is written in place. The destructor removes an uncommitted temporary file, and so do
/// SIGINT, SIGTERM, SIGHUP while it is written (where no other handler is set).
class ReplacingOutput {
 public:
  /// Why the file a path names (resolved_output_path) may not be written, or "" when it may.
  using Rule = std::string (*)(const std::filesystem::path& file);
  /// The rule every ReplacingOutput checks first (run_file_refusal); set once at start-up.
  static void set_rule(Rule rule);

  /// Throws "TARGET: cannot write: REASON" (as nqc::throw_errno) when the temporary file cannot
  /// be made, nqc::InputError "TARGET: REASON; choose another file" when the rule refuses it.
  explicit ReplacingOutput(const std::filesystem::path& target);
  ~ReplacingOutput();
  ReplacingOutput(const ReplacingOutput&) = delete;
  ReplacingOutput& operator=(const ReplacingOutput&) = delete;
  /// The file to open for writing.
  [[nodiscard]] const std::filesystem::path& path() const { return path_; }
  /// Renames the temporary file onto the target (no fsync). Throws nqc::IoError "TARGET: cannot
  /// write: REASON".
  void commit();

 private:
  std::string name_;  // the target as given, for messages
  std::filesystem::path target_, path_;
  bool temporary_ = false;
};

/// CPU seconds the calling thread has run (CLOCK_THREAD_CPUTIME_ID).
double thread_cpu_seconds();

/// Runs jobs one at a time, each in a thread of its own (a rank's shard files written while it
/// runs the next shard); at most one in flight, so memory holds one shard being written. A job's
/// error (also a thread that cannot start) is rethrown by the next submit() or finish(). HDF5 is
/// not thread-safe here: finish() before calling HDF5 beside HDF5 jobs. The destructor waits
/// for the job in flight (its error is dropped: call finish() to see it).
class BackgroundWriter {
 public:
  BackgroundWriter() = default;
  BackgroundWriter(const BackgroundWriter&) = delete;  // a job in flight holds `this`
  BackgroundWriter& operator=(const BackgroundWriter&) = delete;
  ~BackgroundWriter() {
    if (job_.valid()) job_.wait();
  }
  /// Waits for the previous job (as finish()), then starts `job`. Throws the previous job's
  /// error, or std::system_error when no thread can start.
  void submit(std::function<void()> job);
  /// Waits for the job in flight; rethrows its error.
  void finish() {
    if (job_.valid()) job_.get();
  }
  /// CPU seconds spent in jobs so far, read after finish().
  [[nodiscard]] double cpu_seconds() const { return cpu_seconds_; }

 private:
  std::future<void> job_;
  double cpu_seconds_ = 0;
};

}  // namespace nqc
