// The DRA workloads' objects, scheduled by the embedded cluster at small sizes: the devices,
// classes, claims and pods the bench makes hold as many pods per node as scheduler_perf's
// comments say, so that each runner is measured on the workload upstream meant.
#include "bench/workload_objects.h"

#include <gtest/gtest.h>

#include <set>

#include "src/api/decode.h"
#include "src/sim/simulate_testing.h"

namespace ksched::bench {
namespace {

// The workload `name` at `nodes` nodes with `init` init pods (or claims, where it allocates
// claims) and `measure` measured pods, scheduled in the embedded cluster.
sim::SimulationResult Schedule(const std::string& name, int nodes, int init, int measure) {
  absl::StatusOr<Workload> w = FindWorkload(name);
  EXPECT_TRUE(w.ok()) << w.status();
  if (!w.ok()) return {};
  w->nodes = nodes;
  (w->init_claims > 0 ? w->init_claims : w->init_pods) = init;
  w->measure_pods = measure;
  absl::StatusOr<WorkloadObjects> o = MakeObjects(*w);
  EXPECT_TRUE(o.ok()) << o.status();
  if (!o.ok()) return {};
  nlohmann::json all = nlohmann::json::array();
  for (const auto* batch : {&o->setup, &o->nodes, &o->storage, &o->init_pods, &o->measure_pods}) {
    for (const nlohmann::json& object : *batch) all.push_back(object);
  }
  const nlohmann::json list = {{"apiVersion", "v1"}, {"kind", "List"}, {"items", all}};
  absl::StatusOr<std::vector<api::Object>> objects = api::DecodeObjects(list.dump());
  EXPECT_TRUE(objects.ok()) << objects.status();
  if (!objects.ok()) return {};
  return sim::SimulateObjects(*std::move(objects));
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
  EXPECT_EQ(nodes.size(), 2u) << testing::PrintToString(got);
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

}  // namespace
}  // namespace ksched::bench
