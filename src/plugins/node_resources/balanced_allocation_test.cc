#include "src/plugins/node_resources/balanced_allocation.h"

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "src/testing/builders.h"
#include "src/testing/fake_handle.h"
#include "src/testing/plugin_args.h"
#include "src/testing/scoring.h"

namespace ksched::plugins::node_resources {
namespace {

using ksched::testing::FakeHandle;
using ksched::testing::MakeNode;
using ksched::testing::MakePod;
using ResourcePairs = std::initializer_list<std::pair<std::string, std::string>>;

api::Node Node(const std::string& name, ResourcePairs capacity) {
  return MakeNode().Name(name).Capacity(capacity).Obj();
}

api::Pod Pod(ResourcePairs requests) { return MakePod().Name("pending").Container(requests).Obj(); }

api::Pod On(const std::string& node, const std::string& name, ResourcePairs requests) {
  return MakePod().Name(name).Node(node).Container(requests).Obj();
}

// Upstream's balanced_allocation_test.go pod specs: cpuOnly is 3000m of cpu and 0 memory,
// cpuAndMemory 3000m and 5000 bytes.
const ResourcePairs kCpuOnly = {{"cpu", "3000m"}, {"memory", "0"}};
const ResourcePairs kCpuAndMemory = {{"cpu", "3000m"}, {"memory", "5000"}};

struct Case {
  std::string name;
  api::Pod pod;
  std::vector<api::Node> nodes;
  std::vector<api::Pod> existing;
  std::vector<int64_t> want;  // In node order.
  nlohmann::json args = nlohmann::json::object();
};

std::vector<int64_t> ScoreNodes(const Case& c) {
  FakeHandle handle(c.nodes, c.existing);
  absl::StatusOr<BalancedAllocationArgs> args = ParseBalancedAllocationArgs(c.args);
  EXPECT_TRUE(args.ok()) << c.name << ": " << args.status();
  BalancedAllocation plugin(*args);
  CycleState state;
  Status pre = plugin.PreScore(state, c.pod, handle.snapshot().nodes());
  EXPECT_TRUE(pre.ok()) << c.name << ": " << pre.Message();
  std::vector<const NodeInfo*> nodes;
  for (const api::Node& n : c.nodes) nodes.push_back(handle.snapshot().Get(n.metadata.name));
  return testing::ScoreEach(plugin, state, c.pod, nodes);
}

// Scores are 50 + (50 + balance(with pod) - balance(without pod)) / 2, with
// balance = int((1 - std) * 100) and, for two resources, std = |f0 - f1| / 2.
TEST(BalancedAllocationTest, Score) {
  const nlohmann::json with_gpu = nlohmann::json::parse(
      R"({"resources": [{"name": "cpu"}, {"name": "memory"}, {"name": "nvidia.com/gpu"}]})");
  const std::vector<Case> cases = {
      // node1: 75%/50% → 87 after, 100 before → 50 + (50 + 87 - 100) / 2 = 68.
      // node2: 50%/50% stays perfectly balanced → 75.
      {"nothing scheduled, resources requested, differently sized nodes",
       Pod(kCpuAndMemory),
       {Node("node1", {{"cpu", "4000m"}, {"memory", "10000"}}),
        Node("node2", {{"cpu", "6000m"}, {"memory", "10000"}})},
       {},
       {68, 75}},
      // node1: 30%/0% (85) → 60%/25% (82): 73. node2: 30%/25% (97) → 60%/50% (95): 74.
      {"resources requested, pods scheduled with resources",
       Pod(kCpuAndMemory),
       {Node("node1", {{"cpu", "10000m"}, {"memory", "20000"}}),
        Node("node2", {{"cpu", "10000m"}, {"memory", "20000"}})},
       {On("node1", "e1", kCpuOnly), On("node2", "e2", kCpuAndMemory)},
       {73, 74}},
      // Fractions over 1 count as 1. node1: 75%/0% (62) → 100%/0% (50): 69.
      // node2: 75%/50% (87) → 100%/50% (75): 69.
      {"requested resources exceed node capacity",
       Pod(kCpuOnly),
       {Node("node1", {{"cpu", "4000m"}, {"memory", "10000"}}),
        Node("node2", {{"cpu", "4000m"}, {"memory", "10000"}})},
       {On("node1", "e1", kCpuOnly), On("node2", "e2", kCpuAndMemory)},
       {69, 69}},
      {"zero node resources, pods scheduled with resources",
       Pod(kCpuAndMemory),
       {Node("node1", {}), Node("node2", {})},
       {On("node1", "e1", kCpuOnly), On("node2", "e2", kCpuAndMemory)},
       {75, 75}},
      // Upstream #135573's example: 50%/0% (75) → 100%/0% (50) and 50%/50% (100) → 100%/50%
      // (75) both lose 25 points of balance: 62.
      {"resources requested, pods scheduled with resources, same loss of balance",
       Pod(kCpuOnly),
       {Node("node1", {{"cpu", "6000m"}, {"memory", "10000"}}),
        Node("node2", {{"cpu", "6000m"}, {"memory", "10000"}})},
       {On("node1", "e1", kCpuOnly), On("node2", "e2", kCpuAndMemory)},
       {62, 62}},
      {"imbalanced to perfectly balanced scores the maximum",
       Pod({{"memory", "4000"}}),
       {Node("node1", {{"cpu", "4000m"}, {"memory", "4000"}})},
       {On("node1", "e1", {{"cpu", "4000m"}})},
       {100}},
      {"perfectly balanced to imbalanced scores the minimum",
       Pod({{"cpu", "4000m"}}),
       {Node("node1", {{"cpu", "4000m"}, {"memory", "4000"}})},
       {},
       {50}},
      // Three resources use the standard deviation: 25%/25%/50% → 88, from 100: 69.
      {"three resources",
       Pod({{"cpu", "1000m"}, {"memory", "2500"}, {"nvidia.com/gpu", "2"}}),
       {Node("node1", {{"cpu", "4000m"}, {"memory", "10000"}, {"nvidia.com/gpu", "4"}})},
       {},
       {69},
       with_gpu},
      // The pod does not request the gpu, so it is left out on both nodes.
      {"unrequested scalar resource is ignored",
       Pod({{"cpu", "1000m"}, {"memory", "2500"}}),
       {Node("node1", {{"cpu", "4000m"}, {"memory", "10000"}, {"nvidia.com/gpu", "4"}}),
        Node("node2", {{"cpu", "4000m"}, {"memory", "10000"}})},
       {},
       {75, 75},
       with_gpu},
      // Node usage excludes the 100m/200Mi defaults of containers without requests (with them:
      // 10%/19.5% (95) → 60%/44.5% (92): 73).
      {"node usage is the plain requests",
       Pod({{"cpu", "500m"}, {"memory", "256Mi"}}),
       {Node("node1", {{"cpu", "1000m"}, {"memory", "1Gi"}})},
       {On("node1", "e1", {})},
       {68}},
      {"pod-level requests count",
       [] {
         api::Pod p = Pod({{"cpu", "1000m"}});
         p.spec.resources = api::ResourceRequirements{
             .requests = ksched::testing::Resources({{"cpu", "2000m"}, {"memory", "5000"}})};
         return p;
       }(),
       {Node("node1", {{"cpu", "4000m"}, {"memory", "10000"}})},
       {},
       {75}},
  };
  for (const Case& c : cases) EXPECT_EQ(ScoreNodes(c), c.want) << c.name;
}

TEST(BalancedAllocationTest, SkipsBestEffortPods) {
  FakeHandle handle({Node("node1", {{"cpu", "4"}, {"memory", "4Gi"}})});
  BalancedAllocation plugin(BalancedAllocationArgs{});
  const api::Pod best_effort = MakePod().Name("be").Container({}).Obj();
  CycleState state;
  EXPECT_TRUE(plugin.PreScore(state, best_effort, handle.snapshot().nodes()).IsSkip());

  // Without PreScore, Score recomputes and gives a best-effort pod 0.
  int64_t score = -1;
  Status s = plugin.Score(state, best_effort, *handle.snapshot().Get("node1"), &score);
  EXPECT_TRUE(s.ok()) << s.Message();
  EXPECT_EQ(score, 0);

  // A pod requesting only an unconfigured resource is best-effort for this plugin.
  const api::Pod gpu_only = Pod({{"nvidia.com/gpu", "1"}});
  EXPECT_TRUE(plugin.PreScore(state, gpu_only, handle.snapshot().nodes()).IsSkip());
}

TEST(BalancedAllocationTest, ScoreWithoutPreScore) {
  FakeHandle handle({Node("node1", {{"cpu", "4000m"}, {"memory", "10000"}})});
  BalancedAllocation plugin(BalancedAllocationArgs{});
  CycleState state;
  int64_t score = -1;
  Status s = plugin.Score(state, Pod(kCpuAndMemory), *handle.snapshot().Get("node1"), &score);
  EXPECT_TRUE(s.ok()) << s.Message();
  EXPECT_EQ(score, 68);
}

TEST(BalancedResourceScorerTest, Formula) {
  using V = std::vector<int64_t>;
  // No change in balance: 75.
  EXPECT_EQ(BalancedResourceScorer(V{2, 2}, V{1, 1}, V{4, 4}), 75);
  // Balanced → fully unbalanced: 50; fully unbalanced → balanced: 100.
  EXPECT_EQ(BalancedResourceScorer(V{4, 0}, V{0, 0}, V{4, 4}), 50);
  EXPECT_EQ(BalancedResourceScorer(V{4, 4}, V{4, 0}, V{4, 4}), 100);
  // Entries with allocatable 0 are left out: one resource is always balanced.
  EXPECT_EQ(BalancedResourceScorer(V{4, 0}, V{0, 0}, V{4, 0}), 75);
  // The with/without difference truncates toward zero: (50 + 87 - 100) / 2 = 18.
  EXPECT_EQ(BalancedResourceScorer(V{3, 1}, V{0, 0}, V{4, 2}), 68);
}

TEST(BalancedAllocationTest, Factory) {
  FakeHandle handle;
  const PluginFactory factory = TypedFactory<BalancedAllocationArgs>(NewBalancedAllocation);
  const ArgsDecoder decode =
      MakeArgsDecoder(ParseBalancedAllocationArgs, BalancedAllocationArgsToJson);
  auto plugin = ksched::testing::NewFromArgs(decode, factory, nlohmann::json::object(), handle);
  ASSERT_TRUE(plugin.ok()) << plugin.status();
  EXPECT_EQ((*plugin)->Name(), "NodeResourcesBalancedAllocation");
  EXPECT_NE(dynamic_cast<PreScorePlugin*>(plugin->get()), nullptr);
  EXPECT_EQ(dynamic_cast<ScoreExtensions*>(plugin->get()), nullptr);  // Not normalized.

  auto bad = ksched::testing::NewFromArgs(
      decode, factory, nlohmann::json::parse(R"({"resources": [{"name": "cpu", "weight": 2}]})"),
      handle);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace ksched::plugins::node_resources
