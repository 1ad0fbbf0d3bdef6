// setup_logging: nqc-mpi only (run's logs); nqc itself links no spdlog (cli/commands.hpp).
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "cli/commands.hpp"
#include "runner/runner.hpp"

namespace nqc::cli {

void setup_logging(int rank, const std::string& level, bool quiet) {
  auto logger = spdlog::stderr_color_mt("nqc-" + std::to_string(rank));
  logger->set_pattern("[%Y-%m-%d %H:%M:%S.%e] [rank " + std::to_string(rank) + "] [%l] %v");
  spdlog::set_default_logger(logger);
  spdlog::set_level(quiet ? spdlog::level::warn : spdlog::level::from_str(level));
  // The end-of-launch lines: on the same sink (one stream, lines never interleaved), at the
  // chosen level, but info under -q (warnings, errors and the summary).
  auto summary = std::make_shared<spdlog::logger>(kSummaryLogger, logger->sinks().begin(), logger->sinks().end());
  summary->set_pattern("[%Y-%m-%d %H:%M:%S.%e] [rank " + std::to_string(rank) + "] [%l] %v");
  summary->set_level(quiet ? spdlog::level::info : spdlog::level::from_str(level));
  spdlog::register_logger(summary);
}

}  // namespace nqc::cli
