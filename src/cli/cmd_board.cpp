// verify, construct, generate, derive, convert.
#include <chrono>
#include <cstdio>

#include "cli/commands.hpp"
#include "core/construction.hpp"
#include "core/rng.hpp"
#include "core/sampling.hpp"
#include "core/verifier.hpp"
#include "formats/composition_file.hpp"
#include "system/errors.hpp"

namespace nqc::cli {
namespace {

constexpr const char* kOutputHelp = "output file (default: stdout); .bin: binary, .h5 or .hdf5: HDF5, else text";
constexpr const char* kInputHelp = "composition file: text, binary or HDF5 (found by content); - for stdin";

struct BoardArgs {
  std::string file, output, to;
  Index n = 0;
  std::int64_t k = -1;
  std::uint64_t seed = 1, solution_id = 0;
  bool timing = false;
};

void emit(const Composition& c, const std::string& output) { write_composition(c, output.empty() ? "-" : output); }

// construct's and generate's N: InputError below 1; false, said on stderr, for N = 2, 3.
bool solvable(Index n) {
  if (n < 1) throw InputError("N: expected a board size >= 1, got " + std::to_string(n));
  if (n != 2 && n != 3) return true;
  std::fprintf(stderr, "nqc: no solution exists for n = %d\n", n);
  return false;
}

// The composition of `file`, checked consistent (before anything is done with it).
LoadedComposition read_consistent(const std::string& file) {
  LoadedComposition loaded = read_composition(file);
  require_consistent(loaded);
  return loaded;
}

}  // namespace

Runner add_verify(CLI::App& app) {
  auto* cmd =
      app.add_subcommand("verify", "Check that a composition file is consistent (and whether it is a full solution)");
  auto a = std::make_shared<BoardArgs>();
  cmd->add_option("FILE", a->file, kInputHelp)->required();
  cmd->add_flag("--timing", a->timing,
                "print the seconds spent reading and checking to stderr (read_s: ..., check_s: ...)");
  cmd->footer(exit_codes_footer({{kExitOk, "consistent"}}) + " A bad file's message names the file, line and rows.");
  return [a] {
    using Clock = std::chrono::steady_clock;
    const auto t0 = Clock::now();
    const LoadedComposition loaded = read_composition(a->file);
    const auto t1 = Clock::now();
    require_consistent(loaded);
    const std::chrono::duration<double> read = t1 - t0, check = Clock::now() - t1;
    if (a->timing) std::fprintf(stderr, "read_s: %.6f\ncheck_s: %.6f\n", read.count(), check.count());
    const Composition& c = loaded.composition;
    if (c.k() == c.n())
      std::printf("%s: valid solution, n = %d\n", loaded.source.c_str(), c.n());
    else
      std::printf("%s: consistent composition, n = %d, k = %d\n", loaded.source.c_str(), c.n(), c.k());
    return 0;
  };
}

Runner add_construct(CLI::App& app) {
  auto* cmd = app.add_subcommand("construct", "Write the explicit O(n) solution for board size N");
  auto a = std::make_shared<BoardArgs>();
  cmd->add_option("N", a->n, "board size, 1 <= N <= " + std::to_string(kMaxBoardSize))->required();
  cmd->add_option("-o,--output", a->output, kOutputHelp);
  cmd->footer(exit_codes_footer({{kExitOk, "written"}, {kExitInfeasible, "no solution exists (N = 2, 3)"}}));
  return [a] {
    if (!solvable(a->n)) return static_cast<int>(kExitInfeasible);
    emit(construct_solution(a->n).value(), a->output);
    return 0;
  };
}

Runner add_generate(CLI::App& app) {
  auto* cmd = app.add_subcommand("generate", "Write a seeded random solution for board size N");
  auto a = std::make_shared<BoardArgs>();
  cmd->add_option("N", a->n, "board size, N = 1 or N >= 4")->required();
  add_number(cmd, "--seed", a->seed, "experiment seed");
  add_number(cmd, "--solution-id", a->solution_id,
             "solution index: the same (seed, N, id) as in `nqc run` gives the same solution");
  cmd->add_option("-o,--output", a->output, kOutputHelp);
  return [a] {
    if (!solvable(a->n)) return static_cast<int>(kExitInfeasible);
    Rng rng(derive_seed(a->seed, static_cast<std::uint64_t>(a->n), a->solution_id, kSolutionStream));
    emit(random_solution(a->n, rng), a->output);
    return 0;
  };
}

Runner add_derive(CLI::App& app) {
  auto* cmd = app.add_subcommand("derive", "Derive a random composition of k queens from a solution file");
  auto a = std::make_shared<BoardArgs>();
  cmd->add_option("SOLUTION", a->file, "solution file: text, binary or HDF5 (found by content); - for stdin")
      ->required();
  cmd->add_option("-k,--k", a->k, "queens to keep (default: uniform on 1..n-1)");
  add_number(cmd, "--seed", a->seed, "seed of the random choices");
  cmd->add_option("-o,--output", a->output, kOutputHelp);
  return [a] {
    LoadedComposition loaded = read_consistent(a->file);
    Composition& s = loaded.composition;
    if (s.k() != s.n())
      throw InputError(loaded.source + ": not a solution (k = " + std::to_string(s.k()) +
                       " < n = " + std::to_string(s.n()) + ")");
    if (a->k > s.n() || a->k < -1)
      throw InputError("--k: expected 0.." + std::to_string(s.n()) + ", got " + std::to_string(a->k));
    Rng rng(a->seed, 0);
    const Index k = a->k >= 0 ? static_cast<Index>(a->k) : draw_k(s.n(), KRange{}, rng);
    emit(derive_composition(std::move(s), k, rng), a->output);  // in the solution's own memory
    return 0;
  };
}

Runner add_convert(CLI::App& app) {
  auto* cmd = app.add_subcommand("convert", "Convert a composition file between the text, binary and HDF5 formats");
  auto a = std::make_shared<BoardArgs>();
  cmd->add_option("IN", a->file, kInputHelp)->required();
  cmd->add_option("OUT", a->output,
                  "output file: format from --to, else from the extension (.bin: binary, .h5 or .hdf5: HDF5, else "
                  "text); - for stdout")
      ->required();
  cmd->add_option("--to", a->to, "output format: text, binary or hdf5 (default: from OUT's extension)")
      ->check(CLI::IsMember({"text", "binary", "hdf5"}));
  cmd->footer(
      "The composition must be consistent, as verify checks (a converter does not pass bad data on).\n"
      "The formats: docs/formats.md.\n" +
      exit_codes_footer({{kExitOk, "written"}}));
  return [a] {
    LoadedComposition loaded = read_consistent(a->file);
    const Composition c = std::move(loaded.composition);
    loaded.text.reset();  // OUT may be IN
    const CompositionFormat format = a->to == "binary" ? CompositionFormat::binary
                                     : a->to == "hdf5" ? CompositionFormat::hdf5
                                     : a->to == "text" ? CompositionFormat::text
                                                       : format_for_output(a->output);
    write_composition(c, a->output, format);
    return 0;
  };
}

}  // namespace nqc::cli
