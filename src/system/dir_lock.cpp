#include "system/dir_lock.hpp"

#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "system/durable.hpp"

namespace nqc {
namespace fs = std::filesystem;

std::string host_name() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return "unknown";
  return buf;
}

SlurmJob SlurmJob::here() {
  const auto env = [](const char* name) {
    const char* v = std::getenv(name);
    return v == nullptr ? std::string() : std::string(v);
  };
  SlurmJob job;
  job.job_id = env("SLURM_JOB_ID");
  if (job.job_id.empty()) return job;
  if (const std::string array = env("SLURM_ARRAY_JOB_ID"), task = env("SLURM_ARRAY_TASK_ID");
      !array.empty() && !task.empty())
    job.array_task = array + "_" + task;
  job.restart_count = env("SLURM_RESTART_COUNT");
  return job;
}

std::string SlurmJob::describe() const {
  if (job_id.empty()) return "";
  std::string s = array_task.empty() ? job_id : array_task;
  if (!restart_count.empty() && restart_count != "0") s += " (restart " + restart_count + ")";
  return s;
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

namespace {

// Fields 3.. of /proc/PID/stat (after the command name, which may hold spaces and
// parentheses), or "" when the process is gone.
std::string stat_fields(long long pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  if (!std::getline(in, text)) return "";
  const auto close = text.rfind(')');
  return close == std::string::npos || close + 2 > text.size() ? std::string() : text.substr(close + 2);
}

// Field 22 of /proc/PID/stat (start time in clock ticks since boot), 0 when unknown.
long long start_ticks(long long pid) {
  std::istringstream rest(stat_fields(pid));
  std::string field;
  for (int i = 3; i <= 22 && rest >> field; ++i)
    if (i == 22) return std::atoll(field.c_str());
  return 0;
}

// Whether the holder of a lock of this host still runs: not gone, not a zombie (a killed
// process not reaped yet: mpirun's ranks for a moment after it exits), not another process
// that got its pid since.
bool alive(const LockHolder& h) {
  if (h.pid <= 0) return false;
  if (::kill(static_cast<pid_t>(h.pid), 0) != 0 && errno == ESRCH) return false;
  const std::string fields = stat_fields(h.pid);
  if (!fields.empty() && (fields[0] == 'Z' || fields[0] == 'X')) return false;
  const long long now = start_ticks(h.pid);
  return now == 0 || h.start_ticks == 0 || now == h.start_ticks;
}

// Of a slurm_job string "4242_3 (restart 2)": the job, "4242_3", and the restart count, 2 (0
// without one).
std::string job_of(const std::string& slurm_job) { return slurm_job.substr(0, slurm_job.find(' ')); }
long long restart_of(const std::string& slurm_job) {
  const auto at = slurm_job.find("(restart ");
  return at == std::string::npos ? 0 : std::atoll(slurm_job.c_str() + at + 9);
}

// "all" conflicts with every scope, and part-I-of-K with itself and with parts of another K.
bool conflict(const std::string& a, const std::string& b) {
  const auto parts_of = [](const std::string& scope) { return scope.substr(scope.rfind("-of-") + 1); };
  return a == "all" || b == "all" || a == b || parts_of(a) != parts_of(b);
}

LockHeldError held(const fs::path& dir, const std::optional<LockHolder>& h, const fs::path& file) {
  std::string who = file.string();
  if (h && h->pid == 0) who = "a lock file that cannot be read (" + file.string() + ")";
  if (h && h->pid != 0)
    who = "nqc run on " + h->host + ", pid " + std::to_string(h->pid) +
          (h->slurm_job.empty() ? "" : ", Slurm job " + h->slurm_job) + ", since " + h->since_utc + " (" +
          (h->scope == "all" ? std::string("the whole plan") : h->scope) + ", " + file.string() + ")";
  return LockHeldError(dir.string() + ": in use by " + who + ": wait for it to end (if it is dead, remove " +
                       file.string() + ")");
}

// The holder of the lock `file` if it is alive (or cannot be checked: another host's, or a
// file that cannot be read); else removes the stale file, saying so in *stale_removed.
std::optional<LockHolder> live_holder(const fs::path& file, const LockHolder& me, std::string* stale_removed) {
  const auto h = DirectoryLock::read(file);
  if (!h) return LockHolder{file.stem().string(), "", 0, 0, "", ""};  // damaged (link(2) writes it whole)
  // Slurm runs one attempt of a job at a time: a lock of an earlier attempt (killed at its time
  // limit or with its node, then requeued, maybe elsewhere) is stale. Two tasks of one attempt
  // (srun without an MPI launch) have the same restart count: neither may take the other's lock.
  const bool earlier_attempt = !me.slurm_job.empty() && job_of(h->slurm_job) == job_of(me.slurm_job) &&
                               restart_of(h->slurm_job) < restart_of(me.slurm_job);
  if ((h->host != me.host || alive(*h)) && !earlier_attempt) return h;
  std::error_code ec;
  fs::remove(file, ec);
  if (stale_removed != nullptr)
    *stale_removed =
        file.string() + ": removed a stale lock (pid " + std::to_string(h->pid) + " on " + h->host +
        (earlier_attempt ? ", an earlier attempt of Slurm job " + job_of(me.slurm_job) + ")" : " is gone)");
  return std::nullopt;
}

}  // namespace

std::string DirectoryLock::scope_of(std::uint64_t part, std::uint64_t parts) {
  if (parts <= 1) return "all";
  return "part-" + std::to_string(part) + "-of-" + std::to_string(parts);
}

std::optional<LockHolder> DirectoryLock::read(const fs::path& file) {
  std::error_code ec;
  if (fs::is_directory(file, ec))  // not nqc's: an ifstream would throw from deep in its reads
    throw InputError(file.string() + ": a directory where nqc keeps its lock file: remove it");
  std::ifstream in(file);
  if (!in) return std::nullopt;
  try {
    const nlohmann::json j = nlohmann::json::parse(in);
    return LockHolder{j.at("scope").get<std::string>(),    j.at("host").get<std::string>(),
                      j.at("pid").get<long long>(),        j.value("start_ticks", 0LL),
                      j.value("slurm_job", std::string()), j.value("since_utc", std::string())};
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
}

DirectoryLock::DirectoryLock(const fs::path& dir, const std::string& scope, std::string* stale_removed) {
  const fs::path locks = dir / "locks";
  std::error_code ec;
  fs::create_directories(locks, ec);
  if (ec) throw IoError(dir.string() + ": cannot write to the results directory: " + ec.message());
  const long long pid = ::getpid();
  const LockHolder me{scope, host_name(), pid, start_ticks(pid), SlurmJob::here().describe(), utc_now()};
  const nlohmann::json j{
      {"scope", me.scope},         {"host", me.host},          {"pid", me.pid}, {"start_ticks", me.start_ticks},
      {"slurm_job", me.slurm_job}, {"since_utc", me.since_utc}};
  // Written whole under a name of its own, then linked to its final name: link(2) is atomic,
  // also on NFS (where O_EXCL is not always).
  const fs::path tmp = locks / (".tmp-" + me.host + "-" + std::to_string(me.pid));
  if (const int error = write_whole_file(tmp, j.dump() + "\n"); error != 0)
    throw IoError(dir.string() + ": cannot write to the results directory: " + std::strerror(error));
  const fs::path mine = locks / (scope + ".lock");
  for (int attempt = 0; ::link(tmp.c_str(), mine.c_str()) != 0; ++attempt) {
    const int error = errno;
    std::optional<LockHolder> h;
    if (error == EEXIST && !(h = live_holder(mine, me, stale_removed)) && attempt == 0) continue;  // stale: removed
    fs::remove(tmp, ec);
    if (error != EEXIST) throw IoError(mine.string() + ": cannot create the lock: " + std::strerror(error));
    throw held(dir, h, mine);
  }
  fs::remove(tmp, ec);
  file_ = mine;
  for (const auto& entry : fs::directory_iterator(locks, ec)) {
    const fs::path other = entry.path();
    if (other == mine || other.extension() != ".lock" || !conflict(scope, other.stem().string())) continue;
    if (const auto h = live_holder(other, me, stale_removed)) {
      fs::remove(mine, ec);
      file_.clear();
      throw held(dir, h, other);
    }
  }
}

DirectoryLock::~DirectoryLock() {
  if (file_.empty()) return;
  std::error_code ec;
  fs::remove(file_, ec);
}

}  // namespace nqc
