// nqc's side of the split: count and run need MPI, which nqc does not link. nqc becomes nqc-mpi
// (execv) before parsing: one process id for mpirun, srun and signals.
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>
#include <system_error>

#include "cli/commands.hpp"
#include "system/errors.hpp"

#if !defined(NQC_MPI_PROGRAM_DIR) || !defined(NQC_MPI_PROGRAM_BUILT)
#error \
    "NQC_MPI_PROGRAM_DIR (where nqc-mpi is installed, relative to nqc's directory) and NQC_MPI_PROGRAM_BUILT: src/cli/CMakeLists.txt"
#endif

namespace nqc::cli {
namespace {

constexpr const char* kMpiProgram = "nqc-mpi";

// Runs nqc-mpi beside this nqc (links resolved), else where the installation puts it, else the
// one built with this nqc (a build's nqc copied to a shared directory still runs).
[[noreturn]] void become_mpi_program(char** argv) {
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec)
    throw IoError(std::string("/proc/self/exe: cannot read (where is nqc, and nqc-mpi beside it?): ") + ec.message());
  const std::filesystem::path dir = self.parent_path();
  const std::filesystem::path beside = dir / kMpiProgram;
  const std::filesystem::path installed = (dir / NQC_MPI_PROGRAM_DIR / kMpiProgram).lexically_normal();
  for (const std::filesystem::path& program : {beside, installed, std::filesystem::path(NQC_MPI_PROGRAM_BUILT)}) {
    if (::access(program.c_str(), X_OK) != 0) continue;
    ::execv(program.c_str(), argv);
    throw IoError(program.string() + ": cannot run: " + std::strerror(errno));
  }
  throw IoError("count and run need nqc-mpi, nqc's MPI program, which is neither beside " + self.string() + " nor at " +
                installed.string() + " (cmake --install puts it there)");
}

// count and run as nqc --help lists them; nothing of theirs is parsed here.
Runner add_handed_over(CLI::App& app, const char* name, const char* summary, char**& argv) {
  auto* cmd = app.add_subcommand(name, summary);
  cmd->prefix_command();
  cmd->allow_extras();
  cmd->set_help_flag();
  return [&argv]() -> int { become_mpi_program(argv); };
}

}  // namespace

void hand_over_mpi_subcommand(int argc, char** argv) {
  if (argc > 1 && (std::strcmp(argv[1], "count") == 0 || std::strcmp(argv[1], "run") == 0)) become_mpi_program(argv);
}

Runner add_count(CLI::App& app, int& /*argc*/, char**& argv) {
  return add_handed_over(app, "count", kCountSummary, argv);
}

Runner add_run(CLI::App& app, int& /*argc*/, char**& argv) { return add_handed_over(app, "run", kRunSummary, argv); }

}  // namespace nqc::cli
