#include "src/plugins/default_preemption/default_preemption.h"

#include <gtest/gtest.h>

#include "src/testing/builders.h"
#include "src/testing/fake_handle.h"

namespace ksched::plugins::default_preemption {
namespace {

using ksched::testing::FakeHandle;
using ksched::testing::MakePod;

TEST(DefaultPreemptionTest, NumCandidatesIsAShareOfTheNodesWithAFloor) {
  FakeHandle h;
  DefaultPreemption pl({}, h);  // 10%, at least 100.
  EXPECT_EQ(pl.NumCandidates(5), 5);
  EXPECT_EQ(pl.NumCandidates(500), 100);
  EXPECT_EQ(pl.NumCandidates(5000), 500);
  DefaultPreemption small({.min_candidate_nodes_percentage = 50, .min_candidate_nodes_absolute = 1},
                          h);
  EXPECT_EQ(small.NumCandidates(9), 4);
}

TEST(DefaultPreemptionTest, APodWithPreemptionPolicyNeverIsNotEligible) {
  FakeHandle h({ksched::testing::MakeNode().Name("n1").Obj()});
  DefaultPreemption pl({}, h);
  api::Pod pod = MakePod().Name("p").Priority(100).Obj();
  pod.spec.preemption_policy = "Never";
  CycleState state;
  NodeToStatus filtered;
  PostFilterResult result;
  Status s = pl.PostFilter(state, pod, filtered, &result);
  EXPECT_EQ(s.code(), Code::kUnschedulable);
  EXPECT_EQ(s.Message(), "preemption: not eligible due to preemptionPolicy=Never.");
  EXPECT_EQ(h.counting_metrics().attempts(), 1);         // scheduler_preemption_attempts_total
  EXPECT_FALSE(result.nominated_node_name.has_value());  // The nomination is left alone.
  EXPECT_EQ(h.counting_metrics().preemptions(),
            std::vector<std::string>{"evaluated pod Unschedulable"});
}

TEST(DefaultPreemptionTest, NodesRejectedForGoodAreNotHelpful) {
  FakeHandle h(
      {ksched::testing::MakeNode().Name("n1").Obj(), ksched::testing::MakeNode().Name("n2").Obj()});
  DefaultPreemption pl({}, h);
  api::Pod pod = MakePod().Name("p").Priority(100).Obj();
  CycleState state;
  NodeToStatus filtered;  // Absent: UnschedulableAndUnresolvable.
  filtered.statuses["n1"] =
      Status::UnschedulableAndUnresolvable("node(s) had untolerated taint(s)");
  PostFilterResult result;
  Status s = pl.PostFilter(state, pod, filtered, &result);
  EXPECT_EQ(s.Message(),
            "preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.");
  EXPECT_EQ(result.nominated_node_name, "");  // Cleared.
}

}  // namespace
}  // namespace ksched::plugins::default_preemption
