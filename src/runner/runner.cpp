#include "runner/runner.hpp"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>
#include <new>
#include <thread>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "experiment/config.hpp"
#include "experiment/launches.hpp"
#include "experiment/pinning.hpp"
#include "experiment/plan.hpp"
#include "experiment/results.hpp"
#include "experiment/worker.hpp"
#include "formats/composition_file.hpp"
#include "formats/hash.hpp"
#include "nqc/version.hpp"
#include "runner/progress.hpp"
#include "runner/results_dir.hpp"
#include "system/dir_lock.hpp"
#include "system/durable.hpp"
#include "system/errors.hpp"

namespace nqc {
namespace fs = std::filesystem;
namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Runs `stage` on every rank (`every`) or on rank 0; returns on every rank the largest exit code
// it threw (kExitOk). Another rank logs its error only when rank 0's stage succeeded.
template <typename Stage>
int on_ranks(const MpiSession& session, bool every, Stage&& stage) {
  ErrorReport error{kExitOk, {}};
  if (every || session.rank() == 0) {
    try {
      stage();
    } catch (...) {
      error = current_error();
    }
  }
  int root_code = error.code;
  session.broadcast(root_code);
  if (error.code != kExitOk && (session.rank() == 0 || root_code == kExitOk)) spdlog::error("{}", error.message);
  return every ? session.allreduce_max(error.code) : root_code;
}

// Runs `f`; returns kExitOk, or the exit code of the error it threw, after logging it.
template <typename F>
int logged(F&& f) {
  try {
    f();
    return kExitOk;
  } catch (...) {
    const ErrorReport error = current_error();
    spdlog::error("{}", error.message);
    return error.code;
  }
}

// The logger of the end-of-launch lines (kSummaryLogger), else the default.
std::shared_ptr<spdlog::logger> summary_log() {
  const auto logger = spdlog::get(kSummaryLogger);
  return logger ? logger : spdlog::default_logger();
}

std::string finished_line(const fs::path& dir) {
  return dir.string() + ": the run of this config is finished (" + (dir / "results.h5").string() +
         "): nothing to do (--force starts it over)";
}

// ---- load and plan (every rank) ----------------------------------------------------------------

struct Run {
  ExperimentConfig config;
  fs::path dir;             ///< the results directory (absolute)
  std::string config_text;  ///< DIR/config.json: the resolved config without "output"
  Plan plan;
  PinnedPlan pinned;
  double plan_seconds = 0;  ///< making the plan took (every rank makes it)
};

// The config, with -o applied and "output" made absolute, and its plan. Throws nqc::InputError,
// nqc::IoError, std::bad_alloc (a plan too large), nqc::Error (interrupted by `stop`).
void load_and_plan(const RunOptions& options, Run& r, bool root, const std::atomic<bool>& stop) {
  r.config = load_config(options.config);
  if (options.output) r.config.output = *options.output;
  r.config.output = fs::absolute(r.config.output).lexically_normal().string();
  r.config.resolved["output"] = r.config.output;
  r.dir = r.config.output;
  nlohmann::json stored = r.config.resolved;
  stored.erase("output");
  r.config_text = stored.dump(2) + "\n";
  if (root && r.config.origin == Origin::canonical)
    spdlog::info("counting the canonical compositions of each (n, k) of {} to number the cases",
                 options.config.string());
  const auto start = Clock::now();
  r.plan = make_plan(r.config, &stop);
  r.plan_seconds = seconds_since(start);
  r.pinned = pin_plan(r.plan, hex64(xxh64(r.config_text)));
}

// --dry-run (rank 0): refuses what the run would refuse (DIR only read); then the plan, as text
// or (--json) one JSON line.
void dry_run(const RunOptions& options, const Run& r) {
  std::vector<std::uint64_t> done;
  const bool finished =
      prepare_directory(r.dir, r.config_text, r.pinned, r.plan, true, false, true, done) == DirectoryState::finished;
  const PlanEstimate estimate = estimate_plan(r.plan);
  std::string out;
  if (options.json) {
    nlohmann::json by_n = nlohmann::json::array();
    for (const PlanSize& s : estimate.by_n)
      by_n.push_back({{"n", s.n}, {"shards", s.shards}, {"cases", s.cases}, {"cpu_seconds", s.cpu_seconds}});
    out = nlohmann::json{{"config", fs::weakly_canonical(fs::absolute(options.config)).string()},
                         {"name", r.config.name},
                         {"output", fs::weakly_canonical(r.dir).string()},
                         {"shards", r.plan.shards.size()},
                         {"cases", r.plan.total_cases},
                         {"shards_done", done.size()},
                         {"finished", finished},
                         {"by_n", by_n},
                         {"cpu_seconds", estimate.cpu_seconds},
                         {"plan_seconds", r.plan_seconds},
                         {"core_hours", estimate.core_hours()}}
              .dump() +
          "\n";
  } else {
    out = fmt::format("config {}: {} shards, {} cases, output {}\n", options.config.string(), r.plan.shards.size(),
                      r.plan.total_cases, r.dir.string());
    out += fmt::format("{:>12} {:>10} {:>14} {:>16}\n", "n", "shards", "cases", "est. CPU s");
    for (const PlanSize& s : estimate.by_n)
      out += fmt::format("{:>12} {:>10} {:>14} {:>16.1f}\n", s.n, s.shards, s.cases, s.cpu_seconds);
    out += fmt::format("{:>12} {:>10} {:>14} {:>16.1f}  ({:.2f} core-hours)\n", "total", r.plan.shards.size(),
                       r.plan.total_cases, estimate.cpu_seconds, estimate.core_hours());
    if (r.plan_seconds >= 1)
      out += fmt::format(
          "making the plan took {:.1f} s (every rank takes it at its start; info, export and rerun "
          "again)\n",
          r.plan_seconds);
    std::error_code ec;
    if (finished)
      out += finished_line(r.dir) + "\n";
    else if (fs::is_directory(r.dir / "shards", ec))
      out += fmt::format("{} holds {} shard files of this config: --resume continues the run\n", r.dir.string(),
                         done.size());
  }
  std::fputs(out.c_str(), stdout);
}

// ---- the directory seen from every host --------------------------------------------------------

// Every rank reads rank 0's probe of `token` (20 tries, 0.1 s apart), or the launch is refused
// (a node-local DIR): rank 0 removes the probe (and DIR if `made`), throws nqc::InputError.
void check_shared(const Run& r, const MpiSession& session, std::string token, bool made) {
  session.broadcast(token);
  const fs::path probe = r.dir / (".nqc-probe-" + token);
  bool seen = false;
  for (int attempt = 0; attempt < 20 && !seen; ++attempt) {
    if (attempt > 0) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    std::ifstream in(probe);
    std::string text;
    seen = static_cast<bool>(std::getline(in, text)) && text == token;
  }
  const std::vector<std::string> blind = session.gather(seen ? std::string() : host_name());
  if (session.rank() != 0) return;
  std::error_code ignored;
  fs::remove(probe, ignored);
  std::string names;
  for (std::size_t i = 0; i < blind.size(); ++i)
    if (!blind[i].empty() && std::find(blind.begin(), blind.begin() + i, blind[i]) == blind.begin() + i)
      names += (names.empty() ? "" : ", ") + blind[i];
  if (names.empty()) return;
  if (made) fs::remove(r.dir, ignored);  // only when empty
  throw InputError(r.dir.string() + ": not shared by every host of this launch: " + names +
                   " cannot see what rank 0 (" + host_name() +
                   ") writes there; put the results directory on a file system every host mounts");
}

// Rank 0: DIR made, or nqc::IoError / nqc::InputError.
void make_dir(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw_errno(dir.string() + ": cannot create the results directory", ec.value());
}

// Rank 0: DIR/.nqc-probe-TOKEN holding TOKEN, unique to this launch (`made`: DIR did not exist).
void write_probe(const Run& r, std::string& token, bool& made) {
  std::error_code ec;
  made = !fs::exists(r.dir, ec);
  make_dir(r.dir);
  token = hex64(xxh64(host_name() + std::to_string(::getpid()) + utc_now() +
                      std::to_string(Clock::now().time_since_epoch().count())));
  if (const int error = write_whole_file(r.dir / (".nqc-probe-" + token), token); error != 0)
    throw_errno(r.dir.string() + ": cannot write to the results directory", error);
}

// ---- prepare (rank 0) ---------------------------------------------------------------------------

struct Prepared {
  std::unique_ptr<DirectoryLock> lock;
  std::vector<std::uint64_t> done;  ///< shard ids already on disk
  Launch launch;                    ///< registered (id > 0) when the run goes on; id 0: the run is finished
};

// The directory's lock (held until the run returns), --force, prepare_directory and this
// launch's record in DIR/launches. Throws LockHeldError, nqc::InputError, nqc::IoError.
void prepare(const RunOptions& options, const Run& r, int world_size, const std::string& hosts, Prepared& out) {
  make_dir(r.dir);
  std::string stale;
  out.lock = std::make_unique<DirectoryLock>(r.dir, DirectoryLock::scope_of(options.part, options.parts), &stale);
  if (!stale.empty()) spdlog::warn("{}", stale);
  if (options.force) remove_run_for_force(r.dir, r.config_text, r.pinned.config_hash);
  const bool resume = options.resume || options.repair || options.parts > 1;
  if (prepare_directory(r.dir, r.config_text, r.pinned, r.plan, resume, options.repair, false, out.done) ==
      DirectoryState::finished)
    return;
  if (options.parts <= 1) remove_temporaries(r.dir);
  out.launch = launch_here(NQC_VERSION, NQC_GIT_REVISION, options.part, options.parts, world_size);
  out.launch.hosts = hosts;
  register_launch(r.dir, out.launch);
}

// Rank 0's launch (id 0: finished) and shards done, on every rank. Collective.
void share_prepared(Prepared& prepared, const MpiSession& session) {
  int id = static_cast<int>(prepared.launch.id);
  session.broadcast(id);
  prepared.launch.id = static_cast<std::uint32_t>(id);
  if (id == 0) return;
  for (std::string* field : {&prepared.launch.start_utc, &prepared.launch.nqc_version, &prepared.launch.git_revision})
    session.broadcast(*field);
  session.broadcast(prepared.done);
}

// Every host with its ranks in order of first rank ("h0:0-1,h1:2-3", "h0:0+2,h1:1+3"), on
// rank 0; "" elsewhere. Collective.
std::string launch_hosts(const MpiSession& session) {
  const std::vector<std::string> names = session.gather(host_name());
  std::string out;
  for (std::size_t first = 0; first < names.size(); ++first) {
    if (std::find(names.begin(), names.begin() + first, names[first]) != names.begin() + first) continue;
    std::vector<std::size_t> ranks;
    for (std::size_t r = first; r < names.size(); ++r)
      if (names[r] == names[first]) ranks.push_back(r);
    out += (out.empty() ? "" : ",") + names[first] + ":";
    for (std::size_t i = 0, j = 0; i < ranks.size(); i = ++j) {
      while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
      out += (i == 0 ? "" : "+") + std::to_string(ranks[i]) + (j > i ? "-" + std::to_string(ranks[j]) : "");
    }
  }
  return out;
}

// This launch's part of the plan (or all of it), what is left of it, and its counts.
struct LaunchShards {
  std::vector<std::uint64_t> mine;  ///< shard ids of this launch, in schedule order
  std::vector<std::uint64_t> todo;  ///< of mine, those not on disk yet: the shared counter's slots
  std::uint64_t cases_mine = 0;
  std::uint64_t cases_already = 0;         ///< of cases_mine, in shards already on disk
  double cost_mine = 0, cost_already = 0;  ///< estimated seconds, the same way
};

LaunchShards launch_shards(const RunOptions& options, const Plan& plan, const std::vector<std::uint64_t>& done) {
  LaunchShards s;
  s.mine = options.parts > 1 ? part_order(plan, options.part, options.parts) : schedule_order(plan);
  for (const std::uint64_t i : s.mine) {
    const Shard& shard = plan.shards[i];
    s.cases_mine += shard.case_count();
    s.cost_mine += shard.cost;
    if (!std::binary_search(done.begin(), done.end(), i)) {
      s.todo.push_back(i);
      continue;
    }
    s.cases_already += shard.case_count();
    s.cost_already += shard.cost;
  }
  return s;
}

// ---- execute (every rank) -----------------------------------------------------------------------

// What one rank did, or (reduce) every rank.
struct Tally {
  int status = kExitOk;
  std::uint64_t shards = 0, cases = 0;      ///< written
  std::array<std::uint64_t, 3> outcomes{};  ///< new cases by outcome (solved, infeasible, gave_up)
  std::uint64_t false_negatives = 0;
  double write_seconds = 0, busy_seconds = 0, last_wait_seconds = 0;  ///< waits for the shard writer
  double writer_cpu_seconds = 0;                                      ///< the writer thread's CPU time
};

void count_outcomes(const std::vector<CaseRow>& rows, std::size_t from, Tally& out) {
  for (std::size_t i = from; i < rows.size(); ++i) {
    ++out.outcomes[static_cast<std::size_t>(std::clamp<int>(rows[i].outcome, 0, 2))];
    out.false_negatives += rows[i].false_negative;
  }
}

Tally reduce(const Tally& t, const MpiSession& session) {
  Tally all;
  all.status = session.allreduce_max(t.status);
  all.shards = session.allreduce_sum(t.shards);
  all.cases = session.allreduce_sum(t.cases);
  for (std::size_t o = 0; o < all.outcomes.size(); ++o) all.outcomes[o] = session.allreduce_sum(t.outcomes[o]);
  all.false_negatives = session.allreduce_sum(t.false_negatives);
  return all;
}

// What ended a shard early, with its exit code (kExitOk: `stop`); an engine bug's composition
// is written to DIR/engine-bug-case-ID.txt.
ErrorReport shard_failure(const fs::path& dir, const ShardRun& run) {
  if (!run.failure) return {kExitOk, ""};
  try {
    std::rethrow_exception(run.failure);
  } catch (const EngineBugError& e) {
    const fs::path file = dir / ("engine-bug-case-" + std::to_string(e.case_id()) + ".txt");
    try {
      write_composition(e.composition(), file);
      return {kExitEngineBug, std::string(e.what()) + " (composition written to " + file.string() + ")"};
    } catch (const std::exception& io) {
      return {kExitEngineBug, std::string(e.what()) + " (could not write the composition: " + io.what() + ")"};
    }
  } catch (...) {
    return current_error();
  }
}

// This rank's shard files, committed by a background thread while the next shard runs; wait()
// before any HDF5 call here. A failed write is logged and sets the tally's status.
class ShardFiles {
 public:
  ShardFiles(const fs::path& dir, Tally& tally) : dir_(dir), tally_(tally) {}
  /// Waits for the file being written. False when it failed.
  bool wait() {
    return timed([&] { writer_.finish(); });
  }
  /// Hands a finished shard to the writer (its partial file removed when it continued one, of
  /// `continued` rows). False when the file before failed.
  bool submit(std::shared_ptr<const ShardData> data, RootAttributes attrs, std::size_t continued) {
    return timed([&] {
      writer_.submit([this, data, attrs = std::move(attrs), continued] {
        commit_file(write_shard_pending(dir_, *data, attrs));
        std::error_code ignored;
        if (continued > 0) fs::remove(partial_path(dir_, data->shard_id), ignored);  // the shard file holds them
        ++shards_;
        cases_ += data->rows.size() - continued;
      });
    });
  }
  /// Waits for the last file; counts the files and cases written.
  void finish() {
    const double before = tally_.write_seconds;
    (void)wait();
    tally_.last_wait_seconds = tally_.write_seconds - before;
    tally_.shards = shards_;
    tally_.cases += cases_;
    tally_.writer_cpu_seconds = writer_.cpu_seconds();
  }

 private:
  template <typename Write>
  bool timed(const Write& write) {
    const auto t0 = Clock::now();
    tally_.status = std::max(tally_.status, logged(write));
    tally_.write_seconds += seconds_since(t0);
    return tally_.status == kExitOk;
  }
  fs::path dir_;
  Tally& tally_;
  std::atomic<std::uint64_t> shards_{0}, cases_{0};  // before writer_: its jobs use them
  BackgroundWriter writer_;
};

// A shard that did not finish (stopped, or failed): its cases kept in its partial file; sets
// the status (kExitInterrupted, or the failure's); true for a failure.
bool keep_unfinished(const fs::path& dir, const Shard& shard, const ShardRun& run, const RootAttributes& attrs,
                     ShardFiles& files, Tally& out) {
  const ErrorReport failure = shard_failure(dir, run);
  const ShardData& data = run.data;
  std::string kept = data.rows.empty() ? "none kept" : "not kept: the shard file before it failed";
  if (!data.rows.empty() && files.wait()) {
    try {
      write_partial(dir, data, attrs);
      kept = "kept in " + partial_path(dir, shard.id).string();
    } catch (const Error& e) {
      kept = std::string("not kept: ") + e.what();
      out.status = e.code();
    }
  }
  if (failure.code != kExitOk && failure.code != kExitInterrupted) {
    out.status = std::max(out.status, static_cast<int>(failure.code));
    spdlog::critical("{} (shard {}, n = {}: {} of {} cases done, {})", failure.message, shard.id, shard.n,
                     data.rows.size(), shard.case_count(), kept);
    return true;
  }
  out.status = std::max(out.status, static_cast<int>(kExitInterrupted));
  spdlog::warn("interrupted in shard {} after {} of {} cases ({}); rerun with --resume to continue", shard.id,
               data.rows.size(), shard.case_count(), kept);
  return false;
}

// execute's loop: takes slots of `shards.todo` until none is left or a shard ends early; a
// failed shard closes the counter for every rank.
void take_shards(const Run& r, const LaunchShards& shards, const Launch& launch, const MpiSession& session,
                 const std::atomic<bool>& stop, const RootAttributes& attrs, double epoch_s, WorkCounter& counter,
                 Progress& progress, ShardFiles& files, Tally& out) {
  while (out.status == kExitOk) {
    const std::uint64_t slot = counter.take();
    if (slot >= shards.todo.size()) break;
    const Shard& shard = r.plan.shards[shards.todo[slot]];
    std::error_code ec;
    // Reading a partial file, and instance cases (whose composition files may be HDF5), call HDF5.
    if ((shard.origin == Origin::instance || fs::exists(partial_path(r.dir, shard.id), ec)) && !files.wait()) break;
    ShardData done_part = load_partial(r.dir, shard);
    const std::size_t continued = done_part.rows.size();  // rows of an earlier launch
    const double case_cost = shard.cost / static_cast<double>(std::max<std::uint64_t>(1, shard.case_count()));
    progress.add(continued, static_cast<double>(continued) * case_cost);
    ShardRun run;
    try {
      run = run_shard(
          r.config, r.plan, shard, session.rank(), &stop, [&] { progress.add(1, case_cost); }, std::move(done_part));
    } catch (...) {  // before its first case (its partial file stays as it was)
      run.failure = std::current_exception();
    }
    for (std::size_t i = continued; i < run.data.rows.size(); ++i) {
      run.data.rows[i].launch = launch.id;
      run.data.rows[i].start_s -= epoch_s;
    }
    RootAttributes shard_attrs = attrs;
    shard_attrs.end_utc = utc_now();
    if (!run.complete) {
      count_outcomes(run.data.rows, continued, out);
      if (keep_unfinished(r.dir, shard, run, shard_attrs, files, out)) counter.close();
      out.cases += run.data.rows.size() - continued;
      break;
    }
    auto data = std::make_shared<const ShardData>(std::move(run.data));
    if (!files.submit(data, std::move(shard_attrs), continued)) break;
    count_outcomes(data->rows, continued, out);
    spdlog::debug("shard {} done: n = {}, {} cases", shard.id, shard.n, shard.case_count());
  }
}

// Every rank runs shards from the shared counter (take_shards). Returns the rank's tally, of
// status kExitOk, kExitInterrupted or a failure's code. Rank 0 logs progress. Collective.
Tally execute(const RunOptions& options, const Run& r, const LaunchShards& shards, const Launch& launch,
              const MpiSession& session, const std::atomic<bool>& stop) {
  const bool root = session.rank() == 0;
  Tally out;
  const RootAttributes attrs = shard_attributes(r.config, r.pinned, launch, session.size(), session.rank());
  ShardFiles files(r.dir, out);
  WorkCounter counter(session);
  // The timeline's zero (start_s): the same instant on every rank, whatever its host's clock.
  session.barrier();
  const auto run_start = Clock::now();
  const double epoch_s = std::chrono::duration<double>(run_start.time_since_epoch()).count();
  if (root) counter.add_done(shards.cases_already, static_cast<std::uint64_t>(std::llround(shards.cost_already * 1e6)));
  Progress progress(counter, root, session.size(), options.progress_interval_s, shards.cases_mine, shards.cost_mine,
                    shards.cases_already, shards.cost_already);
  try {
    take_shards(r, shards, launch, session, stop, attrs, epoch_s, counter, progress, files, out);
  } catch (...) {  // outside a shard (reading its partial file, a thread that cannot start): this rank ends
    const ErrorReport error = current_error();
    spdlog::critical("{}", error.message);
    out.status = std::max(out.status, static_cast<int>(error.code));
    counter.close();  // and no rank takes another shard; every rank still meets the barriers below
  }
  files.finish();
  out.busy_seconds = seconds_since(run_start);
  progress.flush();
  const auto share = [&](double s) { return out.busy_seconds > 0 ? 100.0 * s / out.busy_seconds : 0.0; };
  spdlog::debug(
      "writing shard files: waited {:.3f} s of {:.3f} s ({:.2f}%; for the last one {:.3f} s); the writer "
      "thread's CPU {:.3f} s ({:.2f}%)",
      out.write_seconds, out.busy_seconds, share(out.write_seconds), out.last_wait_seconds, out.writer_cpu_seconds,
      share(out.writer_cpu_seconds));
  const WorkCounter::Waits& waits = counter.waits();
  spdlog::debug("shard requests: {}, waited {:.3f} ms in all, the longest {:.3f} ms", waits.count, 1e3 * waits.total_s,
                1e3 * waits.max_s);
  // Rank 0 keeps reporting (its thread) while the other ranks finish their last shards.
  session.idle_barrier();
  progress.finish();
  return out;
}

// ---- merge (rank 0) ----------------------------------------------------------------------------

// Every shard file checked against the pinned plan and merged into DIR/results.h5 with the
// launches table, `launch` marked merged. Throws nqc::InputError, nqc::IoError.
void merge(const Run& r, Launch& launch) {
  check_plan_unchanged(r.dir, r.config, r.pinned);
  std::vector<std::string> damaged;
  std::vector<Launch> launches = read_launches(r.dir, &damaged);
  for (const std::string& problem : damaged) spdlog::warn("{}", problem);
  std::string start = launch.start_utc;
  launch.end_utc = utc_now();  // the same end in results.h5 and in the launch record
  for (Launch& other : launches) {
    if (other.id == launch.id) {
      other = launch;
      other.exit_status = kExitOk;  // the merge is its last step: results.h5 exists only if it succeeded
      other.merged = true;
    }
    if (!other.start_utc.empty()) start = std::min(start, other.start_utc);
  }
  const RootAttributes attrs = merged_attributes(r.config, r.pinned, launch, start, launches.size());
  const RunIdentity run{r.pinned.config_hash, r.pinned.hash()};
  const auto check = [&](const fs::path& file, std::uint64_t id, const ResultFile& content) {
    check_against_plan(file, id, content, r.plan, run, false);
  };
  const auto t0 = Clock::now();
  merge_results(r.dir, attrs, check, r.plan.total_cases, launches);
  launch.merged = true;
  spdlog::debug("merged {} shard files ({} cases) into {} in {:.1f} s", r.plan.shards.size(), r.plan.total_cases,
                (r.dir / "results.h5").string(), seconds_since(t0));
  spdlog::info("done: {} cases in {}", r.plan.total_cases, (r.dir / "results.h5").string());
}

// Rank 0, every shard succeeded: a part says what is on disk; the whole plan is merged. Throws
// nqc::InputError (shards missing), or as merge.
void finish_plan(const RunOptions& options, const Run& r, const LaunchShards& s, Launch& launch) {
  const std::uint64_t done = done_shards(r.dir).size(), all = r.plan.shards.size();
  if (options.parts > 1) {
    spdlog::info("part {}/{} done: {} cases; {} of {} shards of the plan are on disk{}", options.part, options.parts,
                 s.cases_mine, done, all,
                 done == all ? fmt::format("; merge them with nqc run {} -o {} --resume", options.config.string(),
                                           r.dir.string())
                             : std::string());
    return;
  }
  if (done != all)
    throw InputError(r.dir.string() + ": only " + std::to_string(done) + " of " + std::to_string(all) +
                     " shards are on disk; rerun with --resume");
  merge(r, launch);
}

// Rank 0: the summary line of a launch that ran, then its record's end time and exit status (a
// failure to write it is a warning).
void end_launch(const Run& r, const Tally& t, Launch& launch, int status, double wall, int world_size) {
  const std::uint64_t ran = t.outcomes[0] + t.outcomes[1] + t.outcomes[2];
  std::size_t on_disk = 0;
  try {
    on_disk = done_shards(r.dir).size();
  } catch (const Error&) {  // only for the summary
  }
  summary_log()->info(
      "summary: {} cases run by this launch ({} solved, {} infeasible, {} gave up; {} false negatives) in "
      "{:.1f} s on {} rank(s), {:.1f} cases/s; {} of {} shards on disk; results in {}{}",
      ran, t.outcomes[0], t.outcomes[1], t.outcomes[2], t.false_negatives, wall, world_size,
      wall > 0 ? static_cast<double>(ran) / wall : 0.0, on_disk, r.plan.shards.size(),
      (launch.merged ? r.dir / "results.h5" : r.dir / "shards").string(),
      status == kExitInterrupted ? " (interrupted: rerun with --resume to continue)" : "");
  if (!launch.merged) launch.end_utc = utc_now();
  launch.exit_status = status;
  try {
    update_launch(r.dir, launch);
  } catch (const Error& e) {
    spdlog::warn("{}", e.what());
  }
}

}  // namespace

int run_experiment(const RunOptions& options, const MpiSession& session, const std::atomic<bool>& stop) {
  const bool root = session.rank() == 0;
  const auto launch_start = Clock::now();
  Run r;
  if (const int code = on_ranks(session, true, [&] { load_and_plan(options, r, root, stop); }); code != kExitOk)
    return code;
  if (options.dry_run) return on_ranks(session, false, [&] { dry_run(options, r); });
  if (session.size() > 1) {
    std::string token;
    bool made = false;
    int code = on_ranks(session, false, [&] { write_probe(r, token, made); });
    if (code == kExitOk) code = on_ranks(session, true, [&] { check_shared(r, session, token, made); });
    if (code != kExitOk) return code;
  }
  const std::string hosts = launch_hosts(session);
  Prepared prepared;
  if (const int code = on_ranks(session, false, [&] { prepare(options, r, session.size(), hosts, prepared); });
      code != kExitOk)
    return code;
  share_prepared(prepared, session);
  if (prepared.launch.id == 0) {
    if (root) summary_log()->info("{}", finished_line(r.dir));
    return kExitOk;
  }
  const LaunchShards s = launch_shards(options, r.plan, prepared.done);
  if (root)
    spdlog::info("config {}: {} shards, {} cases{} on {} rank(s); {} shards already done; results in {} (launch {})",
                 r.config.name, r.plan.shards.size(), r.plan.total_cases,
                 options.parts > 1 ? fmt::format(" (part {}/{}: {} shards, {} cases)", options.part, options.parts,
                                                 s.mine.size(), s.cases_mine)
                                   : std::string(),
                 session.size(), s.mine.size() - s.todo.size(), r.dir.string(), prepared.launch.id);

  const Tally totals = reduce(execute(options, r, s, prepared.launch, session, stop), session);
  int status = totals.status;
  prepared.launch.shards_done = totals.shards;  // before the merge: its launches table holds them
  prepared.launch.cases_done = totals.cases;
  if (root && status == kExitOk) status = logged([&] { finish_plan(options, r, s, prepared.launch); });
  if (root) end_launch(r, totals, prepared.launch, status, seconds_since(launch_start), session.size());
  return session.allreduce_max(status);
}

}  // namespace nqc
