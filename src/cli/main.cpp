// The main of nqc and nqc-mpi: data to files or stdout, logs and errors to stderr.
#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <iterator>
#include <map>

#include "cli/commands.hpp"
#include "experiment/results.hpp"
#include "nqc/version.hpp"
#include "system/durable.hpp"
#include "system/errors.hpp"

namespace nqc::cli {

const CLI::Validator kNonNegative(
    [](std::string& text) -> std::string {
      double value = 0;
      // "1e-3" is a number >= 0; "-0" and "-1" are not (the sign, not the value, decides).
      const std::size_t first = text.find_first_not_of(" \t");
      const bool parsed = CLI::detail::lexical_cast(text, value) && (first == std::string::npos || text[first] != '-');
      if (parsed && std::isinf(value)) return "expected a finite number >= 0, got " + text;
      if (!parsed || std::isnan(value) || value < 0) return "expected a number >= 0, got " + text;
      return {};
    },
    "NUMBER >= 0");

const CLI::Validator kUnsigned(
    [](std::string& text) -> std::string {
      std::uint64_t value = 0;
      const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
      if (ec != std::errc() || ptr != text.data() + text.size() || text.empty())
        return "expected an integer 0..18446744073709551615, got " + text;
      return {};
    },
    "INTEGER >= 0");

void write_text(const std::filesystem::path& path, const std::string& text) {
  TextOutput out(path);
  out.stream() << text;
  out.close();
}

}  // namespace nqc::cli

namespace {

// The exit code once stdout is flushed: a failed write turns 0, 2 and 3 into io_error (7).
int finish(int code) {
  errno = 0;
  std::cout.flush();
  const bool failed = std::fflush(stdout) != 0 || std::ferror(stdout) || std::cout.fail();
  if (!failed || (code != nqc::kExitOk && code != nqc::kExitInfeasible && code != nqc::kExitGaveUp)) return code;
  const int error = errno;
  std::fprintf(stderr, "nqc: error: <stdout>: cannot write%s%s\n", error != 0 ? ": " : " (a write failed)",
               error != 0 ? std::strerror(error) : "");
  std::clearerr(stdout);
  return nqc::kExitIoError;
}

int report_current_error() {
  const nqc::ErrorReport error = nqc::current_error();
  std::fprintf(stderr, "nqc: error: %s\n", error.message.c_str());
  return error.code;
}

int parse_and_run(CLI::App& app, const std::map<CLI::App*, nqc::cli::Runner>& runners, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {  // --help, --help-all, -V
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "nqc: error: %s\n", e.what());
    return nqc::kExitBadInput;
  }
  try {
    for (const auto& [sub, run] : runners)
      if (sub->parsed()) return run();
  } catch (...) {
    return report_current_error();
  }
  return nqc::kExitBadInput;
}

int run_main(int argc, char** argv) {
  nqc::ReplacingOutput::set_rule(nqc::run_file_refusal);  // no command but run writes a run's own files
  try {
    nqc::cli::hand_over_mpi_subcommand(argc, argv);  // nqc: count and run become nqc-mpi here
  } catch (...) {
    return report_current_error();
  }
  CLI::App app{"nqc: n-Queens Completion at cluster scale (complete compositions, run experiments, aggregate results)"};
  app.require_subcommand(1);
  app.footer(nqc::exit_codes_text());
  // "nqc 0.1.0 (git 0123456789ab)", "-dirty" after the revision when built from edited files.
  app.set_version_flag("-V,--version", std::string("nqc ") + NQC_VERSION + " (git " + NQC_GIT_REVISION + ")");
  using Add = std::function<nqc::cli::Runner(CLI::App&)>;
  const std::pair<const char*, Add> subcommands[] = {
      {"verify", nqc::cli::add_verify},
      {"construct", nqc::cli::add_construct},
      {"generate", nqc::cli::add_generate},
      {"derive", nqc::cli::add_derive},
      {"convert", nqc::cli::add_convert},
      {"complete", nqc::cli::add_complete},
      {"count", [&](CLI::App& a) { return nqc::cli::add_count(a, argc, argv); }},
      {"randset", nqc::cli::add_randset},
      {"run", [&](CLI::App& a) { return nqc::cli::add_run(a, argc, argv); }},
      {"aggregate", nqc::cli::add_aggregate},
      {"rows", nqc::cli::add_rows},
      {"rerun", nqc::cli::add_rerun},
      {"export", nqc::cli::add_export},
      {"info", nqc::cli::add_info},
      {"challenge", nqc::cli::add_challenge},
  };
  // Only the subcommand argv[1] names, when it names one (0.1 ms of 1.5: docs/cli.md, "Start-up").
  const bool named = argc > 1 && std::any_of(std::begin(subcommands), std::end(subcommands),
                                             [&](const auto& s) { return std::strcmp(s.first, argv[1]) == 0; });
  std::map<CLI::App*, nqc::cli::Runner> runners;
  std::string valid;
  for (const auto& [name, add] : subcommands) {
    valid += (valid.empty() ? "" : ", ") + std::string(name);
    if (named && std::strcmp(name, argv[1]) != 0) continue;
    nqc::cli::Runner runner = add(app);
    runners[app.get_subcommands({}).back()] = std::move(runner);
  }
  // CLI11 reads an unknown first word as a stray argument: name it instead, with the valid ones.
  if (!named && argc > 1 && argv[1][0] != '-') {
    std::fprintf(stderr, "nqc: error: unknown subcommand '%s' (valid subcommands: %s)\n", argv[1], valid.c_str());
    return nqc::kExitBadInput;
  }
  return parse_and_run(app, runners, argc, argv);
}

}  // namespace

int main(int argc, char** argv) { return finish(run_main(argc, argv)); }
