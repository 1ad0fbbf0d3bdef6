// verify, construct, generate, derive, convert.
#include <chrono>
#include <cstdio>
#include <optional>

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

void emit(const Composition& c, const std::string& output) { write_composition(c, output.empty() ? "-" : output); }

double seconds(std::chrono::steady_clock::time_point from, std::chrono::steady_clock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

}  // namespace

Runner add_verify(CLI::App& app) {
  auto* cmd =
      app.add_subcommand("verify", "Check that a composition file is consistent (and whether it is a full solution)");
  auto file = std::make_shared<std::string>();
  auto timing = std::make_shared<bool>(false);
  cmd->add_option("FILE", *file, kInputHelp)->required();
  cmd->add_flag("--timing", *timing,
                "print the seconds spent reading and checking to stderr (read_s: ..., check_s: ...)");
  cmd->footer(exit_codes_footer({{kExitOk, "consistent"}}) + " A bad file's message names the file, line and rows.");
  return [file, timing] {
    const auto t0 = std::chrono::steady_clock::now();
    const LoadedComposition loaded = read_composition(*file);
    const auto t1 = std::chrono::steady_clock::now();
    require_consistent(loaded);
    const auto t2 = std::chrono::steady_clock::now();
    if (*timing) std::fprintf(stderr, "read_s: %.6f\ncheck_s: %.6f\n", seconds(t0, t1), seconds(t1, t2));
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
  auto n = std::make_shared<Index>(0);
  auto output = std::make_shared<std::string>();
  cmd->add_option("N", *n, "board size, 1 <= N <= " + std::to_string(kMaxBoardSize))->required();
  cmd->add_option("-o,--output", *output, kOutputHelp);
  cmd->footer(exit_codes_footer({{kExitOk, "written"}, {kExitInfeasible, "no solution exists (N = 2, 3)"}}));
  return [n, output] {
    if (*n < 1) throw InputError("N: expected a board size >= 1, got " + std::to_string(*n));
    const auto s = construct_solution(*n);
    if (!s) {
      std::fprintf(stderr, "nqc: no solution exists for n = %d\n", *n);
      return 2;
    }
    emit(*s, *output);
    return 0;
  };
}

Runner add_generate(CLI::App& app) {
  auto* cmd = app.add_subcommand("generate", "Write a seeded random solution for board size N");
  auto n = std::make_shared<Index>(0);
  auto seed = std::make_shared<std::uint64_t>(1);
  auto id = std::make_shared<std::uint64_t>(0);
  auto output = std::make_shared<std::string>();
  cmd->add_option("N", *n, "board size, N = 1 or N >= 4")->required();
  cmd->add_option("--seed", *seed, "experiment seed")->capture_default_str()->check(kUnsigned);
  cmd->add_option("--solution-id", *id,
                  "solution index: the same (seed, N, id) as in `nqc run` gives the same solution")
      ->capture_default_str()
      ->check(kUnsigned);
  cmd->add_option("-o,--output", *output, kOutputHelp);
  return [n, seed, id, output] {
    if (*n < 1) throw InputError("N: expected a board size >= 1, got " + std::to_string(*n));
    if (*n == 2 || *n == 3) {
      std::fprintf(stderr, "nqc: no solution exists for n = %d\n", *n);
      return 2;
    }
    Rng rng(derive_seed(*seed, static_cast<std::uint64_t>(*n), *id, kSolutionStream));
    emit(random_solution(*n, rng), *output);
    return 0;
  };
}

Runner add_derive(CLI::App& app) {
  auto* cmd = app.add_subcommand("derive", "Derive a random composition of k queens from a solution file");
  auto file = std::make_shared<std::string>();
  auto k = std::make_shared<std::int64_t>(-1);
  auto seed = std::make_shared<std::uint64_t>(1);
  auto output = std::make_shared<std::string>();
  cmd->add_option("SOLUTION", *file, "solution file: text, binary or HDF5 (found by content); - for stdin")->required();
  cmd->add_option("-k,--k", *k, "queens to keep (default: uniform on 1..n-1)");
  cmd->add_option("--seed", *seed, "seed of the random choices")->capture_default_str()->check(kUnsigned);
  cmd->add_option("-o,--output", *output, kOutputHelp);
  return [file, k, seed, output] {
    LoadedComposition loaded = read_composition(*file);
    require_consistent(loaded);
    Composition& s = loaded.composition;
    if (s.k() != s.n())
      throw InputError(loaded.source + ": not a solution (k = " + std::to_string(s.k()) +
                       " < n = " + std::to_string(s.n()) + ")");
    if (*k > s.n() || *k < -1)
      throw InputError("--k: expected 0.." + std::to_string(s.n()) + ", got " + std::to_string(*k));
    Rng rng(*seed, 0);
    const Index kk = *k >= 0 ? static_cast<Index>(*k) : draw_k(s.n(), KRange{}, rng);
    emit(derive_composition(std::move(s), kk, rng), *output);  // in the solution's own memory
    return 0;
  };
}

Runner add_convert(CLI::App& app) {
  auto* cmd = app.add_subcommand("convert", "Convert a composition file between the text, binary and HDF5 formats");
  auto input = std::make_shared<std::string>();
  auto output = std::make_shared<std::string>();
  auto to = std::make_shared<std::string>();
  cmd->add_option("IN", *input, kInputHelp)->required();
  cmd->add_option("OUT", *output,
                  "output file: format from --to, else from the extension (.bin: binary, .h5 or .hdf5: HDF5, else "
                  "text); - for stdout")
      ->required();
  cmd->add_option("--to", *to, "output format: text, binary or hdf5 (default: from OUT's extension)")
      ->check(CLI::IsMember({"text", "binary", "hdf5"}));
  cmd->footer(
      "The composition must be consistent, as verify checks (a converter does not pass bad data on).\n"
      "Binary: 24-byte header (magic \\x89NQC\\r\\n\\x1a\\n, uint32 version 1, uint32 flags 0, uint64 n), then n "
      "uint32\n"
      "values Q(1..n), all little-endian. HDF5: the 1-D dataset /composition (uint32, chunked, Fletcher32).\n" +
      exit_codes_footer({{kExitOk, "written"}}));
  return [input, output, to] {
    LoadedComposition loaded = read_composition(*input);
    require_consistent(loaded);
    const Composition c = std::move(loaded.composition);
    loaded.text.reset();  // OUT may be IN
    const CompositionFormat format = *to == "binary" ? CompositionFormat::binary
                                     : *to == "hdf5" ? CompositionFormat::hdf5
                                     : *to == "text" ? CompositionFormat::text
                                                     : format_for_output(*output);
    write_composition(c, *output, format);
    return 0;
  };
}

}  // namespace nqc::cli
