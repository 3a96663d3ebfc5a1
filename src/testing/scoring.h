// Test helper for score plugins: scores nodes one at a time with Score, and all at once with
// ScoreNodes as the framework does, and expects the two to agree.
//
//   std::vector<int64_t> got = testing::ScoreEach(plugin, state, pod, handle.snapshot().nodes());
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "ksched/plugin.h"

namespace ksched::testing {

inline std::vector<int64_t> ScoreEach(ScorePlugin& plugin, const CycleState& state,
                                      const api::Pod& pod,
                                      const std::vector<const NodeInfo*>& nodes) {
  std::vector<int64_t> one_by_one;
  NodeScoreList batch;
  for (const NodeInfo* ni : nodes) {
    int64_t score = -1;
    Status s = plugin.Score(state, pod, *ni, &score);
    EXPECT_TRUE(s.ok()) << ni->name() << ": " << s.Message();
    one_by_one.push_back(score);
    batch.push_back({ni, -1});
  }
  Status s = plugin.ScoreNodes(state, pod, batch);
  EXPECT_TRUE(s.ok()) << s.Message();
  for (size_t i = 0; i < batch.size(); ++i) {
    EXPECT_EQ(batch[i].score, one_by_one[i])
        << "ScoreNodes and Score differ on " << nodes[i]->name();
  }
  return one_by_one;
}

}  // namespace ksched::testing
