#include "src/scheduler/explain_records.h"

#include <gtest/gtest.h>

#include "fmt/format.h"
#include "src/testing/builders.h"

namespace ksched::scheduler {
namespace {

Diagnosis Rejections(int nodes, int tainted) {
  Diagnosis d;
  for (int i = 0; i < nodes; ++i) {
    d.node_to_status.statuses[fmt::format("node-{}", i)] =
        i < tainted
            ? Status::UnschedulableAndUnresolvable("node(s) had untolerated taint {dedicated: gpu}")
                  .WithPlugin("TaintToleration")
            : Status::Unschedulable("Insufficient cpu").WithPlugin("NodeResourcesFit");
  }
  d.unschedulable_plugins = {"NodeResourcesFit", "TaintToleration"};
  return d;
}

Attempt Pending(const std::string& name, const Diagnosis* d, int nodes) {
  return {.pod = testing::MakePod().Name(name).UID("uid-" + name).Ptr(),
          .time = absl::FromUnixSeconds(1764300000),
          .attempts = 2,
          .result = "Unschedulable",
          .message =
              "0/4 nodes are available: 1 node(s) had untolerated taint {dedicated: gpu}, "
              "3 Insufficient cpu.",
          .cluster_nodes = nodes,
          .filtered = d,
          .diagnosis = d,
          .waiting_for = {{"NodeResourcesFit", {"NodeAdd", "AssignedPodDelete"}}}};
}

// Pod default/web's attempt that placed it on `node`, every node of `t` feasible.
Attempt Scheduled(const std::string& node, const framework::ScoreTable& t) {
  return {.pod = testing::MakePod().Name("web").UID("u").Ptr(),
          .result = "Scheduled",
          .node = node,
          .cluster_nodes = static_cast<int>(t.nodes.size()),
          .feasible = t.nodes,
          .scores = &t};
}

TEST(ExplainRecordsTest, APendingPodsNodesAreGroupedByTheirRejection) {
  ExplainRecords records;
  const Diagnosis d = Rejections(4, 1);
  records.Observe(Pending("web", &d, 4));
  std::optional<nlohmann::ordered_json> j = records.Json("default", "web");
  ASSERT_TRUE(j.has_value());
  EXPECT_EQ((*j)["result"], "Unschedulable");
  EXPECT_EQ((*j)["node"], nullptr);
  EXPECT_EQ((*j)["time"], "2025-11-28T03:20:00Z");
  EXPECT_EQ((*j)["attempts"], 2);
  EXPECT_EQ((*j)["nodes"]["total"], 4);
  EXPECT_EQ((*j)["nodes"]["rejected"], 4);
  ASSERT_EQ((*j)["rejected"].size(), 2u);
  // The largest group first, its nodes by name.
  EXPECT_EQ((*j)["rejected"][0]["plugin"], "NodeResourcesFit");
  EXPECT_EQ((*j)["rejected"][0]["code"], "Unschedulable");
  EXPECT_EQ((*j)["rejected"][0]["reasons"], nlohmann::json::array({"Insufficient cpu"}));
  EXPECT_EQ((*j)["rejected"][0]["nodes"], nlohmann::json::array({"node-1", "node-2", "node-3"}));
  EXPECT_EQ((*j)["rejected"][1]["plugin"], "TaintToleration");
  EXPECT_EQ((*j)["rejected"][1]["code"], "UnschedulableAndUnresolvable");
  EXPECT_EQ((*j)["rejected"][1]["nodes"], nlohmann::json::array({"node-0"}));
  EXPECT_EQ((*j)["waitingFor"][0]["plugin"], "NodeResourcesFit");
  EXPECT_EQ((*j)["waitingFor"][0]["events"],
            nlohmann::json::array({"NodeAdd", "AssignedPodDelete"}));
  EXPECT_FALSE(j->contains("preemption"));
  EXPECT_FALSE(records.Json("default", "other").has_value());
  EXPECT_FALSE(records.Json("prod", "web").has_value());
}

TEST(ExplainRecordsTest, PreFiltersRejectionCoversTheNodesNoFilterSaw) {
  ExplainRecords records;
  Diagnosis d;
  d.node_to_status.absent =
      Status::UnschedulableAndUnresolvable("node(s) didn't match Pod's node affinity/selector")
          .WithPlugin("NodeAffinity");
  records.Observe(Pending("web", &d, 7));
  std::optional<nlohmann::ordered_json> j = records.Json("default", "web");
  ASSERT_TRUE(j.has_value());
  EXPECT_EQ((*j)["nodes"]["notEvaluated"], 7);
  EXPECT_EQ((*j)["notEvaluated"]["plugin"], "NodeAffinity");
  EXPECT_TRUE((*j)["rejected"].empty());
}

TEST(ExplainRecordsTest, AScheduledPodsScoresComeBestFirstWithEachPlugins) {
  ExplainRecords records;
  NodeInfo a, b, c;
  a.SetNode(testing::MakeNode().Name("node-a").Ptr());
  b.SetNode(testing::MakeNode().Name("node-b").Ptr());
  c.SetNode(testing::MakeNode().Name("node-c").Ptr());
  framework::ScoreTable t{.plugins = {"NodeResourcesFit", "ImageLocality"},
                          .nodes = {&a, &b},
                          .weighted = {50, 80, 10, 0},
                          .totals = {60, 80}};
  Diagnosis d;
  d.node_to_status.statuses["node-c"] =
      Status::Unschedulable("Insufficient memory").WithPlugin("NodeResourcesFit");
  Attempt at = Scheduled("node-b", t);  // 2 feasible nodes of 3.
  at.cluster_nodes = 3;
  at.filtered = at.diagnosis = &d;
  records.Observe(at);
  std::optional<nlohmann::ordered_json> j = records.Json("default", "web");
  ASSERT_TRUE(j.has_value());
  EXPECT_EQ((*j)["node"], "node-b");
  EXPECT_EQ((*j)["nodes"]["feasible"], 2);
  EXPECT_EQ((*j)["nodes"]["rejected"], 1);
  ASSERT_EQ((*j)["scores"].size(), 2u);
  EXPECT_EQ((*j)["scores"][0]["node"], "node-b");
  EXPECT_EQ((*j)["scores"][0]["total"], 80);
  EXPECT_EQ((*j)["scores"][0]["plugins"]["NodeResourcesFit"], 80);
  EXPECT_EQ((*j)["scores"][0]["plugins"]["ImageLocality"], 0);
  EXPECT_EQ((*j)["scores"][1]["node"], "node-a");
  EXPECT_EQ((*j)["scores"][1]["plugins"]["ImageLocality"], 10);
  EXPECT_EQ((*j)["rejected"][0]["nodes"], nlohmann::json::array({"node-c"}));
}

TEST(ExplainRecordsTest, OnlyTheBestScoredNodesAreKept) {
  ExplainRecords records;
  std::vector<NodeInfo> infos(150);
  framework::ScoreTable t{.plugins = {"NodeResourcesFit"}};
  for (int i = 0; i < 150; ++i) {
    infos[i].SetNode(testing::MakeNode().Name(fmt::format("node-{:03}", i)).Ptr());
    t.nodes.push_back(&infos[i]);
    t.weighted.push_back(i % 50);  // node-049, node-099 and node-149 score best.
    t.totals.push_back(i % 50);
  }
  records.Observe(Scheduled("node-049", t));
  std::optional<nlohmann::ordered_json> j = records.Json("default", "web");
  ASSERT_TRUE(j.has_value());
  EXPECT_EQ((*j)["nodes"]["scored"], 150);
  ASSERT_EQ((*j)["scores"].size(), ExplainRecords::kScoresKept);
  EXPECT_EQ((*j)["scores"][0]["node"], "node-049");  // Equal totals: the earlier node first.
  EXPECT_EQ((*j)["scores"][1]["node"], "node-099");
  EXPECT_EQ((*j)["scores"][2]["node"], "node-149");
  EXPECT_EQ((*j)["scores"][3]["plugins"]["NodeResourcesFit"], 48);
  // 150 nodes of totals 0 to 49, three each: totals 49 to 43 make 21, the 20th is node-093.
  EXPECT_EQ((*j)["scores"][19]["node"], "node-093");
  EXPECT_EQ((*j)["scores"][19]["total"], 43);
}

// Scores are kept in 32 bits when they fit; one that does not (a plugin of a very large weight)
// keeps the record's in 64, exactly, and the totals are their sums.
TEST(ExplainRecordsTest, ScoresBeyond32BitsAreKeptExactly) {
  ExplainRecords records;
  NodeInfo a, b;
  a.SetNode(testing::MakeNode().Name("node-a").Ptr());
  b.SetNode(testing::MakeNode().Name("node-b").Ptr());
  const int64_t big = int64_t{100} * 50'000'000;  // A score of 100 at a weight of 50,000,000.
  framework::ScoreTable t{.plugins = {"Heavy", "NodeResourcesFit"},
                          .nodes = {&a, &b},
                          .weighted = {big, 0, 7, 3},
                          .totals = {big + 7, 3}};
  records.Observe(Scheduled("node-a", t));
  std::optional<nlohmann::ordered_json> j = records.Json("default", "web");
  ASSERT_TRUE(j.has_value());
  ASSERT_EQ((*j)["scores"].size(), 2u);
  EXPECT_EQ((*j)["scores"][0]["node"], "node-a");
  EXPECT_EQ((*j)["scores"][0]["total"], big + 7);
  EXPECT_EQ((*j)["scores"][0]["plugins"]["Heavy"], big);
  EXPECT_EQ((*j)["scores"][1]["total"], 3);
  EXPECT_EQ((*j)["scores"][1]["plugins"]["NodeResourcesFit"], 3);
}

TEST(ExplainRecordsTest, PreemptionsNominationAndVictimsAreKept) {
  ExplainRecords records;
  const Diagnosis d = Rejections(2, 0);
  Attempt at = Pending("high", &d, 2);
  at.nominated = "node-1";
  at.victims = {"default/low-1", "default/low-2"};
  records.Observe(at);
  std::optional<nlohmann::ordered_json> j = records.Json("default", "high");
  ASSERT_TRUE(j.has_value());
  EXPECT_EQ((*j)["preemption"]["nominatedNode"], "node-1");
  EXPECT_EQ((*j)["preemption"]["victims"],
            nlohmann::json::array({"default/low-1", "default/low-2"}));
}

TEST(ExplainRecordsTest, ANewAttemptReplacesTheLastAndADeletedPodsGoes) {
  ExplainRecords records;
  const Diagnosis d = Rejections(4, 1);
  records.Observe(Pending("web", &d, 4));
  const size_t one = records.bytes();
  records.Observe(Pending("web", &d, 4));
  EXPECT_EQ(records.records(), 1u);
  EXPECT_EQ(records.bytes(), one);
  records.Forget("uid-web");
  EXPECT_EQ(records.records(), 0u);
  EXPECT_FALSE(records.Json("default", "web").has_value());
}

// 10,000 pending pods on 5,000 nodes, each rejected by two plugins: their records stay within
// the bound; a bitmap of 5,000 nodes is 625 bytes.
TEST(ExplainRecordsTest, TenThousandPendingPodsOnFiveThousandNodesFitTheBound) {
  ExplainRecords records({.max_bytes = 32 << 20});
  const Diagnosis d = Rejections(5000, 1000);
  for (int i = 0; i < 10000; ++i) records.Observe(Pending(fmt::format("pod-{}", i), &d, 5000));
  EXPECT_EQ(records.records(), 10000u);
  EXPECT_LE(records.bytes(), size_t{32} << 20);
  std::optional<nlohmann::ordered_json> j = records.Json("default", "pod-0");
  ASSERT_TRUE(j.has_value());
  EXPECT_EQ((*j)["rejected"][0]["nodes"].size(), 4000u);
  EXPECT_EQ((*j)["rejected"][1]["nodes"].size(), 1000u);
}

TEST(ExplainRecordsTest, PastTheBoundDecidedPodsGoFirstThenTheOldestPending) {
  const Diagnosis d = Rejections(100, 10);
  ExplainRecords probe;
  probe.Observe(Pending("p", &d, 100));
  const size_t index_and_one = probe.bytes();
  probe.Observe(Pending("q", &d, 100));
  const size_t one = probe.bytes() - index_and_one;        // The node index is shared.
  const size_t bound = index_and_one + one * 2 + one / 2;  // Room for three.
  ExplainRecords records({.max_bytes = bound});
  Attempt decided = Pending("done", &d, 100);
  decided.result = "Scheduled";
  decided.node = "node-50";
  records.Observe(decided);
  records.Observe(Pending("a", &d, 100));
  records.Observe(Pending("b", &d, 100));
  EXPECT_EQ(records.records(), 3u);
  records.Observe(Pending("c", &d, 100));  // "done" goes, though newer than none.
  EXPECT_FALSE(records.Json("default", "done").has_value());
  EXPECT_TRUE(records.Json("default", "a").has_value());
  records.Observe(Pending("d", &d, 100));  // Then the oldest pending.
  EXPECT_FALSE(records.Json("default", "a").has_value());
  EXPECT_TRUE(records.Json("default", "b").has_value());
  EXPECT_TRUE(records.Json("default", "d").has_value());
  EXPECT_LE(records.bytes(), bound);
}

TEST(ExplainRecordsTest, ABindingCyclesOneNodeFailureKeepsTheOtherRecords) {
  ExplainRecords records;
  const Diagnosis big = Rejections(2000, 0);
  records.Observe(Pending("wide", &big, 2000));
  Diagnosis one;
  one.node_to_status.statuses["node-7"] =
      Status::Unschedulable("binding rejected: node gone").WithPlugin("DefaultBinder");
  Attempt bind = Pending("bound-then-failed", &one, 1);
  bind.in_binding = true;  // Its own thread: the cluster's size is not known there.
  bind.cluster_nodes = 0;
  bind.filtered = nullptr;
  records.Observe(bind);
  EXPECT_TRUE(records.Json("default", "wide").has_value());
  EXPECT_EQ(records.Json("default", "bound-then-failed")->at("nodes").at("total"), 1);
}

TEST(ExplainRecordsTest, NodeNamesOfGoneNodesDoNotPileUp) {
  ExplainRecords records;
  for (int round = 0; round < 50; ++round) {
    Diagnosis d;
    for (int i = 0; i < 100; ++i) {
      d.node_to_status.statuses[fmt::format("node-{}-{}", round, i)] =
          Status::Unschedulable("Insufficient cpu").WithPlugin("NodeResourcesFit");
    }
    records.Observe(Pending(fmt::format("pod-{}", round), &d, 100));
  }
  // 5,000 names seen, 100 nodes at a time: the index was made afresh on the way.
  EXPECT_LT(records.bytes(), size_t{1} << 20);
  std::optional<nlohmann::ordered_json> j = records.Json("default", "pod-49");
  ASSERT_TRUE(j.has_value());
  EXPECT_EQ((*j)["rejected"][0]["nodes"][0], "node-49-0");
}

}  // namespace
}  // namespace ksched::scheduler
