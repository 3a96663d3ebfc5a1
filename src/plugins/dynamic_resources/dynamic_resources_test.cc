#include "src/plugins/dynamic_resources/dynamic_resources.h"

#include <gtest/gtest.h>

#include "src/sdk/cycle_state_access.h"
#include "src/testing/builders.h"
#include "src/testing/fake_handle.h"

namespace ksched::plugins::dynamic_resources {
namespace {

using ksched::testing::FakeHandle;
using ksched::testing::MakeNode;
using ksched::testing::MakePod;

TEST(DynamicResourcesTest, APodWithoutClaimsSkipsFilterAndScoresZeroEverywhere) {
  FakeHandle handle({MakeNode().Name("a").Obj(), MakeNode().Name("b").Obj()}, {});
  DynamicResources plugin;
  CycleState state;
  api::Pod pod = MakePod().Name("p").Req("cpu", "1").Obj();
  PreFilterResult pre;
  EXPECT_TRUE(plugin.PreFilter(state, pod, handle.snapshot().nodes(), &pre).IsSkip());

  NodeScoreList scores;
  for (const NodeInfo* node : handle.snapshot().nodes()) {
    int64_t score = -1;
    ASSERT_TRUE(plugin.Score(state, pod, *node, &score).ok());
    scores.push_back({node, score});
  }
  ASSERT_TRUE(plugin.NormalizeScore(state, pod, scores).ok());
  for (const NodeScore& s : scores) EXPECT_EQ(s.score, 0) << s.node->name();
}

TEST(DynamicResourcesTest, PostFilterHasNoClaimToDeallocate) {
  DynamicResources plugin;
  CycleState state;
  PostFilterResult result;
  const api::Pod pod = MakePod().Name("p").Obj();
  // Its PreFilter ran (and skipped the pod, which has no claims).
  internal::CycleStateAccess::SkipFilter(state, plugin.Name());
  Status s = plugin.PostFilter(state, pod, NodeToStatus{}, &result);
  EXPECT_EQ(s.code(), Code::kUnschedulable);
  EXPECT_EQ(s.Message(), "no new claims to deallocate");  // kube-scheduler's words.
  EXPECT_FALSE(result.nominated_node_name.has_value());

  // An earlier PreFilter rejected the pod: upstream's PostFilter finds no state of its PreFilter.
  CycleState rejected_before;
  s = plugin.PostFilter(rejected_before, pod, NodeToStatus{}, &result);
  EXPECT_EQ(s.code(), Code::kError);
  EXPECT_EQ(s.Message(), "not found");
}

}  // namespace
}  // namespace ksched::plugins::dynamic_resources
