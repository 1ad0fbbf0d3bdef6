// Fidelity of the `grigoryan` engine to the paper ([Grigoryan], docs/REFERENCES.md): the
// distribution of backtracks per case on derived compositions, side by side with the paper's
// Table 1 figures, for the paper's defaults and for variants: the author's later code (block 3
// stopping at base level 2), depth-first retractions in block 5 (search) and nqc 0.1's reading
// of block 5 (retraction).
//
// Usage: nqc_bench_fidelity [--n N] [--cases C] [--variant paper|level2|search|retraction]
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>

#include "core/engines/grigoryan.hpp"
#include "core/rng.hpp"
#include "core/sampling.hpp"
#include "core/verifier.hpp"

using namespace nqc;

int main(int argc, char** argv) {
  Index n = 1000;
  int cases = 10000;
  std::string variant = "paper";
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--n")
      n = static_cast<Index>(std::atol(argv[i + 1]));
    else if (a == "--cases")
      cases = std::atoi(argv[i + 1]);
    else if (a == "--variant")
      variant = argv[i + 1];
    else {
      std::fprintf(stderr, "unknown option %s\n", a.c_str());
      return 1;
    }
  }
  GrigoryanParams params;
  if (variant == "level2") {
    params.block3_stops_at_level2 = true;  // the author's code
  } else if (variant == "search") {
    params.search_retractions = 100;  // depth-first "next cell" in the last descent per first queen
  } else if (variant == "retraction") {
    // The earlier reading of block 5: every descent starts with the
    // minimum-risk rule, and after repeat_bound returns a dead end is searched depth-first.
    params.first_move_sweep = false;
    params.search_retractions = 100;
    params.lookahead_columns = true;
  } else if (variant != "paper") {
    std::fprintf(stderr, "unknown variant %s (paper, level2, search, retraction)\n", variant.c_str());
    return 1;
  }
  // 100 compositions per solution, as the paper's design at n = 1000 (10^4 solutions x 100).
  std::uint64_t hist[5] = {0, 0, 0, 0, 0}, false_negatives = 0, backtracks = 0;
  double cpu = 0;
  Composition solution;
  for (int i = 0; i < cases; ++i) {
    const auto s = static_cast<std::uint64_t>(i / 100), c = static_cast<std::uint64_t>(i % 100);
    if (c == 0) {
      Rng srng(derive_seed(1912, static_cast<std::uint64_t>(n), s, kSolutionStream));
      solution = random_solution(n, srng);
    }
    Rng rng(derive_seed(1912, static_cast<std::uint64_t>(n), s, c));
    const Composition comp = derive_composition(solution, draw_k(n, KRange{}, rng), rng);
    Rng erng(derive_seed(1912, static_cast<std::uint64_t>(n), s, c), 1);
    timespec t0{}, t1{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
    const Result r = complete_grigoryan(comp, erng, Limits{}, params);
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
    cpu += static_cast<double>(t1.tv_sec - t0.tv_sec) + 1e-9 * static_cast<double>(t1.tv_nsec - t0.tv_nsec);
    if (r.outcome == Outcome::solved && !(is_solution(r.solution) && extends(r.solution, comp))) return 3;
    if (r.outcome == Outcome::infeasible) return 4;
    false_negatives += r.outcome != Outcome::solved ? 1 : 0;
    ++hist[r.counters.backtracks < 4 ? r.counters.backtracks : 4];
    backtracks += r.counters.backtracks;
  }
  const double m = cases;
  const auto pct = [&](std::uint64_t count) { return 100.0 * static_cast<double>(count) / m; };
  std::printf("| n | cases | variant | 0 | 1 | 2 | 3 | more | mean backtracks | false negatives | mean CPU ms |\n");
  std::printf("|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  std::printf("| %d | %d | %s | %.2f%% | %.2f%% | %.2f%% | %.2f%% | %.2f%% | %.3f | %llu | %.3f |\n", n, cases,
              variant.c_str(), pct(hist[0]), pct(hist[1]), pct(hist[2]), pct(hist[3]), pct(hist[4]),
              static_cast<double>(backtracks) / m, static_cast<unsigned long long>(false_negatives), 1e3 * cpu / m);
  if (n == 1000)
    std::printf("| 1000 | 10^6 | the paper | 60.50%% | 22.72%% | 9.21%% | 3.95%% | 3.62%% | | | 62 (MATLAB wall) |\n");
  if (n == 5000) std::printf("| 5000 | 10^4 | the paper | 61.92%% | 21.87%% | 9.07%% | 3.77%% | | | | |\n");
  return 0;
}
