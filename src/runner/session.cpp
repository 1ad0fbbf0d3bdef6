#include "runner/session.hpp"

#include <mpi.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdlib>

#include "system/errors.hpp"

namespace nqc {
namespace {

using Sleep = std::chrono::duration<double>;

// The environment variable `name` as a positive count, or 0 when unset or not a count.
long env_count(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr) return 0;
  char* end = nullptr;
  const long n = std::strtol(v, &end, 10);
  return end != v && *end == '\0' && n > 0 ? n : 0;
}

// Waits for `request` with sleeps from `first` doubling to `longest`: a blocking wait spins on
// a core other ranks or rank 0's service thread may need.
void poll(MPI_Request& request, Sleep first, Sleep longest) {
  for (int done = 0;;) {
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (done) return;
    std::this_thread::sleep_for(first);
    first = std::min(first * 2, longest);
  }
}

}  // namespace

MpiSession::MpiSession(int& argc, char**& argv) {
  const auto set = [](const char* name) { return std::getenv(name) != nullptr; };
  if (std::ranges::none_of(std::array{"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK"}, set)) return;  // no launcher
  int provided = MPI_THREAD_SINGLE;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  active_ = true;
  if (provided < MPI_THREAD_MULTIPLE && size_ > 1) {
    MPI_Finalize();
    active_ = false;
    throw InputError("this MPI library gives thread level " + std::to_string(provided) +
                     ", and nqc's shard service needs MPI_THREAD_MULTIPLE (3): use an Open MPI or MPICH built with it");
  }
}

MpiSession::~MpiSession() {
  if (active_) MPI_Finalize();
}

std::string MpiSession::world_mismatch() const {
  if (std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr) return "";  // mpirun: the world its -np asked for
  if (const long step = env_count("SLURM_STEP_NUM_TASKS"); step > 0 && std::getenv("SLURM_STEP_ID") != nullptr) {
    if (step == size_) return "";
    return "srun started " + std::to_string(step) + " tasks (SLURM_STEP_NUM_TASKS), but they form " +
           (active_ ? "an MPI world of " + std::to_string(size_) : std::string("no MPI world: each would run alone")) +
           ": start nqc with srun --mpi=pmix (or mpirun), or with srun -n 1";
  }
  if (const long tasks = env_count("SLURM_NTASKS"); tasks > 1 && !active_ && std::getenv("SLURM_JOB_ID") != nullptr)
    return "Slurm gave this job " + std::to_string(tasks) +
           " tasks (SLURM_NTASKS), but nqc was started without a launcher, as 1 rank: start it with srun --mpi=pmix "
           "(or mpirun), or ask for 1 task";
  return "";
}

bool MpiSession::speaks() const {
  if (active_) return rank_ == 0;
  const char* procid = std::getenv("SLURM_PROCID");
  return procid == nullptr || std::string(procid) == "0";
}

void MpiSession::barrier() const {
  if (active_) MPI_Barrier(MPI_COMM_WORLD);
}

void MpiSession::idle_barrier(double poll_s) const {
  if (!active_) return;
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Ibarrier(MPI_COMM_WORLD, &request);
  poll(request, Sleep(poll_s), Sleep(poll_s));
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

void MpiSession::broadcast_bytes(void* data, std::size_t bytes) const {
  if (active_) MPI_Bcast(data, static_cast<int>(bytes), MPI_BYTE, 0, MPI_COMM_WORLD);
}

std::vector<std::string> MpiSession::gather(const std::string& value) const {
  if (!active_) return {value};
  const int length = static_cast<int>(value.size());
  std::vector<int> lengths(rank_ == 0 ? size_ : 0), offsets(lengths.size());
  MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  int total = 0;
  for (std::size_t r = 0; r < lengths.size(); total += lengths[r++]) offsets[r] = total;
  std::string all(static_cast<std::size_t>(total), '\0');
  MPI_Gatherv(value.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR, 0, MPI_COMM_WORLD);
  std::vector<std::string> out;
  for (std::size_t r = 0; r < lengths.size(); ++r) out.push_back(all.substr(offsets[r], lengths[r]));
  return out;
}

void MpiSession::abort(int code) const {
  if (active_ && size_ > 1) MPI_Abort(MPI_COMM_WORLD, code);
  std::exit(code);
}

namespace {

// Requests to rank 0's service: {op, a, b} as three uint64, all with one tag (MPI keeps the
// order of messages from one sender on one tag, so a rank's last cases arrive before its stop).
enum Op : std::uint64_t { kTake = 0, kAddDone = 1, kStop = 2, kClose = 3 };
// take()'s answers once closed: past any plan's shards, and far from overflowing.
constexpr std::uint64_t kClosed = std::uint64_t{1} << 62;
constexpr int kRequestTag = 1;
constexpr int kReplyTag = 2;
// The idle service polls every 50 us doubling to 1 ms; a rank awaits its reply from 10 us on.
constexpr auto kFirstIdleSleep = std::chrono::microseconds(50);
constexpr auto kLongestIdleSleep = std::chrono::microseconds(1000);
constexpr auto kFirstReplySleep = std::chrono::microseconds(10);

MPI_Comm as_comm(void* comm) { return *static_cast<MPI_Comm*>(comm); }

}  // namespace

WorkCounter::WorkCounter(const MpiSession& session) : session_(session) {
  if (!session_.active() || session_.size() == 1) return;
  auto* comm = new MPI_Comm(MPI_COMM_NULL);
  MPI_Comm_dup(MPI_COMM_WORLD, comm);  // its messages never meet the runner's collectives
  comm_ = comm;
  if (session_.rank() == 0) service_ = std::thread([this] { serve(); });
}

WorkCounter::~WorkCounter() {
  if (comm_ == nullptr) return;
  auto* comm = static_cast<MPI_Comm*>(comm_);
  if (session_.rank() == 0)
    service_.join();  // ends once every other rank has said stop
  else
    (void)request(kStop);
  MPI_Comm_free(comm);
  delete comm;
}

std::uint64_t WorkCounter::apply(const std::uint64_t* request) {
  if (request[0] == kTake) return counters_[0].fetch_add(1);
  if (request[0] == kAddDone) {
    counters_[1].fetch_add(request[1]);
    counters_[2].fetch_add(request[2]);
  } else if (request[0] == kClose) {
    counters_[0].store(kClosed);
  }
  return 0;
}

std::uint64_t WorkCounter::request(std::uint64_t op, std::uint64_t a, std::uint64_t b) {
  const std::uint64_t message[3] = {op, a, b};
  if (comm_ == nullptr || session_.rank() == 0) return apply(message);
  MPI_Send(message, 3, MPI_UINT64_T, 0, kRequestTag, as_comm(comm_));
  return 0;
}

void WorkCounter::serve() {
  const MPI_Comm comm = as_comm(comm_);
  int running = session_.size() - 1;  // ranks that have not said stop
  std::uint64_t message[3] = {0, 0, 0};
  MPI_Request pending = MPI_REQUEST_NULL;
  MPI_Irecv(message, 3, MPI_UINT64_T, MPI_ANY_SOURCE, kRequestTag, comm, &pending);
  auto sleep = kFirstIdleSleep;
  while (running > 0) {
    int arrived = 0;
    MPI_Status status;
    MPI_Test(&pending, &arrived, &status);
    if (arrived == 0) {
      std::this_thread::sleep_for(sleep);
      sleep = std::min(sleep * 2, kLongestIdleSleep);
      continue;
    }
    sleep = kFirstIdleSleep;  // no sleep while requests are queued
    const std::uint64_t index = apply(message);
    if (message[0] == kTake) MPI_Send(&index, 1, MPI_UINT64_T, status.MPI_SOURCE, kReplyTag, comm);
    if (message[0] == kStop) --running;
    if (running > 0) MPI_Irecv(message, 3, MPI_UINT64_T, MPI_ANY_SOURCE, kRequestTag, comm, &pending);
  }
}

std::uint64_t WorkCounter::take() {
  const auto t0 = std::chrono::steady_clock::now();
  std::uint64_t index = request(kTake);
  if (comm_ != nullptr && session_.rank() != 0) {
    MPI_Request reply = MPI_REQUEST_NULL;
    MPI_Irecv(&index, 1, MPI_UINT64_T, 0, kReplyTag, as_comm(comm_), &reply);
    poll(reply, kFirstReplySleep, kLongestIdleSleep);
  }
  const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ++waits_.count;
  waits_.total_s += waited;
  waits_.max_s = std::max(waits_.max_s, waited);
  return index;
}

void WorkCounter::close() { (void)request(kClose); }

void WorkCounter::add_done(std::uint64_t cases, std::uint64_t cost_us) { (void)request(kAddDone, cases, cost_us); }

}  // namespace nqc
