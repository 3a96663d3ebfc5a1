#include "src/plugins/helper/normalize_score.h"

#include <gtest/gtest.h>

#include <vector>

namespace ksched::plugins::helper {
namespace {

std::vector<int64_t> Normalize(bool reverse, const std::vector<int64_t>& in) {
  NodeScoreList scores;
  for (int64_t s : in) scores.push_back({nullptr, s});
  DefaultNormalizeScore(kMaxNodeScore, reverse, scores);
  std::vector<int64_t> out;
  for (const NodeScore& s : scores) out.push_back(s.score);
  return out;
}

// The cases of upstream's normalize_score_test.go.
TEST(DefaultNormalizeScoreTest, MatchesUpstream) {
  struct Case {
    bool reverse;
    std::vector<int64_t> in, want;
  };
  const std::vector<Case> cases = {
      {false, {1, 2, 3, 4}, {25, 50, 75, 100}},
      {true, {1, 2, 3, 4}, {75, 50, 25, 0}},
      {false, {1000, 10, 20, 30}, {100, 1, 2, 3}},
      {true, {1000, 10, 20, 30}, {0, 99, 98, 97}},
      {false, {1, 1, 1, 1}, {100, 100, 100, 100}},
      {true, {1, 1, 1, 1}, {0, 0, 0, 0}},
      {false, {0, 0, 0, 0}, {0, 0, 0, 0}},
      {true, {0, 0, 0, 0}, {100, 100, 100, 100}},
      {false, {}, {}},
      {true, {}, {}},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(Normalize(c.reverse, c.in), c.want) << "reverse=" << c.reverse;
  }
}

}  // namespace
}  // namespace ksched::plugins::helper
