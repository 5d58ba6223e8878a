#include "profilers/report/stats.h"

#include <gtest/gtest.h>

#include <cmath>

namespace graphprof {
namespace {

TEST(StatsTest, SummarizesLikeNumpy) {
  const std::vector<int64_t> v = {5, 1, 4, 2, 3};
  Summary s = Summarize(v);
  EXPECT_EQ(s.count, 5);
  EXPECT_DOUBLE_EQ(s.mean, 3);
  EXPECT_DOUBLE_EQ(s.std, std::sqrt(2.5));  // sample std (n-1)
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.median, 3);
  EXPECT_DOUBLE_EQ(s.p90, 4.6);  // numpy.percentile([1..5], 90)
  EXPECT_DOUBLE_EQ(s.max, 5);
  EXPECT_DOUBLE_EQ(s.total, 15);
}

TEST(StatsTest, EdgeCases) {
  EXPECT_EQ(Summarize({}).count, 0);
  Summary one = Summarize(std::vector<int64_t>{7});
  EXPECT_DOUBLE_EQ(one.std, 0);
  EXPECT_DOUBLE_EQ(one.p90, 7);
  const std::vector<int64_t> even = {1, 2, 3, 4};
  EXPECT_DOUBLE_EQ(Summarize(even).median, 2.5);
  EXPECT_DOUBLE_EQ(Percentile(even, 0), 1);
  EXPECT_DOUBLE_EQ(Percentile(even, 100), 4);
}

}  // namespace
}  // namespace graphprof
