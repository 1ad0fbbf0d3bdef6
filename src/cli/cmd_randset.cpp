// randset: [Grigoryan]'s randSet & randSet experiment on the empty board (docs/REFERENCES.md).
#include <cmath>
#include <cstdio>
#include <map>

#include "cli/commands.hpp"
#include "core/random_fill.hpp"
#include "core/rng.hpp"
#include "system/errors.hpp"
#include "system/std_stream.hpp"

namespace nqc::cli {
namespace {

struct RandsetArgs {
  Index n = 0;
  std::uint64_t trials = 1000, seed = 1;
  std::optional<std::string> csv, trials_csv;
};

// Runs the trials; writes the summary and the CSVs.
int randset_command(const RandsetArgs& a) {
  if (a.n < 1) throw InputError("N: expected a board size >= 1, got " + std::to_string(a.n));
  if (a.trials < 1) throw InputError("--trials: expected at least 1, got 0");
  if (a.csv && a.csv->empty()) throw InputError("--csv: expected a file path, got ''");
  if (a.trials_csv && a.trials_csv->empty()) throw InputError("--trials-csv: expected a file path, got ''");
  // "-" is standard output (one of the two at most); the summary then goes to stderr.
  const NamedOutputs outputs{{"--csv", a.csv.value_or("")}, {"--trials-csv", a.trials_csv.value_or("")}};
  require_one_stdout(outputs);
  FILE* text = text_stream(outputs);
  // The same file twice (a link, ./x and x) would write one over the other.
  if (a.csv && a.trials_csv && same_output_file(*a.csv, *a.trials_csv))
    throw InputError("--csv and --trials-csv: " + *a.csv + " and " + *a.trials_csv + " are one file; give two files");
  std::optional<TextOutput> csv, per_trial;
  if (a.csv) csv.emplace(*a.csv);
  if (a.trials_csv) {
    per_trial.emplace(*a.trials_csv);
    per_trial->stream() << "trial,first_pass,dead_end_k\n";
  }
  std::map<Index, std::uint64_t> lengths;
  double sum = 0, sum2 = 0;
  for (std::uint64_t t = 0; t < a.trials; ++t) {
    Rng rng(derive_seed(a.seed, static_cast<std::uint64_t>(a.n), t, 0));
    Composition c(a.n);
    const FillStats stats = randset_to_dead_end(c, rng);
    const double share = static_cast<double>(stats.placed_pass1) / a.n;
    sum += share;
    sum2 += share * share;
    ++lengths[c.k()];
    if (per_trial) per_trial->stream() << t << ',' << stats.placed_pass1 << ',' << c.k() << '\n';
  }
  if (per_trial) per_trial->close();
  const auto trials = static_cast<double>(a.trials);
  const double mean = sum / trials;
  const double sd = a.trials > 1 ? std::sqrt(std::max(0.0, (sum2 - trials * mean * mean) / (trials - 1))) : 0.0;
  double mean_k = 0;
  for (const auto& [k, count] : lengths) mean_k += static_cast<double>(k) * static_cast<double>(count) / trials;
  std::fprintf(text,
               "n: %d\ntrials: %llu\nfirst_pass_share: %.6f\nfirst_pass_share_sd: %.6f\nfirst_pass_share_se: %.6f\n"
               "mean_dead_end_k: %.3f\nsolutions: %llu\nhistogram (k: trials):\n",
               a.n, static_cast<unsigned long long>(a.trials), mean, sd, sd / std::sqrt(trials), mean_k,
               static_cast<unsigned long long>(lengths.count(a.n) ? lengths[a.n] : 0));
  if (csv) csv->stream() << "k,count,share\n";
  for (const auto& [k, count] : lengths) {
    std::fprintf(text, "  %d: %llu\n", k, static_cast<unsigned long long>(count));
    if (csv) csv->stream() << k << ',' << count << ',' << static_cast<double>(count) / trials << '\n';
  }
  if (csv) csv->close();
  return 0;
}

}  // namespace

Runner add_randset(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "randset",
      "The paper's randSet & randSet experiment: share placed by the first pass, histogram of dead-end lengths");
  auto a = std::make_shared<RandsetArgs>();
  cmd->add_option("N", a->n, "board size, N >= 1")->required();
  add_number(cmd, "--trials", a->trials, "independent trials");
  add_number(cmd, "--seed", a->seed, "seed; trial t draws from derive_seed(seed, N, t, 0)");
  cmd->add_option(
      "--csv", a->csv,
      "write the dead-end length histogram (k,count,share) here; - for stdout (the summary then going to stderr)");
  cmd->add_option("--trials-csv", a->trials_csv,
                  "write one row per trial here: trial, first_pass (queens placed by the first pass), dead_end_k "
                  "(queens at the dead end); - for stdout (the summary then going to stderr)");
  cmd->footer(
      "Prints the mean share of the N queens placed by the first pass ([Grigoryan]: 0.6057 at N = 10, 0.6005\n"
      "at N = 100) and the histogram of the composition lengths k at which repeated passes reach a dead end.\n"
      "[Grigoryan]: see docs/REFERENCES.md.");
  return [a] { return randset_command(*a); };
}

}  // namespace nqc::cli
