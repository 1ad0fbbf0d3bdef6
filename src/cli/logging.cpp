#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <charconv>
#include <cmath>
#include <cstdint>

#include "cli/commands.hpp"
#include "io/errors.hpp"
#include "mpi/runner.hpp"

namespace nqc::cli {

const CLI::Validator kNonNegative(
    [](std::string& text) -> std::string {
      double value = 0;
      const bool parsed = CLI::detail::lexical_cast(text, value);
      // "1e-3" is a number >= 0; "-0" and "-1" are not (the sign, not the value, decides).
      const std::size_t first = text.find_first_not_of(" \t");
      const bool negative = first != std::string::npos && text[first] == '-';
      if (parsed && !negative && std::isinf(value)) return "expected a finite number >= 0, got " + text;
      if (!parsed || !std::isfinite(value) || value < 0 || negative) return "expected a number >= 0, got " + text;
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
