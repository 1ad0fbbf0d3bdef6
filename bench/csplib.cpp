// The complete engines on CSPLib prob079 Excluded Diagonals instances near the phase
// transition, side by side in one run, and (--peer) beside the published solver run on this
// machine on the same instances, interleaved ([Gent17]'s shiftqueensdiags from [CSPLib079]; its
// path is an argument: nqc does not contain it; BENCHMARKS.md says how to build it).
//
// Usage: nqc_bench_csplib DATA_DIR [--peer PATH] [--nqc PATH] [--instances I] [--exact-max N]
//                         [--stride S] [--engines LIST] [--engine LABEL=NAME:JSON] [--each]
//                         [--hardest K] [--placed F] [--peer-timeout S] N[:D] ...
//   --placed F: instead of Excluded Diagonals, compositions of N - F queens drawn by CSPLib's
//            placed-queens procedure (random_placed_queens, seeds 1, 2, ... until I are made;
//            the peer then shiftqueens-128 or shiftqueens-boost-1024 with the queens as arguments).
//   --peer-timeout S: the peer stopped after S seconds (its time then a lower bound, no verdict).
//   N <= 13: the labelled instances of DATA_DIR/diag-N.tar.gz (every S-th of the 1000), at
//            d = D, or at d = n - 3, n - 2, n - 1; every verdict checked against its label.
//   N >= 14: I instances (default 20) drawn by CSPLib's generator procedure
//            (random_excluded_diagonals, mininfile 4, seeds 1..I) at d = D (default: the
//            hardest d of CSPLib's own files for that n, kHardestD); verdicts checked against
//            each other and the peer's.
//   Per instance, in this order: each engine of LIST (default auto,bitboard,sat,exact; `exact`
//   up to n = --exact-max, default 18; --engine adds one under LABEL with the parameters of
//   JSON, a config's engine_params, e.g. --engine 'r1k=bitboard:{"luby_restart_nodes":1024}')
//   in process, its thread's CPU seconds and nodes; with --peer, the peer's process (its own
//   CPU seconds and nodes as it prints them, and the process's wall seconds) and `nqc complete
//   FILE.param --diags D` as a process (wall seconds; --nqc PATH, default the nqc beside this
//   benchmark's build: ../src/cli/nqc). --each: a line per instance on standard error.
//   Prints a table of the engines' mean CPU seconds (and nodes) per (n, d), then with --peer a
//   table of ratios per (n, d): peer CPU / auto CPU and peer process / nqc process, of the
//   mean and of the 90th percentile; with --hardest K, the K instances of all on which the
//   peer took the most CPU seconds, with auto's seconds and the ratios.
// Exit 3 when a verdict disagrees (a label, two complete engines, or the peer).
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "engine_variants.hpp"
#include "core/engine.hpp"
#include "core/verifier.hpp"
#include "formats/csplib.hpp"

using namespace nqc;
namespace fs = std::filesystem;

namespace {

// The d at which the published solver took longest on CSPLib's own diag-N files, n = 14..21
// (measured on this machine kind; BENCHMARKS.md, "The published solver side by side").
const std::map<int, int> kHardestD{{14, 12}, {15, 12}, {16, 14}, {17, 13}, {18, 16}, {19, 14}, {20, 18}, {21, 19}};

// Runs `command` through the shell; its standard output, and the wall seconds it took.
std::string run(const std::string& command, double* wall = nullptr) {
  const auto t0 = std::chrono::steady_clock::now();
  std::string out;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return out;
  char buf[4096];
  std::size_t got = 0;
  while ((got = std::fread(buf, 1, sizeof buf, pipe)) > 0) out.append(buf, got);
  pclose(pipe);
  if (wall != nullptr) *wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

double cpu_now() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

double mean(const std::vector<double>& v) {
  double s = 0;
  for (const double x : v) s += x;
  return v.empty() ? 0 : s / static_cast<double>(v.size());
}

// The 90th percentile (nearest rank).
double p90(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const auto rank = static_cast<std::size_t>(std::ceil(0.9 * static_cast<double>(v.size())));
  return v[std::max<std::size_t>(rank, 1) - 1];
}

struct Label {
  int seed;
  bool sat;
};

// Per (n, d): each engine's seconds per instance, the peer's, the processes'.
struct Row {
  int n = 0, d = 0, instances = 0, solvable = 0;
  std::map<std::string, std::vector<double>> seconds;  // engines, "peer" (its CPU), "peer process", "nqc process"
  std::map<std::string, double> nodes;                 // engines, "peer": nodes in all
  int peer_timeouts = 0;                               // instances the peer did not decide in --peer-timeout
};

struct Setup {
  std::vector<std::string> engines{"auto", "bitboard", "sat", "exact"};  ///< labels
  bench::EngineVariants variants;                                        ///< labels of --engine
  int exact_max = 18;
  bool each = false;     ///< a line per instance on standard error
  int hardest = 0;       ///< with the peer: this many instances of its longest CPU seconds, listed
  int peer_timeout = 0;  ///< seconds after which the peer is stopped (0: never)
  struct Timed {
    double peer, nqc;  // the peer's CPU seconds, auto's
    std::string what;
  };
  std::vector<Timed> timed;  ///< every instance run with the peer
  std::string peer, nqc;
  fs::path tmp;
};

[[noreturn]] void disagree(const std::string& what) {
  std::fprintf(stderr, "DISAGREE: %s\n", what.c_str());
  std::exit(3);
}

// One instance (the first d of `pairs` on the n board): every engine, then the peer and nqc
// as processes. Returns whether it has a solution.
// How the peer and `nqc complete` read one instance: the peer's command and nqc's arguments
// (files written under Setup::tmp).
struct Commands {
  std::string peer, nqc;
};

// An Excluded Diagonals instance (the first d of `pairs`): a .param file for nqc and its numbers
// on the peer's standard input (shiftqueensdiags D < FILE).
Commands diagonal_files(const Setup& s, Index n, const std::vector<DiagonalPair>& pairs, int d) {
  const fs::path param = s.tmp / "instance.param";
  const fs::path numbers = s.tmp / "instance.txt";
  std::ofstream(param) << format_param(n, pairs);
  std::ostringstream plain;
  plain << n << " " << pairs.size();
  for (const DiagonalPair& p : pairs) plain << " " << p.index << " " << p.type;
  std::ofstream(numbers) << plain.str() << "\n";
  return {s.peer + " " + std::to_string(d) + " < " + numbers.string(),
          param.string() + " --diags " + std::to_string(d)};
}

// A composition: a text file for nqc (a column or 0 per row) and the placed queens as the peer's
// arguments (shiftqueens-128 N x1 y1 ...: 0-based column x, row y).
Commands composition_files(const Setup& s, const Composition& c) {
  const fs::path text = s.tmp / "instance.txt";
  std::ofstream out(text);
  std::string peer = s.peer + " " + std::to_string(c.n());
  for (Index r = 0; r < c.n(); ++r) {
    const Index q = c.q[static_cast<std::size_t>(r)];
    out << q << "\n";
    if (q != 0) peer += " " + std::to_string(q - 1) + " " + std::to_string(r);
  }
  return {peer, text.string()};
}

bool run_instance(Setup& s, const Composition& board, const Commands& commands, std::uint64_t seed,
                  const std::string& what, Row& row) {
  const Index n = board.n();
  int verdict = -1;
  const auto agree = [&](int v, const std::string& who) {
    if (verdict >= 0 && v != verdict) disagree(what + ": " + who + " says " + (v ? "solvable" : "infeasible"));
    verdict = v;
  };
  for (const auto& name : s.engines) {
    if (name == "exact" && n > s.exact_max) continue;
    const auto engine = s.variants.make(name);
    Rng rng(seed, 1);
    const double t0 = cpu_now();
    const Result r = engine->complete(board, rng, Limits{});
    row.seconds[name].push_back(cpu_now() - t0);
    row.nodes[name] += static_cast<double>(r.counters.nodes);
    if (r.outcome == Outcome::gave_up || (r.outcome == Outcome::solved && !is_solution(r.solution))) {
      std::fprintf(stderr, "BAD RESULT: %s: engine %s: %s\n", what.c_str(), name.c_str(), to_string(r.outcome));
      std::exit(3);
    }
    agree(r.outcome == Outcome::solved ? 1 : 0, "engine " + name);
  }
  if (!s.peer.empty()) {
    double wall = 0;
    const std::string timeout_prefix = s.peer_timeout > 0 ? "timeout " + std::to_string(s.peer_timeout) + " " : "";
    const std::string out = run(timeout_prefix + commands.peer + " 2>/dev/null", &wall);
    int solutions = -1, timeout = 1;
    double nodes = 0, cpu = 0;
    const auto at = out.rfind("Solutions:");
    if (at == std::string::npos ||
        std::sscanf(out.c_str() + at, "Solutions: %d Nodes: %lf Timeout: %d Time: %lf", &solutions, &nodes, &timeout,
                    &cpu) != 4 ||
        timeout != 0) {
      if (s.peer_timeout == 0 || wall < s.peer_timeout)
        disagree(what + ": the peer printed no verdict: " + out.substr(out.size() > 200 ? out.size() - 200 : 0));
      // Stopped by --peer-timeout: its seconds a lower bound, no verdict.
      ++row.peer_timeouts;
      cpu = wall;
    } else {
      agree(solutions > 0 ? 1 : 0, "the peer");
    }
    row.seconds["peer"].push_back(cpu);
    row.nodes["peer"] += nodes;
    row.seconds["peer process"].push_back(wall);
    const std::string ours = run(s.nqc + " complete " + commands.nqc + " 2>&1", &wall);
    row.seconds["nqc process"].push_back(wall);
    double engine_s = 0;
    if (const auto t = ours.find("time_s: "); t != std::string::npos) engine_s = std::atof(ours.c_str() + t + 8);
    row.seconds["nqc complete"].push_back(engine_s);
    const bool solved = ours.find("outcome: solved") != std::string::npos;
    if (!solved && ours.find("outcome: infeasible") == std::string::npos) disagree(what + ": nqc complete: " + ours);
    agree(solved ? 1 : 0, "nqc complete");
  }
  if (!s.peer.empty()) s.timed.push_back({row.seconds["peer"].back(), row.seconds["auto"].back(), what});
  if (s.each) {
    std::fprintf(stderr, "%s: %s", what.c_str(), verdict ? "solvable" : "infeasible");
    for (const auto& [name, seconds] : row.seconds) std::fprintf(stderr, ", %s %.3e s", name.c_str(), seconds.back());
    std::fprintf(stderr, "\n");
  }
  row.instances += 1;
  row.solvable += verdict;
  return verdict == 1;
}

std::string cell(double s) { return (std::ostringstream() << std::scientific << std::setprecision(2) << s).str(); }

// Mean seconds and, in brackets, mean nodes ("-" for an engine not run at this n).
std::string seconds_nodes(const Row& r, const std::string& name) {
  const auto it = r.seconds.find(name);
  if (it == r.seconds.end()) return "-";
  return cell(mean(it->second)) + " (" + cell(r.nodes.at(name) / static_cast<double>(it->second.size())) + ")";
}

void print_engines(const Row& r, const Setup& s) {
  std::printf("| %d | %d | %d | %d |", r.n, r.d, r.instances, r.solvable);
  for (const auto& name : s.engines) std::printf(" %s |", seconds_nodes(r, name).c_str());
  if (!s.peer.empty())
    std::printf(" %s | %s |", seconds_nodes(r, "peer").c_str(), cell(mean(r.seconds.at("nqc complete"))).c_str());
  std::printf("\n");
  std::fflush(stdout);
}

void print_peer(const Row& r) {
  const auto& a = r.seconds.at("auto");
  const auto& peer = r.seconds.at("peer");
  const auto& pp = r.seconds.at("peer process");
  const auto& np = r.seconds.at("nqc process");
  std::printf("| %d | %d | %d%s | %s | %s | %.1f | %s | %s | %.1f | %.2f | %.2f |\n", r.n, r.d, r.instances,
              r.peer_timeouts > 0
                  ? (" (" + std::to_string(r.peer_timeouts) + " not decided by the peer: its time at least)").c_str()
                  : "",
              cell(mean(peer)).c_str(), cell(mean(a)).c_str(), mean(peer) / mean(a), cell(p90(peer)).c_str(),
              cell(p90(a)).c_str(), p90(peer) / p90(a), mean(pp) / mean(np), p90(pp) / p90(np));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr,
                 "usage: %s DATA_DIR [--peer PATH] [--nqc PATH] [--instances I] [--exact-max N] [--stride S] "
                 "[--engines LIST] N[:D] ...\n",
                 argv[0]);
    return 1;
  }
  const std::string data = argv[1];
  Setup s;
  s.nqc = (fs::path(argv[0]).parent_path() / ".." / "src" / "cli" / "nqc").string();
  int instances = 20, stride = 1, placed = 0;
  std::vector<std::pair<int, int>> sizes;  // (n, d), d = 0: the default
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--instances" && i + 1 < argc)
      instances = std::atoi(argv[++i]);
    else if (a == "--exact-max" && i + 1 < argc)
      s.exact_max = std::atoi(argv[++i]);
    else if (a == "--stride" && i + 1 < argc)
      stride = std::atoi(argv[++i]);
    else if (a == "--each")
      s.each = true;
    else if (a == "--placed" && i + 1 < argc)
      placed = std::atoi(argv[++i]);
    else if (a == "--peer-timeout" && i + 1 < argc)
      s.peer_timeout = std::atoi(argv[++i]);
    else if (a == "--hardest" && i + 1 < argc)
      s.hardest = std::atoi(argv[++i]);
    else if (a == "--peer" && i + 1 < argc)
      s.peer = fs::absolute(argv[++i]).string();
    else if (a == "--nqc" && i + 1 < argc)
      s.nqc = fs::absolute(argv[++i]).string();
    else if (a == "--engines" && i + 1 < argc) {
      s.engines.clear();
      std::istringstream list(argv[++i]);
      for (std::string e; std::getline(list, e, ',');) s.engines.push_back(e);
    } else if (a == "--engine" && i + 1 < argc) {
      if (!s.variants.add(argv[++i])) return 1;
      s.engines.push_back(s.variants.last());
    } else {
      const auto colon = a.find(':');
      sizes.emplace_back(std::atoi(a.c_str()), colon == std::string::npos ? 0 : std::atoi(a.c_str() + colon + 1));
    }
  }
  if (!s.peer.empty() && std::find(s.engines.begin(), s.engines.end(), "auto") == s.engines.end())
    s.engines.insert(s.engines.begin(), "auto");
  s.tmp = fs::temp_directory_path() / ("nqc-bench-csplib-" + std::to_string(getpid()));
  fs::create_directories(s.tmp);
  std::map<std::pair<int, int>, std::vector<Label>> labels;
  std::istringstream in(run("zcat " + data + "/labels-shiftqueens-n8-13.txt.gz"));
  for (std::string line; std::getline(in, line);) {
    int n = 0, d = 0, mininfile = 0, seed = 0, solutions = 0, timeout = 1;
    double nodes = 0, seconds = 0;
    if (std::sscanf(line.c_str(), "%d %d %d %d %*[^:]:Solutions: %d Nodes: %lf Timeout: %d Time: %lf", &n, &d,
                    &mininfile, &seed, &solutions, &nodes, &timeout, &seconds) == 8 &&
        timeout == 0)
      labels[{n, d}].push_back({seed, solutions > 0});
  }
  std::vector<Row> rows;
  std::printf(
      "Mean CPU seconds (and nodes) per instance (engines in process; the peer's as it prints them; nqc "
      "complete's engine seconds as it prints them)\n\n| n | %s | instances | solvable |",
      placed > 0 ? "free rows" : "d");
  for (const auto& name : s.engines) std::printf(" %s s |", name.c_str());
  std::printf("%s\n|---:|---:|---:|---:|", s.peer.empty() ? "" : " peer s | nqc complete s |");
  for (std::size_t i = 0; i < s.engines.size() + (s.peer.empty() ? 0 : 2); ++i) std::printf("---:|");
  std::printf("\n");
  for (const auto& [n, given_d] : sizes) {
    if (placed == 0 && n <= 13) {
      if (std::system(("tar xzf " + data + "/diag-" + std::to_string(n) + ".tar.gz -C " + s.tmp.string()).c_str()) != 0)
        return 2;
      for (int d = given_d ? given_d : n - 3; d <= (given_d ? given_d : n - 1); ++d) {
        Row row;
        row.n = n;
        row.d = d;
        const auto it = labels.find({n, d});
        for (int seed = 1, seen = 0; seed <= 1000; ++seed) {
          const auto file = s.tmp / ("diag-" + std::to_string(n)) /
                            ("diag-" + std::to_string(n) + "-4-" + std::to_string(seed) + ".param");
          if (!fs::exists(file) || seen++ % stride != 0) continue;
          const ParamInstance instance = read_param(file, d);
          const bool sat =
              run_instance(s, instance.board, diagonal_files(s, n, instance.pairs, d), static_cast<std::uint64_t>(seed),
                           file.string() + " d = " + std::to_string(d), row);
          if (it != labels.end())
            for (const Label& l : it->second)
              if (l.seed == seed && l.sat != sat) disagree(file.string() + " d = " + std::to_string(d) + ": the label");
        }
        print_engines(row, s);
        rows.push_back(std::move(row));
      }
    } else if (placed > 0) {
      // Placed queens: row.d holds the free rows.
      Row row;
      row.n = n;
      row.d = placed;
      int given_up = 0;
      for (int seed = 1, made = 0; made < instances; ++seed) {
        Rng rng(static_cast<std::uint64_t>(seed), static_cast<std::uint64_t>(n));
        const auto c = random_placed_queens(n, n - placed, rng);
        if (!c) {
          ++given_up;
          continue;
        }
        ++made;
        run_instance(
            s, *c, composition_files(s, *c), static_cast<std::uint64_t>(seed),
            "placed n = " + std::to_string(n) + " free " + std::to_string(placed) + " seed " + std::to_string(seed),
            row);
      }
      if (given_up > 0) std::fprintf(stderr, "n = %d: the generator gave up on %d draws\n", n, given_up);
      print_engines(row, s);
      rows.push_back(std::move(row));
    } else {
      Row row;
      row.n = n;
      row.d = given_d ? given_d : (kHardestD.count(n) ? kHardestD.at(n) : n - 2);
      for (int seed = 1; seed <= instances; ++seed) {
        Rng rng(static_cast<std::uint64_t>(seed), static_cast<std::uint64_t>(n));
        const auto pairs = random_excluded_diagonals(n, 4, rng);
        run_instance(s, excluded_board(n, pairs, static_cast<std::size_t>(row.d)), diagonal_files(s, n, pairs, row.d),
                     static_cast<std::uint64_t>(seed),
                     "generated n = " + std::to_string(n) + " seed " + std::to_string(seed), row);
      }
      print_engines(row, s);
      rows.push_back(std::move(row));
    }
  }
  if (!s.peer.empty()) {
    std::printf(
        "\nThe peer beside nqc: its CPU seconds over auto's (engine) and its process's wall seconds over nqc "
        "complete's\n\n| n | %s | instances | peer mean s | auto mean s | peer / auto, mean | peer p90 s | auto p90 s "
        "| "
        "peer / auto, p90 | process / process, mean | process / process, p90 |\n"
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
        placed > 0 ? "free rows" : "d");
    for (const Row& r : rows) print_peer(r);
    if (s.hardest > 0) {
      std::sort(s.timed.begin(), s.timed.end(), [](const auto& x, const auto& y) { return x.peer > y.peer; });
      s.timed.resize(std::min(s.timed.size(), static_cast<std::size_t>(s.hardest)));
      std::printf(
          "\nThe %zu instances of the peer's longest CPU seconds\n\n| instance | peer s | auto s | peer / auto |\n"
          "|---|---:|---:|---:|\n",
          s.timed.size());
      double peer = 0, ours = 0, least = 1e300;
      for (const auto& t : s.timed) {
        std::printf("| %s | %s | %s | %.1f |\n", t.what.c_str(), cell(t.peer).c_str(), cell(t.nqc).c_str(),
                    t.peer / t.nqc);
        peer += t.peer;
        ours += t.nqc;
        least = std::min(least, t.peer / t.nqc);
      }
      std::printf("| all %zu | %s | %s | %.1f (least %.1f) |\n", s.timed.size(), cell(peer).c_str(), cell(ours).c_str(),
                  peer / ours, least);
    }
  }
  fs::remove_all(s.tmp);
  return 0;
}
