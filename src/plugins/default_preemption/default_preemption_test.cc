#include "src/plugins/default_preemption/default_preemption.h"

#include <gtest/gtest.h>

#include "src/testing/builders.h"
#include "src/testing/fake_handle.h"

namespace ksched::plugins::default_preemption {
namespace {

using ksched::testing::FakeHandle;
using ksched::testing::MakePod;

std::shared_ptr<const PodInfo> Victim(const std::string& name, int32_t priority,
                                      const std::string& start = "2026-01-01T00:00:00Z") {
  api::Pod p = MakePod().Name(name).Priority(priority).Obj();
  p.status.start_time = start;
  return PodInfo::Make(std::make_shared<const api::Pod>(p));
}

Candidate On(std::string node, std::vector<std::shared_ptr<const PodInfo>> pods,
             int64_t violations = 0) {
  return {.node = std::move(node),
          .victims = {.pods = std::move(pods), .num_pdb_violations = violations}};
}

// The criteria of upstream's TestPickOneNodeForPreemption, one at a time.
TEST(PickOneNodeForPreemptionTest, FollowsUpstreamsCriteriaInOrder) {
  EXPECT_EQ(PickOneNodeForPreemption({}), nullptr);
  // Fewest PDB violations first, whatever the priorities.
  EXPECT_EQ(
      PickOneNodeForPreemption({On("a", {Victim("x", 1)}, 1), On("b", {Victim("y", 100)})})->node,
      "b");
  // Then the lowest highest priority.
  EXPECT_EQ(PickOneNodeForPreemption(
                {On("a", {Victim("x", 100)}), On("b", {Victim("y", 50), Victim("z", 10)})})
                ->node,
            "b");
  // Then the lowest sum of priorities.
  EXPECT_EQ(PickOneNodeForPreemption({On("a", {Victim("x", 50), Victim("w", 40)}),
                                      On("b", {Victim("y", 50), Victim("z", 10)})})
                ->node,
            "b");
  // Then the fewest victims: (50 + 2^31) * 1 beats (25 + 2^31) + (25 + 2^31) as a sum already,
  // so equal sums need equal counts; one victim against two of negative priority.
  EXPECT_EQ(PickOneNodeForPreemption(
                {On("a", {Victim("x", 0), Victim("w", 0)}), On("b", {Victim("y", 0)})})
                ->node,
            "b");
  // Then the latest start of the most important victims.
  EXPECT_EQ(PickOneNodeForPreemption({On("a", {Victim("x", 5, "2026-01-01T00:00:00Z")}),
                                      On("b", {Victim("y", 5, "2026-06-01T00:00:00Z")})})
                ->node,
            "b");
  // A full tie: the first.
  EXPECT_EQ(PickOneNodeForPreemption({On("a", {Victim("x", 5)}), On("b", {Victim("y", 5)})})->node,
            "a");
}

TEST(DefaultPreemptionTest, MoreImportantIsHigherPriorityThenEarlierStart) {
  EXPECT_TRUE(MoreImportantPod(*Victim("a", 10)->pod, *Victim("b", 5)->pod));
  EXPECT_TRUE(MoreImportantPod(*Victim("a", 5, "2026-01-01T00:00:00Z")->pod,
                               *Victim("b", 5, "2026-02-01T00:00:00Z")->pod));
  // A pod that has not started counts as started now, after the others.
  api::Pod unstarted = MakePod().Name("u").Priority(5).Obj();
  EXPECT_TRUE(MoreImportantPod(*Victim("a", 5)->pod, unstarted));
}

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
  EXPECT_FALSE(result.nominated_node_name.has_value());  // The nomination is left alone.
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
