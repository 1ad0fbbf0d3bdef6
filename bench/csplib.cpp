// The complete engines on CSPLib prob079 Excluded Diagonals instances near the phase
// transition, side by side in one run: `auto`, `bitboard`, `sat` (CaDiCaL, in process) and
// `exact`, against the published bit-parallel solver's times ([Gent17];
// labels-shiftqueens-n8-13, their machine; docs/REFERENCES.md).
//
// Usage: nqc_bench_csplib DATA_DIR [--instances I] [--exact-max N] [--stride S] N ...
//   N <= 13: the labelled instances of DATA_DIR/diag-N.tar.gz (every S-th of the 1000), at
//            d = n - 3, n - 2, n - 1; every verdict checked against its label (n = 8, 9 have
//            none in the labels file: the engines checked against each other).
//   N >= 14: I instances drawn by CSPLib's generator procedure (random_excluded_diagonals,
//            mininfile 4, seeds 1..I) at d = n - 2; the engines' verdicts checked against
//            each other.
//   Times: CPU seconds of this thread per instance (CaDiCaL runs in it), mean over instances.
//   `exact` runs up to n = --exact-max (default 18).
// Exit 3 when a verdict disagrees (a label, or two complete engines).
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "core/engine.hpp"
#include "core/verifier.hpp"
#include "io/csplib.hpp"

using namespace nqc;

namespace {

std::string run(const std::string& command) {
  std::string out;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return out;
  char buf[4096];
  std::size_t got = 0;
  while ((got = std::fread(buf, 1, sizeof buf, pipe)) > 0) out.append(buf, got);
  pclose(pipe);
  return out;
}

double cpu_now() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

struct Label {
  int seed;
  bool sat;
  double seconds;
};

const std::vector<std::string> kEngines{"auto", "bitboard", "sat", "exact"};

// Per (n, d): the instances' mean seconds per engine and the verdicts.
struct Row {
  int n = 0, d = 0, instances = 0, solvable = 0;
  double published = -1;  // mean seconds, < 0: none
  std::map<std::string, double> seconds;
};

// Runs every engine on `board`; returns whether it has a solution (all complete engines agree)
// or exits 3.
bool solve_all(const Composition& board, std::uint64_t seed, int exact_max, const std::string& what, Row& row) {
  int verdict = -1;
  for (const auto& name : kEngines) {
    if (name == "exact" && board.n() > exact_max) continue;
    Rng rng(seed, 1);
    const double t0 = cpu_now();
    const Result r = make_engine(name)->complete(board, rng, Limits{});
    row.seconds[name] += cpu_now() - t0;
    if (r.outcome == Outcome::gave_up || (r.outcome == Outcome::solved && !is_solution(r.solution))) {
      std::fprintf(stderr, "BAD RESULT: %s: engine %s: %s\n", what.c_str(), name.c_str(), to_string(r.outcome));
      std::exit(3);
    }
    const int v = r.outcome == Outcome::solved ? 1 : 0;
    if (verdict >= 0 && v != verdict) {
      std::fprintf(stderr, "DISAGREE: %s: engine %s says %s\n", what.c_str(), name.c_str(), to_string(r.outcome));
      std::exit(3);
    }
    verdict = v;
  }
  return verdict == 1;
}

void print(const Row& r, int exact_max) {
  auto cell = [](double s) { return s < 0 ? std::string("-") : (std::ostringstream() << std::scientific << s).str(); };
  const double m = r.instances;
  const double a = r.seconds.at("auto") / m, sat = r.seconds.at("sat") / m;
  char ratio[64];
  std::snprintf(ratio, sizeof ratio, "%.1f", sat / a);
  char pub[64] = "-";
  if (r.published > 0) std::snprintf(pub, sizeof pub, "%.1f", r.published / a);
  std::printf("| %d | %d | %d | %d | %s | %s | %s | %s | %s | %s | %s |\n", r.n, r.d, r.instances, r.solvable,
              cell(r.published).c_str(), cell(sat).c_str(), cell(r.seconds.at("bitboard") / m).c_str(), cell(a).c_str(),
              r.n <= exact_max ? cell(r.seconds.at("exact") / m).c_str() : "-", ratio, pub);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s DATA_DIR [--instances I] [--exact-max N] [--stride S] N ...\n", argv[0]);
    return 1;
  }
  const std::string data = argv[1];
  int instances = 20, exact_max = 18, stride = 1;
  std::vector<int> sizes;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--instances" && i + 1 < argc) instances = std::atoi(argv[++i]);
    else if (a == "--exact-max" && i + 1 < argc) exact_max = std::atoi(argv[++i]);
    else if (a == "--stride" && i + 1 < argc) stride = std::atoi(argv[++i]);
    else sizes.push_back(std::atoi(a.c_str()));
  }
  if (sizes.empty()) sizes = {12, 13, 16};
  const auto tmp = std::filesystem::temp_directory_path() / ("nqc-bench-csplib-" + std::to_string(getpid()));
  std::filesystem::create_directories(tmp);
  std::map<std::pair<int, int>, std::vector<Label>> labels;
  std::istringstream in(run("zcat " + data + "/labels-shiftqueens-n8-13.txt.gz"));
  for (std::string line; std::getline(in, line);) {
    int n = 0, d = 0, mininfile = 0, seed = 0, solutions = 0, timeout = 1;
    double nodes = 0, seconds = 0;
    if (std::sscanf(line.c_str(), "%d %d %d %d %*[^:]:Solutions: %d Nodes: %lf Timeout: %d Time: %lf", &n, &d, &mininfile, &seed,
                    &solutions, &nodes, &timeout, &seconds) == 8 && timeout == 0)
      labels[{n, d}].push_back({seed, solutions > 0, seconds});
  }
  std::printf("| n | d | instances | solvable | published s | CaDiCaL (sat) s | bitboard s | auto s | exact s | CaDiCaL / auto | published / auto |\n");
  std::printf("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (const int n : sizes) {
    if (n <= 13) {
      if (std::system(("tar xzf " + data + "/diag-" + std::to_string(n) + ".tar.gz -C " + tmp.string()).c_str()) != 0) return 2;
      for (int d = n - 3; d <= n - 1; ++d) {
        Row row;
        row.n = n;
        row.d = d;
        const auto it = labels.find({n, d});
        double published = 0;
        for (int seed = 1, seen = 0; seed <= 1000; ++seed) {
          const auto file = tmp / ("diag-" + std::to_string(n)) / ("diag-" + std::to_string(n) + "-4-" + std::to_string(seed) + ".param");
          if (!std::filesystem::exists(file) || seen++ % stride != 0) continue;
          const Label* label = nullptr;
          if (it != labels.end())
            for (const Label& l : it->second)
              if (l.seed == seed) label = &l;
          const bool sat = solve_all(read_param(file, d).board, static_cast<std::uint64_t>(seed), exact_max,
                                     file.string() + " d = " + std::to_string(d), row);
          if (label != nullptr && label->sat != sat) {
            std::fprintf(stderr, "DISAGREE with the label: %s d = %d\n", file.c_str(), d);
            return 3;
          }
          if (label != nullptr) published += label->seconds;
          row.instances += 1;
          row.solvable += sat ? 1 : 0;
        }
        if (it != labels.end()) row.published = published / row.instances;
        print(row, exact_max);
      }
    } else {
      const int d = n - 2;
      Row row;
      row.n = n;
      row.d = d;
      for (int seed = 1; seed <= instances; ++seed) {
        Rng rng(static_cast<std::uint64_t>(seed), static_cast<std::uint64_t>(n));
        const auto pairs = random_excluded_diagonals(n, 4, rng);
        const bool sat = solve_all(excluded_board(n, pairs, static_cast<std::size_t>(d)), static_cast<std::uint64_t>(seed), exact_max,
                                   "generated n = " + std::to_string(n) + " seed " + std::to_string(seed), row);
        row.instances += 1;
        row.solvable += sat ? 1 : 0;
      }
      print(row, exact_max);
    }
  }
  std::filesystem::remove_all(tmp);
  return 0;
}
