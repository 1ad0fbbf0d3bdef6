#include "experiment/launches.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <system_error>
#include <thread>

#include <nlohmann/json.hpp>

#include "system/dir_lock.hpp"
#include "system/durable.hpp"
#include "system/errors.hpp"
#include "formats/text_input.hpp"

namespace nqc {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

fs::path launches_dir(const fs::path& dir) { return dir / "launches"; }

fs::path record_path(const fs::path& dir, std::uint32_t id) {
  char name[32];
  std::snprintf(name, sizeof name, "launch-%06u.json", id);
  return launches_dir(dir) / name;
}

// "launch-000042.json" -> 42, else 0.
std::uint32_t id_of(const fs::path& file) {
  const std::string name = file.filename().string();
  std::uint32_t id = 0;
  if (name.size() != 18 || name.rfind("launch-", 0) != 0 || name.substr(13) != ".json") return 0;
  const auto [ptr, ec] = std::from_chars(name.data() + 7, name.data() + 13, id);
  return ec == std::errc{} && ptr == name.data() + 13 ? id : 0;
}

[[noreturn]] void fail(const fs::path& path, const std::string& what, int error) {
  throw IoError(path.string() + ": cannot write: " + what +
                (error != 0 ? std::string(": ") + std::strerror(error) : ""));
}

// Writes `text` to `tmp`; throws naming `target`.
void write_text(const fs::path& tmp, const fs::path& target, const std::string& text) {
  if (const int error = write_whole_file(tmp, text); error != 0) fail(target, "the launch record", error);
}

// Unique per host, process and thread: concurrent launches never share one.
fs::path temporary_name(const fs::path& dir) {
  return launches_dir(dir) / (".tmp-" + host_name() + "-" + std::to_string(::getpid()) + "-" +
                              std::to_string(std::hash<std::thread::id>{}(std::this_thread::get_id())));
}

}  // namespace

void to_json(nlohmann::json& j, const Launch& l) {
  j = json::object();
#define NQC_LAUNCH_TO_JSON(name, type, kind, width, init, doc) j[#name] = l.name;
  NQC_LAUNCH_COLUMNS(NQC_LAUNCH_TO_JSON)
#undef NQC_LAUNCH_TO_JSON
}

void from_json(const nlohmann::json& j, Launch& l) {
#define NQC_LAUNCH_FROM_JSON(name, type, kind, width, init, doc) l.name = j.at(#name).get<type>();
  NQC_LAUNCH_COLUMNS(NQC_LAUNCH_FROM_JSON)
#undef NQC_LAUNCH_FROM_JSON
}

Launch launch_here(const std::string& nqc_version, const std::string& git_revision, std::uint64_t part,
                   std::uint64_t parts, int world_size) {
  Launch l;
  l.start_utc = utc_now();
  l.hosts = host_name();
  l.world_size = world_size;
  l.nqc_version = nqc_version;
  l.git_revision = git_revision;
  const SlurmJob job = SlurmJob::here();
  l.slurm_job_id = job.job_id;
  l.slurm_array_task = job.array_task;
  l.slurm_restart_count = job.restart_count;
  l.part = part;
  l.parts = parts;
  return l;
}

void register_launch(const std::filesystem::path& dir, Launch& launch) {
  std::error_code ec;
  fs::create_directories(launches_dir(dir), ec);
  if (ec) fail(launches_dir(dir), "cannot create it", ec.value());
  std::uint32_t next = 1;
  for (fs::directory_iterator it(launches_dir(dir), ec), end; !ec && it != end; it.increment(ec))
    next = std::max(next, id_of(it->path()) + 1);
  if (ec) fail(launches_dir(dir), "cannot list it", ec.value());
  const fs::path tmp = temporary_name(dir);
  // link(2) refuses an existing name, atomically, also on NFS: a concurrent part that took
  // this id makes us take the next one.
  for (;; ++next) {
    launch.id = next;
    write_text(tmp, record_path(dir, next), json(launch).dump(2) + "\n");
    if (::link(tmp.c_str(), record_path(dir, next).c_str()) == 0) break;
    const int error = errno;
    fs::remove(tmp, ec);
    if (error != EEXIST) fail(record_path(dir, next), "cannot create it", error);
  }
  fs::remove(tmp, ec);
}

void update_launch(const std::filesystem::path& dir, const Launch& launch) {
  const fs::path target = record_path(dir, launch.id);
  const fs::path tmp = temporary_name(dir);
  write_text(tmp, target, json(launch).dump(2) + "\n");
  std::error_code ec;
  fs::rename(tmp, target, ec);
  if (ec) {
    fs::remove(tmp, ec);
    fail(target, "cannot rename " + tmp.string() + " onto it", ec.value());
  }
}

std::vector<Launch> read_launches(const std::filesystem::path& dir, std::vector<std::string>* problems) {
  std::vector<Launch> out;
  std::error_code ec;
  if (!fs::is_directory(launches_dir(dir), ec)) return out;
  for (fs::directory_iterator it(launches_dir(dir), ec), end; !ec && it != end; it.increment(ec)) {
    const std::uint32_t id = id_of(it->path());
    if (id == 0) continue;
    try {
      Launch l = json::parse(text::read_small_file(it->path(), 1u << 20, "launch record")).get<Launch>();
      if (l.id != id) throw std::runtime_error("it says id " + std::to_string(l.id));
      out.push_back(std::move(l));
    } catch (const std::exception& e) {
      Launch damaged;
      damaged.id = id;
      damaged.hosts = "(record damaged)";
      out.push_back(std::move(damaged));
      // nlohmann's messages start "[json.exception.KIND.N] ": the rest says what is wrong.
      std::string why = e.what();
      if (why.rfind("[json.exception.", 0) == 0 && why.find("] ") != std::string::npos)
        why = why.substr(why.find("] ") + 2);
      if (problems != nullptr)
        problems->push_back(it->path().string() + ": damaged (" + text::escaped(why) + "); launch " +
                            std::to_string(id) + " is listed with its id only");
    }
  }
  if (ec) throw IoError(launches_dir(dir).string() + ": cannot list: " + ec.message());
  std::ranges::sort(out, {}, &Launch::id);
  return out;
}

std::string launch_json(const Launch& launch) { return json(launch).dump(); }

}  // namespace nqc
