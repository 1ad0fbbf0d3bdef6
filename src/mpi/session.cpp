#include "mpi/session.hpp"

#include <mpi.h>

#include <cstdlib>

namespace nqc {

bool MpiSession::launched_by_mpi() {
  for (const char* var : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK"})
    if (std::getenv(var) != nullptr) return true;
  return false;
}

MpiSession::MpiSession(int& argc, char**& argv) {
  if (!launched_by_mpi()) return;
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  active_ = true;
}

MpiSession::~MpiSession() {
  if (active_) MPI_Finalize();
}

void MpiSession::barrier() const {
  if (active_) MPI_Barrier(MPI_COMM_WORLD);
}

int MpiSession::allreduce_max(int value) const {
  int out = value;
  if (active_) MPI_Allreduce(&value, &out, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return out;
}

std::uint64_t MpiSession::allreduce_sum(std::uint64_t value) const {
  std::uint64_t out = value;
  if (active_) MPI_Allreduce(&value, &out, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  return out;
}

void MpiSession::broadcast(std::string& value) const {
  if (!active_) return;
  auto size = static_cast<unsigned long long>(value.size());
  MPI_Bcast(&size, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
  value.resize(size);
  MPI_Bcast(value.data(), static_cast<int>(size), MPI_CHAR, 0, MPI_COMM_WORLD);
}

void MpiSession::broadcast(std::vector<std::uint64_t>& values) const {
  if (!active_) return;
  auto size = static_cast<unsigned long long>(values.size());
  MPI_Bcast(&size, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
  values.resize(size);
  MPI_Bcast(values.data(), static_cast<int>(size), MPI_UINT64_T, 0, MPI_COMM_WORLD);
}

void MpiSession::abort(int code) const {
  if (active_ && size_ > 1) MPI_Abort(MPI_COMM_WORLD, code);
  std::exit(code);
}

WorkCounter::WorkCounter(const MpiSession& session) : session_(session) {
  if (!session_.active()) return;
  const MPI_Aint bytes = session_.rank() == 0 ? static_cast<MPI_Aint>(2 * sizeof(std::uint64_t)) : 0;
  MPI_Win win = MPI_WIN_NULL;
  MPI_Win_allocate(bytes, sizeof(std::uint64_t), MPI_INFO_NULL, MPI_COMM_WORLD, &base_, &win);
  if (session_.rank() == 0) base_[0] = base_[1] = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_lock_all(0, win);
  window_ = new MPI_Win(win);
}

WorkCounter::~WorkCounter() {
  if (window_ == nullptr) return;
  auto* win = static_cast<MPI_Win*>(window_);
  MPI_Win_unlock_all(*win);
  MPI_Win_free(win);
  delete win;
}

std::uint64_t WorkCounter::fetch_and_op(int slot, std::uint64_t operand, bool no_op) {
  if (window_ == nullptr) {
    const std::uint64_t before = local_[slot];
    if (!no_op) local_[slot] += operand;
    return before;
  }
  auto* win = static_cast<MPI_Win*>(window_);
  std::uint64_t result = 0;
  MPI_Fetch_and_op(&operand, &result, MPI_UINT64_T, 0, slot, no_op ? MPI_NO_OP : MPI_SUM, *win);
  MPI_Win_flush(0, *win);
  return result;
}

std::uint64_t WorkCounter::take() { return fetch_and_op(0, 1, false); }
void WorkCounter::add_done(std::uint64_t cases) { (void)fetch_and_op(1, cases, false); }
std::uint64_t WorkCounter::done() { return fetch_and_op(1, 0, true); }

}  // namespace nqc
