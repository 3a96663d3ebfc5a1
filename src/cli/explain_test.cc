#include "src/cli/explain.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "fmt/format.h"
#include "gmock/gmock.h"
#include "src/scheduler/explain_records.h"
#include "src/testing/builders.h"
#include "src/testing/ports.h"

namespace ksched::cli {
namespace {

using ::testing::HasSubstr;

TEST(ExplainTableTest, APendingPodsRejectionsPreemptionAndEventsAreSpelledOut) {
  scheduler::ExplainRecords records;
  Diagnosis d;
  for (int i = 0; i < 12; ++i) {
    d.node_to_status.statuses[fmt::format("node-{:02}", i)] =
        Status::Unschedulable("Insufficient cpu").WithPlugin("NodeResourcesFit");
  }
  d.node_to_status.statuses["gpu-0"] =
      Status::UnschedulableAndUnresolvable("node(s) had untolerated taint {gpu: true}")
          .WithPlugin("TaintToleration");
  records.Observe({.pod = testing::MakePod().Namespace("prod").Name("big").UID("u").Ptr(),
                   .time = absl::FromUnixSeconds(1764300000),
                   .attempts = 3,
                   .result = "Unschedulable",
                   .message = "0/13 nodes are available: ...",
                   .cluster_nodes = 13,
                   .filtered = &d,
                   .diagnosis = &d,
                   .nominated = "node-03",
                   .victims = {"prod/low-1"},
                   .waiting_for = {{"NodeResourcesFit", {"NodeAdd", "AssignedPodDelete"}}}});
  const std::string table = FormatExplainTable(*records.Json("prod", "big"));
  EXPECT_THAT(table, HasSubstr("Pod:      prod/big\n"));
  EXPECT_THAT(table, HasSubstr("Attempt:  3 at 2025-11-28T03:20:00Z\n"));
  EXPECT_THAT(table, HasSubstr("Result:   Unschedulable\n"));
  EXPECT_THAT(table, HasSubstr("Nodes:    13 in all: 0 feasible, 13 rejected, 0 not evaluated\n"));
  EXPECT_THAT(table, HasSubstr("  NodeResourcesFit (Unschedulable), 12 node(s): Insufficient cpu\n"
                               "    node-00, node-01, node-02, node-03, node-04, node-05, node-06, "
                               "node-07, node-08, node-09, and 2 more (-o json lists all)\n"));
  EXPECT_THAT(table, HasSubstr("  TaintToleration (UnschedulableAndUnresolvable), 1 node(s): "
                               "node(s) had untolerated taint {gpu: true}\n    gpu-0\n"));
  EXPECT_THAT(table, HasSubstr("Preemption: nominated to node-03; victims: prod/low-1\n"));
  EXPECT_THAT(table, HasSubstr("  NodeResourcesFit: NodeAdd, AssignedPodDelete\n"));
  EXPECT_EQ(table.find("Group:"), std::string::npos);  // Tried alone.
}

// A gang's pod tried in its group's cycle: the table says what the cycle decided for the group.
TEST(ExplainTableTest, AGangsPodSaysWhatItsGroupCycleDecided) {
  scheduler::ExplainRecords records;
  Diagnosis d;
  records.Observe({.pod = testing::MakePod().Name("t-0").UID("u").Ptr(),
                   .result = "Unschedulable",
                   .message = "pod group is unschedulable, minCount (3) cannot be satisfied",
                   .cluster_nodes = 1,
                   .filtered = &d,
                   .pod_group = "default/train",
                   .group_reason = "Unschedulable",
                   .group_message = "minCount (3) cannot be satisfied: 2 scheduled, 0 remaining"});
  EXPECT_THAT(FormatExplainTable(*records.Json("default", "t-0")),
              HasSubstr("Group:    default/train: Unschedulable: minCount (3) cannot be "
                        "satisfied: 2 scheduled, 0 remaining\n"));
  // With TopologyAwareWorkloadScheduling, the placement (topology domain) it was tried in.
  records.Observe({.pod = testing::MakePod().Name("t-1").UID("v").Ptr(),
                   .result = "Scheduled",
                   .node = "n1",
                   .cluster_nodes = 1,
                   .filtered = &d,
                   .pod_group = "default/train",
                   .group_reason = "Scheduled",
                   .placement = "rack-1"});
  const nlohmann::ordered_json j = *records.Json("default", "t-1");
  EXPECT_EQ(j["podGroup"]["placement"], "rack-1");
  EXPECT_THAT(FormatExplainTable(j),
              HasSubstr("Group:    default/train: Scheduled (placement rack-1)\n"));
}

TEST(ExplainTableTest, AScheduledPodsScoresAreAColumnPerPlugin) {
  scheduler::ExplainRecords records;
  NodeInfo a, b;
  a.SetNode(testing::MakeNode().Name("node-a").Ptr());
  b.SetNode(testing::MakeNode().Name("node-b").Ptr());
  framework::ScoreTable t{.plugins = {"NodeResourcesFit", "TaintToleration"},
                          .nodes = {&a, &b},
                          .weighted = {40, 90, 300, 300},
                          .totals = {340, 390}};
  records.Observe({.pod = testing::MakePod().Name("web").UID("u").Ptr(),
                   .result = "Scheduled",
                   .node = "node-b",
                   .cluster_nodes = 2,
                   .feasible = t.nodes,
                   .scores = &t});
  const std::string table = FormatExplainTable(*records.Json("default", "web"));
  EXPECT_THAT(table, HasSubstr("Result:   Scheduled on node-b\n"));
  EXPECT_THAT(table, HasSubstr("  NODE     TOTAL  NodeResourcesFit  TaintToleration\n"
                               "  node-b     390                90              300\n"
                               "  node-a     340                40              300\n"));
}

class ExplainCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    kubeconfig_ = std::filesystem::temp_directory_path() / "ksched-explain-test.kubeconfig";
    std::ofstream(kubeconfig_)
        << "apiVersion: v1\nkind: Config\n"
           "clusters: [{name: c, cluster: {server: 'https://127.0.0.1:1'}}]\n"
           "users: [{name: u, user: {token: t}}]\n"
           "contexts: [{name: x, context: {cluster: c, user: u}}]\n"
           "current-context: x\n";
  }
  void TearDown() override { std::filesystem::remove(kubeconfig_); }
  std::filesystem::path kubeconfig_;
};

TEST_F(ExplainCommandTest, ABadPodNameAndAnUnreachableSchedulerAreClearErrors) {
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(RunExplain({.pod = "a/b/c", .kubeconfig = kubeconfig_}), 1);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(),
            "ksched explain: a/b/c: want NAMESPACE/NAME or NAME\n");
  const std::string server = fmt::format("https://127.0.0.1:{}", ksched::testing::FreePort());
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(RunExplain({.pod = "default/web",
                        .server = server,
                        .kubeconfig = kubeconfig_,
                        .insecure_skip_tls_verify = true}),
            1);
  EXPECT_THAT(::testing::internal::GetCapturedStderr(),
              HasSubstr("ksched explain: cannot reach ksched at " + server + ": "));
}

}  // namespace
}  // namespace ksched::cli
