#include <gtest/gtest.h>

#include "core/construction.hpp"
#include "core/verifier.hpp"

namespace nqc {
namespace {

TEST(Construction, ValidForEveryNFrom4To3000) {
  for (Index n = 4; n <= 3000; ++n) {
    const auto s = construct_solution(n);
    ASSERT_TRUE(s.has_value()) << "n = " << n;
    ASSERT_EQ(s->n(), n);
    ASSERT_TRUE(is_solution(*s)) << "n = " << n << ": " << verify(*s).describe(*s);
  }
}

TEST(Construction, ValidForOneMillion) {
  const auto s = construct_solution(1'000'000);
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->n(), 1'000'000);
  EXPECT_TRUE(is_solution(*s));
}

TEST(Construction, SmallBoards) {
  EXPECT_EQ(construct_solution(1)->q, std::vector<Index>{1});
  EXPECT_FALSE(construct_solution(2).has_value());
  EXPECT_FALSE(construct_solution(3).has_value());
  EXPECT_EQ(construct_solution(8)->q, (std::vector<Index>{2, 4, 6, 8, 3, 1, 7, 5}));
  EXPECT_THROW(construct_solution(0), std::invalid_argument);
}

}  // namespace
}  // namespace nqc
