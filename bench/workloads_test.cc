#include "bench/workloads.h"

#include <gtest/gtest.h>

namespace ksched::bench {
namespace {

TEST(WorkloadsTest, EveryTemplateAWorkloadNamesIsThereAndHasItsKind) {
  for (const Workload& w : PerfWorkloads()) {
    for (const std::string& name : {w.init_template, w.measure_template}) {
      absl::StatusOr<nlohmann::json> t = TemplateJson(name);
      ASSERT_TRUE(t.ok()) << w.name << ": " << t.status();
      EXPECT_EQ((*t)["kind"], "Pod") << name;
    }
  }
  for (const char* name : {"node", "churn-node"}) {
    absl::StatusOr<nlohmann::json> t = TemplateJson(name);
    ASSERT_TRUE(t.ok()) << t.status();
    EXPECT_EQ((*t)["kind"], "Node");
  }
  absl::StatusOr<nlohmann::json> service = TemplateJson("churn-service");
  ASSERT_TRUE(service.ok()) << service.status();
  EXPECT_EQ((*service)["kind"], "Service");
}

TEST(WorkloadsTest, AMissingTemplateIsAnErrorNamingItsFile) {
  absl::StatusOr<nlohmann::json> t = TemplateJson("no-such-template");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("bench/templates/no-such-template.yaml"), std::string::npos)
      << t.status();
}

TEST(WorkloadsTest, NodesGetTheirHostnameAndTheirZoneInTurn) {
  absl::StatusOr<Workload> w = FindWorkload("TopologySpreading");
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_EQ(NodeLabels(*w, 4),
            (std::map<std::string, std::string>{{"kubernetes.io/hostname", "node-4"},
                                                {"topology.kubernetes.io/zone", "moon-2"}}));
  absl::StatusOr<Workload> basic = FindWorkload("SchedulingBasic");
  ASSERT_TRUE(basic.ok());
  EXPECT_EQ(NodeLabels(*basic, 0).count("topology.kubernetes.io/zone"), 0u);
  EXPECT_EQ(basic->nodes, 5000);
  EXPECT_EQ(basic->init_pods, 1000);
  EXPECT_EQ(basic->measure_pods, 10000);
}

TEST(WorkloadsTest, AnUnknownWorkloadListsTheKnownOnes) {
  absl::StatusOr<Workload> w = FindWorkload("Nope");
  ASSERT_FALSE(w.ok());
  EXPECT_NE(w.status().message().find("SchedulingWithMixedChurn"), std::string::npos) << w.status();
}

}  // namespace
}  // namespace ksched::bench
