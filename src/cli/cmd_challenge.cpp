// challenge: the paper's pair of compositions, one with a completion and one without.
#include <cstdio>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "core/challenge.hpp"
#include "core/sampling.hpp"
#include "formats/composition_file.hpp"
#include "system/errors.hpp"

namespace nqc::cli {
namespace {

// The options of `nqc challenge`, as parsed.
struct ChallengeArgs {
  Index n = 0, free_rows = 0, changed_rows = 2000;
  std::string dir, format = "bin";
  std::uint64_t seed = 1;
};

// Writes the two compositions and answer.json.
int challenge_command(const ChallengeArgs& a) {
  if (a.n < 8)
    throw InputError("N: expected a board size 8.." + std::to_string(kMaxBoardSize) + ", got " + std::to_string(a.n));
  if (a.free_rows < 1 || a.free_rows > a.n / 2)
    throw InputError("--free-rows: expected 1.." + std::to_string(a.n / 2) + " (at most N/2), got " +
                     std::to_string(a.free_rows));
  refuse_std_stream("-o", a.dir,
                    "the challenge's directory (it holds two compositions and answer.json); give a directory");
  const std::filesystem::path dir(a.dir);
  const std::filesystem::path file_a = dir / ("a." + a.format), file_b = dir / ("b." + a.format);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw_error(errno_exit_code(ec.value()), a.dir + ": cannot create the directory: " + ec.message());
  if (std::filesystem::exists(dir / "answer.json"))
    throw InputError(a.dir + ": holds a challenge already (answer.json): choose another directory");
  Rng rng(a.seed, 7);
  Composition c = random_solution(a.n, rng);
  Challenge challenge;
  try {
    challenge = make_challenge(c, a.free_rows, rng, a.changed_rows);
  } catch (const std::runtime_error& e) {
    // No swap fits (small n with many free rows): nqc gave up on this seed; another may do.
    throw Error(kExitGaveUp, std::string(e.what()) + "; another --seed or fewer --free-rows may do");
  }
  // Which file is which is drawn at random: the pair does not give it away.
  const bool first_is_a = rng.below(2) == 0;
  write_composition(c, first_is_a ? file_a : file_b);
  apply_changes(c, challenge);
  write_composition(c, first_is_a ? file_b : file_a);
  nlohmann::json answer = {{"n", a.n},
                           {"free_rows", a.free_rows},
                           {"seed", a.seed},
                           {"completable", (first_is_a ? file_a : file_b).filename().string()},
                           {"infeasible", (first_is_a ? file_b : file_a).filename().string()},
                           {"dead_row", challenge.dead_row + 1},
                           {"changed_rows", challenge.changes.size()},
                           {"why", "row " + std::to_string(challenge.dead_row + 1) +
                                       " is free in both; in the infeasible one every free column is attacked there"}};
  write_text(dir / "answer.json", answer.dump(2) + "\n");
  std::printf("%s, %s: n = %d, %d free rows, %zu rows differ; which one has a completion: %s\n",
              file_a.string().c_str(), file_b.string().c_str(), a.n, a.free_rows, challenge.changes.size(),
              (dir / "answer.json").string().c_str());
  return 0;
}

}  // namespace

Runner add_challenge(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "challenge", "Write the paper's challenge: two compositions of one board, one with a completion and one without");
  auto a = std::make_shared<ChallengeArgs>();
  cmd->add_option("N", a->n, "board size, 8 <= N <= " + std::to_string(kMaxBoardSize) + " (the paper: 10^9)")
      ->required();
  cmd->add_option("--free-rows", a->free_rows, "free rows of both compositions, 1 <= F <= N/2 (the paper: 518)")
      ->required();
  cmd->add_option("-o,--output", a->dir, "output directory (created; must not hold a challenge already)")->required();
  cmd->add_option("--changed-rows", a->changed_rows, "at least this many kept rows differ between the two")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  add_number(cmd, "--seed", a->seed, "seed of the random solution and of the choices");
  cmd->add_option("--format", a->format, "format of the two compositions: bin, h5 or txt")
      ->capture_default_str()
      ->check(CLI::IsMember({"bin", "h5", "txt"}));
  cmd->footer("Writes DIR/a.FORMAT, DIR/b.FORMAT and DIR/answer.json (docs/cli.md).\n" +
              exit_codes_footer({{kExitOk, "written"}}));
  return [a] { return challenge_command(*a); };
}

}  // namespace nqc::cli
