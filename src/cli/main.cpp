// nqc: the command-line front end (CLI11 subcommands). Data goes to files or stdout, logs
// and errors to stderr; exit codes as nqc::ExitCode.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <map>

#include <spdlog/spdlog.h>

#include "cli/commands.hpp"
#include "io/errors.hpp"
#include "nqc/version.hpp"

namespace {

// The exit code once standard output is flushed: a write to it that failed (a full device, a
// closed pipe that does not end the process) turns success and the verdicts (0, 2, 3) into
// io_error (7), with one line; a command that failed keeps its code and its one line.
int finish(int code) {
  errno = 0;
  std::cout.flush();
  const bool failed = std::fflush(stdout) != 0 || std::ferror(stdout) || std::cout.fail();
  // A command that failed has said why (its own write to stdout included): one line only.
  if (!failed || (code != nqc::kExitOk && code != nqc::kExitInfeasible && code != nqc::kExitGaveUp)) return code;
  // The reason when the last flush failed; an earlier failed write's errno is gone by now.
  const int error = errno;
  std::fprintf(stderr, "nqc: error: <stdout>: cannot write%s%s\n", error != 0 ? ": " : " (a write failed)",
               error != 0 ? std::strerror(error) : "");
  std::clearerr(stdout);
  return nqc::kExitIoError;
}

int run_main(int argc, char** argv) {
  CLI::App app{"nqc: n-Queens Completion at cluster scale (complete compositions, run experiments, aggregate results)"};
  app.require_subcommand(1);
  app.footer(nqc::exit_codes_text());
  // "nqc 0.1.0 (git 0123456789ab)", "-dirty" after the revision when built from edited files.
  app.set_version_flag("-V,--version", std::string("nqc ") + NQC_VERSION + " (git " + NQC_GIT_REVISION + ")");
  std::map<CLI::App*, nqc::cli::Runner> runners;
  const auto add = [&](nqc::cli::Runner runner) { runners[app.get_subcommands({}).back()] = std::move(runner); };
  add(nqc::cli::add_verify(app));
  add(nqc::cli::add_construct(app));
  add(nqc::cli::add_generate(app));
  add(nqc::cli::add_derive(app));
  add(nqc::cli::add_convert(app));
  add(nqc::cli::add_complete(app));
  add(nqc::cli::add_count(app, argc, argv));
  add(nqc::cli::add_randset(app));
  add(nqc::cli::add_run(app, argc, argv));
  add(nqc::cli::add_aggregate(app));
  add(nqc::cli::add_rerun(app));
  add(nqc::cli::add_export(app));
  add(nqc::cli::add_info(app));
  add(nqc::cli::add_challenge(app));
  // CLI11 reads an unknown first word as a stray argument ("A subcommand is required"):
  // name it instead.
  if (argc > 1 && argv[1][0] != '-') {
    std::string valid;
    bool known = false;
    for (const CLI::App* sub : app.get_subcommands({})) {
      known = known || sub->get_name() == argv[1];
      valid += (valid.empty() ? "" : ", ") + sub->get_name();
    }
    if (!known) {
      std::fprintf(stderr, "nqc: error: unknown subcommand '%s' (valid subcommands: %s)\n", argv[1], valid.c_str());
      return nqc::kExitBadInput;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "nqc: error: %s\n", e.what());
    return nqc::kExitBadInput;
  }
  try {
    for (auto& [sub, run] : runners)
      if (sub->parsed()) return run();
  } catch (...) {
    // Every error ends here with its own exit code (nqc::current_error): bad input 1, the
    // system refusing a read or write 7, out of memory 8.
    const nqc::ErrorReport error = nqc::current_error();
    std::fprintf(stderr, "nqc: error: %s\n", error.message.c_str());
    return error.code;
  }
  return nqc::kExitBadInput;
}

}  // namespace

int main(int argc, char** argv) { return finish(run_main(argc, argv)); }
