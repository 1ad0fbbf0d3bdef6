#include "formats/isolated.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <new>
#include <stdexcept>

#include "system/errors.hpp"
#include "formats/hdf5.hpp"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#include <sanitizer/common_interface_defs.h>
#define NQC_SANITIZED 1
#endif
#endif

namespace nqc {
namespace {

bool write_all(int fd, const std::string& bytes) {
  for (std::size_t at = 0; at < bytes.size();) {
    const ssize_t n = ::write(fd, bytes.data() + at, bytes.size() - at);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    at += static_cast<std::size_t>(n);
  }
  return true;
}

// The child's message: kind, then bytes, detail, error.
std::string message(IsolatedOutcome::Kind kind, const std::string& bytes, const std::string& detail = "",
                    int error = 0) {
  ByteWriter w;
  w.put_value(kind);
  w.put_string(bytes);
  w.put_string(detail);
  w.put_value(error);
  return w.take();
}

// The child's time limit in seconds, in memory the parent shares (run_isolated reports it);
// null outside a child.
unsigned* child_limit = nullptr;

// In the child: runs `work`, sends its result or its error, and exits (no handler, no
// destructor, no atexit function of the parent's runs).
[[noreturn]] void child(const std::function<std::string()>& work, int out, unsigned seconds) {
  // A quiet death: no handler of the parent's (Open MPI prints a backtrace), no output.
  for (const int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGALRM, SIGPIPE}) std::signal(sig, SIG_DFL);
  if (const int null = ::open("/dev/null", O_WRONLY | O_CLOEXEC); null >= 0) {
    ::dup2(null, STDOUT_FILENO);
    ::dup2(null, STDERR_FILENO);
  }
  ::alarm(seconds);
#ifdef NQC_SANITIZED
  // Under a fuzzer (tests/fuzz), its death callback would record the input as a crash of the
  // fuzz target when the sanitizer stops the child: the child's death is this function's
  // result, not a finding.
  __sanitizer_set_death_callback(nullptr);
#endif
  using Kind = IsolatedOutcome::Kind;
  std::string sent;
  try {
    sent = message(Kind::returned, work());
  } catch (const h5::Error& e) {
    sent = message(Kind::hdf5_error, e.what(), e.detail(), e.error());
  } catch (const Error& e) {
    sent = message(Kind::error, e.what(), "", e.code());
  } catch (const std::bad_alloc&) {  // a damaged file's sizes, most likely: reading it failed
    sent = message(Kind::died, "ran out of memory");
  } catch (const std::exception& e) {
    sent = message(Kind::died, std::string("failed: ") + e.what());
  } catch (...) {
    sent = message(Kind::died, "failed");
  }
  ::_exit(write_all(out, sent) ? 0 : 3);
}

IsolatedOutcome outcome_of(IsolatedOutcome::Kind kind, std::string bytes) {
  IsolatedOutcome outcome;
  outcome.kind = kind;
  outcome.bytes = std::move(bytes);
  return outcome;
}

}  // namespace

const char* ByteReader::take(std::size_t n) {
  if (n > bytes_.size() - at_) throw std::runtime_error("the bytes end early");
  const char* p = bytes_.data() + at_;
  at_ += n;
  return p;
}

void isolated_allow_more(unsigned seconds) {
  if (child_limit == nullptr || seconds == 0) return;
  const unsigned left = ::alarm(0);
  ::alarm(left + seconds);
  *child_limit += seconds;
}

namespace {

// Everything the child writes into `fd` until it closes it; closes fd.
std::string read_all(int fd) {
  std::string received;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    received.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return received;
}

// The outcome of a child that ended with wait status `status` after writing `received`;
// `seconds` its limit then.
IsolatedOutcome outcome_of_child(int status, const std::string& received, unsigned seconds) {
  using Kind = IsolatedOutcome::Kind;
  if (WIFSIGNALED(status)) {
    const int signal = WTERMSIG(status);
    if (signal == SIGALRM) return outcome_of(Kind::died, "did not end within " + std::to_string(seconds) + " s");
    const char* abbrev = ::sigabbrev_np(signal);  // "SEGV"
    return outcome_of(Kind::died,
                      std::string("crashed the HDF5 library (") +
                          (abbrev != nullptr ? std::string("SIG") + abbrev : "signal " + std::to_string(signal)) + ")");
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return outcome_of(Kind::died, "crashed the HDF5 library (exit status " + std::to_string(WEXITSTATUS(status)) + ")");
  try {
    ByteReader r(received);
    IsolatedOutcome outcome;
    outcome.kind = r.value<Kind>();
    outcome.bytes = r.string();
    outcome.detail = r.string();
    outcome.error = r.value<int>();
    return outcome;
  } catch (const std::runtime_error&) {
    return outcome_of(Kind::died, "crashed the HDF5 library (its result ends early)");
  }
}

}  // namespace

IsolatedOutcome run_isolated(const std::function<std::string()>& work, unsigned seconds) {
  // The limit, shared with the child (isolated_allow_more raises it there).
  void* shared = ::mmap(nullptr, sizeof(unsigned), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  unsigned* limit = shared == MAP_FAILED ? nullptr : static_cast<unsigned*>(shared);
  if (limit != nullptr) *limit = seconds;
  struct Unmap {
    unsigned* p;
    ~Unmap() {
      if (p != nullptr) ::munmap(p, sizeof(unsigned));
    }
  } unmap{limit};
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) return outcome_of(IsolatedOutcome::Kind::returned, work());
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(pipe_fds[0]);
    ::close(pipe_fds[1]);
    return outcome_of(IsolatedOutcome::Kind::returned, work());  // no child: read it here
  }
  if (pid == 0) {
    ::close(pipe_fds[0]);
    child_limit = limit;
    child(work, pipe_fds[1], seconds);
  }
  ::close(pipe_fds[1]);
  const std::string received = read_all(pipe_fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return outcome_of_child(status, received, limit != nullptr ? *limit : seconds);
}

void rethrow_error(const IsolatedOutcome& outcome) {
  using Kind = IsolatedOutcome::Kind;
  switch (outcome.kind) {
    case Kind::error: throw_error(static_cast<ExitCode>(outcome.error), outcome.bytes);
    case Kind::hdf5_error: throw h5::Error(outcome.bytes, outcome.detail, outcome.error);
    case Kind::returned:
    case Kind::died: return;
  }
}

}  // namespace nqc
