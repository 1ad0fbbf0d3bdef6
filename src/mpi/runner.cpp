#include "mpi/runner.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <memory>
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
#include "experiment/pinning.hpp"
#include "experiment/plan.hpp"
#include "experiment/results.hpp"
#include "experiment/worker.hpp"
#include "io/dir_lock.hpp"
#include "io/errors.hpp"
#include "io/hash.hpp"
#include "io/text_input.hpp"
#include "io/text_format.hpp"
#include "nqc/version.hpp"

namespace nqc {
namespace fs = std::filesystem;
namespace {

// What prepare_directory returns for a directory whose run of this config is finished.
const std::string kRunFinished = "finished";

// A file of the results directory written atomically: a per-process temporary name (the
// parts of a job array may prepare one directory at once), then a rename. Returns an error
// message, empty when written.
std::string write_small_file(const fs::path& target, const std::string& text) {
  const fs::path tmp = target.string() + ".tmp." + std::to_string(::getpid());
  errno = 0;
  {
    std::ofstream out(tmp, std::ios::trunc | std::ios::binary);
    out << text;
    out.flush();
    if (!out) {
      const int error = errno;
      std::error_code ignored;
      fs::remove(tmp, ignored);
      return target.parent_path().string() + ": cannot write to the results directory: " +
             (error ? std::strerror(error) : "the directory is not writable");
    }
  }
  std::error_code ec;
  fs::rename(tmp, target, ec);
  if (ec) return target.string() + ": cannot write: " + ec.message();
  return {};
}

// Why `text` (DIR/config.json) is not a config nqc wrote, or "" when it reads as one.
std::string config_file_problem(const std::string& text, const fs::path& file) {
  if (text.empty()) return "empty";
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    return "not valid JSON at byte " + std::to_string(e.byte);
  } catch (const nlohmann::json::exception&) {
    return "not valid JSON";
  }
  if (!j.is_object() || j.dump(2) + "\n" != text) return "not as nqc writes it";
  try {
    (void)parse_config(j, file.string());
  } catch (const InputError& e) {
    return std::string("not a valid config: ") + e.what();
  }
  return "";
}

std::string attr(const ResultFile& content, const char* key) {
  const auto it = content.attrs.find(key);
  return it == content.attrs.end() ? std::string() : it->second;
}

// The result files of a results directory (shard and partial files), as read at launch:
// their attributes and row counts (partial files: their rows too).
using Contents = std::map<fs::path, ResultFile>;

// What DIR/config.json says, against this config and the result files beside it. Returns an
// error message, empty when the run may go on (config.json is then written from this
// config). A config.json that cannot be read as this config's, beside result files that
// carry this config's config_hash, is damaged (or edited): --repair rewrites it.
std::string check_config_file(const fs::path& dir, const std::string& config_text, const std::string& config_hash,
                              const Contents& contents, bool repair) {
  const fs::path stored = dir / "config.json";
  std::error_code ec;
  if (!fs::exists(stored, ec)) return {};
  const std::string text = text::read_small_file(stored, 16u << 20, "config.json");
  if (text == config_text) return {};
  std::set<std::string> hashes;
  for (const auto& [file, content] : contents) hashes.insert(attr(content, "config_hash"));
  const std::string problem = config_file_problem(text, stored);
  const std::string count = std::to_string(contents.size()) + " result file" + (contents.size() == 1 ? "" : "s");
  if (hashes.empty() && !fs::exists(dir / "results.h5", ec)) {
    // Nothing to lose: --repair makes the directory this config's.
    if (repair) return {};
    return stored.string() + ": " + (problem.empty() ? "another config's (it differs from this one)" : "damaged (" + problem + ")") +
           ", and the directory holds no result files yet: choose another output directory, or run again with --repair "
           "to rewrite it from this config";
  }
  if (hashes.empty() && problem.empty())
    return dir.string() + ": holds results of another config (" + stored.string() +
           " differs from this one); choose another output directory";
  if (hashes == std::set<std::string>{hex64(fnv1a64(text))})
    return dir.string() + ": holds results of another config (" + stored.string() +
           " differs from this one); choose another output directory";
  const std::string why = problem.empty() ? "it is not the config its " + count + " were written with" : problem;
  if (hashes == std::set<std::string>{config_hash}) {
    if (!repair)
      return stored.string() + ": damaged (" + why + "); the " + count + " there carry this config's config_hash " +
             config_hash + ": run again with --resume --repair to rewrite it from this config";
    spdlog::warn("{}: damaged ({}); rewritten from this config, whose config_hash the {} there carry", stored.string(), why,
                 count);
    return {};
  }
  for (const std::string& h : hashes)
    if (h != config_hash)
      return stored.string() + ": damaged or another config's (" + why +
             "), and result files there belong to another config (config_hash " + text::escaped(h) + ", this config " +
             config_hash + "); choose another output directory";
  return {};
}

// What DIR/plan.json says, against this launch's plan and the result files. Returns an error
// message, empty when the run may go on; sets `rewrite` when plan.json must be (re)written.
std::string check_plan_file(const fs::path& dir, const PinnedPlan& pinned, const Contents& contents, bool repair,
                            bool& rewrite) {
  const fs::path file = dir / "plan.json";
  const std::string plan_hash = pinned.hash();
  std::error_code ec;
  rewrite = true;
  if (!fs::exists(file, ec)) return {};  // the result files' plan_hash is checked against this plan
  const std::string count = std::to_string(contents.size()) + " result file" + (contents.size() == 1 ? "" : "s");
  PinnedPlan then;
  try {
    then = parse_pinned_plan(text::read_small_file(file, 256u << 20, "plan.json"));
  } catch (const InputError& e) {
    for (const auto& [f, content] : contents)
      if (content.attrs.contains("plan_hash") && attr(content, "plan_hash") != plan_hash)
        return file.string() + ": damaged (" + e.what() + "), and " + f.string() +
               " was written for another plan (plan_hash " + text::escaped(attr(content, "plan_hash")) + ", this launch's " +
               plan_hash + "): the instance files or nqc changed; choose another output directory";
    const std::string proof = contents.empty() ? "the directory holds no result files yet"
                                               : "the " + count + " there agree with this launch's plan";
    if (!repair)
      return file.string() + ": damaged (" + e.what() + "); " + proof +
             ": run again with --resume --repair to rewrite it from this launch's plan";
    spdlog::warn("{}: damaged ({}); rewritten from this launch's plan ({})", file.string(), e.what(), proof);
    return {};
  }
  rewrite = then.hash() != plan_hash;
  const std::string change = plan_change(then, pinned);
  if (change.empty()) return {};
  if (contents.empty()) {
    spdlog::info("{}: {} before any case finished: the plan is pinned again", dir.string(), change);
    return {};
  }
  return dir.string() + ": " + change + " since the run started; its " + count +
         " hold the cases of the plan pinned in " + file.string() +
         ": restore what changed, or run into another output directory";
}

// Rank 0: makes DIR usable for this run and lists the shards already done there. Returns an
// error message, empty when fine. Every shard and partial file is read first (attributes and
// row count: a damaged one is named, with the remedy); then DIR/config.json (another
// config's results, or damaged), results without --resume, DIR/plan.json (the pinned plan:
// a change is refused), and each file against the plan. `dry`: only look (no directory made,
// nothing written or removed). Writes config.json at every launch (the same text when it
// was right: the write is also the check that the directory is writable, before any shard
// runs) and plan.json when it is missing or repaired.
std::string prepare_directory(const fs::path& dir, const std::string& config_text, const PinnedPlan& pinned,
                              const Plan& plan, bool resume, bool repair, bool dry, std::vector<std::uint64_t>& done) try {
  std::error_code ec;
  if (!dry) {
    fs::create_directories(dir, ec);
    if (ec) return dir.string() + ": cannot create the results directory: " + ec.message();
  }
  done = done_shards(dir);
  const std::vector<std::uint64_t> partials = partial_shards(dir);
  Contents contents;
  for (const std::uint64_t id : done) contents[shard_path(dir, id)] = read_result_file(shard_path(dir, id), kRowCount);
  for (const std::uint64_t id : partials) contents[partial_path(dir, id)] = read_result_file(partial_path(dir, id), kRows);
  bool write_plan = false;
  if (std::string error = check_config_file(dir, config_text, pinned.config_hash, contents, repair); !error.empty())
    return error;
  if (!done.empty() && !resume) {
    if (done.size() == plan.shards.size() && fs::exists(dir / "results.h5", ec)) return kRunFinished;
    return dir.string() + ": already holds results of this config; pass --resume to continue the run, or --force to start it over";
  }
  if (std::string error = check_plan_file(dir, pinned, contents, repair, write_plan); !error.empty()) return error;
  const RunIdentity run{pinned.config_hash, pinned.hash()};
  for (const std::uint64_t id : done) check_against_plan(shard_path(dir, id), id, contents[shard_path(dir, id)], plan, run, false);
  for (const std::uint64_t id : partials) {
    const fs::path file = partial_path(dir, id);
    if (!std::binary_search(done.begin(), done.end(), id)) {
      check_against_plan(file, id, contents[file], plan, run, true);
      continue;
    }
    // A partial file of a done shard: left by a crash between the two writes; not needed.
    if (attr(contents[file], "config_hash") != run.config_hash)
      return file.string() + ": belongs to another config (config_hash " + text::escaped(attr(contents[file], "config_hash")) +
             ", this config " + run.config_hash + "); move it out of " + (dir / "shards").string();
    if (!dry) fs::remove(file, ec);
  }
  if (dry) return {};
  if (std::string error = write_small_file(dir / "config.json", config_text); !error.empty()) return error;
  if (write_plan)
    if (std::string error = write_small_file(dir / "plan.json", plan_file_text(pinned, NQC_VERSION)); !error.empty())
      return error;
  return {};
} catch (const std::exception& e) {
  return e.what();
}

// At the merge: the instance files and DIR/plan.json still as the launch pinned them.
std::string check_plan_unchanged(const fs::path& dir, const ExperimentConfig& config, const PinnedPlan& pinned) try {
  PinnedPlan now = pinned;
  if (!config.instances.files.empty()) now.instances = instance_files_now(config);
  if (const std::string change = plan_change(pinned, now); !change.empty())
    return dir.string() + ": " + change + " during the run; results.h5 is not written: restore it and run again with --resume";
  const PinnedPlan stored = parse_pinned_plan(text::read_small_file(dir / "plan.json", 256u << 20, "plan.json"));
  if (stored.hash() != pinned.hash())
    return (dir / "plan.json").string() + ": changed during the run (plan_hash " + stored.hash() + ", this run's " +
           pinned.hash() + "); results.h5 is not written";
  return {};
} catch (const InputError& e) {
  return (dir / "plan.json").string() + ": damaged (" + e.what() + "); results.h5 is not written: run again with --resume --repair";
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
  const std::string config_hash = hex64(fnv1a64(config_text));
  const PinnedPlan pinned = pin_plan(plan, config_hash);
  if (options.dry_run) {
    if (!root) return kExitOk;
    // The directory is only read: a dry run refuses what the run would refuse (another
    // config's results, damage, a changed plan), so that a job script can check before it
    // submits.
    std::vector<std::uint64_t> done;
    if (const std::string error = prepare_directory(dir, config_text, pinned, plan, true, false, true, done); !error.empty()) {
      spdlog::error("{}", error);
      return kExitBadInput;
    }
    std::printf("config %s: %zu shards, %llu cases, output %s\n", options.config.c_str(), plan.shards.size(),
                static_cast<unsigned long long>(plan.total_cases), config.output.c_str());
    print_plan_by_n(plan);
    std::error_code ec;
    if (fs::is_directory(dir / "shards", ec))
      std::printf("%s holds %zu shard files of this config: --resume continues the run\n", dir.c_str(), done.size());
    return kExitOk;
  }

  std::string error;
  std::vector<std::uint64_t> done;
  const bool in_parts = options.parts > 1;
  // One owner per results directory (or per part of it): rank 0 holds the lock until the run
  // returns; a second launch is refused before it touches anything.
  std::unique_ptr<DirectoryLock> lock;
  if (root) {
    try {
      std::error_code ec;
      fs::create_directories(dir, ec);
      if (ec) throw IoError(dir.string() + ": cannot create the results directory: " + ec.message());
      std::string stale;
      lock = std::make_unique<DirectoryLock>(dir, DirectoryLock::scope_of(options.part, options.parts), &stale);
      if (!stale.empty()) spdlog::warn("{}", stale);
    } catch (const InputError& e) {
      error = e.what();
    } catch (const IoError& e) {
      error = e.what();
    }
    if (error.empty() && options.force) {
      // Start over, under the lock: this config's results go (never another config's: the
      // config check below still refuses those, since config.json stays).
      for (const char* entry : {"results.h5", "shards", "plan.json"}) {
        std::error_code ec;
        fs::remove_all(dir / entry, ec);
        if (ec) error = (dir / entry).string() + ": cannot remove (--force): " + ec.message();
      }
    }
    if (error.empty())
      error = prepare_directory(dir, config_text, pinned, plan, options.resume || options.repair || in_parts, options.repair,
                                false, done);
  }
  session.broadcast(error);
  if (error == kRunFinished) {
    if (root)
      spdlog::info("{}: the run of this config is finished ({}): nothing to do (--force starts it over)", dir.string(),
                   (dir / "results.h5").string());
    return kExitOk;
  }
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
                   {"plan_hash", pinned.hash()},
                   {"case_generation", std::to_string(kCaseGeneration)},
                   {"hostname", host_name()},
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
      // The plan as pinned at launch, and every shard file's rows as the plan gives them.
      const RunIdentity run{config_hash, pinned.hash()};
      const auto check = [&](const fs::path& file, std::uint64_t id, const ResultFile& content) {
        check_against_plan(file, id, content, plan, run, false);
      };
      try {
        if (const std::string change = check_plan_unchanged(dir, config, pinned); !change.empty()) throw IoError(change);
        merge_results(dir, attrs, check, plan.total_cases);
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
