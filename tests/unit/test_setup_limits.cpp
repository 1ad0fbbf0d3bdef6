// Limits during the set-up of every engine and of count (issue "limits hold at every size"):
// the O(n) passes before a search poll the stop flag and the time limit (SetupWatch,
// core/limit_watch.hpp), the random fill counts its placements against max_nodes, and what can
// never run is refused by name before its memory is allocated (CapacityError). None of these
// depends on the machine's speed: a stop flag set before the call, node counts, messages.
#include <gtest/gtest.h>

#include "printers.hpp"

#include <atomic>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "core/construction.hpp"
#include "core/counting.hpp"
#include "core/engine.hpp"
#include "core/engines/auto.hpp"
#include "core/engines/exact.hpp"
#include "core/limit_watch.hpp"
#include "core/lines.hpp"
#include "core/residual_board.hpp"

namespace nqc {
namespace {

// A solution of n with `free` rows emptied, spread evenly.
Composition with_free_rows(Index n, Index free) {
  Composition c = *construct_solution(n);
  for (Index i = 0; i < free; ++i) c.q[static_cast<std::size_t>(i * (n / free))] = 0;
  return c;
}

// The message of the CapacityError that `call` throws ("" when it throws none).
std::string refusal(const std::function<void()>& call) {
  try {
    call();
  } catch (const CapacityError& e) {
    return e.what();
  }
  return "";
}

TEST(SetupLimits, ChunksPollBeforeEachPieceOfWork) {
  std::atomic<bool> stop{false};
  const Limits limits{0, 0, &stop};
  const LimitWatch watch(limits);
  SetupWatch setup(&watch);
  int pieces = 0;
  EXPECT_FALSE(setup.chunks(3 * kSetupChunk + 1, [&](std::int64_t from, std::int64_t to) {
    EXPECT_EQ(from, 0);
    EXPECT_EQ(to, kSetupChunk);
    ++pieces;
    stop = true;  // polled before the next piece: none runs
  }));
  EXPECT_EQ(pieces, 1);
  EXPECT_EQ(setup.hit(), StopReason::stop);
  stop = false;
  EXPECT_TRUE(setup.stopped()) << "a limit once hit stays hit";
  SetupWatch unpolled;
  std::int64_t last = 0;
  pieces = 0;
  EXPECT_TRUE(unpolled.chunks(3 * kSetupChunk + 1, [&](std::int64_t, std::int64_t to) {
    ++pieces;
    last = to;
  }));
  EXPECT_EQ(pieces, 4);
  EXPECT_EQ(last, 3 * kSetupChunk + 1);
}

TEST(SetupLimits, StoppedLinePassesDoNoWork) {
  const std::atomic<bool> stop{true};
  const Limits limits{0, 0, &stop};
  const LimitWatch watch(limits);
  SetupWatch setup(&watch);
  Bitset used, diff, sum;
  // Stopped before it looked: no set sized, no conflict reported, no list made.
  EXPECT_NO_THROW(close_lines(Composition(std::vector<Index>{2, 0, 2, 0}), used, diff, sum, &setup));
  EXPECT_EQ(setup.hit(), StopReason::stop);
  EXPECT_EQ(used.size(), 0u);
  EXPECT_TRUE(free_rows_of(Composition(1000), &setup).empty());
  EXPECT_TRUE(free_columns_of(Bitset(1000), 1000, &setup).empty());
  // Without limits the same passes are those of old.
  EXPECT_THROW(close_lines(Composition(std::vector<Index>{2, 0, 2, 0}), used, diff, sum), std::invalid_argument);
  EXPECT_EQ(free_rows_of(Composition(std::vector<Index>{0, 3, 0, 1})), (std::vector<Index>{0, 2}));
}

// Each engine on a board of n = 2^18 (auto fills it in place: more than 15 n^(1/3) free rows),
// and count on words and on the residual board: a stop flag set before the call stops the
// set-up before its first O(n) pass and before any node (before this, auto, grigoryan,
// minconflicts and bitboard placed queens until their first poll of the clock).
TEST(SetupLimits, AStopFlagSetBeforeTheCallEndsEverySetUp) {
  const Index n = 1 << 18;
  const Composition many = with_free_rows(n, 4096);
  const Composition few = with_free_rows(n, 100);
  const std::atomic<bool> stop{true};
  for (const auto& name : engine_names()) {
    const Index max = engine_info(name).max_free_rows;
    Composition given = max == 0 ? many : few;
    Rng rng(1);
    const Result r = make_engine(name)->complete(std::move(given), rng, Limits{0, 0, &stop});
    EXPECT_EQ(r.outcome, Outcome::gave_up) << name;
    EXPECT_EQ(r.limit, StopReason::stop) << name;
    EXPECT_EQ(r.counters.nodes, 0u) << name;
  }
  for (const Composition* c : {&few, &many}) {
    const CountResult r = count_completions(*c, Limits{0, 0, &stop});
    EXPECT_TRUE(r.gave_up);
    EXPECT_EQ(r.limit, StopReason::stop);
    EXPECT_EQ(r.nodes, 0u);
    EXPECT_EQ(r.completions, 0u);
  }
}

// The random fill's queens are nodes: max_nodes stops it exactly, in its first pass (about
// 0.6 n queens on the empty board), in the later passes and in rand & rand, and a budget of
// exactly what an unlimited call tries solves as that call does. (Before, the fill ran to its
// end: some 1.3 * 10^5 nodes whatever max_nodes.)
TEST(SetupLimits, MaxNodesStopsAutosRandomFillExactly) {
  const Index n = 1 << 17;  // AutoParams::fill_first_n: the fill in place
  Rng free_rng(3);
  const Result unlimited = complete_auto(Composition(n), free_rng, {});
  ASSERT_EQ(unlimited.outcome, Outcome::solved);
  const std::uint64_t all = unlimited.counters.nodes;
  ASSERT_GT(unlimited.counters.placed_random, 120000u);
  for (const std::uint64_t max : {std::uint64_t{1}, std::uint64_t{10}, std::uint64_t{50000}, std::uint64_t{100000},
                                  unlimited.counters.placed_random - 10, all - 1}) {
    Rng rng(3);
    const Result r = complete_auto(Composition(n), rng, Limits{max, 0, nullptr});
    EXPECT_EQ(r.outcome, Outcome::gave_up) << max;
    EXPECT_EQ(r.limit, StopReason::max_nodes) << max;
    EXPECT_EQ(r.counters.nodes, max);
  }
  Rng rng(3);
  const Result exact = complete_auto(Composition(n), rng, Limits{all, 0, nullptr});
  EXPECT_EQ(exact.outcome, Outcome::solved);
  EXPECT_EQ(exact.counters.nodes, all);
  EXPECT_EQ(exact.solution, unlimited.solution);
}

TEST(SetupLimits, ResidualsThatCanNeverBeHeldAreRefusedByName) {
  static_assert(std::is_base_of_v<std::invalid_argument, CapacityError>, "nqc reports it as bad input (exit 1)");
  Rng rng(1);
  const std::string board =
      "the residual board of 50000 free rows x 50000 free columns has at least 2500000000 free cells, "
      "more than the 2147483647 a residual board holds (32-bit cell ids)";
  EXPECT_EQ(refusal([&] { (void)complete_exact(Composition(50000), rng, {}); }), board);
  EXPECT_EQ(refusal([&] { (void)make_engine("exact")->complete(Composition(50000), rng, {}); }), board);
  EXPECT_EQ(refusal([&] { (void)count_completions(Composition(50000), {}); }),
            "cannot count the completions: " + board);
  // A few queens change little: each closes a diagonal of each direction, and a diagonal takes
  // at most one cell of a row: 49998 x (49998 - 4) cells at least.
  Composition few(50000);
  few.q[0] = 1;
  few.q[9999] = 5;
  EXPECT_EQ(
      refusal([&] { (void)complete_exact(few, rng, {}); }),
      "the residual board of 49998 free rows x 49998 free columns has at least 2499600012 free cells, more than the "
      "2147483647 a residual board holds (32-bit cell ids)");
  // `nqc count N` asks before it allocates the board: 46341^2 cells are too many, 46340^2 not
  // (whether they fit the memory is the machine's).
  EXPECT_EQ(
      refusal([] { require_countable_empty_board(2147483647); }),
      "cannot count the empty 2147483647 x 2147483647 board: the residual board of 2147483647 free rows x 2147483647 "
      "free columns has at least 4611686014132420609 free cells, more than the 2147483647 a residual board holds "
      "(32-bit cell ids)");
  EXPECT_EQ(
      refusal([] { require_countable_empty_board(46341); }),
      "cannot count the empty 46341 x 46341 board: the residual board of 46341 free rows x 46341 free columns has at "
      "least 2147488281 free cells, more than the 2147483647 a residual board holds (32-bit cell ids)");
  EXPECT_EQ(refusal([] { require_countable_empty_board(128); }), "");  // on words
  EXPECT_EQ(refusal([] { require_countable_empty_board(1000); }), "");
}

TEST(SetupLimits, MemoryRefusalsNameTheNeedAndTheRoom) {
  const MemoryRoom room{1000000000, "1.0 GB left of a test's bound"};
  // 10^8 cells of the 10000 x 10000 board: 16 bytes each, then 12 each in the lines' lists and
  // 16 per diagonal (19999 of them).
  EXPECT_EQ(ResidualBoard::build_bytes(10000, 100000000), 2800000000u + 16u * 19999u);
  EXPECT_EQ(
      refusal([&] { ResidualBoard::require_fits(10000, 10000, 10000, 100000000, 0, &room); }),
      "the residual board of 10000 free rows x 10000 free columns (at least 100000000 free cells) needs 2.8 GB, more "
      "than this process can get (1.0 GB left of a test's bound)");
  EXPECT_EQ(refusal([&] { ResidualBoard::require_fits(10000, 100, 100, 10000, 0, &room); }), "");
  EXPECT_EQ(refusal([&] { require_memory(2000000000, "engine 'x' at n = 7", &room); }),
            "engine 'x' at n = 7 needs 2.0 GB, more than this process can get (1.0 GB left of a test's bound)");
  EXPECT_EQ(refusal([&] { require_memory(1000000000, "fits exactly", &room); }), "");
  EXPECT_EQ(format_bytes(931), "931 bytes");
  EXPECT_EQ(format_bytes(12500000), "12.5 MB");
  EXPECT_EQ(format_bytes(68719476736), "68.7 GB");
  EXPECT_GT(memory_room().bytes, 0u);
  EXPECT_FALSE(memory_room().bound.empty());
}

}  // namespace
}  // namespace nqc
