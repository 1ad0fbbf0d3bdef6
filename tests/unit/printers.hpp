// GoogleTest printers of core types, so that a failed EXPECT_EQ shows names.
#pragma once

#include <ostream>

#include "core/engine.hpp"

namespace nqc {

/// StopReason by name ("max_nodes").
inline void PrintTo(StopReason reason, std::ostream* out) { *out << to_string(reason); }

}  // namespace nqc
