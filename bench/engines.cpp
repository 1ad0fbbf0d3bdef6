// Side-by-side speed of the engines on the same derived compositions, as ratios to one
// verifier pass at the same n (the linear-time floor). Prints a Markdown table.
//
// A plain harness rather than Google Benchmark: what is wanted is the distribution over
// many different inputs (mean and t90mean over cases), not the repeated timing of one input.
//
// Usage: nqc_bench_engines [--cases-scale X] [--time-limit S] [--n N,N,...] [--engines a,b]
//                          [--engine LABEL=NAME:JSON]... (an engine with parameters, as nqc_bench_csplib's)
// Engines with a bound on the residual (bitboard, sat) run the cases within it: "cases" is
// how many, and their "/ verify" is over the same cases.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "core/engine.hpp"
#include "core/rng.hpp"
#include "engine_variants.hpp"
#include "core/sampling.hpp"
#include "core/verifier.hpp"

using namespace nqc;

namespace {

double cpu_now() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');) out.push_back(item);
  return out;
}

struct Stats {
  double mean = 0, t90mean = 0;
};
Stats stats(std::vector<double> t) {
  std::sort(t.begin(), t.end());
  const std::size_t fast = std::max<std::size_t>(1, t.size() * 9 / 10);
  return {std::accumulate(t.begin(), t.end(), 0.0) / static_cast<double>(t.size()),
          std::accumulate(t.begin(), t.begin() + static_cast<std::ptrdiff_t>(fast), 0.0) / static_cast<double>(fast)};
}

}  // namespace

int main(int argc, char** argv) {
  double scale = 1.0, time_limit = 2.0;
  std::vector<std::string> ns{"100", "1000", "10000", "100000", "1000000"};
  std::vector<std::string> engines = engine_names();
  bench::EngineVariants variants;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--cases-scale")
      scale = std::atof(argv[i + 1]);
    else if (a == "--time-limit")
      time_limit = std::atof(argv[i + 1]);
    else if (a == "--n")
      ns = split(argv[i + 1]);
    else if (a == "--engines")
      engines = split(argv[i + 1]);
    else if (a == "--engine") {
      if (!variants.add(argv[i + 1])) return 1;
      engines.push_back(variants.last());
    } else {
      std::fprintf(stderr, "unknown option %s\n", a.c_str());
      return 1;
    }
  }
  std::printf(
      "| n | cases | engine | solved | gave up | mean CPU s | t90mean CPU s | mean / verify | t90mean / verify |\n");
  std::printf("|---:|---:|---|---:|---:|---:|---:|---:|---:|\n");
  for (const std::string& nstr : ns) {
    const auto n = static_cast<Index>(std::atol(nstr.c_str()));
    // Fewer cases at large n: about 2000 at n = 100, 20 at 10^6.
    const int cases = std::max(10, static_cast<int>(scale * 2e5 / std::max<double>(100.0, n) * (n >= 100000 ? 2 : 1)));
    std::vector<Composition> inputs;
    const int per_solution = 10;
    for (int s = 0; static_cast<int>(inputs.size()) < cases; ++s) {
      Rng srng(derive_seed(2026, static_cast<std::uint64_t>(n), static_cast<std::uint64_t>(s), kSolutionStream));
      const Composition solution = random_solution(n, srng);
      for (int c = 0; c < per_solution && static_cast<int>(inputs.size()) < cases; ++c) {
        Rng rng(derive_seed(2026, static_cast<std::uint64_t>(n), static_cast<std::uint64_t>(s),
                            static_cast<std::uint64_t>(c)));
        inputs.push_back(derive_composition(solution, draw_k(n, KRange{}, rng), rng));
      }
    }
    // The floor: one verifier pass over each input.
    std::vector<double> verify_t;
    for (const Composition& c : inputs) {
      const double t0 = cpu_now();
      if (!verify(c).ok()) return 2;
      verify_t.push_back(cpu_now() - t0);
    }
    for (const std::string& name : engines) {
      const auto engine = variants.make(name);
      const Index max_free = engine_info(variants.name(name)).max_free_rows;  // bitboard, sat: small residuals only
      std::vector<double> t, floor_t;
      int solved = 0, gave_up = 0;
      for (std::size_t i = 0; i < inputs.size(); ++i) {
        if (max_free != 0 && inputs[i].n() - inputs[i].k() > max_free) continue;
        floor_t.push_back(verify_t[i]);
        Rng rng(derive_seed(2026, static_cast<std::uint64_t>(n), i, 7), 1);
        const double t0 = cpu_now();
        const Result r = engine->complete(inputs[i], rng, Limits{0, time_limit, nullptr});
        t.push_back(cpu_now() - t0);
        if (r.outcome == Outcome::solved) {
          if (!is_solution(r.solution) || !extends(r.solution, inputs[i])) return 3;
          ++solved;
        } else if (r.outcome == Outcome::infeasible) {
          std::fprintf(stderr, "BUG: %s declared a derived composition infeasible (n = %d, case %zu)\n", name.c_str(),
                       n, i);
          return 4;
        } else {
          ++gave_up;
        }
      }
      if (t.empty()) continue;
      const Stats st = stats(t);
      const double own_floor = stats(floor_t).mean;
      std::printf("| %d | %zu | %s | %d | %d | %.3e | %.3e | %.1f | %.1f |\n", n, t.size(), name.c_str(), solved,
                  gave_up, st.mean, st.t90mean, st.mean / own_floor, st.t90mean / own_floor);
      std::fflush(stdout);
    }
  }
  return 0;
}
