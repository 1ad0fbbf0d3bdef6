#include "mpi/session.hpp"

#include <mpi.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <thread>

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

void MpiSession::barrier(const std::function<void()>& while_waiting, double poll_s) const {
  if (!active_) {
    while_waiting();
    return;
  }
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Ibarrier(MPI_COMM_WORLD, &request);
  for (int done = 0;;) {
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (done) return;
    while_waiting();
    std::this_thread::sleep_for(std::chrono::duration<double>(poll_s));
  }
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

void MpiSession::broadcast(int& value) const {
  if (active_) MPI_Bcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD);
}

void MpiSession::broadcast(std::string& value) const {
  if (!active_) return;
  auto size = static_cast<unsigned long long>(value.size());
  MPI_Bcast(&size, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
  value.resize(size);
  MPI_Bcast(value.data(), static_cast<int>(size), MPI_CHAR, 0, MPI_COMM_WORLD);
}

std::vector<std::string> MpiSession::gather(const std::string& value) const {
  if (!active_) return {value};
  const int length = static_cast<int>(value.size());
  std::vector<int> lengths(rank_ == 0 ? size_ : 0);
  MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::vector<int> offsets(lengths.size());
  int total = 0;
  for (std::size_t r = 0; r < lengths.size(); ++r) {
    offsets[r] = total;
    total += lengths[r];
  }
  std::string all(static_cast<std::size_t>(total), '\0');
  MPI_Gatherv(value.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR, 0, MPI_COMM_WORLD);
  std::vector<std::string> out;
  for (std::size_t r = 0; r < lengths.size(); ++r) out.push_back(all.substr(offsets[r], lengths[r]));
  return out;
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
  const MPI_Aint bytes = session_.rank() == 0 ? static_cast<MPI_Aint>(3 * sizeof(std::uint64_t)) : 0;
  MPI_Win win = MPI_WIN_NULL;
  MPI_Win_allocate(bytes, sizeof(std::uint64_t), MPI_INFO_NULL, MPI_COMM_WORLD, &base_, &win);
  if (session_.rank() == 0) base_[0] = base_[1] = base_[2] = 0;
  peek_ = nullptr;
  if (session_.rank() == 0) {
    int* model = nullptr;
    int flag = 0;
    MPI_Win_get_attr(win, MPI_WIN_MODEL, &model, &flag);
    if (flag != 0 && model != nullptr && *model == MPI_WIN_UNIFIED) peek_ = base_;
  }
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
  if (window_ == nullptr) {  // atomic: peek_done() may read it from another thread
    std::atomic_ref<std::uint64_t> value(local_[slot]);
    return no_op ? value.load() : value.fetch_add(operand);
  }
  auto* win = static_cast<MPI_Win*>(window_);
  std::uint64_t result = 0;
  MPI_Fetch_and_op(&operand, &result, MPI_UINT64_T, 0, slot, no_op ? MPI_NO_OP : MPI_SUM, *win);
  MPI_Win_flush(0, *win);
  return result;
}

std::uint64_t WorkCounter::take() { return fetch_and_op(0, 1, false); }
void WorkCounter::add_done(std::uint64_t cases, std::uint64_t cost_us) {
  (void)fetch_and_op(1, cases, false);
  if (cost_us != 0) (void)fetch_and_op(2, cost_us, false);
}
std::uint64_t WorkCounter::done() { return fetch_and_op(1, 0, true); }
std::uint64_t WorkCounter::cost_done() { return fetch_and_op(2, 0, true); }
// The window's memory is written by MPI (another rank's MPI_Fetch_and_op, through shared
// memory or the network); an aligned 64-bit atomic load reads it whole.
std::uint64_t WorkCounter::peek_done() const { return std::atomic_ref<std::uint64_t>(peek_[1]).load(std::memory_order_relaxed); }
std::uint64_t WorkCounter::peek_cost_done() const {
  return std::atomic_ref<std::uint64_t>(peek_[2]).load(std::memory_order_relaxed);
}

}  // namespace nqc
