#include "system/durable.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <ctime>
#include <system_error>

#include "system/errors.hpp"

namespace nqc {
namespace fs = std::filesystem;
namespace {

// Always an nqc::IoError (7), whatever the errno: the files made durable here are nqc's own.
[[noreturn]] void throw_io_error(const std::string& what, int error) {
  throw IoError(what + ": " + std::system_category().message(error));
}

// fsync(2) of a file or directory (`flags`: O_RDONLY, or O_RDONLY | O_DIRECTORY).
void sync_path(const std::filesystem::path& path, int flags) {
  const int fd = ::open(path.c_str(), flags | O_CLOEXEC);
  if (fd < 0) {
    const int error = errno;  // before any allocation below
    throw_io_error("cannot open " + path.string() + " to sync it", error);
  }
  const int rc = ::fsync(fd);
  const int error = errno;
  ::close(fd);
  if (rc != 0) throw_io_error("cannot fsync " + path.string(), error);
}

// The temporary file being written (one at a time: commands write their outputs in turn), for
// the signal handler below; "" when none.
char pending_part[4096] = "";
volatile std::sig_atomic_t pending_set = 0;
ReplacingOutput::Rule output_rule = nullptr;

// SIGINT, SIGTERM, SIGHUP while an output is written: its temporary file goes, then the
// signal's default action ends the process as it would have (exit 130 for ^C).
extern "C" void remove_pending_part(int sig) {
  if (pending_set != 0) ::unlink(pending_part);
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

void set_pending(const fs::path& tmp) {
  static const bool installed = [] {
    for (const int sig : {SIGINT, SIGTERM, SIGHUP}) {
      struct sigaction old {};
      // Only where nothing else handles the signal (`nqc run` has its own: it stops and keeps).
      if (::sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_DFL) std::signal(sig, remove_pending_part);
    }
    return true;
  }();
  (void)installed;
  pending_set = 0;
  const std::string& text = tmp.native();
  if (text.size() >= sizeof pending_part) return;
  std::memcpy(pending_part, text.c_str(), text.size() + 1);
  pending_set = 1;
}

}  // namespace

int write_whole_file(const std::filesystem::path& file, const std::string& text) {
  errno = 0;
  std::ofstream out(file, std::ios::trunc | std::ios::binary);
  out << text;
  out.flush();
  if (out) return 0;
  const int error = errno != 0 ? errno : EIO;
  out.close();
  std::error_code ignored;
  fs::remove(file, ignored);
  return error;
}

fs::path resolved_output_path(const fs::path& path) {
  fs::path file = path;
  std::error_code ec;
  for (int links = 0; fs::is_symlink(fs::symlink_status(file, ec)); ++links) {
    if (links == 40) return path;
    const fs::path to = fs::read_symlink(file, ec);
    if (ec) return path;
    file = to.is_absolute() ? to : file.parent_path() / to;
  }
  const fs::path resolved = fs::weakly_canonical(file, ec);
  return ec ? file : resolved;
}

void ReplacingOutput::set_rule(Rule rule) { output_rule = rule; }

ReplacingOutput::ReplacingOutput(const std::filesystem::path& target)
    : name_(target.string()), target_(target), path_(target) {
  if (target.empty()) throw InputError("an output path is empty: give a file name, or - for standard output");
  if (output_rule != nullptr)
    if (const std::string why = output_rule(resolved_output_path(target)); !why.empty())
      throw InputError(name_ + ": " + why + "; choose another file");
  struct stat st {};
  fs::path file = target;
  if (::lstat(target.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
    file = resolved_output_path(target);
    if (file == target) throw_errno(name_ + ": cannot write", ELOOP);  // a loop: the link is not replaced
  }
  const bool exists = ::stat(file.c_str(), &st) == 0;
  if (exists && !S_ISREG(st.st_mode)) return;  // a device, a FIFO: in place
  target_ = file;
  static unsigned counter = 0;
  const fs::path dir = file.has_parent_path() ? file.parent_path() : fs::path(".");
  // ".NAME.PID.N.part" beside it; a name near NAME_MAX (255 bytes) gets a short one.
  const std::string base = file.filename().string().size() <= 200 ? file.filename().string() : "nqc-output";
  for (int attempt = 0;; ++attempt) {
    const fs::path tmp =
        dir / ("." + base + "." + std::to_string(::getpid()) + "." + std::to_string(counter++) + ".part");
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0) {
      // The file it replaces keeps its mode (a private file stays private) and, for root, owner.
      if (exists) {
        (void)::fchmod(fd, st.st_mode & 07777);
        if (::geteuid() == 0) (void)::fchown(fd, st.st_uid, st.st_gid);
      }
      ::close(fd);
      path_ = tmp;
      temporary_ = true;
      set_pending(tmp);
      return;
    }
    const int error = errno;
    if (error == EEXIST && attempt < 100) continue;
    throw_errno(name_ + ": cannot write", error);
  }
}

ReplacingOutput::~ReplacingOutput() {
  if (temporary_) {
    pending_set = 0;
    ::unlink(path_.c_str());
  }
}

void ReplacingOutput::commit() {
  if (!temporary_) return;
  if (::rename(path_.c_str(), target_.c_str()) != 0) {
    const int error = errno;
    // A file the rename cannot replace (a bind mount of one file: EBUSY) is written in place,
    // from the complete temporary file.
    std::error_code ec;
    if ((error != EBUSY && error != EXDEV) ||
        !fs::copy_file(path_, target_, fs::copy_options::overwrite_existing, ec) || ec)
      throw IoError(name_ + ": cannot write: " + std::system_category().message(ec ? ec.value() : error));
    ::unlink(path_.c_str());
  }
  pending_set = 0;
  temporary_ = false;
}

void commit_file(const PendingFile& file) {
  std::error_code ignored;
  try {
    sync_path(file.tmp, O_RDONLY);
    if (::rename(file.tmp.c_str(), file.target.c_str()) != 0) {
      const int error = errno;
      throw_io_error("cannot rename " + file.tmp.string() + " to " + file.target.string(), error);
    }
  } catch (...) {
    fs::remove(file.tmp, ignored);
    throw;
  }
  try {
    sync_path(file.target.has_parent_path() ? file.target.parent_path() : fs::path("."), O_RDONLY | O_DIRECTORY);
  } catch (...) {
    fs::remove(file.target, ignored);  // the rename may not be durable: do not claim the file
    throw;
  }
}

double thread_cpu_seconds() {
  timespec t{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

void BackgroundWriter::submit(std::function<void()> job) {
  finish();
  job_ = std::async(std::launch::async, [this, job = std::move(job)] {
    const double cpu0 = thread_cpu_seconds();
    std::exception_ptr error;
    try {
      job();
    } catch (...) {
      error = std::current_exception();
    }
    cpu_seconds_ += thread_cpu_seconds() - cpu0;
    if (error) std::rethrow_exception(error);
  });
}

}  // namespace nqc
