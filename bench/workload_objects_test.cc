// The DRA workloads' objects, scheduled by the embedded cluster at small sizes: the devices,
// classes, claims and pods the bench makes hold as many pods per node as scheduler_perf's
// comments say, so that each runner is measured on the workload upstream meant.
#include "bench/workload_objects.h"

#include <gtest/gtest.h>

#include <set>

#include "src/api/decode.h"
#include "src/sim/simulate_testing.h"
#include "src/testing/api_paths.h"

namespace ksched::bench {
namespace {

// The workload `name` at `nodes` nodes with `init` init pods (or claims, where it allocates
// claims) and `measure` measured pods.
WorkloadObjects Sized(const std::string& name, int nodes, int init, int measure) {
  absl::StatusOr<Workload> w = FindWorkload(name);
  EXPECT_TRUE(w.ok()) << w.status();
  if (!w.ok()) return {};
  w->nodes = nodes;
  (w->init_claims > 0 ? w->init_claims : w->init_pods) = init;
  w->measure_pods = measure;
  absl::StatusOr<WorkloadObjects> o = MakeObjects(*w);
  EXPECT_TRUE(o.ok()) << o.status();
  return o.ok() ? *std::move(o) : WorkloadObjects{};
}

std::vector<api::Object> Decoded(
    std::initializer_list<const std::vector<nlohmann::json>*> batches) {
  absl::StatusOr<std::vector<api::Object>> objects = Decode(batches);
  EXPECT_TRUE(objects.ok()) << objects.status();
  return objects.ok() ? *std::move(objects) : std::vector<api::Object>{};
}

// The workload at these sizes, all its pods scheduled together in the embedded cluster.
sim::SimulationResult Schedule(const std::string& name, int nodes, int init, int measure) {
  WorkloadObjects o = Sized(name, nodes, init, measure);
  return sim::SimulateObjects(
      Decoded({&o.setup, &o.nodes, &o.storage, &o.init_pods, &o.measure_pods}));
}

// As the benches run a workload with PodGroups: its init pods scheduled first, then its measured
// pods (whose outcomes are the result's) with GenericWorkload on.
sim::SimulationResult ScheduleAfterInit(const std::string& name, int nodes, int init, int measure) {
  WorkloadObjects o = Sized(name, nodes, init, measure);
  sim::SimulationResult first =
      sim::SimulateObjects(Decoded({&o.setup, &o.nodes, &o.storage, &o.init_pods}));
  std::vector<api::Object> objects = Decoded({&o.setup, &o.nodes, &o.storage, &o.measure_pods});
  for (const auto& pod : first.final_pods) objects.emplace_back(*pod);
  return sim::SimulateObjects(
      std::move(objects),
      {.generic_workload = true, .topology_aware_workload_scheduling = FindWorkload(name)->racks});
}

// "namespace/name on node" of each pod, or "... pending: message".
std::vector<std::string> Outcomes(const sim::SimulationResult& r) {
  std::vector<std::string> out;
  for (const sim::PodOutcome& p : r.pods) {
    out.push_back(p.node ? p.namespace_ + "/" + p.name + " on " + *p.node
                         : p.namespace_ + "/" + p.name + " pending: " + p.message);
  }
  return out;
}

TEST(WorkloadObjectsTest, EveryWorkloadMakesItsObjects) {
  for (const Workload& w : PerfWorkloads()) {
    absl::StatusOr<WorkloadObjects> o = MakeObjects(w);
    ASSERT_TRUE(o.ok()) << w.name << ": " << o.status();
    EXPECT_EQ(o->measure_pods.size(), static_cast<size_t>(w.measure_pods)) << w.name;
  }
}

TEST(WorkloadObjectsTest, PartitionableClaimsTakeBothDevicesOfANodeAndTheAllocatedOnesAreFull) {
  // Four of six nodes hold an allocated init claim: the measured pods get the other two.
  sim::SimulationResult r = Schedule("Partitionable-full", 6, 4, 3);
  std::vector<std::string> got = Outcomes(r);
  ASSERT_EQ(got.size(), 3u);
  std::set<std::string> nodes;
  for (const sim::PodOutcome& p : r.pods) {
    if (p.node) nodes.insert(*p.node);
  }
  EXPECT_EQ(nodes.size(), 2u) << ::testing::PrintToString(got);
  EXPECT_NE(got[2].find("pending: 0/6 nodes are available: 6 cannot allocate all claims."),
            std::string::npos)
      << got[2];
}

TEST(WorkloadObjectsTest, ConsumableCapacityHoldsEightPodsANode) {
#ifdef KSCHED_CEL_LIBRARY
  setenv("KSCHED_CEL_LIBRARY", KSCHED_CEL_LIBRARY, 1);
#else
  GTEST_SKIP() << "its DeviceClass's selector needs libksched_cel.so, which this build lacks";
#endif
  // Two nodes hold 16 pods: 15 init pods, then one measured pod fits and the next does not.
  sim::SimulationResult r = Schedule("ConsumableCapacity-full", 2, 15, 2);
  std::vector<std::string> got = Outcomes(r);
  ASSERT_EQ(got.size(), 17u);
  for (size_t i = 0; i < 16; ++i) EXPECT_EQ(got[i].find("pending"), std::string::npos) << got[i];
  EXPECT_NE(got[16].find("pending: 0/2 nodes are available: 2 cannot allocate all claims."),
            std::string::npos)
      << got[16];
}

TEST(WorkloadObjectsTest, ExtendedResourcesOfEitherNamingHoldTenPodsANode) {
  for (const char* name : {"ExtendedResource-Explicit", "ExtendedResource-Implicit"}) {
    // Two nodes of ten devices each: 15 init pods, then 5 measured pods fit and the sixth not.
    sim::SimulationResult r = Schedule(name, 2, 15, 6);
    std::vector<std::string> got = Outcomes(r);
    ASSERT_EQ(got.size(), 21u) << name;
    for (size_t i = 0; i < 20; ++i) EXPECT_EQ(got[i].find("pending"), std::string::npos) << got[i];
    EXPECT_NE(got[20].find("pending: 0/2 nodes are available: 2 cannot allocate all claims."),
              std::string::npos)
        << name << ": " << got[20];
  }
}

TEST(WorkloadObjectsTest, GangsArePlacedWholeAndAGangTooBigForTheClusterNotAtAll) {
  // LargeGangs' first gangs hold 8 and 45 pods; at 30 pods the second is cut to 22. Two nodes
  // hold 80 pods of 100m: both gangs fit.
  sim::SimulationResult r = ScheduleAfterInit("LargeGangs", 2, 0, 30);
  std::vector<std::string> got = Outcomes(r);
  ASSERT_EQ(got.size(), 30u);
  for (const std::string& outcome : got)
    EXPECT_EQ(outcome.find("pending"), std::string::npos) << outcome;
  // One node holds 40: the gang of 8 is placed, and none of the gang of 42.
  r = ScheduleAfterInit("LargeGangs", 1, 0, 50);
  got = Outcomes(r);
  ASSERT_EQ(got.size(), 50u);
  for (size_t i = 0; i < 8; ++i) EXPECT_EQ(got[i].find("pending"), std::string::npos) << got[i];
  for (size_t i = 8; i < 50; ++i) EXPECT_NE(got[i].find("pending"), std::string::npos) << got[i];
}

// CoschedulingLargeGangs' groups are scheduler-plugins' PodGroups, and its pods name theirs by
// label, as Coscheduling reads them.
TEST(WorkloadObjectsTest, CoschedulingGangsAreSchedulerPluginsPodGroups) {
  absl::StatusOr<Workload> w = FindWorkload("CoschedulingLargeGangs");
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_EQ(FeatureGates(*w), "");
  absl::StatusOr<WorkloadObjects> o = MakeObjects(*w);
  ASSERT_TRUE(o.ok()) << o.status();
  std::vector<nlohmann::json> groups;
  for (const nlohmann::json& x : o->storage) {
    if (x.value("kind", "") == "PodGroup") groups.push_back(x);
  }
  ASSERT_EQ(groups.size(), 100u);
  EXPECT_EQ(groups[0]["apiVersion"], "scheduling.x-k8s.io/v1alpha1");
  EXPECT_EQ(groups[0]["spec"]["minMember"], 8);
  EXPECT_EQ(testing::CollectionOf(groups[0]),
            "/apis/scheduling.x-k8s.io/v1alpha1/namespaces/sched-1/podgroups");
  const nlohmann::json& pod = o->measure_pods[0];
  EXPECT_EQ(pod["metadata"]["labels"]["scheduling.x-k8s.io/pod-group"], "group-0");
  EXPECT_FALSE(pod["spec"].contains("schedulingGroup"));
  // Upstream's PodGroups keep upstream's path.
  absl::StatusOr<WorkloadObjects> upstream = MakeObjects(*FindWorkload("LargeGangs"));
  ASSERT_TRUE(upstream.ok());
  for (const nlohmann::json& x : upstream->storage) {
    if (x.value("kind", "") != "PodGroup") continue;
    EXPECT_EQ(testing::CollectionOf(x),
              "/apis/scheduling.k8s.io/v1beta1/namespaces/sched-1/podgroups");
    break;
  }
}

TEST(WorkloadObjectsTest, EachTopologyAwareGangKeepsToOneRack) {
  // Two racks of 100 nodes: each gang of four lands in one of them.
  sim::SimulationResult r =
      ScheduleAfterInit("TopologyAwareScheduling-5000Nodes_750Gangs_3000Pods", 200, 0, 40);
  ASSERT_EQ(r.pods.size(), 40u);
  for (size_t g = 0; g < 10; ++g) {
    std::set<std::string> racks;
    for (size_t i = 4 * g; i < 4 * g + 4; ++i) {
      ASSERT_TRUE(r.pods[i].node.has_value()) << r.pods[i].name << ": " << r.pods[i].message;
      racks.insert(std::stoi(r.pods[i].node->substr(r.pods[i].node->find('-') + 1)) < 100
                       ? "rack-0"
                       : "rack-1");
    }
    EXPECT_EQ(racks.size(), 1u) << "gang " << g;
  }
}

TEST(WorkloadObjectsTest, APreemptorGangEmptiesAWholeNodeForEachOfItsPods) {
  // Two nodes of five low-priority pods each (spread by their host ports); a gang of two pods of
  // 3970m takes both nodes and evicts all ten.
  sim::SimulationResult r = ScheduleAfterInit("GangPreemptionBasic", 2, 10, 2);
  std::vector<std::string> got = Outcomes(r);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].find("pending"), std::string::npos) << got[0];
  EXPECT_EQ(got[1].find("pending"), std::string::npos) << got[1];
  EXPECT_NE(r.pods[0].node, r.pods[1].node);
  EXPECT_EQ(r.evicted.size(), 10u);
}

TEST(WorkloadObjectsTest, BasicGroupsPlaceWhatFits) {
  // BasicScheduling's groups are of 3; one node holds 40 pods: 40 of 45 placed.
  sim::SimulationResult r = ScheduleAfterInit("BasicScheduling-1000Groups_3000Pods", 1, 0, 45);
  int placed = 0;
  for (const sim::PodOutcome& p : r.pods) placed += p.node ? 1 : 0;
  EXPECT_EQ(placed, 40);
}

}  // namespace
}  // namespace ksched::bench
