// Engines linear in practice: for each n, a seeded random solution, compositions
// derived from it (k uniform on 1..n-1, or k = a fixed share of n as the paper's 7.9% at
// 10^8), and the engines on the same compositions, side by side in one run. Prints per (n, k,
// engine) the mean engine time (thread CPU seconds), the time per placed queen, one verifier
// pass over the solution at the same n, and their ratio; and per n the time to generate the
// solution and to derive a composition.
//
// Usage: nqc_bench_scale [--n N,N,...] [--cases C] [--engines E,E,...] [--k uniform|SHARE,...]
//                        [--seed S]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <sstream>
#include <string>
#include <vector>

#include "core/construction.hpp"
#include "core/engine.hpp"
#include "core/rng.hpp"
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

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> ns = {"100000", "1000000", "10000000"}, engines = {"auto", "grigoryan"},
                           ks = {"uniform", "0.079"};
  int cases = 3;
  std::uint64_t seed = 2026;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i], v = argv[i + 1];
    if (a == "--n")
      ns = split(v);
    else if (a == "--engines")
      engines = split(v);
    else if (a == "--k")
      ks = split(v);
    else if (a == "--cases")
      cases = std::atoi(v.c_str());
    else if (a == "--seed")
      seed = std::strtoull(v.c_str(), nullptr, 10);
    else {
      std::fprintf(stderr, "unknown option %s\n", a.c_str());
      return 1;
    }
  }
  std::printf(
      "| n | k | engine | cases | solved | mean engine s | ns per placed queen | verify s | engine / verify |\n");
  std::printf("|---:|---|---|---:|---:|---:|---:|---:|---:|\n");
  std::vector<std::string> notes;
  for (const std::string& n_text : ns) {
    const auto n = static_cast<Index>(std::atof(n_text.c_str()));
    double t0 = cpu_now();
    double construct_s = 0;
    if (n >= 4) {
      const auto explicit_solution = construct_solution(n);
      construct_s = cpu_now() - t0;
    }
    t0 = cpu_now();
    Rng srng(derive_seed(seed, static_cast<std::uint64_t>(n), 0, kSolutionStream));
    const Composition solution = random_solution(n, srng);
    const double generate_s = cpu_now() - t0;
    t0 = cpu_now();
    if (!verify(solution).ok()) return 3;
    const double verify_s = cpu_now() - t0;
    double derive_s = 0;
    for (const std::string& k_text : ks) {
      for (const std::string& engine_name : engines) {
        auto engine = make_engine(engine_name);
        double total = 0, queens = 0;
        int solved = 0;
        for (int c = 0; c < cases; ++c) {
          Rng rng(derive_seed(seed, static_cast<std::uint64_t>(n), 0, static_cast<std::uint64_t>(c)));
          const Index k = k_text == "uniform" ? draw_k(n, KRange{}, rng)
                                              : static_cast<Index>(std::atof(k_text.c_str()) * static_cast<double>(n));
          t0 = cpu_now();
          Composition comp = derive_composition(solution, k, rng);
          derive_s = cpu_now() - t0;
          queens += static_cast<double>(n - k);
          Rng erng(derive_seed(seed, static_cast<std::uint64_t>(n), 0, static_cast<std::uint64_t>(c)), 1);
          t0 = cpu_now();
          Result r = engine->complete(std::move(comp), erng, Limits{});
          total += cpu_now() - t0;
          if (r.outcome == Outcome::solved) {
            if (!is_solution(r.solution)) return 3;
            ++solved;
          }
        }
        const double mean = total / cases;
        std::printf("| %d | %s | %s | %d | %d | %.4g | %.1f | %.4g | %.1f |\n", n, k_text.c_str(), engine_name.c_str(),
                    cases, solved, mean, 1e9 * total / queens, verify_s, mean / verify_s);
        std::fflush(stdout);
      }
    }
    char line[200];
    std::snprintf(line, sizeof line,
                  "n = %d: explicit solution %.3g s, random solution %.3g s, verify %.3g s, derive %.3g s", n,
                  construct_s, generate_s, verify_s, derive_s);
    notes.emplace_back(line);
  }
  std::printf("\n");
  for (const auto& line : notes) std::printf("%s\n", line.c_str());
  return 0;
}
