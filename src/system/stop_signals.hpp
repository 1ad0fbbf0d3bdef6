// SIGTERM, SIGINT and SIGUSR1 as a request to stop: long steps poll a flag instead of dying,
// so that they keep what is done and exit with kExitInterrupted (4).
#pragma once

#include <atomic>

namespace nqc {

/// The flag the handler sets; false until a stop signal arrives after catch_stop_signals().
const std::atomic<bool>& stop_requested();

/// Installs the handler for SIGTERM, SIGINT and SIGUSR1 (again after MPI_Init, which may
/// install its own; mpirun forwards USR1 to the ranks, not TERM: it ends the job itself).
void catch_stop_signals();

/// The handler while it lives, then the handlers before it: for a command's one long step
/// (a plan that counts canonical compositions), outside which a signal keeps its default action.
class StopSignalsScope {
 public:
  StopSignalsScope();
  ~StopSignalsScope();
  StopSignalsScope(const StopSignalsScope&) = delete;
  StopSignalsScope& operator=(const StopSignalsScope&) = delete;

 private:
  void (*before_[3])(int);
};

}  // namespace nqc
