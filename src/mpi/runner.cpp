#include "mpi/runner.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <set>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>

#include <spdlog/spdlog.h>

#include "experiment/config.hpp"
#include "experiment/plan.hpp"
#include "experiment/results.hpp"
#include "experiment/worker.hpp"
#include "io/errors.hpp"
#include "io/text_format.hpp"

namespace nqc {
namespace fs = std::filesystem;
namespace {

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string hostname() {
  char buf[256] = {0};
  if (gethostname(buf, sizeof buf - 1) != 0) return "unknown";
  return buf;
}

// FNV-1a 64: a hash that is the same on every platform and release (std::hash is not).
std::string fnv1a_hex(const std::string& text) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (const unsigned char ch : text) h = (h ^ ch) * 0x100000001b3ULL;
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

std::string read_text(const fs::path& file) {
  std::ifstream in(file);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Rank 0: makes DIR usable for this config and lists the shards already done there.
// Returns an error message, empty when fine. Refuses a directory that holds another
// config, results without --resume, and shard files that are not this config's.
std::string prepare_directory(const fs::path& dir, const std::string& config_text, const std::string& config_hash,
                              const Plan& plan, bool resume, std::vector<std::uint64_t>& done) try {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return dir.string() + ": cannot create the results directory: " + ec.message();
  const fs::path stored = dir / "config.json";
  if (fs::exists(stored) && read_text(stored) != config_text)
    return dir.string() + ": holds results of another config (" + stored.string() +
           " differs from this one); choose another output directory";
  done = done_shards(dir);
  if (!done.empty() && !resume)
    return dir.string() + ": already holds results of this config; pass --resume to continue the run";
  // Shard files and partial files (the finished cases of interrupted shards) must be this
  // config's and in its plan.
  const auto foreign = [&](const fs::path& file, std::uint64_t id, const char* kind) -> std::string {
    std::string hash;
    try {
      hash = read_attributes(file)["config_hash"];
    } catch (const IoError& e) {
      return std::string(e.what()) + " (a damaged " + kind + " file: delete it and rerun with --resume)";
    }
    if (hash != config_hash)
      return file.string() + ": belongs to another config (config_hash " + hash + ", this config " + config_hash +
             "); move it out of " + (dir / "shards").string();
    if (id >= plan.shards.size())
      return file.string() + ": shard " + std::to_string(id) + " is not in this config's plan of " +
             std::to_string(plan.shards.size()) + " shards; move it out of " + (dir / "shards").string();
    return {};
  };
  for (const std::uint64_t id : done)
    if (std::string error = foreign(shard_path(dir, id), id, "shard"); !error.empty()) return error;
  for (const std::uint64_t id : partial_shards(dir)) {
    if (std::string error = foreign(partial_path(dir, id), id, "partial"); !error.empty()) return error;
    // A partial file of a done shard: left by a crash between the two writes; not needed.
    if (std::binary_search(done.begin(), done.end(), id)) fs::remove(partial_path(dir, id), ec);
  }
  // A per-process name: the parts of a job array may prepare the same directory at once.
  const fs::path tmp = dir / ("config.json.tmp." + std::to_string(::getpid()));
  {
    errno = 0;
    std::ofstream out(tmp, std::ios::trunc);
    out << config_text;
    out.flush();
    if (!out) {
      const int error = errno;
      std::error_code ignored;
      fs::remove(tmp, ignored);
      return dir.string() + ": cannot write to the results directory: " +
             (error ? std::strerror(error) : "the directory is not writable");
    }
  }
  fs::rename(tmp, stored, ec);
  if (ec) return stored.string() + ": cannot write: " + ec.message();
  return {};
} catch (const std::exception& e) {
  return e.what();
}

class Progress {
 public:
  /// `already`: cases done before this run started (a resume), left out of the rate.
  Progress(std::uint64_t total, std::uint64_t already, double interval_s)
      : total_(total), already_(already), interval_s_(interval_s) {}
  void maybe_log(WorkCounter& counter) {
    const auto now = std::chrono::steady_clock::now();
    if (std::chrono::duration<double>(now - last_).count() < interval_s_) return;
    last_ = now;
    const std::uint64_t done = counter.done();
    const double elapsed = std::chrono::duration<double>(now - start_).count();
    const double rate = elapsed > 0 ? static_cast<double>(done - std::min(done, already_)) / elapsed : 0.0;
    const double eta = rate > 0 ? static_cast<double>(total_ - std::min(done, total_)) / rate : 0.0;
    spdlog::info("progress: {}/{} cases ({:.1f}%), {:.1f} cases/s, ETA {:.0f} s", done, total_,
                 total_ ? 100.0 * static_cast<double>(done) / static_cast<double>(total_) : 100.0, rate, eta);
  }

 private:
  std::uint64_t total_, already_;
  double interval_s_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now(), last_ = start_;
};

// Per n: shards, cases and an estimate of the CPU time. The estimate is `auto`'s measured
// mean CPU time per derived case on this project's machine kind (BENCHMARKS.md: 7*10^-5 s at
// n = 1000, 0.2 s at 10^6, fitted as 2*10^-5 + 7*10^-5 (n/1000)^1.15 s), a guide for sizing
// jobs, not a promise: other engines and instance sets differ.
void print_plan_by_n(const Plan& plan) {
  std::map<Index, std::pair<std::uint64_t, std::uint64_t>> by_n;  // n -> (shards, cases)
  if (plan.instance_cases.empty()) {
    for (const Shard& s : plan.shards) {
      ++by_n[s.n].first;
      by_n[s.n].second += s.case_count();
    }
  } else {
    // Instance shards may mix sizes: a shard counts for every n it holds a case of.
    for (const Shard& s : plan.shards) {
      std::set<Index> sizes;
      for (std::uint64_t c = s.first_solution; c < s.first_solution + s.solution_count; ++c)
        sizes.insert(plan.instance_cases[c].n);
      for (const Index n : sizes) ++by_n[n].first;
    }
    for (const InstanceCase& c : plan.instance_cases) ++by_n[c.n].second;
  }
  std::printf("%12s %10s %14s %16s\n", "n", "shards", "cases", "est. CPU s");
  double total = 0;
  for (const auto& [n, counts] : by_n) {
    const double per_case = 2e-5 + 7e-5 * std::pow(static_cast<double>(n) / 1000.0, 1.15);
    const double cpu = per_case * static_cast<double>(counts.second);
    total += cpu;
    std::printf("%12d %10llu %14llu %16.1f\n", n, static_cast<unsigned long long>(counts.first),
                static_cast<unsigned long long>(counts.second), cpu);
  }
  std::printf("%12s %10zu %14llu %16.1f  (%.2f core-hours)\n", "total", plan.shards.size(),
              static_cast<unsigned long long>(plan.total_cases), total, total / 3600.0);
}

// The finished cases of an interrupted run of `shard` (its partial file), or none. A partial
// file that cannot be read or is not a prefix of the shard is set aside with a warning: the
// shard then runs from its start, which gives the same rows.
ShardData load_partial(const fs::path& dir, const Shard& shard) {
  const fs::path file = partial_path(dir, shard.id);
  std::error_code ec;
  if (!fs::exists(file, ec)) return {};
  std::string problem;
  try {
    ShardData part = read_partial(dir, shard.id);
    if (part.rows.size() >= shard.case_count()) problem = std::to_string(part.rows.size()) + " rows for a shard of " +
                                                          std::to_string(shard.case_count()) + " cases";
    for (std::size_t i = 0; problem.empty() && i < part.rows.size(); ++i)
      if (part.rows[i].case_id != shard.first_case + i)
        problem = "row " + std::to_string(i) + " has case id " + std::to_string(part.rows[i].case_id) + ", expected " +
                  std::to_string(shard.first_case + i);
    if (problem.empty()) {
      spdlog::info("shard {}: continuing after the {} cases in {}", shard.id, part.rows.size(), file.string());
      return part;
    }
  } catch (const IoError& e) {
    problem = e.what();
  }
  spdlog::warn("{}: set aside ({}); shard {} runs from its start", file.string(), problem, shard.id);
  fs::remove(file, ec);
  return {};
}

[[noreturn]] void fail_engine_bug(const EngineBugError& e, const fs::path& dir, const MpiSession& session) {
  const fs::path file = dir / ("engine-bug-case-" + std::to_string(e.case_id()) + ".txt");
  try {
    write_composition(e.composition(), file);
    spdlog::critical("{} (composition written to {})", e.what(), file.string());
  } catch (const std::exception& io) {
    spdlog::critical("{} (could not write the composition: {})", e.what(), io.what());
  }
  session.abort(kExitEngineBug);
}

}  // namespace

int run_experiment(const RunOptions& options, const MpiSession& session, const std::atomic<bool>& stop) {
  const bool root = session.rank() == 0;
  ExperimentConfig config;
  try {
    config = load_config(options.config);
  } catch (const InputError& e) {
    if (root) spdlog::error("{}", e.what());
    return kExitBadInput;
  }
  if (options.output) {
    config.output = *options.output;
    config.resolved["output"] = config.output;
  }
  Plan plan;
  try {
    plan = make_plan(config);
  } catch (const InputError& e) {
    if (root) spdlog::error("{}", e.what());
    return kExitBadInput;
  }
  const fs::path dir = config.output;
  // The stored config is the resolved one without "output", so a moved directory still resumes.
  nlohmann::json stored = config.resolved;
  stored.erase("output");
  const std::string config_text = stored.dump(2) + "\n";
  if (options.dry_run) {
    if (!root) return kExitOk;
    // The directory is only read: a dry run refuses what the run would refuse (another
    // config's results), so that a job script can check before it submits.
    std::error_code ec;
    const fs::path stored_file = dir / "config.json";
    if (fs::exists(stored_file, ec) && read_text(stored_file) != config_text) {
      spdlog::error("{}: holds results of another config ({} differs from this one); choose another output directory",
                    dir.string(), stored_file.string());
      return kExitBadInput;
    }
    std::printf("config %s: %zu shards, %llu cases, output %s\n", options.config.c_str(), plan.shards.size(),
                static_cast<unsigned long long>(plan.total_cases), config.output.c_str());
    print_plan_by_n(plan);
    if (fs::is_directory(dir / "shards", ec))
      std::printf("%s holds %zu shard files of this config: --resume continues the run\n", dir.c_str(),
                  done_shards(dir).size());
    return kExitOk;
  }

  const std::string config_hash = fnv1a_hex(config_text);
  std::string error;
  std::vector<std::uint64_t> done;
  const bool in_parts = options.parts > 1;
  if (root) error = prepare_directory(dir, config_text, config_hash, plan, options.resume || in_parts, done);
  session.broadcast(error);
  if (!error.empty()) {
    if (root) spdlog::error("{}", error);
    return kExitBadInput;
  }
  session.broadcast(done);

  std::vector<char> is_done(plan.shards.size(), 0);
  for (const std::uint64_t id : done) is_done[id] = 1;  // all < plan.shards.size(): prepare_directory checked
  const std::vector<std::uint64_t> mine =
      in_parts ? part_order(plan, options.part, options.parts) : schedule_order(plan);
  std::vector<std::uint64_t> todo;
  std::uint64_t cases_mine = 0, cases_already = 0, shards_already = 0;
  for (const std::uint64_t i : mine) {
    cases_mine += plan.shards[i].case_count();
    if (!is_done[i]) {
      todo.push_back(i);
    } else {
      cases_already += plan.shards[i].case_count();
      ++shards_already;
    }
  }
  if (root) {
    const std::string part =
        in_parts ? fmt::format(" (part {}/{}: {} shards, {} cases)", options.part, options.parts, mine.size(), cases_mine)
                 : std::string();
    spdlog::info("config {}: {} shards, {} cases{} on {} rank(s); {} shards already done; results in {}", config.name,
                 plan.shards.size(), plan.total_cases, part, session.size(), shards_already, dir.string());
  }

  Attributes attrs{{"schema_version", std::to_string(kSchemaMajor) + "." + std::to_string(kSchemaMinor)},
                   {"nqc_version", NQC_VERSION},
                   {"git_revision", NQC_GIT_REVISION},
                   {"config", config.resolved.dump()},
                   {"config_hash", config_hash},
                   {"hostname", hostname()},
                   {"world_size", std::to_string(session.size())},
                   {"start_utc", utc_now()}};

  int status = kExitOk;
  const auto run_start = std::chrono::steady_clock::now();
  double write_seconds = 0.0;  // time in write_shard on this rank
  {
    WorkCounter counter(session);
    if (root) counter.add_done(cases_already);
    Progress progress(cases_mine, cases_already, options.progress_interval_s);
    while (status == kExitOk) {
      const std::uint64_t slot = counter.take();
      if (slot >= todo.size()) break;
      const Shard& shard = plan.shards[todo[slot]];
      ShardData done_part = load_partial(dir, shard);
      const bool had_partial = fs::exists(partial_path(dir, shard.id));
      ShardRun run;
      try {
        run = run_shard(config, plan, shard, session.rank(), &stop, [&] {
          if (root) progress.maybe_log(counter);
        }, std::move(done_part));
      } catch (const EngineBugError& e) {
        fail_engine_bug(e, dir, session);
      } catch (const std::bad_alloc&) {
        spdlog::critical("out of memory in shard {} (n = {}, {} cases)", shard.id, shard.n, shard.case_count());
        session.abort(kExitBadInput);
      } catch (const std::exception& e) {
        spdlog::critical("shard {}: {}", shard.id, e.what());
        session.abort(kExitBadInput);
      }
      Attributes shard_attrs = attrs;
      shard_attrs["rank"] = std::to_string(session.rank());
      shard_attrs["end_utc"] = utc_now();
      if (!run.complete) {
        // Keep the finished cases: a resume continues the shard where it stopped.
        std::string kept = "none kept";
        if (!run.data.rows.empty()) {
          try {
            write_partial(dir, run.data, shard_attrs);
            kept = "kept in " + partial_path(dir, shard.id).string();
          } catch (const IoError& e) {
            kept = std::string("not kept: ") + e.what();
          }
        }
        spdlog::warn("interrupted in shard {} after {} of {} cases ({}); rerun with --resume to continue", shard.id,
                     run.data.rows.size(), shard.case_count(), kept);
        status = kExitInterrupted;
        break;
      }
      try {
        const auto w0 = std::chrono::steady_clock::now();
        write_shard(dir, run.data, shard_attrs);
        write_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
      } catch (const IoError& e) {
        spdlog::error("{}", e.what());
        status = kExitBadInput;
        break;
      }
      if (had_partial) {
        std::error_code ignored;
        fs::remove(partial_path(dir, shard.id), ignored);  // the shard file now holds its rows
      }
      counter.add_done(shard.case_count());
      spdlog::debug("shard {} done: n = {}, {} cases", shard.id, shard.n, shard.case_count());
    }
    const double busy = std::chrono::duration<double>(std::chrono::steady_clock::now() - run_start).count();
    spdlog::info("writing shard files took {:.3f} s of {:.3f} s ({:.2f}%)", write_seconds, busy,
                 busy > 0 ? 100.0 * write_seconds / busy : 0.0);
    session.barrier();
  }
  status = session.allreduce_max(status);
  if (status != kExitOk) return status;
  if (root && in_parts) {
    const std::uint64_t shards_done = done_shards(dir).size();
    spdlog::info("part {}/{} done: {} cases; {} of {} shards of the plan are on disk{}", options.part, options.parts,
                 cases_mine, shards_done, plan.shards.size(),
                 shards_done == plan.shards.size() ? "; merge them with nqc run CONFIG --resume" : "");
  } else if (root) {
    const std::uint64_t shards_done = done_shards(dir).size();
    if (shards_done != plan.shards.size()) {
      spdlog::error("{}: only {} of {} shards are on disk; rerun with --resume", dir.string(), shards_done,
                    plan.shards.size());
      status = kExitBadInput;
    } else {
      attrs["end_utc"] = utc_now();
      try {
        merge_results(dir, attrs);
        spdlog::info("done: {} cases in {}", plan.total_cases, (dir / "results.h5").string());
      } catch (const IoError& e) {
        spdlog::error("{}", e.what());
        status = kExitBadInput;
      }
    }
  }
  return session.allreduce_max(status);
}

}  // namespace nqc
