#include "ksched/preemption.h"

#include <gtest/gtest.h>

#include "src/testing/builders.h"
#include "src/testing/fake_handle.h"

namespace ksched::preemption {
namespace {

using ksched::testing::FakeHandle;
using ksched::testing::MakeNode;
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

// A plugin's own scores (upstream's OrderedScoreFuncs) replace upstream's criteria: each keeps
// the candidates it scores highest, the next breaks their tie, then the first left wins.
TEST(PickOneNodeForPreemptionTest, FollowsTheGivenScoresInOrder) {
  std::vector<Candidate> candidates = {On("a", {Victim("x", 1)}), On("b", {Victim("y", 100)}),
                                       On("c", {Victim("z", 100)}, 2), On("d", {Victim("w", 100)})};
  const CandidateScore most_important_victim = [](const Candidate& c) {
    return static_cast<int64_t>(PodPriority(*c.victims.pods[0]->pod));
  };
  const CandidateScore most_violations = [](const Candidate& c) {
    return c.victims.num_pdb_violations;
  };
  EXPECT_EQ(PickOneNodeForPreemption(candidates)->node, "a");  // Upstream's.
  EXPECT_EQ(PickOneNodeForPreemption(candidates, {most_important_victim, most_violations})->node,
            "c");
  EXPECT_EQ(PickOneNodeForPreemption(candidates, {most_important_victim})->node, "b");
}

// a and b are under budgets web (no room) and front (room for one), c under front only. Since
// 1.37 the first budget a pod breaks ends its count, so a and b leave front's room to c; 1.36
// counted them against front too, and all three broke a budget.
TEST(PreemptionTest, TheFirstBudgetAPodBreaksEndsItsCount) {
  auto pdb = [](std::string name, std::string app, int32_t allowed) {
    auto out = std::make_shared<api::PodDisruptionBudget>();
    out->metadata = {.name = name, .namespace_ = "default"};
    out->selector = api::LabelSelector{.match_labels = {{name == "web" ? "app" : "tier", app}}};
    out->disruptions_allowed = allowed;
    return std::shared_ptr<const api::PodDisruptionBudget>(std::move(out));
  };
  auto pod = [](std::string name, std::vector<std::pair<std::string, std::string>> labels) {
    MakePod p;
    p.Name(name);
    for (const auto& [k, v] : labels) p.Label(k, v);
    return PodInfo::Make(p.Ptr());
  };
  std::vector<std::shared_ptr<const PodInfo>> pods = {pod("a", {{"app", "web"}, {"tier", "front"}}),
                                                      pod("b", {{"app", "web"}, {"tier", "front"}}),
                                                      pod("c", {{"tier", "front"}})};
  std::vector<std::shared_ptr<const PodInfo>> violating, non_violating;
  SplitByPdbViolation(pods, {pdb("web", "web", 0), pdb("front", "front", 1)}, &violating,
                      &non_violating);
  ASSERT_EQ(non_violating.size(), 1u);
  EXPECT_EQ(non_violating[0]->pod->metadata.name, "c");
}

TEST(PreemptionTest, MoreImportantIsHigherPriorityThenEarlierStart) {
  EXPECT_TRUE(MoreImportantPod(*Victim("a", 10)->pod, *Victim("b", 5)->pod));
  EXPECT_TRUE(MoreImportantPod(*Victim("a", 5, "2026-01-01T00:00:00Z")->pod,
                               *Victim("b", 5, "2026-02-01T00:00:00Z")->pod));
  // A pod that has not started counts as started now, after the others.
  api::Pod unstarted = MakePod().Name("u").Priority(5).Obj();
  EXPECT_TRUE(MoreImportantPod(*Victim("a", 5)->pod, unstarted));
}

// An out-of-tree policy on the SDK's Evaluator: only pods labelled preemptible are victims, all
// of them; a pod labelled polite may not preempt.
class OnlyPreemptible final : public Interface {
 public:
  std::pair<int32_t, int32_t> GetOffsetAndNumCandidates(int32_t num_potential) override {
    return {0, num_potential};
  }
  bool PodEligibleToPreemptOthers(const api::Pod& pod, const NodeToStatus&,
                                  std::string* reason) const override {
    if (!pod.metadata.labels.contains("polite")) return true;
    *reason = "not eligible: the pod is polite.";
    return false;
  }
  Status SelectVictimsOnNode(CycleState&, const api::Pod&, NodeInfo& node,
                             const PodDisruptionBudgets&, Victims* victims) const override {
    for (const auto& pi : node.pods()) {
      if (pi->pod->metadata.labels.contains("preemptible")) victims->pods.push_back(pi);
    }
    if (victims->pods.empty()) return Status::UnschedulableAndUnresolvable("nothing preemptible");
    return Status();
  }
  std::vector<CandidateScore> OrderedScoreFuncs(const std::vector<Candidate>&) const override {
    return scores;
  }
  std::vector<CandidateScore> scores;  // None: upstream's criteria.
};

class EvaluatorTest : public ::testing::Test {
 protected:
  EvaluatorTest()
      : handle_(
            {MakeNode().Name("n1").Obj(), MakeNode().Name("n2").Obj(), MakeNode().Name("n3").Obj()},
            {MakePod().Name("a").Node("n1").Label("preemptible", "").Obj(),
             MakePod().Name("b").Node("n1").Obj(),
             MakePod().Name("c").Node("n2").Label("preemptible", "").Obj(),
             MakePod().Name("d").Node("n2").Label("preemptible", "").Obj(),
             MakePod().Name("e").Node("n3").Obj()}) {
    for (const char* node : {"n1", "n2", "n3"}) {
      filtered_.statuses[node] = Status::Unschedulable("Insufficient cpu");
    }
  }

  FakeHandle handle_;
  OnlyPreemptible policy_;
  Evaluator evaluator_{"OnlyPreemptible", handle_, policy_};
  NodeToStatus filtered_;
  CycleState state_;
};

TEST_F(EvaluatorTest, ACustomPolicyPreemptsOnTheNodeUpstreamsCriteriaPick) {
  api::Pod pod = MakePod().Name("p").Priority(10).Obj();
  PostFilterResult result;
  Status s = evaluator_.Preempt(state_, pod, filtered_, &result);
  ASSERT_TRUE(s.ok()) << s.Message();
  // n1 has one victim, n2 two: the lower sum of priorities wins.
  EXPECT_EQ(result.nominated_node_name, "n1");
  const testing::RecordingWriter& w = handle_.recording_writer();
  EXPECT_EQ(w.deleted, std::vector<std::string>{"default/a"});
  ASSERT_EQ(w.events.size(), 1u);
  EXPECT_EQ(w.events[0].reason, "Preempted");
  EXPECT_EQ(w.events[0].message, "Preempted by pod p on node n1");
  EXPECT_EQ(w.conditions.at("default/a").reason, "PreemptionByScheduler");
  EXPECT_EQ(handle_.counting_metrics().victims(), std::vector<int>{1});

  // Held back until the scheduler sees the victim go.
  EXPECT_EQ(evaluator_.PreEnqueue(pod).Message(), kWaitingForPreemption);
  ASSERT_TRUE(handle_.cache().RemovePod("a").ok());
  EXPECT_TRUE(evaluator_.PreEnqueue(pod).ok());
}

TEST_F(EvaluatorTest, APolicysOwnScoresChooseTheNode) {
  policy_.scores = {[](const Candidate& c) { return static_cast<int64_t>(c.victims.pods.size()); }};
  api::Pod pod = MakePod().Name("p").Priority(10).Obj();
  PostFilterResult result;
  ASSERT_TRUE(evaluator_.Preempt(state_, pod, filtered_, &result).ok());
  // The most victims, where upstream's criteria pick n1.
  EXPECT_EQ(result.nominated_node_name, "n2");
  EXPECT_EQ(handle_.recording_writer().deleted,
            (std::vector<std::string>{"default/c", "default/d"}));
}

TEST_F(EvaluatorTest, ThePolicysReasonsReachTheMessage) {
  api::Pod polite = MakePod().Name("p").Priority(10).Label("polite", "").Obj();
  PostFilterResult result;
  Status s = evaluator_.Preempt(state_, polite, filtered_, &result);
  EXPECT_EQ(s.code(), Code::kUnschedulable);
  EXPECT_EQ(s.Message(), "preemption: not eligible: the pod is polite.");
  EXPECT_FALSE(result.nominated_node_name.has_value());

  // Only n3, which has nothing preemptible, is a potential node.
  filtered_.statuses["n1"] =
      Status::UnschedulableAndUnresolvable("node(s) had untolerated taint(s)");
  filtered_.statuses["n2"] =
      Status::UnschedulableAndUnresolvable("node(s) had untolerated taint(s)");
  api::Pod pod = MakePod().Name("q").Priority(10).Obj();
  s = evaluator_.Preempt(state_, pod, filtered_, &result);
  EXPECT_EQ(s.Message(),
            "preemption: 0/3 nodes are available: 1 nothing preemptible, 2 Preemption is not "
            "helpful for scheduling.");
  EXPECT_EQ(result.nominated_node_name, "");
  EXPECT_TRUE(handle_.recording_writer().deleted.empty());
}

}  // namespace
}  // namespace ksched::preemption
