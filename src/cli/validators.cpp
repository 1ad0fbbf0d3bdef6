// Option validators shared by the subcommands.
#include <charconv>
#include <cmath>
#include <cstdint>

#include "cli/commands.hpp"

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

}  // namespace nqc::cli
