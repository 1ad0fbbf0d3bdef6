#include "runner/runner.hpp"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <new>
#include <thread>

#include <spdlog/spdlog.h>

#include "experiment/config.hpp"
#include "experiment/launches.hpp"
#include "experiment/pinning.hpp"
#include "experiment/plan.hpp"
#include "experiment/results.hpp"
#include "experiment/worker.hpp"
#include "system/dir_lock.hpp"
#include "system/durable.hpp"
#include "system/errors.hpp"
#include "formats/hash.hpp"
#include "formats/composition_file.hpp"
#include "runner/dry_run.hpp"
#include "runner/progress.hpp"
#include "runner/results_dir.hpp"
#include "nqc/version.hpp"

namespace nqc {
namespace fs = std::filesystem;
namespace {

// ---- errors across ranks --------------------------------------------------------------------

// Runs `stage` on every rank (each does the same work). Returns kExitOk on every rank when it
// succeeded everywhere, else the largest exit code among the ranks' errors. Rank 0 logs its
// error; another rank logs its own only when rank 0's stage succeeded (a failure of that
// rank alone: its file system, its memory).
template <typename Stage>
int on_every_rank(const MpiSession& session, Stage&& stage) {
  ErrorReport error{kExitOk, {}};
  try {
    stage();
  } catch (...) {
    error = current_error();
  }
  int root_code = error.code;
  session.broadcast(root_code);
  if (error.code != kExitOk && (session.rank() == 0 || root_code == kExitOk)) spdlog::error("{}", error.message);
  return session.allreduce_max(error.code);
}

// Runs `stage` on rank 0 only. Returns, on every rank, kExitOk or the exit code of the error
// it threw (logged on rank 0).
template <typename Stage>
int on_rank_zero(const MpiSession& session, Stage&& stage) {
  int code = kExitOk;
  if (session.rank() == 0) {
    try {
      stage();
    } catch (...) {
      const ErrorReport error = current_error();
      spdlog::error("{}", error.message);
      code = error.code;
    }
  }
  session.broadcast(code);
  return code;
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

// The logger of the end-of-launch lines (kSummaryLogger: kept at info by -q), else the default.
std::shared_ptr<spdlog::logger> summary_log() {
  const auto logger = spdlog::get(kSummaryLogger);
  return logger ? logger : spdlog::default_logger();
}

// ---- stage 1, load ---------------------------------------------------------------------------

struct Loaded {
  ExperimentConfig config;
  fs::path dir;             ///< the results directory (absolute)
  std::string config_text;  ///< DIR/config.json: the resolved config without "output" (a moved directory still resumes)
};

// Stage 1, load (every rank): the config, with -o applied and "output" made absolute, and the
// text of DIR/config.json. Throws nqc::InputError (a missing or invalid config), nqc::IoError
// (the system refused its read).
Loaded stage_load(const RunOptions& options) {
  Loaded l;
  l.config = load_config(options.config);
  if (options.output) l.config.output = *options.output;
  // Stored absolute: a relative path means nothing once the run's working directory is gone.
  l.config.output = fs::absolute(l.config.output).lexically_normal().string();
  l.config.resolved["output"] = l.config.output;
  l.dir = l.config.output;
  nlohmann::json stored = l.config.resolved;
  stored.erase("output");
  l.config_text = stored.dump(2) + "\n";
  return l;
}

// ---- stage 2, plan ---------------------------------------------------------------------------

struct Planned {
  Plan plan;
  PinnedPlan pinned;
};

// Stage 2, plan (every rank): the shards of the config and what pins them (config_hash, the
// instance files' sizes and hashes, nqc's case generation). Throws nqc::InputError (a
// missing or malformed instance file), nqc::IoError, std::bad_alloc (a plan too large).
Planned stage_plan(const Loaded& l) {
  Planned p;
  p.plan = make_plan(l.config);
  p.pinned = pin_plan(p.plan, hex64(xxh64(l.config_text)));
  return p;
}

// --dry-run (rank 0), after stage 2: the directory is only read: a dry run refuses what the
// run would refuse (another config's results, damage, a changed plan), so that a job script
// can check before it submits; then the plan, as text or (--json) one JSON line. Throws what
// prepare_directory throws.
void dry_run(const RunOptions& options, const Loaded& l, const Planned& p) {
  DryRun d{options.config, l.config, p.plan};
  std::vector<std::uint64_t> done;
  (void)prepare_directory(l.dir, l.config_text, p.pinned, p.plan, true, false, true, done);
  std::error_code ec;
  d.has_shards = fs::is_directory(l.dir / "shards", ec);
  d.shards_done = done.size();
  d.finished = done.size() == p.plan.shards.size() && fs::exists(l.dir / "results.h5", ec);
  const std::string out = options.json ? dry_run_json(d).dump() + "\n" : dry_run_text(d);
  std::fputs(out.c_str(), stdout);
}

// ---- before stage 3: the directory seen from every host ----------------------------------------

// Every rank, before anything is written: every rank sees DIR as rank 0 does, or the
// launch is refused: a directory under a node-local file system (/tmp, /scratch on a node)
// would give each host shard files of its own and a merge that finds them missing. Rank 0
// writes a probe file of a token only this launch knows; each rank reads it (a network file
// system may show a new file a moment late: up to 20 tries, 0.1 s apart, before a rank says it
// cannot see it); rank 0 removes the probe, and DIR if it made it. Throws nqc::InputError
// naming DIR and the hosts that cannot see it, nqc::IoError when rank 0 cannot write there.
void stage_check_shared(const Loaded& l, const MpiSession& session) {
  if (session.size() == 1) return;
  std::string probe, token, message;
  bool made = false;
  int status = kExitOk;
  if (session.rank() == 0) {
    try {
      std::error_code ec;
      made = !fs::exists(l.dir, ec);
      fs::create_directories(l.dir, ec);
      if (ec)
        throw_error(errno_exit_code(ec.value()),
                    l.dir.string() + ": cannot create the results directory: " + ec.message());
      token = hex64(xxh64(host_name() + std::to_string(::getpid()) + utc_now() +
                          std::to_string(std::chrono::steady_clock::now().time_since_epoch().count())));
      probe = (l.dir / (".nqc-probe-" + token)).string();
      if (const int error = write_whole_file(probe, token); error != 0)
        throw_error(errno_exit_code(error),
                    l.dir.string() + ": cannot write to the results directory: " + std::strerror(error));
    } catch (...) {
      const ErrorReport error = current_error();
      status = error.code;
      message = error.message;
    }
  }
  session.broadcast(status);
  if (status != kExitOk) throw_error(static_cast<ExitCode>(status), message);  // logged by rank 0 only
  session.broadcast(probe);
  session.broadcast(token);
  bool seen = false;
  for (int attempt = 0; attempt < 20 && !seen; ++attempt) {
    if (attempt > 0) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    std::ifstream in(probe);
    std::string text;
    seen = static_cast<bool>(std::getline(in, text)) && text == token;
  }
  const std::vector<std::string> blind = session.gather(seen ? std::string() : host_name());
  if (session.rank() != 0) {
    if (session.allreduce_max(0) != 0) throw InputError("");
    return;
  }
  std::error_code ignored;
  fs::remove(probe, ignored);
  std::vector<std::string> hosts;
  for (const std::string& h : blind)
    if (!h.empty() && std::find(hosts.begin(), hosts.end(), h) == hosts.end()) hosts.push_back(h);
  const int refused = hosts.empty() ? 0 : 1;
  if (session.allreduce_max(refused) == 0) return;
  if (made) fs::remove(l.dir, ignored);  // only when empty
  std::string names;
  for (const std::string& h : hosts) names += (names.empty() ? "" : ", ") + h;
  throw InputError(l.dir.string() + ": not shared by every host of this launch: " + names +
                   " cannot see what rank 0 (" + host_name() +
                   ") writes there; put the results directory on a file system every host mounts");
}

// ---- stage 3, prepare ------------------------------------------------------------------------

struct Prepared {
  std::unique_ptr<DirectoryLock> lock;
  DirectoryState state = DirectoryState::ready;
  std::vector<std::uint64_t> done;  ///< shard ids already on disk
  Launch launch;                    ///< registered (id > 0) when the run goes on
};

// Stage 3, prepare (rank 0): the directory's lock (held until the run returns: a second
// launch is refused before it touches anything), --force, the directory's checks
// (prepare_directory), and this launch's record in DIR/launches (with `hosts`, launch_hosts:
// a launch killed with its host still names every host). Throws LockHeldError,
// nqc::InputError (what the directory holds, or DIR a path through a file), nqc::IoError (the
// system refused a write: a read-only or full file system).
Prepared stage_prepare(const RunOptions& options, const Loaded& l, const Planned& p, int world_size,
                       const std::string& hosts) {
  Prepared out;
  std::error_code ec;
  fs::create_directories(l.dir, ec);
  if (ec)
    throw_error(errno_exit_code(ec.value()), l.dir.string() + ": cannot create the results directory: " + ec.message());
  std::string stale;
  out.lock = std::make_unique<DirectoryLock>(l.dir, DirectoryLock::scope_of(options.part, options.parts), &stale);
  if (!stale.empty()) spdlog::warn("{}", stale);
  // Start over, under the lock: this config's run goes, never another config's nor a user's files.
  if (options.force) remove_run_for_force(l.dir, l.config_text, p.pinned.config_hash);
  if (options.parts <= 1) remove_temporaries(l.dir);
  const bool resume = options.resume || options.repair || options.parts > 1;
  out.state = prepare_directory(l.dir, l.config_text, p.pinned, p.plan, resume, options.repair, false, out.done);
  if (out.state == DirectoryState::finished) return out;
  out.launch = launch_here(NQC_VERSION, NQC_GIT_REVISION, options.part, options.parts, world_size);
  out.launch.hosts = hosts;
  register_launch(l.dir, out.launch);
  return out;
}

// Rank 0's prepared directory on every rank: whether the run is finished, the launch (id,
// start, nqc version and revision) and the shards already done. Collective.
void share_prepared(Prepared& prepared, const MpiSession& session) {
  int finished = prepared.state == DirectoryState::finished ? 1 : 0;
  session.broadcast(finished);
  prepared.state = finished != 0 ? DirectoryState::finished : DirectoryState::ready;
  if (finished != 0) return;
  std::vector<std::uint64_t> id{prepared.launch.id};
  session.broadcast(id);
  prepared.launch.id = static_cast<std::uint32_t>(id.at(0));
  // What every rank's shard files say of their launch (shard_attributes), as rank 0 recorded it.
  for (std::string* field : {&prepared.launch.start_utc, &prepared.launch.nqc_version, &prepared.launch.git_revision})
    session.broadcast(*field);
  session.broadcast(prepared.done);
}

// Every host the ranks run on with its ranks, hosts in the order of their first rank
// ("h0:0-1,h1:2-3"; a host's ranks as ranges joined by "+": "h0:0+2,h1:1+3"), on rank 0 (the
// launch record names them); "" on the other ranks. Collective.
std::string launch_hosts(const MpiSession& session) {
  std::vector<std::pair<std::string, std::vector<int>>> hosts;
  int rank = 0;
  for (const std::string& h : session.gather(host_name())) {
    auto it = std::find_if(hosts.begin(), hosts.end(), [&](const auto& e) { return e.first == h; });
    if (it == hosts.end()) it = hosts.insert(hosts.end(), {h, {}});
    it->second.push_back(rank++);
  }
  std::string out;
  for (const auto& [host, ranks] : hosts) {
    out += (out.empty() ? "" : ",") + host + ":";
    for (std::size_t i = 0; i < ranks.size();) {
      std::size_t j = i;
      while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
      out += (i == 0 ? "" : "+") + std::to_string(ranks[i]) + (j > i ? "-" + std::to_string(ranks[j]) : "");
      i = j + 1;
    }
  }
  return out;
}

// ---- the shards of this launch ---------------------------------------------------------------

// This launch's part of the plan (or all of it), what is left of it, and its counts.
struct LaunchShards {
  std::vector<std::uint64_t> mine;  ///< shard ids of this launch, in schedule order
  std::vector<std::uint64_t> todo;  ///< of mine, those not on disk yet: the shared counter's slots
  std::vector<char> is_done;        ///< by shard id: on disk before this launch
  std::uint64_t cases_mine = 0, shards_already = 0;
  std::uint64_t cases_already = 0;         ///< of cases_mine, in shards already on disk
  double cost_mine = 0, cost_already = 0;  ///< estimated seconds, the same way
};

LaunchShards launch_shards(const RunOptions& options, const Plan& plan, const std::vector<std::uint64_t>& done) {
  LaunchShards s;
  s.is_done.assign(plan.shards.size(), 0);
  for (const std::uint64_t id : done) s.is_done[id] = 1;  // all < plan.shards.size(): prepare_directory checked
  s.mine = options.parts > 1 ? part_order(plan, options.part, options.parts) : schedule_order(plan);
  for (const std::uint64_t i : s.mine) {
    const Shard& shard = plan.shards[i];
    s.cases_mine += shard.case_count();
    s.cost_mine += shard.cost;
    if (!s.is_done[i]) {
      s.todo.push_back(i);
      continue;
    }
    ++s.shards_already;
    s.cases_already += shard.case_count();
    s.cost_already += shard.cost;
  }
  return s;
}

// The launch's first line (rank 0): the config, its plan, this part, the ranks, what is done.
void log_start(const RunOptions& options, const Loaded& l, const Planned& p, const LaunchShards& s,
               const Launch& launch, int world_size) {
  const std::string part = options.parts > 1 ? fmt::format(" (part {}/{}: {} shards, {} cases)", options.part,
                                                           options.parts, s.mine.size(), s.cases_mine)
                                             : std::string();
  spdlog::info("config {}: {} shards, {} cases{} on {} rank(s); {} shards already done; results in {} (launch {})",
               l.config.name, p.plan.shards.size(), p.plan.total_cases, part, world_size, s.shards_already,
               l.dir.string(), launch.id);
}

// ---- stage 4, execute ------------------------------------------------------------------------

// What one rank did in stage 4.
struct Executed {
  int status = kExitOk;
  std::uint64_t shards = 0, cases = 0;  ///< written by this rank
  double write_seconds = 0, busy_seconds = 0;
  double writer_cpu_seconds = 0;            ///< the background writer thread's CPU time
  double last_wait_seconds = 0;             ///< of write_seconds: waiting for the last shard file
  std::array<std::uint64_t, 3> outcomes{};  ///< this rank's new cases by outcome (solved, infeasible, gave_up)
  std::uint64_t false_negatives = 0;
};

// Counts rows [from, end) by outcome and false negative.
void count_outcomes(const std::vector<CaseRow>& rows, std::size_t from, Executed& out) {
  for (std::size_t i = from; i < rows.size(); ++i) {
    ++out.outcomes[static_cast<std::size_t>(std::clamp<int>(rows[i].outcome, 0, 2))];
    out.false_negatives += rows[i].false_negative;
  }
}

// Everything a rank's shards share in stage 4.
struct ShardContext {
  const Loaded& l;
  const Planned& p;
  const Launch& launch;
  const MpiSession& session;
  const std::atomic<bool>& stop;
  CaseReporter& reporter;
};

// Runs one shard on this rank, after the cases of its partial file (`done_part`), reporting
// each finished case. A failure inside the shard ends every rank: an engine bug with exit
// code 5 (the composition written to DIR), anything else with its own exit code (out of
// memory 8, an instance file that became unreadable 1 or 7), after naming the shard.
ShardRun run_one_shard(const ShardContext& c, const Shard& shard, ShardData done_part) {
  const std::size_t continued = done_part.rows.size();  // rows of an earlier launch
  const double case_cost = shard.cost / static_cast<double>(std::max<std::uint64_t>(1, shard.case_count()));
  c.reporter.add(continued, static_cast<double>(continued) * case_cost);
  try {
    return run_shard(
        c.l.config, c.p.plan, shard, c.session.rank(), &c.stop, [&] { c.reporter.add(1, case_cost); },
        std::move(done_part));
  } catch (const EngineBugError& e) {
    fail_engine_bug(e, c.l.dir, c.session);
  } catch (const std::bad_alloc&) {
    spdlog::critical("out of memory in shard {} (n = {}, {} cases)", shard.id, shard.n, shard.case_count());
    c.session.abort(kExitOutOfMemory);
  } catch (...) {
    const ErrorReport error = current_error();
    if (error.code == kExitOutOfMemory)
      spdlog::critical("out of memory in shard {} (n = {}, {} cases): {}", shard.id, shard.n, shard.case_count(),
                       error.message);
    else
      spdlog::critical("shard {}: {}", shard.id, error.message);
    c.session.abort(error.code);
  }
}

// This rank's shard files, each written and committed (fsync, rename) by a background thread
// while the next shard runs (system/durable.hpp); this thread waits only when the one before is
// still being written. HDF5 is called by one thread at a time: wait() before any HDF5 call
// here. A failed write is logged once and sets status() to its exit code (7: IoError).
class ShardFiles {
 public:
  explicit ShardFiles(const fs::path& dir) : dir_(dir) {}
  /// Waits for the file being written. False (status() set) when it failed.
  bool wait() {
    return timed([&] { writer_.finish(); });
  }
  /// wait(), but a failure is thrown (nqc::IoError ...), not logged.
  void wait_or_throw() {
    const auto w0 = std::chrono::steady_clock::now();
    try {
      writer_.finish();
    } catch (...) {
      write_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
      throw;
    }
    write_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
  }
  /// Hands a finished shard to the writer: its file, then its partial file removed when it
  /// continued one (`continued` rows of an earlier launch). False (status() set) when the
  /// file before it failed.
  bool submit(std::shared_ptr<const ShardData> data, RootAttributes attrs, std::size_t continued,
              std::uint64_t new_cases) {
    return timed([&] {
      writer_.submit([this, data, attrs = std::move(attrs), continued, new_cases] {
        commit_file(write_shard_pending(dir_, *data, attrs));
        if (continued > 0) {
          std::error_code ignored;
          fs::remove(partial_path(dir_, data->shard_id), ignored);  // the shard file now holds its rows
        }
        ++shards_written_;
        cases_written_ += new_cases;
      });
    });
  }
  /// Waits for the last file and fills `out`'s shards, cases and write times.
  void finish(Executed& out) {
    const double before = write_seconds_;
    (void)wait();
    out.last_wait_seconds = write_seconds_ - before;
    out.write_seconds = write_seconds_;
    out.shards = shards_written_;
    out.cases += cases_written_;
    out.writer_cpu_seconds = writer_.cpu_seconds();
    out.status = std::max(out.status, status_);
  }
  [[nodiscard]] int status() const { return status_; }

 private:
  template <typename Write>
  bool timed(const Write& write) {
    const auto w0 = std::chrono::steady_clock::now();
    try {
      write();
    } catch (...) {
      const ErrorReport error = current_error();
      spdlog::error("{}", error.message);
      status_ = std::max(status_, static_cast<int>(error.code));
    }
    write_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
    return status_ == kExitOk;
  }
  fs::path dir_;
  int status_ = kExitOk;
  double write_seconds_ = 0;
  std::atomic<std::uint64_t> shards_written_{0}, cases_written_{0};  // before writer_: its jobs use them
  BackgroundWriter writer_;
};

// An interrupted shard: its finished cases kept in its partial file (a resume continues after
// them), and a warning saying so. Returns kExitInterrupted, or the exit code of a failed write
// (the shard file before it, or the partial file: named in the warning).
int keep_interrupted(const ShardContext& c, const Shard& shard, const ShardRun& run, const RootAttributes& attrs,
                     ShardFiles& files) {
  int status = kExitInterrupted;
  std::string kept = "none kept";
  if (!run.data.rows.empty()) {
    try {
      files.wait_or_throw();
      write_partial(c.l.dir, run.data, attrs);
      kept = "kept in " + partial_path(c.l.dir, shard.id).string();
    } catch (const Error& e) {
      kept = std::string("not kept: ") + e.what();
      status = std::max(status, static_cast<int>(e.code()));
    }
  }
  spdlog::warn("interrupted in shard {} after {} of {} cases ({}); rerun with --resume to continue", shard.id,
               run.data.rows.size(), shard.case_count(), kept);
  return status;
}

// The debug lines of a rank's waits: for the shard writer and for the shard counter.
void log_waits(const Executed& out, const WorkCounter::Waits& waits) {
  const auto share = [&](double seconds) { return out.busy_seconds > 0 ? 100.0 * seconds / out.busy_seconds : 0.0; };
  spdlog::debug(
      "writing shard files: waited {:.3f} s of {:.3f} s ({:.2f}%; for the last one {:.3f} s); the writer "
      "thread's CPU {:.3f} s ({:.2f}%)",
      out.write_seconds, out.busy_seconds, share(out.write_seconds), out.last_wait_seconds, out.writer_cpu_seconds,
      share(out.writer_cpu_seconds));
  spdlog::debug("shard requests: {}, waited {:.3f} ms in all, the longest {:.3f} ms", waits.count, 1e3 * waits.total_s,
                1e3 * waits.max_s);
}

// Stage 4, execute (every rank): this rank takes slots of `shards.todo` from the shared
// counter until none is left, runs each shard and hands its file to the background writer
// (ShardFiles). Returns the rank's status: kExitOk, kExitInterrupted (stop), or the exit code
// of a failed write (nqc::IoError: 7); a failure inside a shard ends every rank
// (run_one_shard). Rank 0 logs progress. Collective (the counter, the last barrier).
Executed stage_execute(const RunOptions& options, const Loaded& l, const Planned& p, const LaunchShards& shards,
                       const Launch& launch, const MpiSession& session, const std::atomic<bool>& stop) {
  const bool root = session.rank() == 0;
  Executed out;
  const RootAttributes attrs = shard_attributes(l.config, p.pinned, launch, session.size(), session.rank());
  ShardFiles files(l.dir);
  WorkCounter counter(session);
  // The timeline's zero (start_s): the same instant on every rank, whatever its host's clock.
  session.barrier();
  const auto run_start = std::chrono::steady_clock::now();
  const double epoch_s = std::chrono::duration<double>(run_start.time_since_epoch()).count();
  if (root) counter.add_done(shards.cases_already, static_cast<std::uint64_t>(std::llround(shards.cost_already * 1e6)));
  Progress progress(shards.cases_mine, shards.cost_mine, shards.cases_already, shards.cost_already,
                    options.progress_interval_s);
  ProgressLog progress_log(progress, counter, root);
  CaseReporter reporter(counter, options.progress_interval_s, session.size());
  const ShardContext context{l, p, launch, session, stop, reporter};
  while (out.status == kExitOk) {
    const std::uint64_t slot = counter.take();
    if (slot >= shards.todo.size()) break;
    const Shard& shard = p.plan.shards[shards.todo[slot]];
    std::error_code ec;
    // Reading a partial file, and instance cases (whose composition files may be HDF5),
    // call HDF5 here: not while a shard file is being written.
    if ((shard.instances || fs::exists(partial_path(l.dir, shard.id), ec)) && !files.wait()) break;
    ShardData done_part = load_partial(l.dir, shard);
    const std::size_t continued = done_part.rows.size();
    ShardRun run = run_one_shard(context, shard, std::move(done_part));
    for (std::size_t i = continued; i < run.data.rows.size(); ++i) {
      run.data.rows[i].launch = launch.id;
      run.data.rows[i].start_s -= epoch_s;
    }
    RootAttributes shard_attrs = attrs;
    shard_attrs.end_utc = utc_now();
    if (!run.complete) {
      count_outcomes(run.data.rows, continued, out);
      out.status = keep_interrupted(context, shard, run, shard_attrs, files);
      out.cases += run.data.rows.size() - continued;
      break;
    }
    auto data = std::make_shared<const ShardData>(std::move(run.data));
    if (!files.submit(data, std::move(shard_attrs), continued, shard.case_count() - continued)) break;
    count_outcomes(data->rows, continued, out);
    spdlog::debug("shard {} done: n = {}, {} cases", shard.id, shard.n, shard.case_count());
  }
  files.finish(out);
  out.busy_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - run_start).count();
  reporter.flush();
  log_waits(out, counter.waits());
  // Rank 0 keeps reporting (its thread) while the other ranks finish their last shards.
  session.idle_barrier();
  progress_log.finish();
  return out;
}

// Stage 4's results summed over the ranks (on every rank). Collective.
struct Totals {
  int status = kExitOk;  ///< the largest rank status
  std::uint64_t shards = 0, cases = 0;
  std::array<std::uint64_t, 3> outcomes{};
  std::uint64_t false_negatives = 0;
};

Totals reduce(const Executed& executed, const MpiSession& session) {
  Totals t;
  t.status = session.allreduce_max(executed.status);
  t.shards = session.allreduce_sum(executed.shards);
  t.cases = session.allreduce_sum(executed.cases);
  for (std::size_t o = 0; o < t.outcomes.size(); ++o) t.outcomes[o] = session.allreduce_sum(executed.outcomes[o]);
  t.false_negatives = session.allreduce_sum(executed.false_negatives);
  return t;
}

// ---- stage 5, merge --------------------------------------------------------------------------

// Stage 5, merge (rank 0): every shard file checked against the pinned plan and streamed into
// DIR/results.h5 with the launches table; `launch` is this launch (it merges). Throws
// nqc::InputError (a changed plan or instance file, a shard file that is not the plan's,
// damage), nqc::IoError (a failed read or write).
void stage_merge(const Loaded& l, const Planned& p, const Launch& launch) {
  check_plan_unchanged(l.dir, l.config, p.pinned);
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
  const RootAttributes attrs = merged_attributes(l.config, p.pinned, launch, start, launches.size());
  const RunIdentity run{p.pinned.config_hash, p.pinned.hash()};
  const auto check = [&](const fs::path& file, std::uint64_t id, const ResultFile& content) {
    check_against_plan(file, id, content, p.plan, run, false);
  };
  const auto start_merge = std::chrono::steady_clock::now();
  merge_results(l.dir, attrs, check, p.plan.total_cases, launches);
  spdlog::debug("merged {} shard files ({} cases) into {} in {:.1f} s", p.plan.shards.size(), p.plan.total_cases,
                (l.dir / "results.h5").string(),
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start_merge).count());
}

// After stage 4 succeeded on every rank (rank 0): a part says what is on disk; the whole plan
// is merged (stage 5) once every shard file is there, and the launch marked merged. Throws
// nqc::InputError (shards missing), or what stage_merge throws.
void finish_plan(const RunOptions& options, const Loaded& l, const Planned& p, const LaunchShards& s, Launch& launch) {
  const std::uint64_t shards_done = done_shards(l.dir).size();
  if (options.parts > 1) {
    spdlog::info("part {}/{} done: {} cases; {} of {} shards of the plan are on disk{}", options.part, options.parts,
                 s.cases_mine, shards_done, p.plan.shards.size(),
                 shards_done == p.plan.shards.size() ? fmt::format("; merge them with nqc run {} -o {} --resume",
                                                                   options.config.string(), l.dir.string())
                                                     : std::string());
    return;
  }
  if (shards_done != p.plan.shards.size())
    throw InputError(l.dir.string() + ": only " + std::to_string(shards_done) + " of " +
                     std::to_string(p.plan.shards.size()) + " shards are on disk; rerun with --resume");
  stage_merge(l, p, launch);
  launch.merged = true;
  spdlog::info("done: {} cases in {}", p.plan.total_cases, (l.dir / "results.h5").string());
}

// ---- the end of a launch ---------------------------------------------------------------------

// Shard files on disk now (0 when they cannot be listed: only for the summary).
std::size_t done_shards_count(const fs::path& dir) {
  try {
    return done_shards(dir).size();
  } catch (const Error&) {
    return 0;
  }
}

// The end of every launch that ran (rank 0; kSummaryLogger, so -q keeps it): what it did, how
// fast, and where the results are.
void log_summary(const Loaded& l, const Planned& p, const Totals& t, const Launch& launch, int status, double wall,
                 int world_size) {
  const std::uint64_t ran = t.outcomes[0] + t.outcomes[1] + t.outcomes[2];
  const fs::path where = launch.merged ? l.dir / "results.h5" : l.dir / "shards";
  summary_log()->info(
      "summary: {} cases run by this launch ({} solved, {} infeasible, {} gave up; {} false negatives) in "
      "{:.1f} s on {} rank(s), {:.1f} cases/s; {} of {} shards on disk; results in {}{}",
      ran, t.outcomes[0], t.outcomes[1], t.outcomes[2], t.false_negatives, wall, world_size,
      wall > 0 ? static_cast<double>(ran) / wall : 0.0, done_shards_count(l.dir), p.plan.shards.size(), where.string(),
      status == kExitInterrupted ? " (interrupted: rerun with --resume to continue)" : "");
}

// This launch's record updated with its end (rank 0): end time and exit status. A failure is
// a warning: the results are written either way.
void record_end(const fs::path& dir, Launch& launch, int status) {
  launch.end_utc = utc_now();
  launch.exit_status = status;
  try {
    update_launch(dir, launch);
  } catch (const Error& e) {
    spdlog::warn("{}", e.what());
  }
}

}  // namespace

int run_experiment(const RunOptions& options, const MpiSession& session, const std::atomic<bool>& stop) {
  const bool root = session.rank() == 0;
  const auto launch_start = std::chrono::steady_clock::now();
  Loaded l;
  Planned p;
  if (const int code = on_every_rank(session, [&] { l = stage_load(options); }); code != kExitOk) return code;
  if (const int code = on_every_rank(session, [&] { p = stage_plan(l); }); code != kExitOk) return code;
  if (options.dry_run) return on_rank_zero(session, [&] { dry_run(options, l, p); });

  if (const int code = on_every_rank(session, [&] { stage_check_shared(l, session); }); code != kExitOk) return code;
  const std::string hosts = launch_hosts(session);
  Prepared prepared;
  if (const int code = on_rank_zero(session, [&] { prepared = stage_prepare(options, l, p, session.size(), hosts); });
      code != kExitOk)
    return code;
  share_prepared(prepared, session);
  if (prepared.state == DirectoryState::finished) {
    if (root)
      summary_log()->info("{}: the run of this config is finished ({}): nothing to do (--force starts it over)",
                          l.dir.string(), (l.dir / "results.h5").string());
    return kExitOk;
  }
  const LaunchShards shards = launch_shards(options, p.plan, prepared.done);
  if (root) log_start(options, l, p, shards, prepared.launch, session.size());

  const Executed executed = stage_execute(options, l, p, shards, prepared.launch, session, stop);
  const Totals totals = reduce(executed, session);
  int status = totals.status;
  prepared.launch.shards_done = totals.shards;  // before the merge: its launches table holds them
  prepared.launch.cases_done = totals.cases;
  if (root && status == kExitOk) {
    try {
      finish_plan(options, l, p, shards, prepared.launch);
    } catch (...) {
      const ErrorReport error = current_error();
      spdlog::error("{}", error.message);
      status = error.code;
    }
  }
  if (root) {
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - launch_start).count();
    log_summary(l, p, totals, prepared.launch, status, wall, session.size());
    record_end(l.dir, prepared.launch, status);
  }
  return session.allreduce_max(status);
}

}  // namespace nqc
