// nqc-mpi's side of the split (cli/commands.hpp, cli/front_end.cpp): count and run are its own
// (cmd_count.cpp, cmd_run.cpp); nothing is handed over.
#include "cli/commands.hpp"

namespace nqc::cli {

void hand_over_mpi_subcommand(int /*argc*/, char** /*argv*/) {}

}  // namespace nqc::cli
