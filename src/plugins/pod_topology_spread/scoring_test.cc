// The cases of upstream's scoring_test.go (TestPodTopologySpreadScore,
// TestPreScoreStateEmptyNodes, TestPreScoreSkip), ported with the scores upstream expects, in
// upstream's builder vocabulary (test_builders.h). Cases that set matchLabelKeys with the
// feature gate off are left out: the gate is on in 1.36.
#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "src/plugins/pod_topology_spread/pod_topology_spread.h"
#include "src/plugins/pod_topology_spread/test_builders.h"
#include "src/testing/fake_handle.h"

namespace ksched::plugins::pod_topology_spread {
namespace {

using namespace testing;  // NOLINT: the builders of upstream's cases.
using ksched::testing::FakeHandle;

double Weight(int size) { return internal::GoLog(static_cast<double>(size + 2)); }

std::vector<const NodeInfo*> InfosOf(const FakeHandle& h, const std::vector<api::Node>& nodes) {
  std::vector<const NodeInfo*> out;
  out.reserve(nodes.size());
  for (const api::Node& n : nodes) out.push_back(h.snapshot().Get(n.metadata.name));
  return out;
}

// --- Score and NormalizeScore -------------------------------------------------------------------

struct ScoreCase {
  std::string name;
  api::Pod pod;
  std::vector<api::Pod> existing_pods;
  std::vector<api::Node> nodes;         // Feasible.
  std::vector<api::Node> failed_nodes;  // In the cluster, not feasible.
  std::vector<Obj> objs;
  std::vector<std::pair<std::string, int64_t>> want;
};

// Upstream's table runs with the System defaults.
TEST(PodTopologySpreadScoreTest, Scores) {
  const std::vector<ScoreCase> cases = {
      //   left out: "matchLabelKeys ignored when feature gate disabled" (sets matchLabelKeys with
      //   the feature gate off)
      {.name = "one constraint on node, no existing pods",
       .pod =
           P().Name("p")
               .Label("foo", "")
               .SpreadConstraint(1, kHostname, "ScheduleAnyway", FooSelector(), nil, nil, nil, nil)
               .Obj(),
       .existing_pods = {},
       .nodes = {N().Name("node-a").Label(kHostname, "node-a").Obj(),
                 N().Name("node-b").Label(kHostname, "node-b").Obj()},
       .failed_nodes = {},
       .objs = {},
       .want = {{"node-a", 100}, {"node-b", 100}}},
      {.name = "one constraint on node, only one node is candidate",
       .pod =
           P().Name("p")
               .Label("foo", "")
               .SpreadConstraint(1, kHostname, "ScheduleAnyway", FooSelector(), nil, nil, nil, nil)
               .Obj(),
       .existing_pods = {P().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-b1").Node("node-b").Label("foo", "").Obj()},
       .nodes = {N().Name("node-a").Label(kHostname, "node-a").Obj()},
       .failed_nodes = {N().Name("node-b").Label(kHostname, "node-b").Obj()},
       .objs = {},
       .want = {{"node-a", 100}}},
      {.name = "one constraint on node, all nodes have the same number of matching pods",
       .pod =
           P().Name("p")
               .Label("foo", "")
               .SpreadConstraint(1, kHostname, "ScheduleAnyway", FooSelector(), nil, nil, nil, nil)
               .Obj(),
       .existing_pods = {P().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-b1").Node("node-b").Label("foo", "").Obj()},
       .nodes = {N().Name("node-a").Label(kHostname, "node-a").Obj(),
                 N().Name("node-b").Label(kHostname, "node-b").Obj()},
       .failed_nodes = {},
       .objs = {},
       .want = {{"node-a", 100}, {"node-b", 100}}},
      {.name = "one constraint on node, all 4 nodes are candidates",
       .pod =
           P().Name("p")
               .Label("foo", "")
               .SpreadConstraint(1, kHostname, "ScheduleAnyway", FooSelector(), nil, nil, nil, nil)
               .Obj(),
       .existing_pods = {P().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
                         P().Name("p-d1").Node("node-d").Label("foo", "").Obj(),
                         P().Name("p-d2").Node("node-d").Label("foo", "").Obj(),
                         P().Name("p-d3").Node("node-d").Label("foo", "").Obj()},
       .nodes = {N().Name("node-a").Label(kHostname, "node-a").Obj(),
                 N().Name("node-b").Label(kHostname, "node-b").Obj(),
                 N().Name("node-c").Label(kHostname, "node-c").Obj(),
                 N().Name("node-d").Label(kHostname, "node-d").Obj()},
       .failed_nodes = {},
       .objs = {},
       .want = {{"node-a", 20}, {"node-b", 60}, {"node-c", 100}, {"node-d", 0}}},
      {.name = "one constraint on node, null selector",
       .pod = P().Name("p")
                  .Label("foo", "")
                  .SpreadConstraint(1, kHostname, "ScheduleAnyway", nil, nil, nil, nil, nil)
                  .Obj(),
       .existing_pods = {P().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
                         P().Name("p-d1").Node("node-d").Label("foo", "").Obj(),
                         P().Name("p-d2").Node("node-d").Label("foo", "").Obj(),
                         P().Name("p-d3").Node("node-d").Label("foo", "").Obj()},
       .nodes = {N().Name("node-a").Label(kHostname, "node-a").Obj(),
                 N().Name("node-b").Label(kHostname, "node-b").Obj(),
                 N().Name("node-c").Label(kHostname, "node-c").Obj(),
                 N().Name("node-d").Label(kHostname, "node-d").Obj()},
       .failed_nodes = {},
       .objs = {},
       .want = {{"node-a", 100}, {"node-b", 100}, {"node-c", 100}, {"node-d", 100}}},
      {.name = "one constraint on node, all 4 nodes are candidates, maxSkew=2",
       .pod =
           P().Name("p")
               .Label("foo", "")
               .SpreadConstraint(2, kHostname, "ScheduleAnyway", FooSelector(), nil, nil, nil, nil)
               .Obj(),
       .existing_pods = {P().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
                         P().Name("p-d1").Node("node-d").Label("foo", "").Obj(),
                         P().Name("p-d2").Node("node-d").Label("foo", "").Obj(),
                         P().Name("p-d3").Node("node-d").Label("foo", "").Obj()},
       .nodes = {N().Name("node-a").Label(kHostname, "node-a").Obj(),
                 N().Name("node-b").Label(kHostname, "node-b").Obj(),
                 N().Name("node-c").Label(kHostname, "node-c").Obj(),
                 N().Name("node-d").Label(kHostname, "node-d").Obj()},
       .failed_nodes = {},
       .objs = {},
       .want = {{"node-a", 33}, {"node-b", 66}, {"node-c", 100}, {"node-d", 16}}},
      {.name = "one constraint on node, all 4 nodes are candidates, maxSkew=3",
       .pod =
           P().Name("p")
               .Label("foo", "")
               .SpreadConstraint(3, kHostname, "ScheduleAnyway", FooSelector(), nil, nil, nil, nil)
               .Obj(),
       .existing_pods = {P().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-a3").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-a4").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
                         P().Name("p-b2").Node("node-b").Label("foo", "").Obj(),
                         P().Name("p-b3").Node("node-b").Label("foo", "").Obj(),
                         P().Name("p-c1").Node("node-c").Label("foo", "").Obj(),
                         P().Name("p-c2").Node("node-c").Label("foo", "").Obj(),
                         P().Name("p-d1").Node("node-d").Label("foo", "").Obj()},
       .nodes = {N().Name("node-a").Label(kHostname, "node-a").Obj(),
                 N().Name("node-b").Label(kHostname, "node-b").Obj(),
                 N().Name("node-c").Label(kHostname, "node-c").Obj(),
                 N().Name("node-d").Label(kHostname, "node-d").Obj()},
       .failed_nodes = {},
       .objs = {},
       .want = {{"node-a", 44}, {"node-b", 66}, {"node-c", 77}, {"node-d", 100}}},
      {.name = "system defaulting, nodes don't have zone, pods match service",
       .pod = P().Name("p").Label("foo", "").Obj(),
       .existing_pods = {P().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-a3").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-a4").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
                         P().Name("p-b2").Node("node-b").Label("foo", "").Obj(),
                         P().Name("p-b3").Node("node-b").Label("foo", "").Obj(),
                         P().Name("p-c1").Node("node-c").Label("foo", "").Obj(),
                         P().Name("p-c2").Node("node-c").Label("foo", "").Obj(),
                         P().Name("p-d1").Node("node-d").Label("foo", "").Obj()},
       .nodes = {N().Name("node-a").Label(kHostname, "node-a").Obj(),
                 N().Name("node-b").Label(kHostname, "node-b").Obj(),
                 N().Name("node-c").Label(kHostname, "node-c").Obj(),
                 N().Name("node-d").Label(kHostname, "node-d").Obj()},
       .failed_nodes = {},
       .objs = {Svc("", api::StringMap{{"foo", ""}})},
       .want = {{"node-a", 44}, {"node-b", 66}, {"node-c", 77}, {"node-d", 100}}},
      {.name = "one constraint on node, 3 out of 4 nodes are candidates",
       .pod =
           P().Name("p")
               .Label("foo", "")
               .SpreadConstraint(1, kHostname, "ScheduleAnyway", FooSelector(), nil, nil, nil, nil)
               .Obj(),
       .existing_pods = {P().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-a3").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-a4").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
                         P().Name("p-b2").Node("node-b").Label("foo", "").Obj(),
                         P().Name("p-x1").Node("node-x").Label("foo", "").Obj(),
                         P().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
                         P().Name("p-y2").Node("node-y").Label("foo", "").Obj(),
                         P().Name("p-y3").Node("node-y").Label("foo", "").Obj()},
       .nodes = {N().Name("node-a").Label(kHostname, "node-a").Obj(),
                 N().Name("node-b").Label(kHostname, "node-b").Obj(),
                 N().Name("node-x").Label(kHostname, "node-x").Obj()},
       .failed_nodes = {N().Name("node-y").Label(kHostname, "node-y").Obj()},
       .objs = {},
       .want = {{"node-a", 33}, {"node-b", 83}, {"node-x", 100}}},
      {.name = "one constraint on node, 3 out of 4 nodes are candidates, one node doesn't match "
               "topology key",
       .pod =
           P().Name("p")
               .Label("foo", "")
               .SpreadConstraint(1, kHostname, "ScheduleAnyway", FooSelector(), nil, nil, nil, nil)
               .Obj(),
       .existing_pods = {P().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-a3").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-a4").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
                         P().Name("p-b2").Node("node-b").Label("foo", "").Obj(),
                         P().Name("p-x1").Node("node-x").Label("foo", "").Obj(),
                         P().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
                         P().Name("p-y2").Node("node-y").Label("foo", "").Obj(),
                         P().Name("p-y3").Node("node-y").Label("foo", "").Obj()},
       .nodes = {N().Name("node-a").Label(kHostname, "node-a").Obj(),
                 N().Name("node-b").Label("n", "node-b").Obj(),
                 N().Name("node-x").Label(kHostname, "node-x").Obj()},
       .failed_nodes = {N().Name("node-y").Label(kHostname, "node-y").Obj()},
       .objs = {},
       .want = {{"node-a", 16}, {"node-b", 0}, {"node-x", 100}}},
      {.name = "one constraint on zone, 3 out of 4 nodes are candidates",
       .pod = P().Name("p")
                  .Label("foo", "")
                  .SpreadConstraint(1, "zone", "ScheduleAnyway", FooSelector(), nil, nil, nil, nil)
                  .Obj(),
       .existing_pods = {P().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-a3").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-a4").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
                         P().Name("p-b2").Node("node-b").Label("foo", "").Obj(),
                         P().Name("p-x1").Node("node-x").Label("foo", "").Obj(),
                         P().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
                         P().Name("p-y2").Node("node-y").Label("foo", "").Obj(),
                         P().Name("p-y3").Node("node-y").Label("foo", "").Obj()},
       .nodes = {N().Name("node-a").Label("zone", "zone1").Label(kHostname, "node-a").Obj(),
                 N().Name("node-b").Label("zone", "zone1").Label(kHostname, "node-b").Obj(),
                 N().Name("node-x").Label("zone", "zone2").Label(kHostname, "node-x").Obj()},
       .failed_nodes = {N().Name("node-y").Label("zone", "zone2").Label(kHostname, "node-y").Obj()},
       .objs = {},
       .want = {{"node-a", 75}, {"node-b", 75}, {"node-x", 100}}},
      {.name = "two Constraints on zone and node, 2 out of 4 nodes are candidates",
       .pod =
           P().Name("p")
               .Label("foo", "")
               .SpreadConstraint(1, "zone", "ScheduleAnyway", FooSelector(), nil, nil, nil, nil)
               .SpreadConstraint(1, kHostname, "ScheduleAnyway", FooSelector(), nil, nil, nil, nil)
               .Obj(),
       .existing_pods = {P().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
                         P().Name("p-x1").Node("node-x").Label("foo", "").Obj(),
                         P().Name("p-x2").Node("node-x").Label("foo", "").Obj(),
                         P().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
                         P().Name("p-y2").Node("node-y").Label("foo", "").Obj(),
                         P().Name("p-y3").Node("node-y").Label("foo", "").Obj(),
                         P().Name("p-y4").Node("node-y").Label("foo", "").Obj()},
       .nodes = {N().Name("node-a").Label("zone", "zone1").Label(kHostname, "node-a").Obj(),
                 N().Name("node-x").Label("zone", "zone2").Label(kHostname, "node-x").Obj()},
       .failed_nodes = {N().Name("node-b").Label("zone", "zone1").Label(kHostname, "node-b").Obj(),
                        N().Name("node-y").Label("zone", "zone2").Label(kHostname, "node-y").Obj()},
       .objs = {},
       .want = {{"node-a", 100}, {"node-x", 63}}},
      {.name = "two Constraints on zone, 2 out of 4 nodes are candidates",
       .pod = P().Name("p")
                  .Label("foo", "")
                  .Label("bar", "")
                  .SpreadConstraint(1, "zone", "ScheduleAnyway", FooSelector(), nil, nil, nil, nil)
                  .SpreadConstraint(1, "zone", "ScheduleAnyway", BarSelector(), nil, nil, nil, nil)
                  .Obj(),
       .existing_pods = {P().Name("p-a1").Node("node-a").Label("foo", "").Label("bar", "").Obj(),
                         P().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-b1").Node("node-b").Label("foo", "").Label("bar", "").Obj(),
                         P().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
                         P().Name("p-y2").Node("node-y").Label("foo", "").Label("bar", "").Obj(),
                         P().Name("p-y3").Node("node-y").Label("foo", "").Obj()},
       .nodes = {N().Name("node-a").Label("zone", "zone1").Obj(),
                 N().Name("node-x").Label("zone", "zone2").Obj()},
       .failed_nodes = {N().Name("node-b").Label("zone", "zone1").Obj(),
                        N().Name("node-y").Label("zone", "zone2").Obj()},
       .objs = {},
       .want = {{"node-a", 85}, {"node-x", 100}}},
      {.name = "two Constraints on zone and node, with different labelSelectors",
       .pod =
           P().Name("p")
               .Label("foo", "")
               .Label("bar", "")
               .SpreadConstraint(1, "zone", "ScheduleAnyway", FooSelector(), nil, nil, nil, nil)
               .SpreadConstraint(1, kHostname, "ScheduleAnyway", BarSelector(), nil, nil, nil, nil)
               .Obj(),
       .existing_pods = {P().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-b1").Node("node-b").Label("foo", "").Label("bar", "").Obj(),
                         P().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
                         P().Name("p-y2").Node("node-y").Label("bar", "").Obj()},
       .nodes = {N().Name("node-a").Label("zone", "zone1").Label(kHostname, "node-a").Obj(),
                 N().Name("node-b").Label("zone", "zone1").Label(kHostname, "node-b").Obj(),
                 N().Name("node-x").Label("zone", "zone2").Label(kHostname, "node-x").Obj(),
                 N().Name("node-y").Label("zone", "zone2").Label(kHostname, "node-y").Obj()},
       .failed_nodes = {},
       .objs = {},
       .want = {{"node-a", 60}, {"node-b", 20}, {"node-x", 100}, {"node-y", 60}}},
      {.name = "two Constraints on zone and node, with different labelSelectors, some nodes have 0 "
               "pods",
       .pod =
           P().Name("p")
               .Label("foo", "")
               .Label("bar", "")
               .SpreadConstraint(1, "zone", "ScheduleAnyway", FooSelector(), nil, nil, nil, nil)
               .SpreadConstraint(1, kHostname, "ScheduleAnyway", BarSelector(), nil, nil, nil, nil)
               .Obj(),
       .existing_pods = {P().Name("p-b1").Node("node-b").Label("bar", "").Obj(),
                         P().Name("p-x1").Node("node-x").Label("foo", "").Obj(),
                         P().Name("p-y1").Node("node-y").Label("foo", "").Label("bar", "").Obj()},
       .nodes = {N().Name("node-a").Label("zone", "zone1").Label(kHostname, "node-a").Obj(),
                 N().Name("node-b").Label("zone", "zone1").Label(kHostname, "node-b").Obj(),
                 N().Name("node-x").Label("zone", "zone2").Label(kHostname, "node-x").Obj(),
                 N().Name("node-y").Label("zone", "zone2").Label(kHostname, "node-y").Obj()},
       .failed_nodes = {},
       .objs = {},
       .want = {{"node-a", 100}, {"node-b", 60}, {"node-x", 40}, {"node-y", 0}}},
      {.name = "two Constraints on zone and node, with different labelSelectors, 3 out of 4 nodes "
               "are candidates",
       .pod =
           P().Name("p")
               .Label("foo", "")
               .Label("bar", "")
               .SpreadConstraint(1, "zone", "ScheduleAnyway", FooSelector(), nil, nil, nil, nil)
               .SpreadConstraint(1, kHostname, "ScheduleAnyway", BarSelector(), nil, nil, nil, nil)
               .Obj(),
       .existing_pods = {P().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-b1").Node("node-b").Label("foo", "").Label("bar", "").Obj(),
                         P().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
                         P().Name("p-y2").Node("node-y").Label("bar", "").Obj()},
       .nodes = {N().Name("node-a").Label("zone", "zone1").Label(kHostname, "node-a").Obj(),
                 N().Name("node-b").Label("zone", "zone1").Label(kHostname, "node-b").Obj(),
                 N().Name("node-x").Label("zone", "zone2").Label(kHostname, "node-x").Obj()},
       .failed_nodes = {N().Name("node-y").Label("zone", "zone2").Label(kHostname, "node-y").Obj()},
       .objs = {},
       .want = {{"node-a", 50}, {"node-b", 25}, {"node-x", 100}}},
      {.name = "existing pods in a different namespace do not count",
       .pod =
           P().Name("p")
               .Label("foo", "")
               .SpreadConstraint(1, kHostname, "ScheduleAnyway", FooSelector(), nil, nil, nil, nil)
               .Obj(),
       .existing_pods = {P().Name("p-a1").Namespace("ns1").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
                         P().Name("p-b2").Node("node-b").Label("foo", "").Obj()},
       .nodes = {N().Name("node-a").Label(kHostname, "node-a").Obj(),
                 N().Name("node-b").Label(kHostname, "node-b").Obj()},
       .failed_nodes = {},
       .objs = {},
       .want = {{"node-a", 100}, {"node-b", 33}}},
      {.name = "terminating Pods should be excluded",
       .pod =
           P().Name("p")
               .Label("foo", "")
               .SpreadConstraint(1, kHostname, "ScheduleAnyway", FooSelector(), nil, nil, nil, nil)
               .Obj(),
       .existing_pods = {P().Name("p-a").Node("node-a").Label("foo", "").Terminating().Obj(),
                         P().Name("p-b").Node("node-b").Label("foo", "").Obj()},
       .nodes = {N().Name("node-a").Label(kHostname, "node-a").Obj(),
                 N().Name("node-b").Label(kHostname, "node-b").Obj()},
       .failed_nodes = {},
       .objs = {},
       .want = {{"node-a", 100}, {"node-b", 0}}},
      {.name = "minDomains has no effect when ScheduleAnyway",
       .pod = P().Name("p")
                  .Label("foo", "")
                  .SpreadConstraint(2, "node", "ScheduleAnyway", FooSelector(), 10, nil, nil, nil)
                  .Obj(),
       .existing_pods = {P().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
                         P().Name("p-b2").Node("node-b").Label("foo", "").Obj(),
                         P().Name("p-c1").Node("node-c").Label("foo", "").Obj()},
       .nodes = {N().Name("node-a").Label("node", "node-a").Obj(),
                 N().Name("node-b").Label("node", "node-b").Obj(),
                 N().Name("node-c").Label("node", "node-c").Obj()},
       .failed_nodes = {},
       .objs = {},
       .want = {{"node-a", 75}, {"node-b", 75}, {"node-c", 100}}},
      {.name = "NodeAffinityPolicy honoed with labelSelectors",
       .pod = P().Name("p")
                  .Label("foo", "")
                  .NodeSelector(api::StringMap{{"foo", ""}})
                  .SpreadConstraint(1, "node", "ScheduleAnyway", FooSelector(), nil, nil, nil, nil)
                  .Obj(),
       .existing_pods = {P().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
                         P().Name("p-c1").Node("node-c").Label("foo", "").Obj()},
       .nodes = {N().Name("node-a").Label("node", "node-a").Label("foo", "").Obj(),
                 N().Name("node-b").Label("node", "node-b").Label("foo", "").Obj(),
                 N().Name("node-c").Label("node", "node-c").Obj()},
       .failed_nodes = {},
       .objs = {},
       .want = {{"node-a", 0}, {"node-b", 33}, {"node-c", 100}}},
      {.name = "NodeAffinityPolicy ignored with labelSelectors",
       .pod =
           P().Name("p")
               .Label("foo", "")
               .NodeSelector(api::StringMap{{"foo", ""}})
               .SpreadConstraint(1, "node", "ScheduleAnyway", FooSelector(), nil, kIgnore, nil, nil)
               .Obj(),
       .existing_pods = {P().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
                         P().Name("p-c1").Node("node-c").Label("foo", "").Obj()},
       .nodes = {N().Name("node-a").Label("node", "node-a").Label("foo", "").Obj(),
                 N().Name("node-b").Label("node", "node-b").Label("foo", "").Obj(),
                 N().Name("node-c").Label("node", "node-c").Obj()},
       .failed_nodes = {},
       .objs = {},
       .want = {{"node-a", 66}, {"node-b", 100}, {"node-c", 100}}},
      {.name = "NodeAffinityPolicy honoed with nodeAffinity",
       .pod = P().Name("p")
                  .Label("foo", "")
                  .NodeAffinityIn("foo", Strings{""}, kMatchExpressions)
                  .SpreadConstraint(1, "node", "ScheduleAnyway", FooSelector(), nil, nil, nil, nil)
                  .Obj(),
       .existing_pods = {P().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
                         P().Name("p-c1").Node("node-c").Label("foo", "").Obj()},
       .nodes = {N().Name("node-a").Label("node", "node-a").Label("foo", "").Obj(),
                 N().Name("node-b").Label("node", "node-b").Label("foo", "").Obj(),
                 N().Name("node-c").Label("node", "node-c").Obj()},
       .failed_nodes = {},
       .objs = {},
       .want = {{"node-a", 0}, {"node-b", 33}, {"node-c", 100}}},
      {.name = "NodeAffinityPolicy ignored with nodeAffinity",
       .pod =
           P().Name("p")
               .Label("foo", "")
               .NodeAffinityIn("foo", Strings{""}, kMatchExpressions)
               .SpreadConstraint(1, "node", "ScheduleAnyway", FooSelector(), nil, kIgnore, nil, nil)
               .Obj(),
       .existing_pods = {P().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
                         P().Name("p-c1").Node("node-c").Label("foo", "").Obj()},
       .nodes = {N().Name("node-a").Label("node", "node-a").Label("foo", "").Obj(),
                 N().Name("node-b").Label("node", "node-b").Label("foo", "").Obj(),
                 N().Name("node-c").Label("node", "node-c").Obj()},
       .failed_nodes = {},
       .objs = {},
       .want = {{"node-a", 66}, {"node-b", 100}, {"node-c", 100}}},
      {.name = "NodeTaintsPolicy honored",
       .pod =
           P().Name("p")
               .Label("foo", "")
               .SpreadConstraint(1, "node", "ScheduleAnyway", FooSelector(), nil, nil, kHonor, nil)
               .Obj(),
       .existing_pods = {P().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
                         P().Name("p-c1").Node("node-c").Label("foo", "").Obj()},
       .nodes = {N().Name("node-a").Label("node", "node-a").Obj(),
                 N().Name("node-b").Label("node", "node-b").Obj(),
                 N().Name("node-c").Label("node", "node-c").Taints(UnschedulableTaints()).Obj()},
       .failed_nodes = {},
       .objs = {},
       .want = {{"node-a", 0}, {"node-b", 33}, {"node-c", 100}}},
      {.name = "NodeTaintsPolicy ignored",
       .pod = P().Name("p")
                  .Label("foo", "")
                  .SpreadConstraint(1, "node", "ScheduleAnyway", FooSelector(), nil, nil, nil, nil)
                  .Obj(),
       .existing_pods = {P().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
                         P().Name("p-c1").Node("node-c").Label("foo", "").Obj()},
       .nodes = {N().Name("node-a").Label("node", "node-a").Obj(),
                 N().Name("node-b").Label("node", "node-b").Obj(),
                 N().Name("node-c").Label("node", "node-c").Taints(UnschedulableTaints()).Obj()},
       .failed_nodes = {},
       .objs = {},
       .want = {{"node-a", 66}, {"node-b", 100}, {"node-c", 100}}},
      {.name = "matchLabelKeys ANDed with LabelSelector when LabelSelector is empty",
       .pod = P().Name("p")
                  .Label("foo", "")
                  .Label("bar", "")
                  .SpreadConstraint(1, "zone", "ScheduleAnyway", LS().Obj(), nil, nil, nil,
                                    Strings{"foo"})
                  .SpreadConstraint(1, kHostname, "ScheduleAnyway", LS().Obj(), nil, nil, nil,
                                    Strings{"bar"})
                  .Obj(),
       .existing_pods = {P().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-b1").Node("node-b").Label("foo", "").Label("bar", "").Obj(),
                         P().Name("p-y1").Node("node-c").Label("foo", "").Obj(),
                         P().Name("p-y2").Node("node-c").Label("bar", "").Obj()},
       .nodes = {N().Name("node-a").Label("zone", "zone1").Label(kHostname, "node-a").Obj(),
                 N().Name("node-b").Label("zone", "zone1").Label(kHostname, "node-b").Obj(),
                 N().Name("node-c").Label("zone", "zone2").Label(kHostname, "node-c").Obj(),
                 N().Name("node-d").Label("zone", "zone2").Label(kHostname, "node-d").Obj()},
       .failed_nodes = {},
       .objs = {},
       .want = {{"node-a", 60}, {"node-b", 20}, {"node-c", 60}, {"node-d", 100}}},
      {.name = "matchLabelKeys ANDed with LabelSelector when LabelSelector isn't empty",
       .pod = P().Name("p")
                  .Label("foo", "")
                  .Label("bar", "")
                  .Label("baz", "")
                  .SpreadConstraint(1, "zone", "ScheduleAnyway", FooSelector(), nil, nil, nil, nil)
                  .SpreadConstraint(1, kHostname, "ScheduleAnyway", BarSelector(), nil, nil, nil,
                                    Strings{"baz"})
                  .Obj(),
       .existing_pods = {P().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-b1")
                             .Node("node-b")
                             .Label("foo", "")
                             .Label("bar", "")
                             .Label("baz", "")
                             .Obj(),
                         P().Name("p-c1").Node("node-c").Label("foo", "").Obj(),
                         P().Name("p-c2").Node("node-c").Label("bar", "").Obj(),
                         P().Name("p-d3").Node("node-c").Label("bar", "").Label("baz", "").Obj()},
       .nodes = {N().Name("node-a").Label("zone", "zone1").Label(kHostname, "node-a").Obj(),
                 N().Name("node-b").Label("zone", "zone1").Label(kHostname, "node-b").Obj(),
                 N().Name("node-c").Label("zone", "zone2").Label(kHostname, "node-c").Obj(),
                 N().Name("node-d").Label("zone", "zone2").Label(kHostname, "node-d").Obj()},
       .failed_nodes = {},
       .objs = {},
       .want = {{"node-a", 60}, {"node-b", 20}, {"node-c", 60}, {"node-d", 100}}}};
  for (const ScoreCase& c : cases) {
    SCOPED_TRACE(c.name);
    std::vector<api::Node> all = c.nodes;
    all.insert(all.end(), c.failed_nodes.begin(), c.failed_nodes.end());
    FakeHandle h(all, c.existing_pods);
    AddObjects(h, c.objs);
    PodTopologySpread pl(PodTopologySpreadArgs{}, h);
    CycleState state;
    const std::vector<const NodeInfo*> feasible = InfosOf(h, c.nodes);
    Status s = pl.PreScore(state, c.pod, feasible);
    ASSERT_TRUE(s.ok()) << s.Message();
    NodeScoreList scores;
    for (const NodeInfo* ni : feasible) {
      NodeScore ns{ni, 0};
      ASSERT_TRUE(pl.Score(state, c.pod, *ni, &ns.score).ok());
      scores.push_back(ns);
    }
    ASSERT_TRUE(pl.NormalizeScore(state, c.pod, scores).ok());
    std::vector<std::pair<std::string, int64_t>> got;
    for (const NodeScore& ns : scores) got.emplace_back(ns.node->name(), ns.score);
    EXPECT_EQ(got, c.want);
  }
}

// --- PreScore state -----------------------------------------------------------------------------

struct WantPreScoreState {
  std::vector<WantConstraint> constraints;
  std::set<std::string> ignored_nodes;
  std::vector<Counts> counts;
  std::vector<double> weights;
};

struct PreScoreStateCase {
  std::string name;
  api::Pod pod;
  std::vector<api::Node> nodes;
  std::vector<Obj> objs;
  bool system_defaulting;
  std::vector<api::TopologySpreadConstraint> default_constraints;
  WantPreScoreState want;
};

TEST(PodTopologySpreadScoreTest, PreScoreState) {
  const std::vector<PreScoreStateCase> cases = {
      {.name = "normal case",
       .pod =
           P().Name("p")
               .Label("foo", "")
               .SpreadConstraint(1, "zone", "ScheduleAnyway", FooSelector(), nil, nil, nil, nil)
               .SpreadConstraint(1, kHostname, "ScheduleAnyway", FooSelector(), nil, nil, nil, nil)
               .Obj(),
       .nodes = {N().Name("node-a").Label("zone", "zone1").Label(kHostname, "node-a").Obj(),
                 N().Name("node-b").Label("zone", "zone1").Label(kHostname, "node-b").Obj(),
                 N().Name("node-x").Label("zone", "zone2").Label(kHostname, "node-x").Obj()},
       .objs = {},
       .system_defaulting = false,
       .default_constraints = {},
       .want = {{{1, "zone", 1, kHonor, kIgnore}, {1, kHostname, 1, kHonor, kIgnore}},
                {},
                {{{"zone1", 0}, {"zone2", 0}}, {}},
                {Weight(2), Weight(3)}}},
      {.name = "null selector",
       .pod = P().Name("p")
                  .Label("foo", "")
                  .SpreadConstraint(1, "zone", "ScheduleAnyway", nil, nil, nil, nil, nil)
                  .Obj(),
       .nodes = {N().Name("node-a").Label("zone", "zone1").Label(kHostname, "node-a").Obj(),
                 N().Name("node-b").Label("zone", "zone1").Label(kHostname, "node-b").Obj(),
                 N().Name("node-x").Label("zone", "zone2").Label(kHostname, "node-x").Obj()},
       .objs = {},
       .system_defaulting = false,
       .default_constraints = {},
       .want =
           {{{1, "zone", 1, kHonor, kIgnore}}, {}, {{{"zone1", 0}, {"zone2", 0}}}, {Weight(2)}}},
      {.name = "node-x doesn't have label zone",
       .pod =
           P().Name("p")
               .Label("foo", "")
               .SpreadConstraint(1, "zone", "ScheduleAnyway", FooSelector(), nil, nil, nil, nil)
               .SpreadConstraint(1, kHostname, "ScheduleAnyway", BarSelector(), nil, nil, nil, nil)
               .Obj(),
       .nodes = {N().Name("node-a").Label("zone", "zone1").Label(kHostname, "node-a").Obj(),
                 N().Name("node-b").Label("zone", "zone1").Label(kHostname, "node-b").Obj(),
                 N().Name("node-x").Label(kHostname, "node-x").Obj()},
       .objs = {},
       .system_defaulting = false,
       .default_constraints = {},
       .want = {{{1, "zone", 1, kHonor, kIgnore}, {1, kHostname, 1, kHonor, kIgnore}},
                {"node-x"},
                {{{"zone1", 0}}, {}},
                {Weight(1), Weight(2)}}},
      {.name = "system default constraints and a replicaset",
       .pod = P().Name("p")
                  .Namespace("default")
                  .Label("foo", "tar")
                  .Label("baz", "sup")
                  .OwnerReference("rs1", "apps/v1", "ReplicaSet")
                  .Obj(),
       .nodes = {N().Name("node-a").Label(kHostname, "node-a").Label(kZone, "mars").Obj(),
                 N().Name("node-b").Label(kHostname, "node-b").Label(kZone, "mars").Obj(),
                 N().Name("node-c").Label(kHostname, "node-c").Obj(),
                 N().Name("node-d").Label(kHostname, "node-d").Obj()},
       .objs = {RS("default", "rs1", FooSelector())},
       .system_defaulting = true,
       .default_constraints = {},
       .want = {{{3, kHostname, 1, kHonor, kIgnore}, {5, kZone, 1, kHonor, kIgnore}},
                {},
                {{}, {{"mars", 0}, {"", 0}}},
                {Weight(4), Weight(2)}}},
      {.name = "default constraints and a replicaset",
       .pod = P().Name("p")
                  .Namespace("default")
                  .Label("foo", "tar")
                  .Label("baz", "sup")
                  .OwnerReference("rs1", "apps/v1", "ReplicaSet")
                  .Obj(),
       .nodes = {N().Name("node-a")
                     .Label("rack", "rack1")
                     .Label(kHostname, "node-a")
                     .Label("planet", "mars")
                     .Obj()},
       .objs = {RS("default", "rs1", FooSelector())},
       .system_defaulting = false,
       .default_constraints =
           {{.max_skew = 1, .topology_key = kHostname, .when_unsatisfiable = "ScheduleAnyway"},
            {.max_skew = 2, .topology_key = "rack", .when_unsatisfiable = "DoNotSchedule"},
            {.max_skew = 2, .topology_key = "planet", .when_unsatisfiable = "ScheduleAnyway"}},
       .want = {{{1, kHostname, 1, kHonor, kIgnore}, {2, "planet", 1, kHonor, kIgnore}},
                {},
                {{}, {{"mars", 0}}},
                {Weight(1), Weight(1)}}},
      {.name = "default constraints and a replicaset, but pod has constraints",
       .pod = P().Name("p")
                  .Namespace("default")
                  .Label("foo", "bar")
                  .Label("baz", "sup")
                  .OwnerReference("rs1", "apps/v1", "ReplicaSet")
                  .SpreadConstraint(1, "zone", "DoNotSchedule", BarSelector(), nil, nil, nil, nil)
                  .SpreadConstraint(2, "planet", "ScheduleAnyway", LS().Label("baz", "sup").Obj(),
                                    nil, nil, nil, nil)
                  .Obj(),
       .nodes = {N().Name("node-a").Label("planet", "mars").Label("galaxy", "andromeda").Obj()},
       .objs = {RS("default", "rs1", FooSelector())},
       .system_defaulting = false,
       .default_constraints = {{.max_skew = 2,
                                .topology_key = "galaxy",
                                .when_unsatisfiable = "ScheduleAnyway"}},
       .want = {{{2, "planet", 1, kHonor, kIgnore}}, {}, {{{"mars", 0}}}, {Weight(1)}}},
      {.name = "NodeAffinityPolicy honored with labelSelectors",
       .pod = P().Name("p")
                  .Label("foo", "")
                  .NodeSelector(api::StringMap{{"foo", ""}})
                  .SpreadConstraint(1, "zone", "ScheduleAnyway", BarSelector(), nil, nil, nil, nil)
                  .Obj(),
       .nodes = {N().Name("node-a")
                     .Label("zone", "zone1")
                     .Label("foo", "")
                     .Label(kHostname, "node-a")
                     .Obj(),
                 N().Name("node-b")
                     .Label("zone", "zone1")
                     .Label("foo", "")
                     .Label(kHostname, "node-b")
                     .Obj(),
                 N().Name("node-x").Label("zone", "zone2").Label(kHostname, "node-x").Obj()},
       .objs = {},
       .system_defaulting = false,
       .default_constraints = {},
       .want =
           {{{1, "zone", 1, kHonor, kIgnore}}, {}, {{{"zone1", 0}, {"zone2", 0}}}, {Weight(2)}}},
      {.name = "NodeAffinityPolicy ignored with labelSelectors",
       .pod =
           P().Name("p")
               .Label("foo", "")
               .NodeSelector(api::StringMap{{"foo", ""}})
               .SpreadConstraint(1, "zone", "ScheduleAnyway", BarSelector(), nil, kIgnore, nil, nil)
               .Obj(),
       .nodes = {N().Name("node-a")
                     .Label("zone", "zone1")
                     .Label("foo", "")
                     .Label(kHostname, "node-a")
                     .Obj(),
                 N().Name("node-b")
                     .Label("zone", "zone1")
                     .Label("foo", "")
                     .Label(kHostname, "node-b")
                     .Obj(),
                 N().Name("node-x").Label("zone", "zone2").Label(kHostname, "node-x").Obj()},
       .objs = {},
       .system_defaulting = false,
       .default_constraints = {},
       .want =
           {{{1, "zone", 1, kIgnore, kIgnore}}, {}, {{{"zone1", 0}, {"zone2", 0}}}, {Weight(2)}}},
      {.name = "NodeAffinityPolicy honored with nodeAffinity",
       .pod = P().Name("p")
                  .Label("foo", "")
                  .NodeAffinityIn("foo", Strings{""}, kMatchExpressions)
                  .SpreadConstraint(1, "zone", "ScheduleAnyway", BarSelector(), nil, nil, nil, nil)
                  .Obj(),
       .nodes = {N().Name("node-a")
                     .Label("zone", "zone1")
                     .Label("foo", "")
                     .Label(kHostname, "node-a")
                     .Obj(),
                 N().Name("node-b")
                     .Label("zone", "zone1")
                     .Label("foo", "")
                     .Label(kHostname, "node-b")
                     .Obj(),
                 N().Name("node-x").Label("zone", "zone2").Label(kHostname, "node-x").Obj()},
       .objs = {},
       .system_defaulting = false,
       .default_constraints = {},
       .want =
           {{{1, "zone", 1, kHonor, kIgnore}}, {}, {{{"zone1", 0}, {"zone2", 0}}}, {Weight(2)}}},
      {.name = "NodeAffinityPolicy ignored with nodeAffinity",
       .pod =
           P().Name("p")
               .Label("foo", "")
               .NodeAffinityIn("foo", Strings{""}, kMatchExpressions)
               .SpreadConstraint(1, "zone", "ScheduleAnyway", BarSelector(), nil, kIgnore, nil, nil)
               .Obj(),
       .nodes = {N().Name("node-a")
                     .Label("zone", "zone1")
                     .Label("foo", "")
                     .Label(kHostname, "node-a")
                     .Obj(),
                 N().Name("node-b")
                     .Label("zone", "zone1")
                     .Label("foo", "")
                     .Label(kHostname, "node-b")
                     .Obj(),
                 N().Name("node-x").Label("zone", "zone2").Label(kHostname, "node-x").Obj()},
       .objs = {},
       .system_defaulting = false,
       .default_constraints = {},
       .want =
           {{{1, "zone", 1, kIgnore, kIgnore}}, {}, {{{"zone1", 0}, {"zone2", 0}}}, {Weight(2)}}},
      {.name = "NodeTaintsPolicy honored",
       .pod =
           P().Name("p")
               .Label("foo", "")
               .SpreadConstraint(1, "zone", "ScheduleAnyway", BarSelector(), nil, nil, kHonor, nil)
               .Obj(),
       .nodes = {N().Name("node-a")
                     .Label("zone", "zone1")
                     .Label("foo", "")
                     .Label(kHostname, "node-a")
                     .Obj(),
                 N().Name("node-b")
                     .Label("zone", "zone1")
                     .Label("foo", "")
                     .Label(kHostname, "node-b")
                     .Obj(),
                 N().Name("node-x")
                     .Label("zone", "zone2")
                     .Label(kHostname, "node-x")
                     .Taints(UnschedulableTaints())
                     .Obj()},
       .objs = {},
       .system_defaulting = false,
       .default_constraints = {},
       .want = {{{1, "zone", 1, kHonor, kHonor}}, {}, {{{"zone1", 0}, {"zone2", 0}}}, {Weight(2)}}},
      {.name = "NodeTaintsPolicy ignored",
       .pod = P().Name("p")
                  .Label("foo", "")
                  .SpreadConstraint(1, "zone", "ScheduleAnyway", BarSelector(), nil, nil, nil, nil)
                  .Obj(),
       .nodes = {N().Name("node-a")
                     .Label("zone", "zone1")
                     .Label("foo", "")
                     .Label(kHostname, "node-a")
                     .Obj(),
                 N().Name("node-b")
                     .Label("zone", "zone1")
                     .Label("foo", "")
                     .Label(kHostname, "node-b")
                     .Obj(),
                 N().Name("node-x")
                     .Label("zone", "zone2")
                     .Label(kHostname, "node-x")
                     .Taints(UnschedulableTaints())
                     .Obj()},
       .objs = {},
       .system_defaulting = false,
       .default_constraints = {},
       .want = {
           {{1, "zone", 1, kHonor, kIgnore}}, {}, {{{"zone1", 0}, {"zone2", 0}}}, {Weight(2)}}}};
  for (const PreScoreStateCase& c : cases) {
    SCOPED_TRACE(c.name);
    FakeHandle h(c.nodes);
    AddObjects(h, c.objs);
    PodTopologySpreadArgs args;
    if (!c.system_defaulting) {
      args = {.default_constraints = c.default_constraints,
              .defaulting_type = DefaultingType::kList};
    }
    PodTopologySpread pl(args, h);
    CycleState state;
    Status s = pl.PreScore(state, c.pod, h.snapshot().nodes());
    ASSERT_TRUE(s.ok()) << s.Message();
    const internal::PreScoreState* got = state.Read(internal::kPreScoreStateKey);
    ASSERT_NE(got, nullptr);
    EXPECT_EQ(ConstraintsOf(got->constraints), c.want.constraints);
    EXPECT_EQ(std::set<std::string>(got->ignored_nodes.begin(), got->ignored_nodes.end()),
              c.want.ignored_nodes);
    std::vector<Counts> counts;
    for (const auto& m : got->topology_value_to_pod_counts) counts.emplace_back(m.begin(), m.end());
    EXPECT_EQ(counts, c.want.counts);
    EXPECT_EQ(got->topology_normalizing_weight, c.want.weights);
  }
}

TEST(PodTopologySpreadScoreTest, PreScoreSkips) {
  struct Case {
    std::string name;
    api::Pod pod;
    std::vector<api::Node> nodes;
    std::vector<Obj> objs;
    PodTopologySpreadArgs args;
  };
  const PodTopologySpreadArgs planet_defaults = {
      .default_constraints = {{.max_skew = 2,
                               .topology_key = "planet",
                               .when_unsatisfiable = "ScheduleAnyway"}},
      .defaulting_type = DefaultingType::kList};
  const std::vector<Case> cases = {
      {"the pod doesn't have soft topology spread Constraints",
       P().Name("p").Namespace("default").Obj(),
       {N().Name("node-a").Label(kHostname, "node-a").Obj(),
        N().Name("node-b").Label(kHostname, "node-b").Obj()},
       {},
       {.defaulting_type = DefaultingType::kList}},
      {"default constraints and a replicaset that doesn't match",
       P().Name("p")
           .Namespace("default")
           .Label("foo", "bar")
           .Label("baz", "sup")
           .OwnerReference("rs2", "apps/v1", "ReplicaSet")
           .Obj(),
       {N().Name("node-a").Label("planet", "mars").Obj()},
       {RS("default", "rs1", LS().Exists("tar").Obj())},
       planet_defaults},
      {"no nodes in the snapshot",
       P().Name("p")
           .SpreadConstraint(1, "zone", "ScheduleAnyway", FooSelector(), nil, nil, nil, nil)
           .Obj(),
       {},
       {},
       {.defaulting_type = DefaultingType::kList}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    FakeHandle h(c.nodes);
    AddObjects(h, c.objs);
    PodTopologySpread pl(c.args, h);
    CycleState state;
    EXPECT_TRUE(pl.PreScore(state, c.pod, h.snapshot().nodes()).IsSkip());
  }
}

}  // namespace
}  // namespace ksched::plugins::pod_topology_spread
