#include "mpi/runner.hpp"

#include <unistd.h>

#include <algorithm>
#include <array>
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
#include "experiment/launches.hpp"
#include "mpi/results_dir.hpp"
#include "experiment/pinning.hpp"
#include "experiment/plan.hpp"
#include "experiment/results.hpp"
#include "experiment/worker.hpp"
#include "io/dir_lock.hpp"
#include "io/durable.hpp"
#include "io/errors.hpp"
#include "io/hash.hpp"
#include "io/text_input.hpp"
#include "io/text_format.hpp"
#include "nqc/version.hpp"

namespace nqc {
namespace fs = std::filesystem;
namespace {

// Progress on rank 0 (issue 16): the cases finished on every rank (each rank reports its
// finished cases and their estimated cost to the shared counter at least once a second), the
// rate over this launch, and an ETA from the plan's cost estimate (the largest shards go
// first, so equal cost per case would promise too early an end).
class Progress {
 public:
  /// `total`/`total_cost_s`: this launch's cases and their estimated seconds, those done
  /// before it (`already`, `already_cost_s`: a resume) included; `interval_s` 0 = silent.
  Progress(std::uint64_t total, double total_cost_s, std::uint64_t already, double already_cost_s, double interval_s)
      : total_(total), already_(already), total_cost_s_(total_cost_s), already_cost_s_(already_cost_s),
        interval_s_(interval_s) {}
  void maybe_log(WorkCounter& counter) {
    const auto now = std::chrono::steady_clock::now();
    if (interval_s_ <= 0 || std::chrono::duration<double>(now - last_).count() < interval_s_) return;
    last_ = now;
    const std::uint64_t done = std::min(counter.done(), total_);
    const double cost = std::min(1e-6 * static_cast<double>(counter.cost_done()), total_cost_s_);
    const double elapsed = std::chrono::duration<double>(now - start_).count();
    const double rate = elapsed > 0 ? static_cast<double>(done - std::min(done, already_)) / elapsed : 0.0;
    const double cost_rate = elapsed > 0 ? (cost - std::min(cost, already_cost_s_)) / elapsed : 0.0;
    const std::string eta = cost_rate > 0 ? fmt::format("{:.0f} s", (total_cost_s_ - cost) / cost_rate) : "unknown";
    spdlog::info("progress: {}/{} cases ({:.1f}%), {:.1f} cases/s, ETA {}", done, total_,
                 total_ ? 100.0 * static_cast<double>(done) / static_cast<double>(total_) : 100.0, rate, eta);
  }

 private:
  std::uint64_t total_, already_;
  double total_cost_s_, already_cost_s_, interval_s_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now(), last_ = start_;
};

// A rank's finished cases, reported to the shared counter at most every `every_s` seconds
// (and by flush()), so that progress counts cases, not whole shards.
class CaseReporter {
 public:
  explicit CaseReporter(WorkCounter& counter, double every_s = 1.0) : counter_(counter), every_s_(every_s) {}
  void add(std::uint64_t cases, double cost_s) {
    cases_ += cases;
    cost_s_ += cost_s;
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - last_).count() >= every_s_) flush();
  }
  void flush() {
    if (cases_ != 0) counter_.add_done(cases_, static_cast<std::uint64_t>(std::llround(cost_s_ * 1e6)));
    cases_ = 0;
    cost_s_ = 0;
    last_ = std::chrono::steady_clock::now();
  }

 private:
  WorkCounter& counter_;
  double every_s_;
  std::uint64_t cases_ = 0;
  double cost_s_ = 0;
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

// Per n: shards, cases and an estimate of the CPU time (estimated_case_seconds: a guide for
// sizing jobs, not a promise: other engines and instance sets differ).
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
    const double cpu = estimated_case_seconds(n) * static_cast<double>(counts.second);
    total += cpu;
    std::printf("%12d %10llu %14llu %16.1f\n", n, static_cast<unsigned long long>(counts.first),
                static_cast<unsigned long long>(counts.second), cpu);
  }
  std::printf("%12s %10zu %14llu %16.1f  (%.2f core-hours)\n", "total", plan.shards.size(),
              static_cast<unsigned long long>(plan.total_cases), total, total / 3600.0);
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

// Stage 1, load: the config (with -o applied), its plan and what pins them. Throws InputError.
struct Loaded {
  ExperimentConfig config;
  Plan plan;
  fs::path dir;
  std::string config_text;  ///< DIR/config.json: the resolved config without "output" (a moved directory still resumes)
  PinnedPlan pinned;
};

Loaded load(const RunOptions& options) {
  Loaded l;
  l.config = load_config(options.config);
  if (options.output) l.config.output = *options.output;
  // Stored absolute: a relative path means nothing once the run's working directory is gone.
  l.config.output = fs::absolute(l.config.output).lexically_normal().string();
  l.config.resolved["output"] = l.config.output;
  l.plan = make_plan(l.config);
  l.dir = l.config.output;
  nlohmann::json stored = l.config.resolved;
  stored.erase("output");
  l.config_text = stored.dump(2) + "\n";
  l.pinned = pin_plan(l.plan, hex64(fnv1a64(l.config_text)));
  return l;
}

// --dry-run (rank 0): the directory is only read: a dry run refuses what the run would refuse
// (another config's results, damage, a changed plan), so that a job script can check before
// it submits.
int dry_run(const RunOptions& options, const Loaded& l) {
  std::vector<std::uint64_t> done;
  if (const std::string error = prepare_directory(l.dir, l.config_text, l.pinned, l.plan, true, false, true, done);
      !error.empty() && error != kRunFinished) {
    spdlog::error("{}", error);
    return kExitBadInput;
  }
  std::printf("config %s: %zu shards, %llu cases, output %s\n", options.config.c_str(), l.plan.shards.size(),
              static_cast<unsigned long long>(l.plan.total_cases), l.config.output.c_str());
  print_plan_by_n(l.plan);
  std::error_code ec;
  if (fs::is_directory(l.dir / "shards", ec))
    std::printf("%s holds %zu shard files of this config: --resume continues the run\n", l.dir.c_str(), done.size());
  return kExitOk;
}

// Stage 2, prepare (rank 0): the directory's lock, --force, the directory checks, and this
// launch's record. Returns an error message (or kRunFinished), empty when the run goes on.
struct Prepared {
  std::unique_ptr<DirectoryLock> lock;
  std::vector<std::uint64_t> done;  ///< shard ids already on disk
  Launch launch;                    ///< registered (id > 0) when the run goes on
};

std::string prepare(const RunOptions& options, const Loaded& l, int world_size, Prepared& out) try {
  std::error_code ec;
  fs::create_directories(l.dir, ec);
  if (ec) return l.dir.string() + ": cannot create the results directory: " + ec.message();
  // One owner per results directory (or per part of it), held until the run returns: a
  // second launch is refused before it touches anything.
  std::string stale;
  out.lock = std::make_unique<DirectoryLock>(l.dir, DirectoryLock::scope_of(options.part, options.parts), &stale);
  if (!stale.empty()) spdlog::warn("{}", stale);
  if (options.force) {
    // Start over, under the lock: this config's results go (never another config's: the
    // config check below still refuses those, since config.json stays).
    for (const char* entry : {"results.h5", "shards", "plan.json", "launches"}) {
      fs::remove_all(l.dir / entry, ec);
      if (ec) return (l.dir / entry).string() + ": cannot remove (--force): " + ec.message();
    }
  }
  const bool resume = options.resume || options.repair || options.parts > 1;
  if (std::string error = prepare_directory(l.dir, l.config_text, l.pinned, l.plan, resume, options.repair, false, out.done);
      !error.empty())
    return error;
  out.launch = launch_here(NQC_VERSION, NQC_GIT_REVISION, options.part, options.parts, world_size);
  register_launch(l.dir, out.launch);
  return {};
} catch (const InputError& e) {
  return e.what();
} catch (const IoError& e) {
  return e.what();
}

// Stage 3, execute: this rank takes shards of `todo` from the shared counter until none is
// left, runs them and writes each shard file. Returns kExitOk, kExitInterrupted (stop) or
// kExitBadInput (a write failed); an engine bug or a failure inside a shard aborts every rank.
struct Executed {
  int status = kExitOk;
  std::uint64_t shards = 0, cases = 0;  ///< written by this rank
  double write_seconds = 0, busy_seconds = 0;
  double writer_cpu_seconds = 0;  ///< the background writer thread's CPU time
  double last_wait_seconds = 0;   ///< of write_seconds: waiting for the last shard file
  std::array<std::uint64_t, 3> outcomes{};  ///< this rank's new cases by outcome (solved, infeasible, gave_up)
  std::uint64_t false_negatives = 0;
};

Executed execute(const RunOptions& options, const Loaded& l, const std::vector<std::uint64_t>& todo, const Launch& launch,
                 const std::vector<std::uint64_t>& mine, const std::vector<char>& is_done, const MpiSession& session,
                 const std::atomic<bool>& stop) {
  const bool root = session.rank() == 0;
  Executed out;
  const RootAttributes attrs = shard_attributes(l.config, l.pinned, launch, session.size(), session.rank());
  const auto run_start = std::chrono::steady_clock::now();
  // Each finished shard's file is written and committed (fsync, rename) by a background
  // thread while the next shard runs; this thread waits only when the one before is still
  // being written. HDF5 is called by one thread at a time: this one calls finish() first.
  std::atomic<std::uint64_t> shards_written{0}, cases_written{0};  // declared first: the writer's jobs use them
  BackgroundWriter writer;
  const auto timed = [&](const auto& write) {
    const auto w0 = std::chrono::steady_clock::now();
    write();
    out.write_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
  };
  {
    WorkCounter counter(session);
    std::uint64_t cases_total = 0, cases_already = 0;
    double cost_total = 0, cost_already = 0;
    for (const std::uint64_t i : mine) {
      cases_total += l.plan.shards[i].case_count();
      cost_total += l.plan.shards[i].cost;
      if (is_done[i]) {
        cases_already += l.plan.shards[i].case_count();
        cost_already += l.plan.shards[i].cost;
      }
    }
    if (root) counter.add_done(cases_already, static_cast<std::uint64_t>(std::llround(cost_already * 1e6)));
    Progress progress(cases_total, cost_total, cases_already, cost_already, options.progress_interval_s);
    CaseReporter reporter(counter);
    while (out.status == kExitOk) {
      const std::uint64_t slot = counter.take();
      if (slot >= todo.size()) break;
      const Shard& shard = l.plan.shards[todo[slot]];
      std::error_code ec;
      // Reading a partial file, and instance cases (whose composition files may be HDF5),
      // call HDF5 here: not while a shard file is being written.
      if (shard.instances || fs::exists(partial_path(l.dir, shard.id), ec)) {
        try {
          timed([&] { writer.finish(); });
        } catch (const IoError& e) {  // the shard written before this one
          spdlog::error("{}", e.what());
          out.status = kExitBadInput;
          break;
        }
      }
      ShardData done_part = load_partial(l.dir, shard);
      const std::size_t continued = done_part.rows.size();  // rows of an earlier launch
      const double case_cost = shard.cost / static_cast<double>(std::max<std::uint64_t>(1, shard.case_count()));
      reporter.add(continued, static_cast<double>(continued) * case_cost);
      ShardRun run;
      try {
        run = run_shard(l.config, l.plan, shard, session.rank(), &stop, [&] {
          reporter.add(1, case_cost);
          if (root) progress.maybe_log(counter);
        }, std::move(done_part));
      } catch (const EngineBugError& e) {
        fail_engine_bug(e, l.dir, session);
      } catch (const std::bad_alloc&) {
        spdlog::critical("out of memory in shard {} (n = {}, {} cases)", shard.id, shard.n, shard.case_count());
        session.abort(kExitBadInput);
      } catch (const std::exception& e) {
        spdlog::critical("shard {}: {}", shard.id, e.what());
        session.abort(kExitBadInput);
      }
      for (std::size_t i = continued; i < run.data.rows.size(); ++i) run.data.rows[i].launch = launch.id;
      RootAttributes shard_attrs = attrs;
      shard_attrs.end_utc = utc_now();
      if (!run.complete) {
        for (std::size_t i = continued; i < run.data.rows.size(); ++i) {
          ++out.outcomes[static_cast<std::size_t>(std::clamp<int>(run.data.rows[i].outcome, 0, 2))];
          out.false_negatives += run.data.rows[i].false_negative;
        }
        // Keep the finished cases: a resume continues the shard where it stopped.
        std::string kept = "none kept";
        if (!run.data.rows.empty()) {
          try {
            timed([&] { writer.finish(); });
            write_partial(l.dir, run.data, shard_attrs);
            kept = "kept in " + partial_path(l.dir, shard.id).string();
          } catch (const IoError& e) {
            kept = std::string("not kept: ") + e.what();
          }
        }
        spdlog::warn("interrupted in shard {} after {} of {} cases ({}); rerun with --resume to continue", shard.id,
                     run.data.rows.size(), shard.case_count(), kept);
        out.cases += run.data.rows.size() - continued;
        out.status = kExitInterrupted;
        break;
      }
      auto data = std::make_shared<ShardData>(std::move(run.data));
      const std::uint64_t new_cases = shard.case_count() - continued;
      try {
        timed([&] {
          writer.submit([&, data, shard_attrs, new_cases, continued] {
            commit_file(write_shard_pending(l.dir, *data, shard_attrs));
            if (continued > 0) {
              std::error_code ignored;
              fs::remove(partial_path(l.dir, data->shard_id), ignored);  // the shard file now holds its rows
            }
            ++shards_written;
            cases_written += new_cases;
          });
        });
      } catch (const IoError& e) {
        spdlog::error("{}", e.what());
        out.status = kExitBadInput;
        break;
      }
      for (std::size_t i = continued; i < data->rows.size(); ++i) {
        const CaseRow& row = data->rows[i];
        ++out.outcomes[static_cast<std::size_t>(std::clamp<int>(row.outcome, 0, 2))];
        out.false_negatives += row.false_negative;
      }
      spdlog::debug("shard {} done: n = {}, {} cases", shard.id, shard.n, shard.case_count());
    }
    try {
      const double before = out.write_seconds;
      timed([&] { writer.finish(); });
      out.last_wait_seconds = out.write_seconds - before;
    } catch (const IoError& e) {
      spdlog::error("{}", e.what());
      out.status = std::max(out.status, static_cast<int>(kExitBadInput));
    }
    out.shards = shards_written;
    out.cases += cases_written;
    out.writer_cpu_seconds = writer.cpu_seconds();
    out.busy_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - run_start).count();
    reporter.flush();
    const auto share = [&](double seconds) { return out.busy_seconds > 0 ? 100.0 * seconds / out.busy_seconds : 0.0; };
    spdlog::debug("writing shard files: waited {:.3f} s of {:.3f} s ({:.2f}%; for the last one {:.3f} s); the writer "
                  "thread's CPU {:.3f} s ({:.2f}%)",
                  out.write_seconds, out.busy_seconds, share(out.write_seconds), out.last_wait_seconds,
                  out.writer_cpu_seconds, share(out.writer_cpu_seconds));
    // Rank 0 keeps reporting while the other ranks finish their last shards.
    session.barrier([&] {
      if (root) progress.maybe_log(counter);
    });
  }
  return out;
}

// Stage 4, merge (rank 0): every shard file checked against the pinned plan and streamed into
// DIR/results.h5 with the launches table. `launch` is this launch (it merges). Throws IoError.
void merge(const Loaded& l, const Launch& launch) {
  if (const std::string change = check_plan_unchanged(l.dir, l.config, l.pinned); !change.empty()) throw IoError(change);
  std::vector<std::string> damaged;
  std::vector<Launch> launches = read_launches(l.dir, &damaged);
  for (const std::string& problem : damaged) spdlog::warn("{}", problem);
  for (Launch& other : launches)
    if (other.id == launch.id) {
      other = launch;
      other.end_utc = utc_now();
      other.exit_status = kExitOk;  // the merge is its last step: results.h5 exists only if it succeeded
      other.merged = true;
    }
  std::string start = launch.start_utc;
  for (const Launch& other : launches)
    if (!other.start_utc.empty()) start = std::min(start, other.start_utc);
  const RootAttributes attrs = merged_attributes(l.config, l.pinned, launch, start, launches.size());
  const RunIdentity run{l.pinned.config_hash, l.pinned.hash()};
  const auto check = [&](const fs::path& file, std::uint64_t id, const ResultFile& content) {
    check_against_plan(file, id, content, l.plan, run, false);
  };
  const auto start_merge = std::chrono::steady_clock::now();
  merge_results(l.dir, attrs, check, l.plan.total_cases, launches);
  spdlog::debug("merged {} shard files ({} cases) into {} in {:.1f} s", l.plan.shards.size(), l.plan.total_cases,
                (l.dir / "results.h5").string(),
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start_merge).count());
}

// Shard files on disk now (0 when they cannot be listed: only for the summary).
std::size_t done_shards_count(const fs::path& dir) {
  try {
    return done_shards(dir).size();
  } catch (const IoError&) {
    return 0;
  }
}

}  // namespace

int run_experiment(const RunOptions& options, const MpiSession& session, const std::atomic<bool>& stop) {
  const bool root = session.rank() == 0;
  const auto launch_start = std::chrono::steady_clock::now();
  Loaded l;
  try {
    l = load(options);
  } catch (const InputError& e) {
    if (root) spdlog::error("{}", e.what());
    return kExitBadInput;
  }
  if (options.dry_run) return root ? dry_run(options, l) : kExitOk;

  Prepared prepared;
  std::string error;
  if (root) error = prepare(options, l, session.size(), prepared);
  session.broadcast(error);
  if (error == kRunFinished) {
    if (root)
      spdlog::info("{}: the run of this config is finished ({}): nothing to do (--force starts it over)", l.dir.string(),
                   (l.dir / "results.h5").string());
    return kExitOk;
  }
  if (!error.empty()) {
    if (root) spdlog::error("{}", error);
    return kExitBadInput;
  }
  std::vector<std::uint64_t> shared{prepared.launch.id};
  session.broadcast(shared);
  prepared.launch.id = static_cast<std::uint32_t>(shared.at(0));
  session.broadcast(prepared.done);
  // The launch record names every host the ranks run on.
  const std::vector<std::string> hosts = session.gather(host_name());
  if (root) {
    std::vector<std::string> distinct;
    for (const std::string& h : hosts)
      if (std::find(distinct.begin(), distinct.end(), h) == distinct.end()) distinct.push_back(h);
    prepared.launch.hosts.clear();
    for (const std::string& h : distinct) prepared.launch.hosts += (prepared.launch.hosts.empty() ? "" : ",") + h;
  }

  // This launch's shards: its part of the plan (or all of it), without those already done.
  const bool in_parts = options.parts > 1;
  std::vector<char> is_done(l.plan.shards.size(), 0);
  for (const std::uint64_t id : prepared.done) is_done[id] = 1;  // all < plan.shards.size(): prepare_directory checked
  const std::vector<std::uint64_t> mine =
      in_parts ? part_order(l.plan, options.part, options.parts) : schedule_order(l.plan);
  std::vector<std::uint64_t> todo;
  std::uint64_t cases_mine = 0, shards_already = 0;
  for (const std::uint64_t i : mine) {
    cases_mine += l.plan.shards[i].case_count();
    if (!is_done[i]) todo.push_back(i);
    else ++shards_already;
  }
  if (root) {
    const std::string part =
        in_parts ? fmt::format(" (part {}/{}: {} shards, {} cases)", options.part, options.parts, mine.size(), cases_mine)
                 : std::string();
    spdlog::info("config {}: {} shards, {} cases{} on {} rank(s); {} shards already done; results in {} (launch {})",
                 l.config.name, l.plan.shards.size(), l.plan.total_cases, part, session.size(), shards_already,
                 l.dir.string(), prepared.launch.id);
  }

  const Executed executed = execute(options, l, todo, prepared.launch, mine, is_done, session, stop);
  int status = session.allreduce_max(executed.status);
  prepared.launch.shards_done = session.allreduce_sum(executed.shards);
  prepared.launch.cases_done = session.allreduce_sum(executed.cases);
  std::array<std::uint64_t, 3> outcomes{};
  for (std::size_t o = 0; o < outcomes.size(); ++o) outcomes[o] = session.allreduce_sum(executed.outcomes[o]);
  const std::uint64_t false_negatives = session.allreduce_sum(executed.false_negatives);
  if (root && status == kExitOk) {
    const std::uint64_t shards_done = done_shards(l.dir).size();
    if (in_parts) {
      spdlog::info("part {}/{} done: {} cases; {} of {} shards of the plan are on disk{}", options.part, options.parts,
                   cases_mine, shards_done, l.plan.shards.size(),
                   shards_done == l.plan.shards.size()
                       ? fmt::format("; merge them with nqc run {} -o {} --resume", options.config.string(), l.dir.string())
                       : std::string());
    } else if (shards_done != l.plan.shards.size()) {
      spdlog::error("{}: only {} of {} shards are on disk; rerun with --resume", l.dir.string(), shards_done,
                    l.plan.shards.size());
      status = kExitBadInput;
    } else {
      try {
        merge(l, prepared.launch);
        prepared.launch.merged = true;
        spdlog::info("done: {} cases in {}", l.plan.total_cases, (l.dir / "results.h5").string());
      } catch (const IoError& e) {
        spdlog::error("{}", e.what());
        status = kExitBadInput;
      }
    }
  }
  if (root) {
    // The end of every launch: what it did, how fast, and where the results are.
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - launch_start).count();
    const std::uint64_t ran = outcomes[0] + outcomes[1] + outcomes[2];
    const fs::path where = prepared.launch.merged ? l.dir / "results.h5" : l.dir / "shards";
    spdlog::info("summary: {} cases run by this launch ({} solved, {} infeasible, {} gave up; {} false negatives) in "
                 "{:.1f} s on {} rank(s), {:.1f} cases/s; {} of {} shards on disk; results in {}{}",
                 ran, outcomes[0], outcomes[1], outcomes[2], false_negatives, wall, session.size(),
                 wall > 0 ? static_cast<double>(ran) / wall : 0.0, done_shards_count(l.dir), l.plan.shards.size(),
                 where.string(), status == kExitInterrupted ? " (interrupted: rerun with --resume to continue)" : "");
    prepared.launch.end_utc = utc_now();
    prepared.launch.exit_status = status;
    try {
      update_launch(l.dir, prepared.launch);
    } catch (const IoError& e) {
      spdlog::warn("{}", e.what());
    }
  }
  return session.allreduce_max(status);
}

}  // namespace nqc
