// Topology-aware placement of pod groups (the TopologyAwareWorkloadScheduling gate), through
// simulate: the cases of upstream's test/integration/scheduler/podgroup/topology_aware_scheduling
// (tas_test.go), whose nodes have 2 cpus and no memory, so that a placement's score is its cpu
// use alone.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "fmt/format.h"
#include "nlohmann/json.hpp"
#include "src/sim/simulate.h"
#include "src/sim/simulate_testing.h"

namespace ksched::sim {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

const SimulationOptions kGates = {.generic_workload = true,
                                  .topology_aware_workload_scheduling = true};

// A node "n<i>" in rack "r<rack>" (and zone "z<zone>"), with 2 cpus.
std::string Node(int i, int rack, int zone = 1) {
  return fmt::format(
      "---\napiVersion: v1\nkind: Node\nmetadata: {{name: n{}, labels: {{rack: r{}, zone: "
      "z{}}}}}\nstatus: {{allocatable: {{cpu: \"2\", pods: \"110\"}}}}\n",
      i, rack, zone);
}

// A pod asking for `cpu`, of `group` ("" for none), bound to `node` if given.
std::string Pod(const std::string& name, const std::string& group, int cpu,
                const std::string& node = "", int priority = 100) {
  std::string spec = fmt::format(
      "priority: {}, containers: [{{name: c, image: registry.k8s.io/pause:3.10, resources: "
      "{{requests: {{cpu: \"{}\"}}}}}}]",
      priority, cpu);
  if (!group.empty()) spec += fmt::format(", schedulingGroup: {{podGroupName: {}}}", group);
  if (!node.empty()) spec += ", nodeName: " + node;
  return fmt::format("---\napiVersion: v1\nkind: Pod\nmetadata: {{name: {}}}\nspec: {{{}}}\n", name,
                     spec);
}

// A PodGroup confined to one domain of `key`: a gang of `min_count`, or basic when it is 0.
std::string Group(const std::string& name, int min_count, const std::string& key = "rack",
                  int priority = 100) {
  const std::string policy =
      min_count > 0 ? fmt::format("{{gang: {{minCount: {}}}}}", min_count) : "{basic: {}}";
  return fmt::format(
      "---\napiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {{name: {}}}\n"
      "spec: {{schedulingPolicy: {}, priority: {}, schedulingConstraints: {{topology: [{{key: "
      "{}}}]}}}}\n",
      name, policy, priority, key);
}

std::string Pods(const std::string& prefix, const std::string& group, int count, int cpu,
                 int priority = 100) {
  std::string out;
  for (int i = 1; i <= count; ++i) {
    out += Pod(fmt::format("{}{}", prefix, i), group, cpu, "", priority);
  }
  return out;
}

// Each pending pod's node, or its status; an evicted pod's "evicted".
std::map<std::string, std::string> Placed(const SimulationResult& r) {
  std::map<std::string, std::string> out;
  for (const PodOutcome& o : r.pods) out[o.name] = o.node.value_or(o.status);
  for (const EvictedPod& e : r.evicted) out[e.name] = "evicted";
  return out;
}

// The racks of the named pods' nodes, where `rack_of` maps nodes to racks.
std::set<int> RacksOf(const SimulationResult& r, const std::vector<std::string>& pods,
                      const std::map<std::string, int>& rack_of) {
  std::set<int> racks;
  for (const PodOutcome& o : r.pods) {
    if (std::find(pods.begin(), pods.end(), o.name) == pods.end()) continue;
    racks.insert(o.node ? rack_of.at(*o.node) : -1);
  }
  return racks;
}

TEST(TopologyAwareTest, AGangGoesToTheOnlyRackItFitsIn) {
  // r2's n4 is full and r3 has one node: only r1 holds 3 pods.
  const std::string yaml = Node(1, 1) + Node(2, 1) + Node(3, 1) + Node(4, 2) + Node(5, 2) +
                           Node(6, 3) + Pod("full", "", 2, "n4") + Group("pg", 3) +
                           Pods("p", "pg", 3, 1);
  SimulationResult r = SimulateYaml(yaml, kGates);
  const std::map<std::string, int> racks = {{"n1", 1}, {"n2", 1}, {"n3", 1},
                                            {"n4", 2}, {"n5", 2}, {"n6", 3}};
  EXPECT_THAT(RacksOf(r, {"p1", "p2", "p3"}, racks), ElementsAre(1))
      << ::testing::PrintToString(Placed(r));
  // Without the gate, the constraint is not read: the pods spread by LeastAllocated, one a node,
  // across racks (three of the five free nodes cannot all be r1's when r1 is filled last).
  SimulationResult off = SimulateYaml(yaml, {.generic_workload = true});
  for (const PodOutcome& o : off.pods) EXPECT_EQ(o.status, "Scheduled") << o.name;
}

TEST(TopologyAwareTest, AGangThatFitsInNoRackStaysPendingAndSaysWhy) {
  const std::string yaml =
      Node(1, 1) + Node(2, 1) + Node(3, 2) + Node(4, 3) + Group("pg", 3) + Pods("p", "pg", 3, 2);
  SimulationResult r = SimulateYaml(yaml, kGates);
  ASSERT_EQ(r.pods.size(), 3u);
  for (const PodOutcome& o : r.pods) EXPECT_EQ(o.status, "Unschedulable") << o.name;
  // The first placement (r1) tells why: two fitted there, the third did not.
  const std::string group =
      "pod group is unschedulable, 0/3 placements are available, first placement status: "
      "minCount (3) cannot be satisfied: 2 scheduled, 0 remaining";
  EXPECT_THAT(r.pods[0].message, StartsWith("pod group is unschedulable, " + group));
  EXPECT_THAT(r.pods[1].message, StartsWith("pod group is unschedulable, " + group));
  // The third was tried on r1's two nodes alone.
  EXPECT_EQ(r.pods[2].message, "0/2 nodes are available: 2 Insufficient cpu.");
}

TEST(TopologyAwareTest, AGangGoesToTheRackItFillsMost) {
  // 3 of r1's 4 cpus (75) against 3 of r2's 6 (50); r3 holds only 2 pods.
  std::string yaml = Node(1, 1) + Node(2, 1) + Node(3, 2) + Node(4, 2) + Node(5, 2) + Node(6, 3) +
                     Group("pg", 3) + Pods("p", "pg", 3, 1);
  const std::map<std::string, int> racks = {{"n1", 1}, {"n2", 1}, {"n3", 2}, {"n4", 2},
                                            {"n5", 2}, {"n6", 3}, {"n7", 3}, {"n8", 3}};
  SimulationOptions explained = kGates;
  explained.explain = true;
  SimulationResult r = SimulateYaml(yaml, explained);
  EXPECT_THAT(RacksOf(r, {"p1", "p2", "p3"}, racks), ElementsAre(1));
  // --explain names the placement, and the nodes outside it.
  const std::string table = FormatTable(r, true);
  EXPECT_THAT(table, HasSubstr("  group default/pg: Scheduled (placement r1)\n"));
  EXPECT_THAT(table, HasSubstr("    4 node(s): not evaluated (outside the pod group's placement "
                               "r1)\n      n3, n4, n5, n6\n"));
  EXPECT_EQ(nlohmann::json::parse(FormatJson(r, true))["pods"][0]["groupCycle"]["placement"], "r1");
  // With pods already running: r2 would be 5 of 6 used, r1 3 of 4, r3 4 of 6.
  yaml = Node(1, 1) + Node(2, 1) + Node(3, 2) + Node(4, 2) + Node(5, 2) + Node(6, 3) + Node(7, 3) +
         Node(8, 3) + Pod("e1", "", 2, "n3") + Pod("e2", "", 1, "n8") + Group("pg", 3) +
         Pods("p", "pg", 3, 1);
  r = SimulateYaml(yaml, kGates);
  EXPECT_THAT(RacksOf(r, {"p1", "p2", "p3"}, racks), ElementsAre(2));
}

TEST(TopologyAwareTest, GangsOneAfterTheOtherEachTakeARack) {
  // pg1's three 2-cpu pods fit only r1; pg2 then goes to r2, the rack left.
  std::string yaml = Node(1, 1) + Node(2, 1) + Node(3, 1) + Node(4, 2) + Node(5, 2) +
                     Group("pg1", 3) + Pods("a", "pg1", 3, 2) + Group("pg2", 2) +
                     Pods("b", "pg2", 2, 1);
  const std::map<std::string, int> racks = {{"n1", 1}, {"n2", 1}, {"n3", 1}, {"n4", 2}, {"n5", 2}};
  SimulationResult r = SimulateYaml(yaml, kGates);
  EXPECT_THAT(RacksOf(r, {"a1", "a2", "a3"}, racks), ElementsAre(1));
  EXPECT_THAT(RacksOf(r, {"b1", "b2"}, racks), ElementsAre(2));
  // One rack of two nodes: pg1 (3 pods) fits, pg2 (2 more) does not.
  yaml = Node(1, 1) + Node(2, 1) + Group("pg1", 3) + Pods("a", "pg1", 3, 1) + Group("pg2", 2) +
         Pods("b", "pg2", 2, 1);
  r = SimulateYaml(yaml, kGates);
  std::map<std::string, std::string> placed = Placed(r);
  EXPECT_NE(placed["a1"], "Unschedulable");
  EXPECT_EQ(placed["b1"], "Unschedulable");
  EXPECT_EQ(placed["b2"], "Unschedulable");
}

TEST(TopologyAwareTest, GangsOfDifferentKeysEachKeepToTheirOwn) {
  // r3 (n4-n6) is z2's; pg1 by rack, then pg2's 2-cpu pods by zone: only z1 has room left.
  const std::string yaml = Node(1, 1, 1) + Node(2, 2, 1) + Node(3, 2, 1) + Node(4, 3, 2) +
                           Node(5, 3, 2) + Node(6, 3, 2) + Group("pg1", 3) +
                           Pods("a", "pg1", 3, 2) + Group("pg2", 3, "zone") +
                           Pods("b", "pg2", 3, 2);
  SimulationResult r = SimulateYaml(yaml, kGates);
  const std::map<std::string, int> racks = {{"n1", 1}, {"n2", 2}, {"n3", 2},
                                            {"n4", 3}, {"n5", 3}, {"n6", 3}};
  EXPECT_THAT(RacksOf(r, {"a1", "a2", "a3"}, racks), ElementsAre(3));
  EXPECT_THAT(RacksOf(r, {"b1", "b2", "b3"}, racks), ElementsAre(1, 2));
}

TEST(TopologyAwareTest, AGangPreemptsInTheRackItWouldFillMost) {
  // Each rack is one pod short; with the low-priority pods gone, r1 would be filled 3 of 4 and
  // r2 3 of 6: the gang takes r1 and evicts r1's pod only.
  const std::string yaml = Node(1, 1) + Node(2, 1) + Node(3, 2) + Node(4, 2) + Node(5, 2) +
                           Node(6, 3) + Pod("low1", "", 2, "n1", 0) + Pod("low2", "", 2, "n3", 0) +
                           Pod("low3", "", 2, "n4", 0) + Group("pg", 3, "rack", 200) +
                           Pods("p", "pg", 3, 1, 200);
  SimulationResult r = SimulateYaml(yaml, kGates);
  const std::map<std::string, int> racks = {{"n1", 1}, {"n2", 1}, {"n3", 2},
                                            {"n4", 2}, {"n5", 2}, {"n6", 3}};
  EXPECT_THAT(RacksOf(r, {"p1", "p2", "p3"}, racks), ElementsAre(1))
      << ::testing::PrintToString(Placed(r));
  ASSERT_EQ(r.evicted.size(), 1u);
  EXPECT_EQ(r.evicted[0].name, "low1");
}

TEST(TopologyAwareTest, ABasicGroupStaysInTheRackOfItsFirstPods) {
  // Two racks of one node: two pods fit in either, the third in neither, as the group keeps to
  // the rack its pods are in.
  const std::string yaml = Node(1, 1) + Node(2, 2) + Group("pg", 0) + Pods("p", "pg", 3, 1);
  SimulationResult r = SimulateYaml(yaml, kGates);
  std::map<std::string, std::string> placed = Placed(r);
  EXPECT_EQ(placed["p1"], placed["p2"]);
  EXPECT_NE(placed["p1"], "Unschedulable");
  EXPECT_EQ(placed["p3"], "Unschedulable");
  EXPECT_EQ(r.pods[2].message, "0/1 nodes are available: 1 Insufficient cpu.");
}

TEST(TopologyAwareTest, NodesWithoutTheKeyAreNoPlacement) {
  const std::string yaml = Node(1, 1) + Group("pg", 1, "missing") + Pods("p", "pg", 1, 1);
  SimulationResult r = SimulateYaml(yaml, kGates);
  ASSERT_EQ(r.pods.size(), 1u);
  EXPECT_EQ(r.pods[0].status, "Unschedulable");
  EXPECT_THAT(r.pods[0].message, HasSubstr("no feasible placements found"));
}

}  // namespace
}  // namespace ksched::sim
