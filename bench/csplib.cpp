// `exact` (and `auto`) on CSPLib prob079 Excluded Diagonals instances near the phase
// transition d = n - 2, next to the nodes of the published bit-parallel solver (Gent,
// Jefferson, Nightingale, JAIR 2017; labels-shiftqueens-n8-13).
//
// Usage: nqc_bench_csplib DATA_DIR [N ...]   (DATA_DIR: tests/data/csplib-prob079)
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

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s DATA_DIR [N ...]\n", argv[0]);
    return 1;
  }
  const std::string data = argv[1];
  std::vector<int> sizes;
  for (int i = 2; i < argc; ++i) sizes.push_back(std::atoi(argv[i]));
  if (sizes.empty()) sizes = {12, 13};
  const auto tmp = std::filesystem::temp_directory_path() / ("nqc-bench-csplib-" + std::to_string(getpid()));
  std::filesystem::create_directories(tmp);
  std::printf("| n | d | instances | sat | exact mean nodes | published mean nodes | exact mean s | published mean s | auto mean s |\n");
  std::printf("|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  std::istringstream labels(run("zcat " + data + "/labels-shiftqueens-n8-13.txt.gz"));
  struct Row { int seed; bool sat; double nodes, seconds; };
  std::map<std::pair<int, int>, std::vector<Row>> by_nd;
  for (std::string line; std::getline(labels, line);) {
    int n = 0, d = 0, mininfile = 0, seed = 0, solutions = 0, timeout = 1;
    double nodes = 0, seconds = 0;
    if (std::sscanf(line.c_str(), "%d %d %d %d %*[^:]:Solutions: %d Nodes: %lf Timeout: %d Time: %lf", &n, &d, &mininfile, &seed,
                    &solutions, &nodes, &timeout, &seconds) == 8 && timeout == 0)
      by_nd[{n, d}].push_back({seed, solutions > 0, nodes, seconds});
  }
  for (const int n : sizes) {
    if (std::system(("tar xzf " + data + "/diag-" + std::to_string(n) + ".tar.gz -C " + tmp.string()).c_str()) != 0) return 2;
    for (int d = n - 3; d <= n - 1; ++d) {
      const auto& rows = by_nd[{n, d}];
      double nodes = 0, pub_nodes = 0, secs = 0, pub_secs = 0, auto_secs = 0;
      int sat = 0;
      for (const Row& r : rows) {
        const std::string file = (tmp / ("diag-" + std::to_string(n)) / ("diag-" + std::to_string(n) + "-4-" + std::to_string(r.seed) + ".param")).string();
        const Composition board = read_param(file, d).board;
        Rng rng(static_cast<std::uint64_t>(r.seed), 1);
        double t0 = cpu_now();
        const Result e = make_engine("exact")->complete(board, rng, Limits{});
        secs += cpu_now() - t0;
        t0 = cpu_now();
        const Result a = make_engine("auto")->complete(board, rng, Limits{});
        auto_secs += cpu_now() - t0;
        if ((e.outcome == Outcome::solved) != r.sat || (a.outcome == Outcome::solved) != r.sat) {
          std::fprintf(stderr, "DISAGREE: %s d = %d\n", file.c_str(), d);
          return 3;
        }
        nodes += static_cast<double>(e.counters.nodes);
        pub_nodes += r.nodes;
        pub_secs += r.seconds;
        sat += r.sat ? 1 : 0;
      }
      const double m = static_cast<double>(rows.size());
      std::printf("| %d | %d | %zu | %d | %.0f | %.0f | %.2e | %.2e | %.2e |\n", n, d, rows.size(), sat, nodes / m, pub_nodes / m,
                  secs / m, pub_secs / m, auto_secs / m);
      std::fflush(stdout);
    }
  }
  std::filesystem::remove_all(tmp);
  return 0;
}
