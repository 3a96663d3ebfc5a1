// NodeResourcesFit's scoring strategies, ported from upstream's least_allocated_test.go,
// most_allocated_test.go, requested_to_capacity_ratio_test.go and TestFitScore.
#include "src/plugins/node_resources/scoring_strategy.h"

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "src/plugins/node_resources/fit.h"
#include "src/testing/builders.h"
#include "src/testing/fake_handle.h"
#include "src/testing/scoring.h"

namespace ksched::plugins::node_resources {
namespace {

using ksched::testing::FakeHandle;
using ksched::testing::MakeNode;
using ksched::testing::MakePod;
using ResourcePairs = std::initializer_list<std::pair<std::string, std::string>>;

constexpr char kExtended[] = "intel.com/foo";

const std::vector<ResourceSpec> kDefault = {{"cpu", 1}, {"memory", 1}};
const std::vector<ResourceSpec> kWithExtended = {{"cpu", 1}, {"memory", 1}, {kExtended, 1}};

api::Node Node(const std::string& name, ResourcePairs capacity) {
  return MakeNode().Name(name).Capacity(capacity).Obj();
}

// A pending pod with one container per request list.
api::Pod Pod(std::initializer_list<ResourcePairs> containers = {}) {
  MakePod pod;
  pod.Name("pending");
  for (ResourcePairs c : containers) pod.Container(c);
  return pod.Obj();
}

// A pod bound to `node` with one container requesting `requests` (none if `requests` is empty
// and `with_container` is false).
api::Pod On(const std::string& node, ResourcePairs requests, bool with_container = true) {
  MakePod pod;
  pod.Node(node);
  if (with_container) pod.Container(requests);
  return pod.Obj();
}

struct ScoreCase {
  std::string name;
  api::Pod pod;
  std::vector<api::Node> nodes;
  std::vector<api::Pod> existing;
  std::vector<int64_t> want;  // In node order.
  std::vector<ResourceSpec> resources = kDefault;
};

// Scores every node with a Fit using `type` and `shape`; with `run_pre_score` false Score
// recomputes the pod's requests itself.
std::vector<int64_t> ScoreNodes(const ScoreCase& c, ScoringStrategyType type,
                                const std::vector<UtilizationShapePoint>& shape,
                                bool run_pre_score = true) {
  std::vector<api::Pod> existing = c.existing;
  for (size_t i = 0; i < existing.size(); ++i) {  // The cache keys pods by UID.
    existing[i].metadata.name = existing[i].metadata.uid = "existing-" + std::to_string(i);
  }
  FakeHandle handle(c.nodes, existing);
  FitArgs args;
  args.scoring_strategy = {.type = type, .resources = c.resources, .shape = shape};
  Fit fit(args);
  CycleState state;
  if (run_pre_score) {
    Status s = fit.PreScore(state, c.pod, handle.snapshot().nodes());
    EXPECT_TRUE(s.ok()) << c.name << ": " << s.Message();
  }
  std::vector<const NodeInfo*> nodes;
  for (const api::Node& n : c.nodes) nodes.push_back(handle.snapshot().Get(n.metadata.name));
  return testing::ScoreEach(fit, state, c.pod, nodes);
}

TEST(LeastAllocatedTest, Score) {
  const ResourcePairs small = {{"cpu", "4000"}, {"memory", "10000"}};
  const ResourcePairs large = {{"cpu", "10000"}, {"memory", "20000"}};
  const api::Pod two_containers =
      Pod({{{"cpu", "1000"}, {"memory", "2000"}}, {{"cpu", "2000"}, {"memory", "3000"}}});
  const std::vector<ScoreCase> cases = {
      {"nothing scheduled, nothing requested",
       Pod(),
       {Node("node1", small), Node("node2", small)},
       {},
       {100, 100}},
      // node1: cpu (4000-3000)*100/4000 = 25, memory (10000-5000)*100/10000 = 50 → 37.
      {"nothing scheduled, resources requested, differently sized nodes",
       two_containers,
       {Node("node1", small), Node("node2", {{"cpu", "6000"}, {"memory", "10000"}})},
       {},
       {37, 50}},
      {"no resources requested, pods scheduled",
       Pod(),
       {Node("node1", small), Node("node2", small)},
       {On("node1", {}, false), On("node1", {}, false), On("node2", {}, false),
        On("node2", {}, false)},
       {100, 100}},
      // node1: cpu 40, memory 100 → 70; node2: cpu 40, memory 75 → 57.
      {"no resources requested, pods scheduled with resources",
       Pod(),
       {Node("node1", large), Node("node2", large)},
       {On("node1", {{"cpu", "3000"}, {"memory", "0"}}),
        On("node1", {{"cpu", "3000"}, {"memory", "0"}}),
        On("node2", {{"cpu", "3000"}, {"memory", "0"}}),
        On("node2", {{"cpu", "3000"}, {"memory", "5000"}})},
       {70, 57}},
      {"resources requested, pods scheduled with resources",
       two_containers,
       {Node("node1", large), Node("node2", large)},
       {On("node1", {{"cpu", "3000"}, {"memory", "0"}}),
        On("node2", {{"cpu", "3000"}, {"memory", "5000"}})},
       {57, 45}},
      {"resources requested, pods scheduled with resources, differently sized nodes",
       two_containers,
       {Node("node1", large), Node("node2", {{"cpu", "10000"}, {"memory", "50000"}})},
       {On("node1", {{"cpu", "3000"}, {"memory", "0"}}),
        On("node2", {{"cpu", "3000"}, {"memory", "5000"}})},
       {57, 60}},
      // cpu 6000 > 4000 scores 0.
      {"requested resources exceed node capacity",
       Pod({{{"cpu", "3000"}, {"memory", "0"}}}),
       {Node("node1", small), Node("node2", small)},
       {On("node1", {{"cpu", "3000"}, {"memory", "0"}}),
        On("node2", {{"cpu", "3000"}, {"memory", "5000"}})},
       {50, 25}},
      {"zero node resources, pods scheduled with resources",
       Pod(),
       {Node("node1", {}), Node("node2", {})},
       {On("node1", {{"cpu", "3000"}, {"memory", "0"}}),
        On("node2", {{"cpu", "3000"}, {"memory", "5000"}})},
       {0, 0}},
      // node1: (25*1 + 50*2) / 3 = 41.
      {"different weights on cpu and memory",
       two_containers,
       {Node("node1", small), Node("node2", {{"cpu", "6000"}, {"memory", "10000"}})},
       {},
       {41, 50},
       {{"memory", 2}, {"cpu", 1}}},
      {"bypass extended resource if the pod does not request",
       two_containers,
       {Node("node1", {{"cpu", "6000"}, {"memory", "10000"}}),
        Node("node2", {{"cpu", "6000"}, {"memory", "10000"}, {kExtended, "4"}})},
       {},
       {50, 50},
       kWithExtended},
      // node2's extended resource scores (10-2)*100/10 = 80 → (50+50+80)/3 = 60.
      {"honor extended resource if the pod requests",
       Pod({{{"cpu", "3000"}, {"memory", "5000"}, {kExtended, "2"}}}),
       {Node("node1", {{"cpu", "6000"}, {"memory", "10000"}, {kExtended, "4"}}),
        Node("node2", {{"cpu", "6000"}, {"memory", "10000"}, {kExtended, "10"}})},
       {},
       {50, 60},
       kWithExtended},
      {"if the node doesn't have a resource",
       Pod({{{"cpu", "3000"}, {"memory", "4000"}}}),
       {Node("node1", {{"cpu", "6000"}, {"memory", "10000"}}),
        Node("node2", {{"cpu", "6000"}, {"memory", "10000"}, {kExtended, "4"}})},
       {},
       {55, 55},
       {{kExtended, 2}, {"cpu", 1}, {"memory", 1}}},
  };
  for (const ScoreCase& c : cases) {
    EXPECT_EQ(ScoreNodes(c, ScoringStrategyType::kLeastAllocated, {}), c.want) << c.name;
  }
}

TEST(MostAllocatedTest, Score) {
  const ResourcePairs small = {{"cpu", "4000"}, {"memory", "10000"}};
  const ResourcePairs large = {{"cpu", "10000"}, {"memory", "20000"}};
  const api::Pod two_containers =
      Pod({{{"cpu", "1000"}, {"memory", "2000"}}, {{"cpu", "2000"}, {"memory", "3000"}}});
  const std::vector<ScoreCase> cases = {
      {"nothing scheduled, nothing requested",
       Pod(),
       {Node("node1", small), Node("node2", small)},
       {},
       {0, 0}},
      // node1: cpu 3000*100/4000 = 75, memory 50 → 62.
      {"nothing scheduled, resources requested, differently sized nodes",
       two_containers,
       {Node("node1", small), Node("node2", {{"cpu", "6000"}, {"memory", "10000"}})},
       {},
       {62, 50}},
      {"no resources requested, pods scheduled with resources",
       Pod(),
       {Node("node1", large), Node("node2", large)},
       {On("node1", {{"cpu", "3000"}, {"memory", "0"}}),
        On("node1", {{"cpu", "3000"}, {"memory", "0"}}),
        On("node2", {{"cpu", "3000"}, {"memory", "0"}}),
        On("node2", {{"cpu", "3000"}, {"memory", "5000"}})},
       {30, 42}},
      {"resources requested, pods scheduled with resources",
       two_containers,
       {Node("node1", large), Node("node2", large)},
       {On("node1", {{"cpu", "3000"}, {"memory", "0"}}),
        On("node2", {{"cpu", "3000"}, {"memory", "5000"}})},
       {42, 55}},
      // node1: cpu 5000/5000 = 100, memory 90 → 95; node2: cpu 50, memory 9000/9000 → 75.
      {"resources requested equal node capacity",
       Pod({{{"cpu", "2000"}, {"memory", "4000"}}, {{"cpu", "3000"}, {"memory", "5000"}}}),
       {Node("node1", {{"cpu", "5000"}, {"memory", "10000"}}),
        Node("node2", {{"cpu", "10000"}, {"memory", "9000"}})},
       {},
       {95, 75}},
      // node1: (75*1 + 50*2) / 3 = 58.
      {"different weights on cpu and memory",
       two_containers,
       {Node("node1", small), Node("node2", {{"cpu", "6000"}, {"memory", "10000"}})},
       {},
       {58, 50},
       {{"memory", 2}, {"cpu", 1}}},
      // Containers without requests count 100m and 200Mi: node1 holds 300m of 250m (capped at
      // 100) and 600Mi of 1000Mi (60) → 80; node2: 40 and 20 → 30.
      {"no resources requested, pods scheduled, nonzero request for resource",
       Pod({{}}),
       {Node("node1", {{"cpu", "250m"}, {"memory", "1000Mi"}}),
        Node("node2", {{"cpu", "250m"}, {"memory", "1000Mi"}})},
       {On("node1", {}), On("node1", {})},
       {80, 30}},
      {"bypass extended resource if the pod does not request",
       two_containers,
       {Node("node1", {{"cpu", "6000"}, {"memory", "10000"}}),
        Node("node2", {{"cpu", "6000"}, {"memory", "10000"}, {kExtended, "4"}})},
       {},
       {50, 50},
       kWithExtended},
      // node2's extended resource scores 2*100/10 = 20 → (50+50+20)/3 = 40.
      {"honor extended resource if the pod requests",
       Pod({{{"cpu", "3000"}, {"memory", "5000"}, {kExtended, "2"}}}),
       {Node("node1", {{"cpu", "6000"}, {"memory", "10000"}, {kExtended, "4"}}),
        Node("node2", {{"cpu", "6000"}, {"memory", "10000"}, {kExtended, "10"}})},
       {},
       {50, 40},
       kWithExtended},
      {"if the node doesn't have a resource",
       Pod({{{"cpu", "3000"}, {"memory", "4000"}}}),
       {Node("node1", {{"cpu", "6000"}, {"memory", "10000"}}),
        Node("node2", {{"cpu", "6000"}, {"memory", "10000"}, {kExtended, "4"}})},
       {},
       {45, 45},
       {{kExtended, 2}, {"cpu", 1}, {"memory", 1}}},
  };
  for (const ScoreCase& c : cases) {
    EXPECT_EQ(ScoreNodes(c, ScoringStrategyType::kMostAllocated, {}), c.want) << c.name;
  }
}

TEST(RequestedToCapacityRatioTest, Score) {
  const std::vector<UtilizationShapePoint> least_shape = {{0, 10}, {100, 0}};
  const ResourcePairs small = {{"cpu", "4000"}, {"memory", "10000"}};
  const ResourcePairs medium = {{"cpu", "6000"}, {"memory", "10000"}};
  const std::vector<ScoreCase> cases = {
      {"nothing scheduled, nothing requested (default - least requested nodes have priority)",
       Pod(),
       {Node("node1", small), Node("node2", small)},
       {On("node1", {}, false), On("node1", {}, false)},
       {100, 100}},
      // node1: cpu at 75% scores 25, memory at 50% scores 50 → round(37.5) = 38.
      {"nothing scheduled, resources requested, differently sized nodes (default - least "
       "requested nodes have priority)",
       Pod({{{"cpu", "1000"}, {"memory", "2000"}}, {{"cpu", "2000"}, {"memory", "3000"}}}),
       {Node("node1", small), Node("node2", medium)},
       {On("node1", {}, false), On("node1", {}, false)},
       {38, 50}},
      {"no resources requested, pods scheduled with resources (default - least requested nodes "
       "have priority)",
       Pod(),
       {Node("node1", small), Node("node2", medium)},
       {On("node1", {{"cpu", "3000"}, {"memory", "5000"}}),
        On("node2", {{"cpu", "3000"}, {"memory", "5000"}})},
       {38, 50}},
  };
  for (const ScoreCase& c : cases) {
    EXPECT_EQ(ScoreNodes(c, ScoringStrategyType::kRequestedToCapacityRatio, least_shape), c.want)
        << c.name;
  }
}

TEST(RequestedToCapacityRatioTest, BinPackingExtendedResources) {
  const std::vector<UtilizationShapePoint> most_shape = {{0, 0}, {100, 1}};
  auto node = [](const std::string& name, ResourcePairs extended) {
    api::Node n = Node(name, {{"cpu", "4"}, {"memory", "10000Mi"}});
    for (const auto& [k, v] : extended) {
      n.status.allocatable[k] = n.status.capacity[k] = ksched::testing::Q(v);
    }
    return n;
  };
  const std::vector<api::Node> single = {node("node1", {{"intel.com/foo", "8"}}),
                                         node("node2", {{"intel.com/foo", "4"}})};
  const std::vector<ResourceSpec> foo = {{"intel.com/foo", 1}};
  const std::vector<api::Node> multiple = {
      node("node1", {{"intel.com/foo", "8"}, {"intel.com/bar", "4"}}),
      node("node2", {{"intel.com/foo", "4"}, {"intel.com/bar", "8"}})};
  const std::vector<ResourceSpec> foo_bar = {{"intel.com/foo", 3}, {"intel.com/bar", 5}};
  const std::vector<ScoreCase> cases = {
      {"single: nothing scheduled, nothing requested", Pod(), single, {}, {0, 0}, foo},
      // node1: 2/8 → shape(25) = 2; node2: 2/4 → shape(50) = 5.
      {"single: resources requested, pods scheduled with less resources",
       Pod({{{"intel.com/foo", "2"}}}),
       single,
       {On("node1", {}, false)},
       {2, 5},
       foo},
      {"single: resources requested, on node with existing pod running",
       Pod({{{"intel.com/foo", "2"}}}),
       single,
       {On("node2", {{"intel.com/foo", "2"}})},
       {2, 10},
       foo},
      {"single: resources requested, pods scheduled with more resources",
       Pod({{{"intel.com/foo", "4"}}}),
       single,
       {On("node1", {}, false)},
       {5, 10},
       foo},
      {"multiple: nothing scheduled, nothing requested", Pod(), multiple, {}, {0, 0}, foo_bar},
      // node1: round((2*3 + 5*5) / 8) = 4; node2: round((5*3 + 2*5) / 8) = 3.
      {"multiple: resources requested, pods scheduled with less resources",
       Pod({{{"intel.com/foo", "2"}, {"intel.com/bar", "2"}}}),
       multiple,
       {},
       {4, 3},
       foo_bar},
      {"multiple: resources requested, on node with existing pod running",
       Pod({{{"intel.com/foo", "2"}, {"intel.com/bar", "2"}}}),
       multiple,
       {On("node2", {{"intel.com/foo", "4"}, {"intel.com/bar", "2"}})},
       {4, 7},
       foo_bar},
      {"multiple: resources requested, pods scheduled with more resources",
       Pod({{{"intel.com/foo", "4"}, {"intel.com/bar", "2"}}}),
       multiple,
       {},
       {5, 5},
       foo_bar},
  };
  for (const ScoreCase& c : cases) {
    EXPECT_EQ(ScoreNodes(c, ScoringStrategyType::kRequestedToCapacityRatio, most_shape), c.want)
        << c.name;
  }
}

// Upstream's TestFitScore, each with and without PreScore.
TEST(FitScoreTest, Strategies) {
  const ScoreCase base = {"",
                          Pod(),
                          {Node("node1", {{"cpu", "4000"}, {"memory", "10000"}}),
                           Node("node2", {{"cpu", "6000"}, {"memory", "10000"}})},
                          {On("node1", {{"cpu", "2000"}, {"memory", "4000"}}),
                           On("node2", {{"cpu", "1000"}, {"memory", "2000"}})},
                          {}};
  struct Case {
    std::string name;
    ScoringStrategyType type;
    std::vector<UtilizationShapePoint> shape;
    api::Pod pod;
    std::vector<int64_t> want;
  };
  const api::Pod big = Pod({{{"cpu", "3000"}, {"memory", "5000"}}});
  const api::Pod small = Pod({{{"cpu", "1000"}, {"memory", "2000"}}});
  const std::vector<Case> cases = {
      {"RequestedToCapacityRatio case1",
       ScoringStrategyType::kRequestedToCapacityRatio,
       {{0, 10}, {100, 0}},
       big,
       {10, 32}},
      {"RequestedToCapacityRatio case2",
       ScoringStrategyType::kRequestedToCapacityRatio,
       {{0, 0}, {100, 10}},
       big,
       {95, 68}},
      {"MostAllocated", ScoringStrategyType::kMostAllocated, {}, small, {67, 36}},
      {"LeastAllocated", ScoringStrategyType::kLeastAllocated, {}, small, {32, 63}},
  };
  for (const Case& c : cases) {
    ScoreCase sc = base;
    sc.name = c.name;
    sc.pod = c.pod;
    EXPECT_EQ(ScoreNodes(sc, c.type, c.shape, /*run_pre_score=*/true), c.want) << c.name;
    EXPECT_EQ(ScoreNodes(sc, c.type, c.shape, /*run_pre_score=*/false), c.want)
        << c.name << " if PreScore is not called";
  }
}

// Upstream builds Fit's scorer without the PodLevelResources gate: pod-level requests count in
// Filter but not in Score.
TEST(FitScoreTest, IgnoresPodLevelRequests) {
  api::Pod pod = Pod({{{"cpu", "1"}, {"memory", "512Mi"}}});
  pod.spec.resources = api::ResourceRequirements{
      .requests = ksched::testing::Resources({{"cpu", "3"}, {"memory", "1Gi"}})};
  ScoreCase c{"pod-level", pod, {Node("node1", {{"cpu", "4"}, {"memory", "1Gi"}})}, {}, {}};
  // cpu (4-1)/4 → 75, memory (1Gi-512Mi)/1Gi → 50.
  EXPECT_EQ(ScoreNodes(c, ScoringStrategyType::kLeastAllocated, {}), std::vector<int64_t>{62});
}

TEST(FitScoreTest, ErrorWithoutResources) {
  FakeHandle handle({Node("node1", {{"cpu", "4"}})});
  FitArgs args;
  args.scoring_strategy.resources.clear();
  Fit fit(args);
  CycleState state;
  int64_t score = -1;
  Status s = fit.Score(state, Pod(), *handle.snapshot().Get("node1"), &score);
  EXPECT_EQ(s.code(), Code::kError);
  EXPECT_EQ(s.Message(), "resources not found");
}

TEST(ScorerFunctionsTest, ExactIntegerMath) {
  const std::vector<int64_t> none = {0, 0};
  // 1 byte short of half the memory: (c-r)*100/c truncates.
  EXPECT_EQ(LeastAllocatedScorer(kDefault)(std::vector<int64_t>{0, 5001}, none,
                                           std::vector<int64_t>{4000, 10000}),
            (100 + 49) / 2);
  // Byte-sized memory near the int64 limit does not overflow.
  const int64_t huge = int64_t{1} << 62;
  EXPECT_EQ(MostAllocatedScorer(kDefault)(std::vector<int64_t>{0, huge / 2}, none,
                                          std::vector<int64_t>{0, huge}),
            50);
  // RequestedToCapacityRatio rounds half away from zero: (25*1 + 50*1)/2 = 37.5 → 38.
  EXPECT_EQ(RequestedToCapacityRatioScorer(kDefault, {{0, 10}, {100, 0}})(
                std::vector<int64_t>{3000, 5000}, none, std::vector<int64_t>{4000, 10000}),
            38);
  // A resource over capacity sits at the shape's 100% point; zero scores are left out.
  EXPECT_EQ(RequestedToCapacityRatioScorer(kDefault, {{0, 10}, {100, 0}})(
                std::vector<int64_t>{5000, 5000}, none, std::vector<int64_t>{4000, 10000}),
            50);
}

}  // namespace
}  // namespace ksched::plugins::node_resources
