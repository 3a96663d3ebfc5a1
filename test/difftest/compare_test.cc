#include "test/difftest/compare.h"

#include <gtest/gtest.h>

namespace ksched::difftest {
namespace {

using nlohmann::json;

TEST(CompareTest, ScoresAreReadFromBothSchedulersLogsLastAttemptWins) {
  // A kube-scheduler line and a ksched line, then a second attempt of the same pod.
  const std::string log =
      "I1123 10:00:00.000001 1 schedule_one.go:982] \"Plugin scored node for pod\" "
      "pod=\"default/p\" plugin=\"NodeResourcesFit\" node=\"a\" score=85\n"
      "I1123 10:00:00.000002 1 schedule_one.cc:30] \"Plugin scored node for pod\" "
      "pod=\"default/p\" plugin=\"NodeResourcesFit\" node=\"b\" score=40\n"
      "I1123 10:00:00.000003 1 schedule_one.go:1049] \"Calculated node's final score for pod\" "
      "pod=\"default/p\" node=\"a\" score=185\n"
      "I1123 10:00:00.000004 1 other.go:1] \"Unrelated\" score=3\n"
      "I1123 10:00:01.000001 1 schedule_one.go:982] \"Plugin scored node for pod\" "
      "pod=\"default/p\" plugin=\"TaintToleration\" node=\"a\" score=300\n"
      "I1123 10:00:01.000002 1 schedule_one.go:1049] \"Calculated node's final score for pod\" "
      "pod=\"default/p\" node=\"a\" score=300\n";
  std::map<std::string, Scores> scores = ScoresInLog(log);
  ASSERT_EQ(scores.size(), 1u);
  const Scores& s = scores["default/p"];
  EXPECT_EQ(
      s.plugins,
      (std::map<std::string, std::map<std::string, int64_t>>{{"TaintToleration", {{"a", 300}}}}));
  EXPECT_EQ(s.totals, (std::map<std::string, int64_t>{{"a", 300}}));
}

// kube-scheduler's pod group cycle logs with its context's values before the pod's.
TEST(CompareTest, ScoresOfAPodGroupCycleAreReadPastTheLoggersValues) {
  const std::string log =
      "I1207 00:19:04.680585 1 schedule_one.go:984] \"Plugin scored node for pod\" "
      "podGroupType=\"podgroup\" podGroup=\"default/train\" pod=\"default/train-0\" "
      "plugin=\"NodeResourcesFit\" node=\"a\" score=73\n"
      "I1207 00:19:04.680600 1 schedule_one.go:1052] \"Calculated node's final score for pod\" "
      "podGroupType=\"podgroup\" podGroup=\"default/train\" pod=\"default/train-0\" "
      "node=\"a\" score=435\n";
  std::map<std::string, Scores> scores = ScoresInLog(log);
  ASSERT_EQ(scores.size(), 1u);
  EXPECT_EQ(scores["default/train-0"].plugins["NodeResourcesFit"]["a"], 73);
  EXPECT_EQ(scores["default/train-0"].totals["a"], 435);
}

// Three pods of a gang, alike: kube-scheduler sent the first to b among a and b that tied, ksched
// to a; the others then took the nodes left. Same nodes, so a tie; not with another node.
TEST(CompareTest, AGangsAlikePodsOnTheSameNodesButForATieAreATie) {
  Outcome up0{.node = "b", .status = "Scheduled"}, up1{.node = "a", .status = "Scheduled"},
      up2{.node = "c", .status = "Scheduled"};
  up0.scores.totals = {{"a", 399}, {"b", 399}, {"c", 397}};
  Outcome ks0{.node = "a", .status = "Scheduled"}, ks1{.node = "b", .status = "Scheduled"},
      ks2{.node = "c", .status = "Scheduled"};
  EXPECT_TRUE(IsGroupTie({&up0, &up1, &up2}, {&ks0, &ks1, &ks2}));
  ks1.node = "d";
  EXPECT_FALSE(IsGroupTie({&up0, &up1, &up2}, {&ks0, &ks1, &ks2}));
  ks1.node = "b";
  up0.scores.totals["a"] = 398;  // Not a tie.
  EXPECT_FALSE(IsGroupTie({&up0, &up1, &up2}, {&ks0, &ks1, &ks2}));
  EXPECT_FALSE(IsGroupTie({&up0, &up1, &up2}, {&up0, &up1, &up2}));  // No difference at all.
}

TEST(CompareTest, APodPlacedByABatchHintIsUnscoredAndTiesAsItsHintsScoringDoes) {
  const std::string log =
      "I1123 10:00:00.000001 1 schedule_one.go:982] \"Plugin scored node for pod\" "
      "pod=\"default/web-1\" plugin=\"NodeAffinity\" node=\"b\" score=110\n"
      "I1123 10:00:00.000002 1 schedule_one.go:1049] \"Calculated node's final score for pod\" "
      "pod=\"default/web-1\" node=\"a\" score=300\n"
      "I1123 10:00:00.000003 1 schedule_one.go:1049] \"Calculated node's final score for pod\" "
      "pod=\"default/web-1\" node=\"b\" score=200\n"
      "I1123 10:00:00.000004 1 schedule_one.go:1049] \"Calculated node's final score for pod\" "
      "pod=\"default/web-1\" node=\"c\" score=200\n"
      "I1123 10:00:00.000005 1 batch.go:108] \"OpportunisticBatch provided node hint\" "
      "profile=\"up-default-scheduler\" pod=\"default/web-2\" cycleCount=6 hint=\"b\" "
      "remainingNodes=1\n";
  std::map<std::string, Scores> scores = ScoresInLog(log);
  const Scores& hinted = scores["default/web-2"];
  EXPECT_TRUE(hinted.totals.empty());
  EXPECT_TRUE(hinted.plugins.empty());
  EXPECT_TRUE(hinted.hinted);
  EXPECT_EQ(hinted.hinted_from,
            (std::map<std::string, int64_t>{{"a", 300}, {"b", 200}, {"c", 200}}));
  Outcome up{.node = "b", .status = "Scheduled", .scores = hinted};
  Outcome ks{.node = "c", .status = "Scheduled"};
  EXPECT_TRUE(Compare(up, ks).empty());
  // A full cycle where kube-scheduler used its hint shows in the scores.
  ks = {.node = "b", .status = "Scheduled"};
  ks.scores.totals = {{"b", 250}, {"c", 240}};
  std::vector<Mismatch> m = Compare(up, ks);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].detail, "scored by ksched only");
}

TEST(CompareTest, ADifferentNodeThatKubeSchedulerScoredEqualIsATie) {
  Outcome up{.node = "a", .status = "Scheduled"};
  up.scores.totals = {{"a", 200}, {"b", 200}, {"c", 100}};
  Outcome ks{.node = "b", .status = "Scheduled"};
  EXPECT_TRUE(IsTie(up, ks));
  EXPECT_TRUE(Compare(up, ks).empty());
  ks.node = "c";
  EXPECT_FALSE(IsTie(up, ks));
  std::vector<Mismatch> m = Compare(up, ks);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].kind, "placement");
  EXPECT_EQ(m[0].detail, "node \"c\" against \"a\"");
}

TEST(CompareTest, MessagesAndScoresAreComparedWordForWord) {
  Outcome up{.status = "Unschedulable", .message = "0/1 nodes are available: 1 Insufficient cpu."};
  Outcome ks{.status = "Unschedulable", .message = "0/1 nodes are available: 1 Too many pods."};
  std::vector<Mismatch> m = Compare(up, ks);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].kind, "message");

  Outcome a{.node = "n", .status = "Scheduled"}, b = a;
  a.scores.plugins["ImageLocality"]["n"] = 0;
  a.scores.totals["n"] = 0;
  b.scores.plugins["ImageLocality"]["n"] = 4;
  b.scores.totals["n"] = 4;
  m = Compare(a, b);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].kind, "score");
  EXPECT_EQ(m[0].detail, "ImageLocality on n: 4 against 0");
}

// kube-scheduler logs no weighted score per extender: ksched's extender columns are checked
// through the totals, which hold them in both.
TEST(CompareTest, AnExtendersScoresAreComparedInTheTotals) {
  Outcome up{.node = "n", .status = "Scheduled"}, ks = up;
  up.scores.plugins["ImageLocality"]["n"] = 0;
  up.scores.totals["n"] = 60;
  ks.scores.plugins["ImageLocality"]["n"] = 0;
  ks.scores.plugins["http://127.0.0.1:1/ext"]["n"] = 60;
  ks.scores.totals["n"] = 60;
  EXPECT_TRUE(Compare(up, ks).empty());
  ks.scores.totals["n"] = 40;
  std::vector<Mismatch> m = Compare(up, ks);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].detail, "total on n: 40 against 60");
}

TEST(CompareTest, AFieldKschedSaysItDoesNotSupportIsOneUnsupportedMismatch) {
  Outcome up{.node = "n", .status = "Scheduled"};
  Outcome ks{.status = "Unschedulable",
             .message =
                 "0/1 nodes are available: spec.topologySpreadConstraints is not "
                 "supported by ksched yet (kube-scheduler's PodTopologySpread plugin)."};
  std::vector<Mismatch> m = Compare(up, ks);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].kind, "unsupported");
}

TEST(CompareTest, OutcomesAreReadFromPodsAndFromSimulate) {
  json pod = {{"spec", {{"nodeName", ""}}},
              {"status",
               {{"nominatedNodeName", "n2"},
                {"conditions",
                 {{{"type", "PodScheduled"},
                   {"status", "False"},
                   {"reason", "Unschedulable"},
                   {"message", "0/2 nodes are available."}}}}}}};
  Outcome o = OutcomeOfPod(pod);
  EXPECT_EQ(o.status, "Unschedulable");
  EXPECT_EQ(o.message, "0/2 nodes are available.");
  EXPECT_EQ(o.nominated, "n2");

  json sim = json::parse(R"({"pods": [{"namespace": "default", "name": "p", "node": "a",
      "status": "Scheduled", "scores": {"a": {"NodeResourcesFit": 90, "total": 90}}}]})");
  Outcome s = OutcomeInSimulation(sim, "default", "p");
  EXPECT_EQ(s.node, "a");
  EXPECT_EQ(s.scores.totals.at("a"), 90);
  EXPECT_EQ(s.scores.plugins.at("NodeResourcesFit").at("a"), 90);
  EXPECT_EQ(OutcomeInSimulation(sim, "default", "q").status, "Pending");
}

TEST(CompareTest, APodsEvictionsInSimulateAreThoseItsOwnPreemptionMade) {
  json sim = json::parse(R"({"pods": [
      {"namespace": "default", "name": "p", "node": "a", "status": "Scheduled"},
      {"namespace": "default", "name": "p-1", "node": "b", "status": "Scheduled"}],
    "evicted": [{"namespace": "default", "name": "low", "node": "a", "preemptor": "default/p"}]})");
  EXPECT_EQ(OutcomeInSimulation(sim, "default", "p").evicted,
            (std::vector<std::string>{"default/low"}));
  EXPECT_TRUE(OutcomeInSimulation(sim, "default", "p-1").evicted.empty());
  // A PodGroup's victims are each of its pods', as the real cluster shows them going.
  sim["evicted"][0]["preemptor"] = "podgroup default/train";
  Outcome member = OutcomeInSimulation(sim, "default", "p-1", "default/train");
  EXPECT_EQ(member.evicted, (std::vector<std::string>{"default/low"}));
  EXPECT_EQ(member.preempted_on, "cluster");  // As the victims' events say.
  EXPECT_TRUE(OutcomeInSimulation(sim, "default", "p-1", "default/other").evicted.empty());
}

TEST(CompareTest, APreEnqueueGateSimulateReportsIsAPendingPod) {
  json sim = json::parse(R"({"pods": [{"namespace": "default", "name": "p", "node": null,
      "status": "SchedulingGated", "message": "pod \"default/p\": ResourceClaim not created yet"},
      {"namespace": "default", "name": "g", "node": null, "status": "SchedulingGated",
      "message": "Scheduling is blocked due to non-empty scheduling gates"}]})");
  Outcome held = OutcomeInSimulation(sim, "default", "p");
  EXPECT_EQ(held.status, "Pending");
  EXPECT_EQ(held.message, "");
  EXPECT_TRUE(Compare(Outcome{.status = "Pending"}, held).empty());
  // Scheduling gates: the API server's condition, in a real cluster too.
  EXPECT_EQ(OutcomeInSimulation(sim, "default", "g").status, "SchedulingGated");
}

TEST(CompareTest, PreemptionIsComparedNotExcused) {
  const std::string with_preemption =
      "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 "
      "nodes are available: 1 No preemption victims found for incoming pod.";
  Outcome up{.status = "Unschedulable", .message = with_preemption};
  Outcome ks{.status = "Unschedulable", .message = "0/1 nodes are available: 1 Insufficient cpu."};
  std::vector<Mismatch> m = Compare(up, ks);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].kind, "message");

  // kube-scheduler nominated a node and evicted; ksched evicted another pod.
  Outcome preempted{.status = "Unschedulable",
                    .message = "0/1 nodes are available: 1 Insufficient memory.",
                    .nominated = "n",
                    .evicted = {"default/low"}};
  Outcome other = preempted;
  other.evicted = {"default/other"};
  m = Compare(preempted, other);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].kind, "eviction");
  EXPECT_TRUE(Compare(preempted, preempted).empty());

  // simulate ran on: the pod is on the node kube-scheduler nominated, the same victims gone.
  Outcome simulated{.node = "n",
                    .status = "Scheduled",
                    .evicted = {"default/low"},
                    .placed_after_preemption = true};
  EXPECT_TRUE(Compare(preempted, simulated).empty());
  simulated.node = "m";
  m = Compare(preempted, simulated);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].kind, "nominated");

  // The other way round: kube-scheduler was seen bound, ksched at its first decision.
  simulated.node = "n";
  EXPECT_TRUE(Compare(simulated, preempted).empty());
  simulated.evicted = {"default/other"};
  m = Compare(simulated, preempted);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].kind, "eviction");

  // Seed 32: kube-scheduler preempted on n, and its next attempt, with some victims gone, fit on
  // m, which they freed first. The victims' events name n: where it binds is not compared.
  Outcome elsewhere{.node = "m",
                    .status = "Scheduled",
                    .evicted = {"default/low"},
                    .placed_after_preemption = true,
                    .preempted_on = "n"};
  EXPECT_TRUE(Compare(elsewhere, preempted).empty());
  Outcome ks_elsewhere = elsewhere;
  ks_elsewhere.node = "k";
  EXPECT_TRUE(Compare(preempted, ks_elsewhere).empty());
  ks_elsewhere.preempted_on = "k";
  m = Compare(preempted, ks_elsewhere);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].kind, "nominated");
}

}  // namespace
}  // namespace ksched::difftest
