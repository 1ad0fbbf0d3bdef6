// Engine parameters, by engine, for make_engine (their rows: EngineInfo::params).
#pragma once

#include <memory>
#include <string_view>

#include "core/engine.hpp"
#include "core/engines/auto.hpp"
#include "core/engines/bitboard.hpp"
#include "core/engines/exact.hpp"
#include "core/engines/grigoryan.hpp"
#include "core/engines/minconflicts.hpp"

namespace nqc {

/// The parameters of every engine that has some (the others take none). Defaults are each
/// engine's own (for grigoryan, the paper's). The registry's rows (EngineInfo::params) read and
/// write these members by name.
struct EngineOptions {
  AutoParams automatic;  // `auto` is a keyword
  BitboardParams bitboard;
  ExactParams exact;
  GrigoryanParams grigoryan;
  MinConflictsParams minconflicts;
};

/// Creates an engine by name with these parameters. Throws std::invalid_argument naming the
/// valid engines for an unknown name.
std::unique_ptr<Engine> make_engine(std::string_view name, const EngineOptions& options);

}  // namespace nqc
