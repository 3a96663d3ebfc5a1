// The cases of upstream's filtering_test.go (TestSingleConstraint, TestMultipleConstraints,
// TestPreFilterState, TestPreFilterStateAddPod, TestPreFilterStateRemovePod), ported with the
// expectations upstream states, in upstream's builder vocabulary (test_builders.h). Cases that
// set a non-default node inclusion policy or matchLabelKeys with the feature gate off are left
// out: 1.36 runs with both gates on (NodeInclusionPolicyInPodTopologySpread is locked on).
#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "src/plugins/pod_topology_spread/pod_topology_spread.h"
#include "src/plugins/pod_topology_spread/test_builders.h"
#include "src/testing/fake_handle.h"

namespace ksched::plugins::pod_topology_spread {
namespace {

using namespace testing;  // NOLINT: the builders of upstream's cases.
using ksched::testing::FakeHandle;

PodTopologySpreadArgs ListArgs(std::vector<api::TopologySpreadConstraint> defaults = {}) {
  return {.default_constraints = std::move(defaults), .defaulting_type = DefaultingType::kList};
}

// --- Filter -------------------------------------------------------------------------------------

struct FilterCase {
  std::string name;
  api::Pod pod;
  std::vector<api::Node> nodes;
  std::vector<api::Pod> existing_pods;
  std::map<std::string, Code> want;
};

void RunFilterCases(const std::vector<FilterCase>& cases) {
  for (const FilterCase& c : cases) {
    SCOPED_TRACE(c.name);
    FakeHandle h(c.nodes, c.existing_pods);
    PodTopologySpread pl(ListArgs(), h);
    CycleState state;
    PreFilterResult result;
    Status pre = pl.PreFilter(state, c.pod, h.snapshot().nodes(), &result);
    ASSERT_TRUE(pre.ok()) << pre.Message();
    for (const api::Node& node : c.nodes) {
      Status s = pl.Filter(state, c.pod, *h.snapshot().Get(node.metadata.name));
      EXPECT_EQ(s.code(), c.want.at(node.metadata.name))
          << node.metadata.name << ": " << s.Message();
    }
  }
}

TEST(PodTopologySpreadFilterTest, SingleConstraint) {
  const std::vector<FilterCase> cases = {
      {.name = "no existing pods",
       .pod = P().Name("p")
                  .Label("foo", "")
                  .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                  .Obj(),
       .nodes = {N().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
                 N().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
                 N().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
                 N().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj()},
       .existing_pods = {},
       .want = {{"node-a", Code::kSuccess},
                {"node-b", Code::kSuccess},
                {"node-x", Code::kSuccess},
                {"node-y", Code::kSuccess}}},
      {.name = "no existing pods, incoming pod doesn't match itself",
       .pod = P().Name("p")
                  .Label("foo", "")
                  .SpreadConstraint(1, "zone", "DoNotSchedule", BarSelector(), nil, nil, nil, nil)
                  .Obj(),
       .nodes = {N().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
                 N().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
                 N().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
                 N().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj()},
       .existing_pods = {},
       .want = {{"node-a", Code::kSuccess},
                {"node-b", Code::kSuccess},
                {"node-x", Code::kSuccess},
                {"node-y", Code::kSuccess}}},
      {.name = "existing pods in a different namespace do not count",
       .pod = P().Name("p")
                  .Label("foo", "")
                  .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                  .Obj(),
       .nodes = {N().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
                 N().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
                 N().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
                 N().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj()},
       .existing_pods = {P().Name("p-a1").Namespace("ns1").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-b1").Namespace("ns2").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-x1").Node("node-x").Label("foo", "").Obj(),
                         P().Name("p-y1").Node("node-y").Label("foo", "").Obj()},
       .want = {{"node-a", Code::kSuccess},
                {"node-b", Code::kSuccess},
                {"node-x", Code::kUnschedulable},
                {"node-y", Code::kUnschedulable}}},
      {.name = "existing pods do not match null selector",
       .pod = P().Name("p")
                  .Label("foo", "")
                  .SpreadConstraint(1, "zone", "DoNotSchedule", nil, nil, nil, nil, nil)
                  .Obj(),
       .nodes = {N().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
                 N().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
                 N().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
                 N().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj()},
       .existing_pods = {P().Name("p-x1").Node("node-x").Label("foo", "").Obj(),
                         P().Name("p-y1").Node("node-y").Label("foo", "").Obj()},
       .want = {{"node-a", Code::kSuccess},
                {"node-b", Code::kSuccess},
                {"node-x", Code::kSuccess},
                {"node-y", Code::kSuccess}}},
      {.name = "pods spread across zones as 3/3, all nodes fit",
       .pod = P().Name("p")
                  .Label("foo", "")
                  .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                  .Obj(),
       .nodes = {N().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
                 N().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
                 N().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
                 N().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj()},
       .existing_pods = {P().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
                         P().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
                         P().Name("p-y2").Node("node-y").Label("foo", "").Obj(),
                         P().Name("p-y3").Node("node-y").Label("foo", "").Obj()},
       .want = {{"node-a", Code::kSuccess},
                {"node-b", Code::kSuccess},
                {"node-x", Code::kSuccess},
                {"node-y", Code::kSuccess}}},
      {.name = "pods spread across zones as 1/2 due to absence of label 'zone' on node-b",
       .pod = P().Name("p")
                  .Label("foo", "")
                  .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                  .Obj(),
       .nodes = {N().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
                 N().Name("node-b").Label("zon", "zone1").Label("node", "node-b").Obj(),
                 N().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
                 N().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj()},
       .existing_pods = {P().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
                         P().Name("p-x1").Node("node-x").Label("foo", "").Obj(),
                         P().Name("p-y1").Node("node-y").Label("foo", "").Obj()},
       .want = {{"node-a", Code::kSuccess},
                {"node-b", Code::kUnschedulableAndUnresolvable},
                {"node-x", Code::kUnschedulable},
                {"node-y", Code::kUnschedulable}}},
      {.name = "pod cannot be scheduled as all nodes don't have label 'rack'",
       .pod = P().Name("p")
                  .Label("foo", "")
                  .SpreadConstraint(1, "rack", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                  .Obj(),
       .nodes = {N().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
                 N().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj()},
       .existing_pods = {},
       .want = {{"node-a", Code::kUnschedulableAndUnresolvable},
                {"node-x", Code::kUnschedulableAndUnresolvable}}},
      {.name = "pods spread across nodes as 2/1/0/3, only node-x fits",
       .pod = P().Name("p")
                  .Label("foo", "")
                  .SpreadConstraint(1, "node", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                  .Obj(),
       .nodes = {N().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
                 N().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
                 N().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
                 N().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj()},
       .existing_pods = {P().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
                         P().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
                         P().Name("p-y2").Node("node-y").Label("foo", "").Obj(),
                         P().Name("p-y3").Node("node-y").Label("foo", "").Obj()},
       .want = {{"node-a", Code::kUnschedulable},
                {"node-b", Code::kUnschedulable},
                {"node-x", Code::kSuccess},
                {"node-y", Code::kUnschedulable}}},
      {.name = "pods spread across nodes as 2/1/0/3, maxSkew is 2, node-b and node-x fit",
       .pod = P().Name("p")
                  .Label("foo", "")
                  .SpreadConstraint(2, "node", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                  .Obj(),
       .nodes = {N().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
                 N().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
                 N().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
                 N().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj()},
       .existing_pods = {P().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
                         P().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
                         P().Name("p-y2").Node("node-y").Label("foo", "").Obj(),
                         P().Name("p-y3").Node("node-y").Label("foo", "").Obj()},
       .want = {{"node-a", Code::kUnschedulable},
                {"node-b", Code::kSuccess},
                {"node-x", Code::kSuccess},
                {"node-y", Code::kUnschedulable}}},
      {.name = "pods spread across nodes as 2/1/0/3, but pod doesn't match itself",
       .pod = P().Name("p")
                  .Label("bar", "")
                  .SpreadConstraint(1, "node", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                  .Obj(),
       .nodes = {N().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
                 N().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
                 N().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
                 N().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj()},
       .existing_pods = {P().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
                         P().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
                         P().Name("p-y2").Node("node-y").Label("foo", "").Obj(),
                         P().Name("p-y3").Node("node-y").Label("foo", "").Obj()},
       .want = {{"node-a", Code::kUnschedulable},
                {"node-b", Code::kSuccess},
                {"node-x", Code::kSuccess},
                {"node-y", Code::kUnschedulable}}},
      {.name = "incoming pod has nodeAffinity, pods spread as 2/~1~/~0~/3, hence node-a fits",
       .pod = P().Name("p")
                  .Label("foo", "")
                  .NodeAffinityIn("node", Strings{"node-a", "node-y"}, kMatchExpressions)
                  .SpreadConstraint(1, "node", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                  .Obj(),
       .nodes = {N().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
                 N().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
                 N().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
                 N().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj()},
       .existing_pods = {P().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
                         P().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
                         P().Name("p-y2").Node("node-y").Label("foo", "").Obj(),
                         P().Name("p-y3").Node("node-y").Label("foo", "").Obj()},
       .want = {{"node-a", Code::kSuccess},
                {"node-b", Code::kSuccess},
                {"node-x", Code::kSuccess},
                {"node-y", Code::kUnschedulable}}},
      {.name = "terminating Pods should be excluded",
       .pod = P().Name("p")
                  .Label("foo", "")
                  .SpreadConstraint(1, "node", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                  .Obj(),
       .nodes = {N().Name("node-a").Label("node", "node-a").Obj(),
                 N().Name("node-b").Label("node", "node-b").Obj()},
       .existing_pods = {P().Name("p-a").Node("node-a").Label("foo", "").Terminating().Obj(),
                         P().Name("p-b").Node("node-b").Label("foo", "").Obj()},
       .want = {{"node-a", Code::kSuccess}, {"node-b", Code::kUnschedulable}}},
      {.name = "incoming pod has nodeAffinity, pods spread as 0/~2~/0/1, hence node-a fits",
       .pod = P().Name("p")
                  .Label("foo", "")
                  .NodeAffinityNotIn("node", Strings{"node-b"})
                  .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                  .Obj(),
       .nodes = {N().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
                 N().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
                 N().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
                 N().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj()},
       .existing_pods = {P().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
                         P().Name("p-b2").Node("node-b").Label("foo", "").Obj(),
                         P().Name("p-y1").Node("node-y").Label("foo", "").Obj()},
       .want = {{"node-a", Code::kSuccess},
                {"node-b", Code::kSuccess},
                {"node-x", Code::kUnschedulable},
                {"node-y", Code::kUnschedulable}}},
      {.name = "pods spread across nodes as 2/2/1, maxSkew is 2, and the number of domains < "
               "minDomains, then the third node fits",
       .pod = P().Name("p")
                  .Label("foo", "")
                  .SpreadConstraint(2, "node", "DoNotSchedule", FooSelector(), 4, nil, nil, nil)
                  .Obj(),
       .nodes = {N().Name("node-a").Label("node", "node-a").Obj(),
                 N().Name("node-b").Label("node", "node-b").Obj(),
                 N().Name("node-c").Label("node", "node-c").Obj()},
       .existing_pods = {P().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
                         P().Name("p-b2").Node("node-b").Label("foo", "").Obj(),
                         P().Name("p-c1").Node("node-c").Label("foo", "").Obj()},
       .want = {{"node-a", Code::kUnschedulable},
                {"node-b", Code::kUnschedulable},
                {"node-c", Code::kSuccess}}},
      {.name = "pods spread across nodes as 2/2/1, maxSkew is 2, and the number of domains > "
               "minDomains, then the all nodes fit",
       .pod = P().Name("p")
                  .Label("foo", "")
                  .SpreadConstraint(2, "node", "DoNotSchedule", FooSelector(), 2, nil, nil, nil)
                  .Obj(),
       .nodes = {N().Name("node-a").Label("node", "node-a").Obj(),
                 N().Name("node-b").Label("node", "node-b").Obj(),
                 N().Name("node-c").Label("node", "node-c").Obj()},
       .existing_pods = {P().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
                         P().Name("p-b2").Node("node-b").Label("foo", "").Obj(),
                         P().Name("p-c1").Node("node-c").Label("foo", "").Obj()},
       .want = {{"node-a", Code::kSuccess},
                {"node-b", Code::kSuccess},
                {"node-c", Code::kSuccess}}},
      {.name = "pods spread across zone as 2/1, maxSkew is 2 and the number of domains < "
               "minDomains, then the third and fourth nodes fit",
       .pod = P().Name("p")
                  .Label("foo", "")
                  .SpreadConstraint(2, "zone", "DoNotSchedule", FooSelector(), 3, nil, nil, nil)
                  .Obj(),
       .nodes = {N().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
                 N().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
                 N().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
                 N().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj()},
       .existing_pods = {P().Name("p-b1").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-b2").Node("node-b").Label("foo", "").Obj(),
                         P().Name("p-y1").Node("node-y").Label("foo", "").Obj()},
       .want = {{"node-a", Code::kUnschedulable},
                {"node-b", Code::kUnschedulable},
                {"node-x", Code::kSuccess},
                {"node-y", Code::kSuccess}}},
      {.name = "pods spread across zone as 2/1, maxSkew is 2 and the number of domains > "
               "minDomains, then the all nodes fit",
       .pod = P().Name("p")
                  .Label("foo", "")
                  .SpreadConstraint(2, "zone", "DoNotSchedule", FooSelector(), 1, nil, nil, nil)
                  .Obj(),
       .nodes = {N().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
                 N().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
                 N().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
                 N().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj()},
       .existing_pods = {P().Name("p-b1").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-b2").Node("node-b").Label("foo", "").Obj(),
                         P().Name("p-y1").Node("node-y").Label("foo", "").Obj()},
       .want = {{"node-a", Code::kSuccess},
                {"node-b", Code::kSuccess},
                {"node-x", Code::kSuccess},
                {"node-y", Code::kSuccess}}},
      {.name = "NodeAffinityPolicy honored with labelSelectors",
       .pod = P().Name("p")
                  .Label("foo", "")
                  .NodeSelector(api::StringMap{{"foo", ""}})
                  .SpreadConstraint(1, "node", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                  .Obj(),
       .nodes = {N().Name("node-a").Label("node", "node-a").Label("foo", "").Obj(),
                 N().Name("node-b").Label("node", "node-b").Label("foo", "").Obj(),
                 N().Name("node-x").Label("node", "node-x").Label("foo", "").Obj(),
                 N().Name("node-y").Label("node", "node-y").Obj()},
       .existing_pods = {P().Name("p-b1").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-b2").Node("node-b").Label("foo", "").Obj(),
                         P().Name("p-y1").Node("node-y").Label("foo", "").Obj()},
       .want = {{"node-a", Code::kUnschedulable},
                {"node-b", Code::kUnschedulable},
                {"node-x", Code::kSuccess},
                {"node-y", Code::kSuccess}}},
      {.name = "NodeAffinityPolicy ignored with labelSelectors",
       .pod =
           P().Name("p")
               .Label("foo", "")
               .NodeSelector(api::StringMap{{"foo", ""}})
               .SpreadConstraint(1, "node", "DoNotSchedule", FooSelector(), nil, kIgnore, nil, nil)
               .Obj(),
       .nodes = {N().Name("node-a").Label("node", "node-a").Label("foo", "").Obj(),
                 N().Name("node-b").Label("node", "node-b").Label("foo", "").Obj(),
                 N().Name("node-x").Label("node", "node-x").Label("foo", "").Obj(),
                 N().Name("node-y").Label("node", "node-y").Obj()},
       .existing_pods = {P().Name("p-b1").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-b2").Node("node-b").Label("foo", "").Obj(),
                         P().Name("p-y1").Node("node-y").Label("foo", "").Obj()},
       .want = {{"node-a", Code::kUnschedulable},
                {"node-b", Code::kUnschedulable},
                {"node-x", Code::kSuccess},
                {"node-y", Code::kUnschedulable}}},
      {.name = "NodeAffinityPolicy honored with nodeAffinity",
       .pod = P().Name("p")
                  .Label("foo", "")
                  .NodeAffinityIn("foo", Strings{""}, kMatchExpressions)
                  .SpreadConstraint(1, "node", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                  .Obj(),
       .nodes = {N().Name("node-a").Label("node", "node-a").Label("foo", "").Obj(),
                 N().Name("node-b").Label("node", "node-b").Label("foo", "").Obj(),
                 N().Name("node-x").Label("node", "node-x").Label("foo", "").Obj(),
                 N().Name("node-y").Label("node", "node-y").Obj()},
       .existing_pods = {P().Name("p-b1").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-b2").Node("node-b").Label("foo", "").Obj(),
                         P().Name("p-y1").Node("node-y").Label("foo", "").Obj()},
       .want = {{"node-a", Code::kUnschedulable},
                {"node-b", Code::kUnschedulable},
                {"node-x", Code::kSuccess},
                {"node-y", Code::kSuccess}}},
      {.name = "NodeAffinityPolicy ignored with labelSelectors",
       .pod =
           P().Name("p")
               .Label("foo", "")
               .NodeAffinityIn("foo", Strings{""}, kMatchExpressions)
               .SpreadConstraint(1, "node", "DoNotSchedule", FooSelector(), nil, kIgnore, nil, nil)
               .Obj(),
       .nodes = {N().Name("node-a").Label("node", "node-a").Label("foo", "").Obj(),
                 N().Name("node-b").Label("node", "node-b").Label("foo", "").Obj(),
                 N().Name("node-x").Label("node", "node-x").Label("foo", "").Obj(),
                 N().Name("node-y").Label("node", "node-y").Obj()},
       .existing_pods = {P().Name("p-b1").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-b2").Node("node-b").Label("foo", "").Obj(),
                         P().Name("p-y1").Node("node-y").Label("foo", "").Obj()},
       .want = {{"node-a", Code::kUnschedulable},
                {"node-b", Code::kUnschedulable},
                {"node-x", Code::kSuccess},
                {"node-y", Code::kUnschedulable}}},
      {.name = "NodeTaintsPolicy honored",
       .pod =
           P().Name("p")
               .Label("foo", "")
               .SpreadConstraint(1, "node", "DoNotSchedule", FooSelector(), nil, nil, kHonor, nil)
               .Obj(),
       .nodes = {N().Name("node-a").Label("node", "node-a").Label("foo", "").Obj(),
                 N().Name("node-b").Label("node", "node-b").Label("foo", "").Obj(),
                 N().Name("node-x").Label("node", "node-x").Label("foo", "").Obj(),
                 N().Name("node-y").Label("node", "node-y").Taints(UnschedulableTaints()).Obj()},
       .existing_pods = {P().Name("p-b1").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-b2").Node("node-b").Label("foo", "").Obj(),
                         P().Name("p-y1").Node("node-y").Label("foo", "").Obj()},
       .want = {{"node-a", Code::kUnschedulable},
                {"node-b", Code::kUnschedulable},
                {"node-x", Code::kSuccess},
                {"node-y", Code::kSuccess}}},
      {.name = "NodeTaintsPolicy ignored",
       .pod = P().Name("p")
                  .Label("foo", "")
                  .SpreadConstraint(1, "node", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                  .Obj(),
       .nodes = {N().Name("node-a").Label("node", "node-a").Label("foo", "").Obj(),
                 N().Name("node-b").Label("node", "node-b").Label("foo", "").Obj(),
                 N().Name("node-x").Label("node", "node-x").Label("foo", "").Obj(),
                 N().Name("node-y").Label("node", "node-y").Taints(UnschedulableTaints()).Obj()},
       .existing_pods = {P().Name("p-b1").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-b2").Node("node-b").Label("foo", "").Obj(),
                         P().Name("p-y1").Node("node-y").Label("foo", "").Obj()},
       .want = {{"node-a", Code::kUnschedulable},
                {"node-b", Code::kUnschedulable},
                {"node-x", Code::kSuccess},
                {"node-y", Code::kUnschedulable}}}};
  RunFilterCases(cases);
}

TEST(PodTopologySpreadFilterTest, MultipleConstraints) {
  const std::vector<FilterCase> cases = {
      {.name = "two Constraints on zone and node, spreads = [3/3, 2/1/0/3]",
       .pod = P().Name("p")
                  .Label("foo", "")
                  .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                  .SpreadConstraint(1, "node", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                  .Obj(),
       .nodes = {N().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
                 N().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
                 N().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
                 N().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj()},
       .existing_pods = {P().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
                         P().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
                         P().Name("p-y2").Node("node-y").Label("foo", "").Obj(),
                         P().Name("p-y3").Node("node-y").Label("foo", "").Obj()},
       .want = {{"node-a", Code::kUnschedulable},
                {"node-b", Code::kUnschedulable},
                {"node-x", Code::kSuccess},
                {"node-y", Code::kUnschedulable}}},
      {.name = "two Constraints on zone and node, spreads = [3/4, 2/1/0/4]",
       .pod = P().Name("p")
                  .Label("foo", "")
                  .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                  .SpreadConstraint(1, "node", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                  .Obj(),
       .nodes = {N().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
                 N().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
                 N().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
                 N().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj()},
       .existing_pods = {P().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
                         P().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
                         P().Name("p-y2").Node("node-y").Label("foo", "").Obj(),
                         P().Name("p-y3").Node("node-y").Label("foo", "").Obj(),
                         P().Name("p-y4").Node("node-y").Label("foo", "").Obj()},
       .want = {{"node-a", Code::kUnschedulable},
                {"node-b", Code::kUnschedulable},
                {"node-x", Code::kUnschedulable},
                {"node-y", Code::kUnschedulable}}},
      {.name = "Constraints hold different labelSelectors, spreads = [1/0, 1/0/0/1]",
       .pod = P().Name("p")
                  .Label("foo", "")
                  .Label("bar", "")
                  .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                  .SpreadConstraint(1, "node", "DoNotSchedule", BarSelector(), nil, nil, nil, nil)
                  .Obj(),
       .nodes = {N().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
                 N().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
                 N().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
                 N().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj()},
       .existing_pods = {P().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-y1").Node("node-y").Label("bar", "").Obj()},
       .want = {{"node-a", Code::kUnschedulable},
                {"node-b", Code::kUnschedulable},
                {"node-x", Code::kSuccess},
                {"node-y", Code::kUnschedulable}}},
      {.name = "Constraints hold different labelSelectors, spreads = [1/0, 0/0/1/1]",
       .pod = P().Name("p")
                  .Label("foo", "")
                  .Label("bar", "")
                  .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                  .SpreadConstraint(1, "node", "DoNotSchedule", BarSelector(), nil, nil, nil, nil)
                  .Obj(),
       .nodes = {N().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
                 N().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
                 N().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
                 N().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj()},
       .existing_pods = {P().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-x1").Node("node-x").Label("bar", "").Obj(),
                         P().Name("p-y1").Node("node-y").Label("bar", "").Obj()},
       .want = {{"node-a", Code::kUnschedulable},
                {"node-b", Code::kUnschedulable},
                {"node-x", Code::kUnschedulable},
                {"node-y", Code::kUnschedulable}}},
      {.name = "Constraints hold different labelSelectors, spreads = [2/3, 1/0/0/1]",
       .pod = P().Name("p")
                  .Label("foo", "")
                  .Label("bar", "")
                  .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                  .SpreadConstraint(1, "node", "DoNotSchedule", BarSelector(), nil, nil, nil, nil)
                  .Obj(),
       .nodes = {N().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
                 N().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
                 N().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
                 N().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj()},
       .existing_pods = {P().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-a2").Node("node-a").Label("foo", "").Label("bar", "").Obj(),
                         P().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
                         P().Name("p-y2").Node("node-y").Label("foo", "").Label("bar", "").Obj(),
                         P().Name("p-y3").Node("node-y").Label("foo", "").Obj()},
       .want = {{"node-a", Code::kUnschedulable},
                {"node-b", Code::kSuccess},
                {"node-x", Code::kUnschedulable},
                {"node-y", Code::kUnschedulable}}},
      {.name = "Constraints hold different labelSelectors but pod doesn't match itself on 'zone' "
               "constraint",
       .pod = P().Name("p")
                  .Label("bar", "")
                  .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                  .SpreadConstraint(1, "node", "DoNotSchedule", BarSelector(), nil, nil, nil, nil)
                  .Obj(),
       .nodes = {N().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
                 N().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
                 N().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
                 N().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj()},
       .existing_pods = {P().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-x1").Node("node-x").Label("bar", "").Obj(),
                         P().Name("p-y1").Node("node-y").Label("bar", "").Obj()},
       .want = {{"node-a", Code::kSuccess},
                {"node-b", Code::kSuccess},
                {"node-x", Code::kUnschedulable},
                {"node-y", Code::kUnschedulable}}},
      {.name = "two Constraints on zone and node, absence of label 'node' on node-x, spreads = "
               "[1/1, 1/0/0/1]",
       .pod = P().Name("p")
                  .Label("foo", "")
                  .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                  .SpreadConstraint(1, "node", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                  .Obj(),
       .nodes = {N().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
                 N().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
                 N().Name("node-x").Label("zone", "zone2").Obj(),
                 N().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj()},
       .existing_pods = {P().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-y3").Node("node-y").Label("foo", "").Obj()},
       .want = {{"node-a", Code::kUnschedulable},
                {"node-b", Code::kSuccess},
                {"node-x", Code::kUnschedulableAndUnresolvable},
                {"node-y", Code::kUnschedulable}}},
      {.name = "two node inclusion Constraints, zone: honor/ignore, node: ignore/ignore",
       .pod =
           P().Name("p")
               .Label("foo", "")
               .NodeSelector(api::StringMap{{"foo", ""}})
               .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
               .SpreadConstraint(1, "node", "DoNotSchedule", FooSelector(), nil, kIgnore, nil, nil)
               .Obj(),
       .nodes = {N().Name("node-a")
                     .Label("zone", "zone1")
                     .Label("node", "node-a")
                     .Label("foo", "")
                     .Obj(),
                 N().Name("node-b")
                     .Label("zone", "zone1")
                     .Label("node", "node-b")
                     .Label("foo", "")
                     .Obj(),
                 N().Name("node-x")
                     .Label("zone", "zone2")
                     .Label("node", "node-x")
                     .Label("foo", "")
                     .Obj(),
                 N().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj()},
       .existing_pods = {P().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
                         P().Name("p-y1").Node("node-y").Label("foo", "").Obj()},
       .want = {{"node-a", Code::kUnschedulable},
                {"node-b", Code::kUnschedulable},
                {"node-x", Code::kSuccess},
                {"node-y", Code::kUnschedulable}}},
      {.name = "two node inclusion Constraints, zone: honor/honor, node: honor/ignore",
       .pod =
           P().Name("p")
               .Label("foo", "")
               .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, nil, kHonor, nil)
               .SpreadConstraint(1, "node", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
               .Obj(),
       .nodes = {N().Name("node-a")
                     .Label("zone", "zone1")
                     .Label("node", "node-a")
                     .Label("foo", "")
                     .Obj(),
                 N().Name("node-b")
                     .Label("zone", "zone1")
                     .Label("node", "node-b")
                     .Label("foo", "")
                     .Obj(),
                 N().Name("node-x")
                     .Label("zone", "zone2")
                     .Label("node", "node-x")
                     .Label("foo", "")
                     .Obj(),
                 N().Name("node-y")
                     .Label("zone", "zone2")
                     .Label("node", "node-y")
                     .Taints(UnschedulableTaints())
                     .Obj()},
       .existing_pods = {P().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
                         P().Name("p-y1").Node("node-y").Label("foo", "").Obj()},
       .want = {{"node-a", Code::kUnschedulable},
                {"node-b", Code::kUnschedulable},
                {"node-x", Code::kSuccess},
                {"node-y", Code::kUnschedulable}}},
      {.name = "two node inclusion Constraints, zone: honor/ignore, node: honor/ignore",
       .pod = P().Name("p")
                  .Label("foo", "")
                  .NodeSelector(api::StringMap{{"foo", ""}})
                  .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                  .SpreadConstraint(1, "node", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                  .Obj(),
       .nodes = {N().Name("node-a")
                     .Label("zone", "zone1")
                     .Label("node", "node-a")
                     .Label("foo", "")
                     .Obj(),
                 N().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
                 N().Name("node-x")
                     .Label("zone", "zone2")
                     .Label("node", "node-x")
                     .Label("foo", "")
                     .Obj(),
                 N().Name("node-y")
                     .Label("zone", "zone2")
                     .Label("node", "node-y")
                     .Label("foo", "")
                     .Taints(UnschedulableTaints())
                     .Obj()},
       .existing_pods = {P().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
                         P().Name("p-y1").Node("node-y").Label("foo", "").Obj()},
       .want = {{"node-a", Code::kUnschedulable},
                {"node-b", Code::kSuccess},
                {"node-x", Code::kSuccess},
                {"node-y", Code::kUnschedulable}}},
      {.name = "two node inclusion Constraints, zone: honor/honor, node: ignore/ignore",
       .pod =
           P().Name("p")
               .Label("foo", "")
               .NodeSelector(api::StringMap{{"foo", ""}})
               .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, nil, kHonor, nil)
               .SpreadConstraint(1, "node", "DoNotSchedule", FooSelector(), nil, kIgnore, nil, nil)
               .Obj(),
       .nodes = {N().Name("node-a")
                     .Label("zone", "zone1")
                     .Label("node", "node-a")
                     .Label("foo", "")
                     .Obj(),
                 N().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
                 N().Name("node-x")
                     .Label("zone", "zone2")
                     .Label("node", "node-x")
                     .Label("foo", "")
                     .Obj(),
                 N().Name("node-y")
                     .Label("zone", "zone2")
                     .Label("node", "node-y")
                     .Label("foo", "")
                     .Taints(UnschedulableTaints())
                     .Obj()},
       .existing_pods = {P().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
                         P().Name("p-y1").Node("node-y").Label("foo", "").Obj()},
       .want = {{"node-a", Code::kUnschedulable},
                {"node-b", Code::kUnschedulable},
                {"node-x", Code::kSuccess},
                {"node-y", Code::kUnschedulable}}},
      {.name = "two Constraints on zone, spreads = [3/3, 2/1]",
       .pod = P().Name("p")
                  .Label("foo", "")
                  .Label("bar", "")
                  .SpreadConstraint(1, "zone", "DoNotSchedule", BarSelector(), nil, nil, nil, nil)
                  .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                  .Obj(),
       .nodes = {N().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
                 N().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
                 N().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
                 N().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj()},
       .existing_pods = {P().Name("p-a1").Node("node-a").Label("foo", "").Label("bar", "").Obj(),
                         P().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-b1").Node("node-b").Label("foo", "").Label("bar", "").Obj(),
                         P().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
                         P().Name("p-y2").Node("node-y").Label("foo", "").Label("bar", "").Obj(),
                         P().Name("p-y3").Node("node-y").Label("foo", "").Obj()},
       .want = {{"node-a", Code::kUnschedulable},
                {"node-b", Code::kUnschedulable},
                {"node-x", Code::kSuccess},
                {"node-y", Code::kSuccess}}},
      {.name = "two Constraints on zone, spreads = [3/4, 2/1]",
       .pod = P().Name("p")
                  .Label("foo", "")
                  .Label("bar", "")
                  .SpreadConstraint(1, "zone", "DoNotSchedule", BarSelector(), nil, nil, nil, nil)
                  .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                  .Obj(),
       .nodes = {N().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
                 N().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
                 N().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
                 N().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj()},
       .existing_pods = {P().Name("p-a1").Node("node-a").Label("foo", "").Label("bar", "").Obj(),
                         P().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-b1").Node("node-b").Label("foo", "").Label("bar", "").Obj(),
                         P().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
                         P().Name("p-y2").Node("node-y").Label("foo", "").Label("bar", "").Obj(),
                         P().Name("p-y3").Node("node-y").Label("foo", "").Obj(),
                         P().Name("p-y4").Node("node-y").Label("foo", "").Obj()},
       .want = {{"node-a", Code::kUnschedulable},
                {"node-b", Code::kUnschedulable},
                {"node-x", Code::kUnschedulable},
                {"node-y", Code::kUnschedulable}}}};
  RunFilterCases(cases);
}

// --- PreFilter state ----------------------------------------------------------------------------

struct PreFilterStateCase {
  std::string name;
  api::Pod pod;
  std::vector<api::Node> nodes;
  std::vector<api::Pod> existing_pods;
  std::vector<Obj> objs;
  std::vector<api::TopologySpreadConstraint> default_constraints;
  std::optional<WantState> want;  // nullopt: PreFilter skips.
};

TEST(PodTopologySpreadPreFilterTest, State) {
  const std::vector<PreFilterStateCase> cases = {
      //   left out: "matchLabelKeys ignored when feature gate disabled" (sets matchLabelKeys with
      //   the feature gate off)
      //   left out: "no pod is matched when LabelSelector is nil when feature gate disabled" (sets
      //   matchLabelKeys with the feature gate off)
      {.name = "clean cluster with one spreadConstraint",
       .pod = P().Name("p")
                  .Label("foo", "")
                  .SpreadConstraint(5, "zone", "DoNotSchedule", LS().Label("foo", "bar").Obj(), nil,
                                    nil, nil, nil)
                  .Obj(),
       .nodes = {N().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
                 N().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
                 N().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
                 N().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj()},
       .existing_pods = {},
       .objs = {},
       .default_constraints = {},
       .want = WantState{{{5, "zone", 1, kHonor, kIgnore}},
                         {{{"zone1", 0}, {"zone2", 0}}},
                         {{{"zone1", 0}, {"zone2", 0}}}}},
      {.name = "normal case with one spreadConstraint",
       .pod = P().Name("p")
                  .Label("foo", "")
                  .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                  .Obj(),
       .nodes = {N().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
                 N().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
                 N().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
                 N().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj()},
       .existing_pods = {P().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
                         P().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
                         P().Name("p-y2").Node("node-y").Label("foo", "").Obj()},
       .objs = {},
       .default_constraints = {},
       .want = WantState{{{1, "zone", 1, kHonor, kIgnore}},
                         {{{"zone2", 2}, {"zone1", 3}}},
                         {{{"zone1", 3}, {"zone2", 2}}}}},
      {.name = "normal case with null label selector",
       .pod = P().Name("p")
                  .Label("foo", "")
                  .SpreadConstraint(1, "zone", "DoNotSchedule", nil, nil, nil, nil, nil)
                  .Obj(),
       .nodes = {N().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
                 N().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
                 N().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
                 N().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj()},
       .existing_pods = {P().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
                         P().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
                         P().Name("p-y2").Node("node-y").Label("foo", "").Obj()},
       .objs = {},
       .default_constraints = {},
       .want = WantState{{{1, "zone", 1, kHonor, kIgnore}},
                         {{{"zone2", 0}, {"zone1", 0}}},
                         {{{"zone1", 0}, {"zone2", 0}}}}},
      {.name = "normal case with one spreadConstraint, on a 3-zone cluster",
       .pod = P().Name("p")
                  .Label("foo", "")
                  .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                  .Obj(),
       .nodes = {N().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
                 N().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
                 N().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
                 N().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj(),
                 N().Name("node-o").Label("zone", "zone3").Label("node", "node-o").Obj(),
                 N().Name("node-p").Label("zone", "zone3").Label("node", "node-p").Obj()},
       .existing_pods = {P().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
                         P().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
                         P().Name("p-y2").Node("node-y").Label("foo", "").Obj()},
       .objs = {},
       .default_constraints = {},
       .want = WantState{{{1, "zone", 1, kHonor, kIgnore}},
                         {{{"zone3", 0}, {"zone2", 2}}},
                         {{{"zone1", 3}, {"zone2", 2}, {"zone3", 0}}}}},
      {.name = "namespace mismatch doesn't count",
       .pod = P().Name("p")
                  .Label("foo", "")
                  .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                  .Obj(),
       .nodes = {N().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
                 N().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
                 N().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
                 N().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj()},
       .existing_pods = {P().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-a2").Namespace("ns1").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
                         P().Name("p-y1").Namespace("ns2").Node("node-y").Label("foo", "").Obj(),
                         P().Name("p-y2").Node("node-y").Label("foo", "").Obj()},
       .objs = {},
       .default_constraints = {},
       .want = WantState{{{1, "zone", 1, kHonor, kIgnore}},
                         {{{"zone2", 1}, {"zone1", 2}}},
                         {{{"zone1", 2}, {"zone2", 1}}}}},
      {.name = "normal case with two spreadConstraints",
       .pod = P().Name("p")
                  .Label("foo", "")
                  .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                  .SpreadConstraint(1, "node", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                  .Obj(),
       .nodes = {N().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
                 N().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
                 N().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
                 N().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj()},
       .existing_pods = {P().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
                         P().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
                         P().Name("p-y2").Node("node-y").Label("foo", "").Obj(),
                         P().Name("p-y3").Node("node-y").Label("foo", "").Obj(),
                         P().Name("p-y4").Node("node-y").Label("foo", "").Obj()},
       .objs = {},
       .default_constraints = {},
       .want = WantState{{{1, "zone", 1, kHonor, kIgnore}, {1, "node", 1, kHonor, kIgnore}},
                         {{{"zone1", 3}, {"zone2", 4}}, {{"node-x", 0}, {"node-b", 1}}},
                         {{{"zone1", 3}, {"zone2", 4}},
                          {{"node-a", 2}, {"node-b", 1}, {"node-x", 0}, {"node-y", 4}}}}},
      {.name = "soft spreadConstraints should be bypassed",
       .pod = P().Name("p")
                  .Label("foo", "")
                  .SpreadConstraint(1, "zone", "ScheduleAnyway", FooSelector(), nil, nil, nil, nil)
                  .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                  .SpreadConstraint(1, "node", "ScheduleAnyway", FooSelector(), nil, nil, nil, nil)
                  .SpreadConstraint(1, "node", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                  .Obj(),
       .nodes = {N().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
                 N().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
                 N().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj()},
       .existing_pods = {P().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
                         P().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
                         P().Name("p-y2").Node("node-y").Label("foo", "").Obj(),
                         P().Name("p-y3").Node("node-y").Label("foo", "").Obj(),
                         P().Name("p-y4").Node("node-y").Label("foo", "").Obj()},
       .objs = {},
       .default_constraints = {},
       .want = WantState{{{1, "zone", 1, kHonor, kIgnore}, {1, "node", 1, kHonor, kIgnore}},
                         {{{"zone1", 3}, {"zone2", 4}}, {{"node-b", 1}, {"node-a", 2}}},
                         {{{"zone1", 3}, {"zone2", 4}},
                          {{"node-a", 2}, {"node-b", 1}, {"node-y", 4}}}}},
      {.name = "different labelSelectors - simple version",
       .pod = P().Name("p")
                  .Label("foo", "")
                  .Label("bar", "")
                  .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                  .SpreadConstraint(1, "node", "DoNotSchedule", BarSelector(), nil, nil, nil, nil)
                  .Obj(),
       .nodes = {N().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
                 N().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
                 N().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj()},
       .existing_pods = {P().Name("p-a").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-b").Node("node-b").Label("bar", "").Obj()},
       .objs = {},
       .default_constraints = {},
       .want = WantState{{{1, "zone", 1, kHonor, kIgnore}, {1, "node", 1, kHonor, kIgnore}},
                         {{{"zone2", 0}, {"zone1", 1}}, {{"node-a", 0}, {"node-y", 0}}},
                         {{{"zone1", 1}, {"zone2", 0}},
                          {{"node-a", 0}, {"node-b", 1}, {"node-y", 0}}}}},
      {.name = "different labelSelectors - complex pods",
       .pod = P().Name("p")
                  .Label("foo", "")
                  .Label("bar", "")
                  .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                  .SpreadConstraint(1, "node", "DoNotSchedule", BarSelector(), nil, nil, nil, nil)
                  .Obj(),
       .nodes = {N().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
                 N().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
                 N().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj()},
       .existing_pods = {P().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-a2").Node("node-a").Label("foo", "").Label("bar", "").Obj(),
                         P().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
                         P().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
                         P().Name("p-y2").Node("node-y").Label("foo", "").Label("bar", "").Obj(),
                         P().Name("p-y3").Node("node-y").Label("foo", "").Obj(),
                         P().Name("p-y4").Node("node-y").Label("foo", "").Label("bar", "").Obj()},
       .objs = {},
       .default_constraints = {},
       .want = WantState{{{1, "zone", 1, kHonor, kIgnore}, {1, "node", 1, kHonor, kIgnore}},
                         {{{"zone1", 3}, {"zone2", 4}}, {{"node-b", 0}, {"node-a", 1}}},
                         {{{"zone1", 3}, {"zone2", 4}},
                          {{"node-a", 1}, {"node-b", 0}, {"node-y", 2}}}}},
      {.name = "two spreadConstraints, and with podAffinity",
       .pod = P().Name("p")
                  .Label("foo", "")
                  .NodeAffinityNotIn("node", Strings{"node-x"})
                  .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                  .SpreadConstraint(1, "node", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                  .Obj(),
       .nodes = {N().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
                 N().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
                 N().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
                 N().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj()},
       .existing_pods = {P().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
                         P().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
                         P().Name("p-y2").Node("node-y").Label("foo", "").Obj(),
                         P().Name("p-y3").Node("node-y").Label("foo", "").Obj(),
                         P().Name("p-y4").Node("node-y").Label("foo", "").Obj()},
       .objs = {},
       .default_constraints = {},
       .want = WantState{{{1, "zone", 1, kHonor, kIgnore}, {1, "node", 1, kHonor, kIgnore}},
                         {{{"zone1", 3}, {"zone2", 4}}, {{"node-b", 1}, {"node-a", 2}}},
                         {{{"zone1", 3}, {"zone2", 4}},
                          {{"node-a", 2}, {"node-b", 1}, {"node-y", 4}}}}},
      {.name = "default constraints and a service",
       .pod = P().Name("p").Label("foo", "bar").Label("baz", "kar").Obj(),
       .nodes = {},
       .existing_pods = {},
       .objs = {Svc("", api::StringMap{{"foo", "bar"}})},
       .default_constraints =
           {{.max_skew = 3, .topology_key = "node", .when_unsatisfiable = "DoNotSchedule"},
            {.max_skew = 2, .topology_key = "node", .when_unsatisfiable = "ScheduleAnyway"},
            {.max_skew = 5, .topology_key = "rack", .when_unsatisfiable = "DoNotSchedule"}},
       .want = WantState{{{3, "node", 1, kHonor, kIgnore}, {5, "rack", 1, kHonor, kIgnore}},
                         {NewCriticalPaths(), NewCriticalPaths()},
                         {{}, {}}}},
      {.name = "default constraints and a service that doesn't match",
       .pod = P().Name("p").Label("foo", "bar").Obj(),
       .nodes = {},
       .existing_pods = {},
       .objs = {Svc("", api::StringMap{{"baz", "kep"}})},
       .default_constraints = {{.max_skew = 3,
                                .topology_key = "node",
                                .when_unsatisfiable = "DoNotSchedule"}},
       .want = std::nullopt},
      {.name = "default constraints and a service, but pod has constraints",
       .pod = P().Name("p")
                  .Label("foo", "bar")
                  .Label("baz", "tar")
                  .SpreadConstraint(1, "zone", "DoNotSchedule", LS().Label("baz", "tar").Obj(), nil,
                                    nil, nil, nil)
                  .SpreadConstraint(2, "planet", "ScheduleAnyway", LS().Label("fot", "rok").Obj(),
                                    nil, nil, nil, nil)
                  .Obj(),
       .nodes = {},
       .existing_pods = {},
       .objs = {Svc("", api::StringMap{{"foo", "bar"}})},
       .default_constraints = {{.max_skew = 2,
                                .topology_key = "node",
                                .when_unsatisfiable = "DoNotSchedule"}},
       .want = WantState{{{1, "zone", 1, kHonor, kIgnore}}, {NewCriticalPaths()}, {{}}}},
      {.name = "default soft constraints and a service",
       .pod = P().Name("p").Label("foo", "bar").Obj(),
       .nodes = {},
       .existing_pods = {},
       .objs = {Svc("", api::StringMap{{"foo", "bar"}})},
       .default_constraints = {{.max_skew = 2,
                                .topology_key = "node",
                                .when_unsatisfiable = "ScheduleAnyway"}},
       .want = std::nullopt},
      {.name = "TpKeyToDomainsNum is calculated when MinDomains is enabled",
       .pod = P().Name("p")
                  .Label("foo", "")
                  .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                  .SpreadConstraint(1, "node", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                  .Obj(),
       .nodes = {N().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
                 N().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
                 N().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
                 N().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj()},
       .existing_pods = {P().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
                         P().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
                         P().Name("p-y2").Node("node-y").Label("foo", "").Obj(),
                         P().Name("p-y3").Node("node-y").Label("foo", "").Obj(),
                         P().Name("p-y4").Node("node-y").Label("foo", "").Obj()},
       .objs = {},
       .default_constraints = {},
       .want = WantState{{{1, "zone", 1, kHonor, kIgnore}, {1, "node", 1, kHonor, kIgnore}},
                         {{{"zone1", 3}, {"zone2", 4}}, {{"node-x", 0}, {"node-b", 1}}},
                         {{{"zone1", 3}, {"zone2", 4}},
                          {{"node-a", 2}, {"node-b", 1}, {"node-x", 0}, {"node-y", 4}}}}},
      {.name = "feature gate disabled with NodeAffinityPolicy",
       .pod = P().Name("p")
                  .Label("foo", "")
                  .NodeSelector(api::StringMap{{"foo", ""}})
                  .SpreadConstraint(1, "node", "DoNotSchedule", BarSelector(), nil, nil, nil, nil)
                  .Obj(),
       .nodes = {N().Name("node-a").Label("node", "node-a").Label("foo", "").Obj(),
                 N().Name("node-b").Label("node", "node-b").Label("foo", "").Obj(),
                 N().Name("node-c").Label("node", "node-c").Label("bar", "").Obj()},
       .existing_pods = {P().Name("p-a").Node("node-a").Label("bar", "").Obj(),
                         P().Name("p-b").Node("node-b").Label("bar", "").Obj(),
                         P().Name("p-c").Node("node-b").Label("bar", "").Obj(),
                         P().Name("p-d").Node("node-c").Obj()},
       .objs = {},
       .default_constraints = {},
       .want = WantState{{{1, "node", 1, kHonor, kIgnore}},
                         {{{"node-a", 1}, {"node-b", 2}}},
                         {{{"node-a", 1}, {"node-b", 2}}}}},
      {.name = "NodeAffinityPolicy honored with labelSelectors",
       .pod = P().Name("p")
                  .Label("foo", "")
                  .NodeSelector(api::StringMap{{"foo", ""}})
                  .SpreadConstraint(1, "node", "DoNotSchedule", BarSelector(), nil, nil, nil, nil)
                  .Obj(),
       .nodes = {N().Name("node-a").Label("node", "node-a").Label("foo", "").Obj(),
                 N().Name("node-b").Label("node", "node-b").Label("foo", "").Obj(),
                 N().Name("node-c").Label("node", "node-c").Label("bar", "").Obj()},
       .existing_pods = {P().Name("p-a").Node("node-a").Label("bar", "").Obj(),
                         P().Name("p-b").Node("node-b").Label("bar", "").Obj(),
                         P().Name("p-c").Node("node-b").Label("bar", "").Obj(),
                         P().Name("p-d").Node("node-c").Obj()},
       .objs = {},
       .default_constraints = {},
       .want = WantState{{{1, "node", 1, kHonor, kIgnore}},
                         {{{"node-a", 1}, {"node-b", 2}}},
                         {{{"node-a", 1}, {"node-b", 2}}}}},
      {.name = "NodeAffinityPolicy ignored with labelSelectors",
       .pod =
           P().Name("p")
               .Label("foo", "")
               .NodeSelector(api::StringMap{{"foo", ""}})
               .SpreadConstraint(1, "node", "DoNotSchedule", BarSelector(), nil, kIgnore, nil, nil)
               .Obj(),
       .nodes = {N().Name("node-a").Label("node", "node-a").Label("foo", "").Obj(),
                 N().Name("node-b").Label("node", "node-b").Label("foo", "").Obj(),
                 N().Name("node-c").Label("node", "node-c").Label("bar", "").Obj()},
       .existing_pods = {P().Name("p-a").Node("node-a").Label("bar", "").Obj(),
                         P().Name("p-b").Node("node-b").Label("bar", "").Obj(),
                         P().Name("p-c").Node("node-b").Label("bar", "").Obj(),
                         P().Name("p-d").Node("node-c").Obj()},
       .objs = {},
       .default_constraints = {},
       .want = WantState{{{1, "node", 1, kIgnore, kIgnore}},
                         {{{"node-c", 0}, {"node-a", 1}}},
                         {{{"node-a", 1}, {"node-b", 2}, {"node-c", 0}}}}},
      {.name = "NodeAffinityPolicy honored with nodeAffinity",
       .pod = P().Name("p")
                  .Label("foo", "")
                  .NodeAffinityIn("foo", Strings{""}, kMatchExpressions)
                  .SpreadConstraint(1, "node", "DoNotSchedule", BarSelector(), nil, nil, nil, nil)
                  .Obj(),
       .nodes = {N().Name("node-a").Label("node", "node-a").Label("foo", "").Obj(),
                 N().Name("node-b").Label("node", "node-b").Label("foo", "").Obj(),
                 N().Name("node-c").Label("node", "node-c").Label("bar", "").Obj()},
       .existing_pods = {P().Name("p-a").Node("node-a").Label("bar", "").Obj(),
                         P().Name("p-c").Node("node-b").Label("bar", "").Obj(),
                         P().Name("p-d").Node("node-b").Label("bar", "").Obj(),
                         P().Name("p-e").Node("node-c").Obj()},
       .objs = {},
       .default_constraints = {},
       .want = WantState{{{1, "node", 1, kHonor, kIgnore}},
                         {{{"node-a", 1}, {"node-b", 2}}},
                         {{{"node-a", 1}, {"node-b", 2}}}}},
      {.name = "NodeAffinityPolicy ignored with nodeAffinity",
       .pod =
           P().Name("p")
               .Label("foo", "")
               .NodeAffinityIn("foo", Strings{""}, kMatchExpressions)
               .SpreadConstraint(1, "node", "DoNotSchedule", BarSelector(), nil, kIgnore, nil, nil)
               .Obj(),
       .nodes = {N().Name("node-a").Label("node", "node-a").Label("foo", "").Obj(),
                 N().Name("node-b").Label("node", "node-b").Label("foo", "").Obj(),
                 N().Name("node-c").Label("node", "node-c").Label("bar", "").Obj()},
       .existing_pods = {P().Name("p-a").Node("node-a").Label("bar", "").Obj(),
                         P().Name("p-b").Node("node-b").Label("bar", "").Obj(),
                         P().Name("p-c").Node("node-b").Label("bar", "").Obj(),
                         P().Name("p-d").Node("node-c").Obj()},
       .objs = {},
       .default_constraints = {},
       .want = WantState{{{1, "node", 1, kIgnore, kIgnore}},
                         {{{"node-c", 0}, {"node-a", 1}}},
                         {{{"node-a", 1}, {"node-b", 2}, {"node-c", 0}}}}},
      {.name = "feature gate disabled with NodeTaintsPolicy",
       .pod = P().Name("p")
                  .Label("foo", "")
                  .SpreadConstraint(1, "node", "DoNotSchedule", BarSelector(), nil, nil, nil, nil)
                  .Obj(),
       .nodes = {N().Name("node-a").Label("node", "node-a").Obj(),
                 N().Name("node-b").Label("node", "node-b").Obj(),
                 N().Name("node-c")
                     .Label("node", "node-c")
                     .Taints(UnschedulableTaints())
                     .Label("bar", "")
                     .Obj()},
       .existing_pods = {P().Name("p-a").Node("node-a").Label("bar", "").Obj(),
                         P().Name("p-b").Node("node-b").Label("bar", "").Obj(),
                         P().Name("p-c").Node("node-b").Label("bar", "").Obj(),
                         P().Name("p-d").Node("node-c").Obj()},
       .objs = {},
       .default_constraints = {},
       .want = WantState{{{1, "node", 1, kHonor, kIgnore}},
                         {{{"node-c", 0}, {"node-a", 1}}},
                         {{{"node-a", 1}, {"node-b", 2}, {"node-c", 0}}}}},
      {.name = "NodeTaintsPolicy ignored",
       .pod = P().Name("p")
                  .Label("foo", "")
                  .SpreadConstraint(1, "node", "DoNotSchedule", BarSelector(), nil, nil, nil, nil)
                  .Obj(),
       .nodes = {N().Name("node-a").Label("node", "node-a").Obj(),
                 N().Name("node-b").Label("node", "node-b").Obj(),
                 N().Name("node-c")
                     .Label("node", "node-c")
                     .Taints(UnschedulableTaints())
                     .Label("bar", "")
                     .Obj()},
       .existing_pods = {P().Name("p-a").Node("node-a").Label("bar", "").Obj(),
                         P().Name("p-b").Node("node-b").Label("bar", "").Obj(),
                         P().Name("p-c").Node("node-b").Label("bar", "").Obj(),
                         P().Name("p-d").Node("node-c").Obj()},
       .objs = {},
       .default_constraints = {},
       .want = WantState{{{1, "node", 1, kHonor, kIgnore}},
                         {{{"node-c", 0}, {"node-a", 1}}},
                         {{{"node-a", 1}, {"node-b", 2}, {"node-c", 0}}}}},
      {.name = "NodeTaintsPolicy honored",
       .pod =
           P().Name("p")
               .Label("foo", "")
               .SpreadConstraint(1, "node", "DoNotSchedule", BarSelector(), nil, nil, kHonor, nil)
               .Obj(),
       .nodes = {N().Name("node-a").Label("node", "node-a").Obj(),
                 N().Name("node-b").Label("node", "node-b").Obj(),
                 N().Name("node-c")
                     .Label("node", "node-c")
                     .Taints(UnschedulableTaints())
                     .Label("bar", "")
                     .Obj()},
       .existing_pods = {P().Name("p-a").Node("node-a").Label("bar", "").Obj(),
                         P().Name("p-b").Node("node-b").Label("bar", "").Obj(),
                         P().Name("p-c").Node("node-b").Label("bar", "").Obj(),
                         P().Name("p-d").Node("node-c").Obj()},
       .objs = {},
       .default_constraints = {},
       .want = WantState{{{1, "node", 1, kHonor, kHonor}},
                         {{{"node-a", 1}, {"node-b", 2}}},
                         {{{"node-a", 1}, {"node-b", 2}}}}},
      {.name = "NodeTaintsPolicy honored with tolerated taints",
       .pod =
           P().Name("p")
               .Label("foo", "")
               .Toleration(kTaintUnschedulable)
               .SpreadConstraint(1, "node", "DoNotSchedule", BarSelector(), nil, nil, kHonor, nil)
               .Obj(),
       .nodes = {N().Name("node-a").Label("node", "node-a").Obj(),
                 N().Name("node-b").Label("node", "node-b").Obj(),
                 N().Name("node-c")
                     .Label("node", "node-c")
                     .Taints(UnschedulableTaints())
                     .Label("bar", "")
                     .Obj()},
       .existing_pods = {P().Name("p-a").Node("node-a").Label("bar", "").Obj(),
                         P().Name("p-b").Node("node-b").Label("bar", "").Obj(),
                         P().Name("p-c").Node("node-b").Label("bar", "").Obj(),
                         P().Name("p-d").Node("node-c").Obj()},
       .objs = {},
       .default_constraints = {},
       .want = WantState{{{1, "node", 1, kHonor, kHonor}},
                         {{{"node-c", 0}, {"node-a", 1}}},
                         {{{"node-a", 1}, {"node-b", 2}, {"node-c", 0}}}}},
      {.name = "two node inclusion Constraints, zone: honor/ignore, node: ignore/ignore",
       .pod =
           P().Name("p")
               .Label("foo", "")
               .NodeSelector(api::StringMap{{"foo", ""}})
               .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
               .SpreadConstraint(1, "node", "DoNotSchedule", FooSelector(), nil, kIgnore, nil, nil)
               .Obj(),
       .nodes = {N().Name("node-a")
                     .Label("zone", "zone1")
                     .Label("node", "node-a")
                     .Label("foo", "")
                     .Obj(),
                 N().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
                 N().Name("node-x")
                     .Label("zone", "zone2")
                     .Label("node", "node-x")
                     .Label("foo", "")
                     .Obj()},
       .existing_pods = {P().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
                         P().Name("p-b2").Node("node-b").Label("foo", "").Obj(),
                         P().Name("p-x1").Node("node-x").Label("foo", "").Obj()},
       .objs = {},
       .default_constraints = {},
       .want = WantState{{{1, "zone", 1, kHonor, kIgnore}, {1, "node", 1, kIgnore, kIgnore}},
                         {{{"zone1", 0}, {"zone2", 1}}, {{"node-a", 0}, {"node-x", 1}}},
                         {{{"zone1", 0}, {"zone2", 1}},
                          {{"node-a", 0}, {"node-b", 2}, {"node-x", 1}}}}},
      {.name = "two node inclusion Constraints, zone: honor/honor, node: honor/ignore",
       .pod =
           P().Name("p")
               .Label("foo", "")
               .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, nil, kHonor, nil)
               .SpreadConstraint(1, "node", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
               .Obj(),
       .nodes = {N().Name("node-a")
                     .Label("zone", "zone1")
                     .Label("node", "node-a")
                     .Label("foo", "")
                     .Obj(),
                 N().Name("node-b")
                     .Label("zone", "zone1")
                     .Label("node", "node-b")
                     .Taints(UnschedulableTaints())
                     .Obj(),
                 N().Name("node-x")
                     .Label("zone", "zone2")
                     .Label("node", "node-x")
                     .Label("foo", "")
                     .Obj()},
       .existing_pods = {P().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
                         P().Name("p-b2").Node("node-b").Label("foo", "").Obj(),
                         P().Name("p-x1").Node("node-x").Label("foo", "").Obj()},
       .objs = {},
       .default_constraints = {},
       .want = WantState{{{1, "zone", 1, kHonor, kHonor}, {1, "node", 1, kHonor, kIgnore}},
                         {{{"zone1", 0}, {"zone2", 1}}, {{"node-a", 0}, {"node-x", 1}}},
                         {{{"zone1", 0}, {"zone2", 1}},
                          {{"node-a", 0}, {"node-b", 2}, {"node-x", 1}}}}},
      {.name = "two node inclusion Constraints, zone: honor/ignore, node: honor/ignore",
       .pod = P().Name("p")
                  .Label("foo", "")
                  .NodeSelector(api::StringMap{{"foo", ""}})
                  .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                  .SpreadConstraint(1, "node", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                  .Obj(),
       .nodes = {N().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
                 N().Name("node-b")
                     .Label("zone", "zone1")
                     .Label("node", "node-b")
                     .Label("foo", "")
                     .Taints(UnschedulableTaints())
                     .Obj(),
                 N().Name("node-x")
                     .Label("zone", "zone2")
                     .Label("node", "node-x")
                     .Label("foo", "")
                     .Obj(),
                 N().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj()},
       .existing_pods = {P().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-x1").Node("node-x").Label("foo", "").Obj(),
                         P().Name("p-y1").Node("node-y").Label("foo", "").Obj()},
       .objs = {},
       .default_constraints = {},
       .want = WantState{{{1, "zone", 1, kHonor, kIgnore}, {1, "node", 1, kHonor, kIgnore}},
                         {{{"zone1", 0}, {"zone2", 1}}, {{"node-b", 0}, {"node-x", 1}}},
                         {{{"zone1", 0}, {"zone2", 1}}, {{"node-b", 0}, {"node-x", 1}}}}},
      {.name = "two node inclusion Constraints, zone: ignore/ignore, node: honor/honor",
       .pod =
           P().Name("p")
               .Label("foo", "")
               .NodeSelector(api::StringMap{{"foo", ""}})
               .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, kIgnore, nil, nil)
               .SpreadConstraint(1, "node", "DoNotSchedule", FooSelector(), nil, nil, kHonor, nil)
               .Obj(),
       .nodes = {N().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
                 N().Name("node-b")
                     .Label("zone", "zone1")
                     .Label("node", "node-b")
                     .Label("foo", "")
                     .Taints(UnschedulableTaints())
                     .Obj(),
                 N().Name("node-x")
                     .Label("zone", "zone2")
                     .Label("node", "node-x")
                     .Label("foo", "")
                     .Obj(),
                 N().Name("node-y")
                     .Label("zone", "zone2")
                     .Label("node", "node-y")
                     .Label("foo", "")
                     .Obj()},
       .existing_pods = {P().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-x1").Node("node-x").Label("foo", "").Obj(),
                         P().Name("p-x2").Node("node-x").Label("foo", "").Obj(),
                         P().Name("p-y1").Node("node-y").Label("foo", "").Obj()},
       .objs = {},
       .default_constraints = {},
       .want = WantState{{{1, "zone", 1, kIgnore, kIgnore}, {1, "node", 1, kHonor, kHonor}},
                         {{{"zone1", 2}, {"zone2", 3}}, {{"node-y", 1}, {"node-x", 2}}},
                         {{{"zone1", 2}, {"zone2", 3}}, {{"node-x", 2}, {"node-y", 1}}}}},
      {.name = "matchLabelKeys ANDed with LabelSelector when LabelSelector isn't empty",
       .pod = P().Name("p")
                  .Label("foo", "")
                  .Label("bar", "a")
                  .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, nil, nil,
                                    Strings{"bar"})
                  .Obj(),
       .nodes = {N().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
                 N().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
                 N().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
                 N().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj()},
       .existing_pods = {P().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
                         P().Name("p-a2").Node("node-a").Label("foo", "").Label("bar", "a").Obj(),
                         P().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
                         P().Name("p-y1").Node("node-y").Label("foo", "").Label("bar", "a").Obj(),
                         P().Name("p-y2").Node("node-y").Label("bar", "").Obj()},
       .objs = {},
       .default_constraints = {},
       .want = WantState{{{1, "zone", 1, kHonor, kIgnore}},
                         {{{"zone2", 1}, {"zone1", 1}}},
                         {{{"zone1", 1}, {"zone2", 1}}}}},
      {.name = "matchLabelKeys ANDed with LabelSelector when LabelSelector is empty",
       .pod = P().Name("p")
                  .Label("foo", "a")
                  .SpreadConstraint(1, "zone", "DoNotSchedule", LS().Obj(), nil, nil, nil,
                                    Strings{"foo"})
                  .Obj(),
       .nodes = {N().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
                 N().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
                 N().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
                 N().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj()},
       .existing_pods = {P().Name("p-a1").Node("node-a").Label("foo", "a").Obj(),
                         P().Name("p-a2").Node("node-a").Label("foo", "a").Obj(),
                         P().Name("p-b1").Node("node-b").Label("foo", "a").Obj(),
                         P().Name("p-y1").Node("node-y").Label("foo", "a").Obj(),
                         P().Name("p-y2").Node("node-y").Label("foo", "a").Obj()},
       .objs = {},
       .default_constraints = {},
       .want = WantState{{{1, "zone", 1, kHonor, kIgnore}},
                         {{{"zone2", 2}, {"zone1", 3}}},
                         {{{"zone1", 3}, {"zone2", 2}}}}},
      {.name =
           "key in matchLabelKeys is ignored when LabelSelector is nil when feature gate enabled",
       .pod = P().Name("p")
                  .Label("foo", "")
                  .SpreadConstraint(1, "zone", "DoNotSchedule", nil, nil, nil, nil, Strings{"bar"})
                  .Obj(),
       .nodes = {N().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
                 N().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
                 N().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
                 N().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj()},
       .existing_pods = {P().Name("p-a1").Node("node-a").Label("foo", "a").Obj(),
                         P().Name("p-a2").Node("node-a").Label("foo", "a").Obj(),
                         P().Name("p-b1").Node("node-b").Label("foo", "a").Obj(),
                         P().Name("p-y1").Node("node-y").Label("foo", "a").Obj(),
                         P().Name("p-y2").Node("node-y").Label("foo", "a").Obj()},
       .objs = {},
       .default_constraints = {},
       .want = WantState{{{1, "zone", 1, kHonor, kIgnore}},
                         {{{"zone2", 0}, {"zone1", 0}}},
                         {{{"zone1", 0}, {"zone2", 0}}}}},
      {.name = "key in matchLabelKeys is ignored when it isn't exist in pod.labels",
       .pod = P().Name("p")
                  .Label("foo", "")
                  .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, nil, nil,
                                    Strings{"bar"})
                  .Obj(),
       .nodes = {N().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
                 N().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
                 N().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
                 N().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj()},
       .existing_pods = {P().Name("p-a1").Node("node-a").Label("foo", "a").Obj(),
                         P().Name("p-a2").Node("node-a").Label("foo", "a").Obj(),
                         P().Name("p-b1").Node("node-b").Label("foo", "a").Obj(),
                         P().Name("p-y1").Node("node-y").Label("foo", "a").Obj(),
                         P().Name("p-y2").Node("node-y").Label("foo", "a").Obj()},
       .objs = {},
       .default_constraints = {},
       .want = WantState{{{1, "zone", 1, kHonor, kIgnore}},
                         {{{"zone2", 2}, {"zone1", 3}}},
                         {{{"zone1", 3}, {"zone2", 2}}}}},
      {.name = "two spreadConstraints with the same topologyKey",
       .pod = P().Name("p")
                  .Label("foo", "")
                  .Label("bar", "")
                  .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                  .SpreadConstraint(1, "zone", "DoNotSchedule", BarSelector(), nil, nil, nil, nil)
                  .Obj(),
       .nodes = {N().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
                 N().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
                 N().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
                 N().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj()},
       .existing_pods = {P().Name("p-a1").Node("node-a").Label("foo", "").Label("bar", "").Obj(),
                         P().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
                         P().Name("p-x1").Node("node-x").Label("bar", "").Obj(),
                         P().Name("p-y1").Node("node-y").Label("foo", "").Label("bar", "").Obj(),
                         P().Name("p-y2").Node("node-y").Label("bar", "").Obj()},
       .objs = {},
       .default_constraints = {},
       .want = WantState{{{1, "zone", 1, kHonor, kIgnore}, {1, "zone", 1, kHonor, kIgnore}},
                         {{{"zone2", 1}, {"zone1", 2}}, {{"zone1", 1}, {"zone2", 3}}},
                         {{{"zone1", 2}, {"zone2", 1}}, {{"zone1", 1}, {"zone2", 3}}}}},
      {.name = "skip if not specified",
       .pod = P().Name("p").Label("foo", "").Obj(),
       .nodes = {N().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj()},
       .existing_pods = {},
       .objs = {},
       .default_constraints = {},
       .want = std::nullopt}};
  for (const PreFilterStateCase& c : cases) {
    SCOPED_TRACE(c.name);
    FakeHandle h(c.nodes, c.existing_pods);
    AddObjects(h, c.objs);
    PodTopologySpread pl(ListArgs(c.default_constraints), h);
    CycleState state;
    PreFilterResult result;
    Status s = pl.PreFilter(state, c.pod, h.snapshot().nodes(), &result);
    if (!c.want) {
      EXPECT_TRUE(s.IsSkip()) << s.Message();
      EXPECT_EQ(state.Read(internal::kPreFilterStateKey), nullptr);
      continue;
    }
    ASSERT_TRUE(s.ok()) << s.Message();
    const internal::PreFilterState* got = state.Read(internal::kPreFilterStateKey);
    ASSERT_NE(got, nullptr);
    EXPECT_EQ(Sorted(StateOf(*got)), Sorted(*c.want));
  }
}

// --- AddPod and RemovePod -----------------------------------------------------------------------

struct AddPodCase {
  std::string name;
  api::Pod preemptor;
  api::Pod added_pod;
  std::vector<api::Pod> existing_pods;
  int node_idx;  // The node of added_pod.
  std::vector<api::Node> nodes;
  WantState want;
};

TEST(PodTopologySpreadPreFilterTest, AddPod) {
  const std::vector<AddPodCase> cases = {
      {.name = "node a and b both impact current min match",
       .preemptor =
           P().Name("p")
               .Label("foo", "")
               .SpreadConstraint(1, "node", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
               .Obj(),
       .added_pod = P().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
       .existing_pods = {},
       .node_idx = 0,
       .nodes = {N().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
                 N().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj()},
       .want = WantState{{{1, "node", 1, kHonor, kIgnore}},
                         {{{"node-b", 0}, {"node-a", 1}}},
                         {{{"node-a", 1}, {"node-b", 0}}}}},
      {.name = "only node a impacts current min match",
       .preemptor =
           P().Name("p")
               .Label("foo", "")
               .SpreadConstraint(1, "node", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
               .Obj(),
       .added_pod = P().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
       .existing_pods = {P().Name("p-b1").Node("node-b").Label("foo", "").Obj()},
       .node_idx = 0,
       .nodes = {N().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
                 N().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj()},
       .want = WantState{{{1, "node", 1, kHonor, kIgnore}},
                         {{{"node-a", 1}, {"node-b", 1}}},
                         {{{"node-a", 1}, {"node-b", 1}}}}},
      {.name = "add a pod in a different namespace doesn't change topologyKeyToMinPodsMap",
       .preemptor =
           P().Name("p")
               .Label("foo", "")
               .SpreadConstraint(1, "node", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
               .Obj(),
       .added_pod = P().Name("p-a1").Namespace("ns1").Node("node-a").Label("foo", "").Obj(),
       .existing_pods = {P().Name("p-b1").Node("node-b").Label("foo", "").Obj()},
       .node_idx = 0,
       .nodes = {N().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
                 N().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj()},
       .want = WantState{{{1, "node", 1, kHonor, kIgnore}},
                         {{{"node-a", 0}, {"node-b", 1}}},
                         {{{"node-a", 0}, {"node-b", 1}}}}},
      {.name = "add pod on non-critical node won't trigger re-calculation",
       .preemptor =
           P().Name("p")
               .Label("foo", "")
               .SpreadConstraint(1, "node", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
               .Obj(),
       .added_pod = P().Name("p-b2").Node("node-b").Label("foo", "").Obj(),
       .existing_pods = {P().Name("p-b1").Node("node-b").Label("foo", "").Obj()},
       .node_idx = 1,
       .nodes = {N().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
                 N().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj()},
       .want = WantState{{{1, "node", 1, kHonor, kIgnore}},
                         {{{"node-a", 0}, {"node-b", 2}}},
                         {{{"node-a", 0}, {"node-b", 2}}}}},
      {.name = "node a and x both impact topologyKeyToMinPodsMap on zone and node",
       .preemptor =
           P().Name("p")
               .Label("foo", "")
               .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
               .SpreadConstraint(1, "node", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
               .Obj(),
       .added_pod = P().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
       .existing_pods = {},
       .node_idx = 0,
       .nodes = {N().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
                 N().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj()},
       .want = WantState{{{1, "zone", 1, kHonor, kIgnore}, {1, "node", 1, kHonor, kIgnore}},
                         {{{"zone2", 0}, {"zone1", 1}}, {{"node-x", 0}, {"node-a", 1}}},
                         {{{"zone1", 1}, {"zone2", 0}}, {{"node-a", 1}, {"node-x", 0}}}}},
      {.name = "only node a impacts topologyKeyToMinPodsMap on zone and node",
       .preemptor =
           P().Name("p")
               .Label("foo", "")
               .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
               .SpreadConstraint(1, "node", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
               .Obj(),
       .added_pod = P().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
       .existing_pods = {P().Name("p-x1").Node("node-x").Label("foo", "").Obj()},
       .node_idx = 0,
       .nodes = {N().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
                 N().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj()},
       .want = WantState{{{1, "zone", 1, kHonor, kIgnore}, {1, "node", 1, kHonor, kIgnore}},
                         {{{"zone1", 1}, {"zone2", 1}}, {{"node-a", 1}, {"node-x", 1}}},
                         {{{"zone1", 1}, {"zone2", 1}}, {{"node-a", 1}, {"node-x", 1}}}}},
      {.name = "node a impacts topologyKeyToMinPodsMap on node, node x impacts "
               "topologyKeyToMinPodsMap on zone",
       .preemptor =
           P().Name("p")
               .Label("foo", "")
               .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
               .SpreadConstraint(1, "node", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
               .Obj(),
       .added_pod = P().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
       .existing_pods = {P().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
                         P().Name("p-b2").Node("node-b").Label("foo", "").Obj(),
                         P().Name("p-x1").Node("node-x").Label("foo", "").Obj()},
       .node_idx = 0,
       .nodes = {N().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
                 N().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
                 N().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj()},
       .want = WantState{{{1, "zone", 1, kHonor, kIgnore}, {1, "node", 1, kHonor, kIgnore}},
                         {{{"zone2", 1}, {"zone1", 3}}, {{"node-a", 1}, {"node-x", 1}}},
                         {{{"zone1", 3}, {"zone2", 1}},
                          {{"node-a", 1}, {"node-b", 2}, {"node-x", 1}}}}},
      {.name = "Constraints hold different labelSelectors, node a impacts topologyKeyToMinPodsMap "
               "on zone",
       .preemptor =
           P().Name("p")
               .Label("foo", "")
               .Label("bar", "")
               .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
               .SpreadConstraint(1, "node", "DoNotSchedule", BarSelector(), nil, nil, nil, nil)
               .Obj(),
       .added_pod = P().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
       .existing_pods = {P().Name("p-b1").Node("node-b").Label("foo", "").Label("bar", "").Obj(),
                         P().Name("p-x1").Node("node-x").Label("foo", "").Label("bar", "").Obj(),
                         P().Name("p-x2").Node("node-x").Label("bar", "").Obj()},
       .node_idx = 0,
       .nodes = {N().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
                 N().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
                 N().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj()},
       .want = WantState{{{1, "zone", 1, kHonor, kIgnore}, {1, "node", 1, kHonor, kIgnore}},
                         {{{"zone2", 1}, {"zone1", 2}}, {{"node-a", 0}, {"node-b", 1}}},
                         {{{"zone1", 2}, {"zone2", 1}},
                          {{"node-a", 0}, {"node-b", 1}, {"node-x", 2}}}}},
      {.name = "Constraints hold different labelSelectors, node a impacts topologyKeyToMinPodsMap "
               "on both zone and node",
       .preemptor =
           P().Name("p")
               .Label("foo", "")
               .Label("bar", "")
               .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
               .SpreadConstraint(1, "node", "DoNotSchedule", BarSelector(), nil, nil, nil, nil)
               .Obj(),
       .added_pod = P().Name("p-a1").Node("node-a").Label("foo", "").Label("bar", "").Obj(),
       .existing_pods = {P().Name("p-b1").Node("node-b").Label("bar", "").Obj(),
                         P().Name("p-x1").Node("node-x").Label("foo", "").Label("bar", "").Obj(),
                         P().Name("p-x2").Node("node-x").Label("bar", "").Obj()},
       .node_idx = 0,
       .nodes = {N().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
                 N().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
                 N().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj()},
       .want = WantState{{{1, "zone", 1, kHonor, kIgnore}, {1, "node", 1, kHonor, kIgnore}},
                         {{{"zone1", 1}, {"zone2", 1}}, {{"node-a", 1}, {"node-b", 1}}},
                         {{{"zone1", 1}, {"zone2", 1}},
                          {{"node-a", 1}, {"node-b", 1}, {"node-x", 2}}}}},
      {.name = "add a pod when scheduling node affinity unmatched pod with NodeInclusionPolicy "
               "disabled",
       .preemptor =
           P().Name("p")
               .Label("foo", "")
               .NodeAffinityNotIn("foo", Strings{"bar"})
               .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
               .Obj(),
       .added_pod = P().Name("p-a1").Node("node-a").Label("foo", "").Label("zone", "zone1").Obj(),
       .existing_pods =
           {
               P().Name("p-a2").Node("node-a").Label("foo", "").Label("zone", "zone1").Obj(),
               P().Name("p-b1").Node("node-b").Label("foo", "").Label("zone", "zone2").Obj()},
       .node_idx = 0,
       .nodes = {N().Name("node-a")
                     .Label("zone", "zone1")
                     .Label("node", "node-a")
                     .Label("foo", "bar")
                     .Obj(),
                 N().Name("node-b")
                     .Label("zone", "zone2")
                     .Label("node", "node-b")
                     .Label("foo", "")
                     .Obj()},
       .want = WantState{{{1, "zone", 1, kHonor, kIgnore}},
                         {{{"zone2", 1}, {"", kMaxInt32}}},
                         {{{"zone2", 1}}}}},
      {.name =
           "add a pod when scheduling node affinity unmatched pod with NodeInclusionPolicy enabled",
       .preemptor =
           P().Name("p")
               .Label("foo", "")
               .NodeAffinityNotIn("foo", Strings{"bar"})
               .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
               .Obj(),
       .added_pod = P().Name("p-a1").Node("node-a").Label("foo", "").Label("zone", "zone1").Obj(),
       .existing_pods =
           {
               P().Name("p-a2").Node("node-a").Label("foo", "").Label("zone", "zone1").Obj(),
               P().Name("p-b1").Node("node-b").Label("foo", "").Label("zone", "zone2").Obj()},
       .node_idx = 0,
       .nodes = {N().Name("node-a")
                     .Label("zone", "zone1")
                     .Label("node", "node-a")
                     .Label("foo", "bar")
                     .Obj(),
                 N().Name("node-b")
                     .Label("zone", "zone2")
                     .Label("node", "node-b")
                     .Label("foo", "")
                     .Obj()},
       .want = WantState{{{1, "zone", 1, kHonor, kIgnore}},
                         {{{"zone2", 1}, {"", kMaxInt32}}},
                         {{{"zone2", 1}}}}},
      {.name =
           "add a pod when scheduling node affinity matched pod with NodeInclusionPolicy disabled",
       .preemptor =
           P().Name("p")
               .Label("foo", "")
               .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
               .Obj(),
       .added_pod = P().Name("p-b1").Node("node-b").Label("foo", "").Label("zone", "zone2").Obj(),
       .existing_pods =
           {
               P().Name("p-a1").Node("node-a").Label("foo", "").Label("zone", "zone1").Obj(),
               P().Name("p-b2").Node("node-b").Label("foo", "").Label("zone", "zone2").Obj()},
       .node_idx = 1,
       .nodes = {N().Name("node-a")
                     .Label("zone", "zone1")
                     .Label("node", "node-a")
                     .Label("foo", "bar")
                     .Obj(),
                 N().Name("node-b")
                     .Label("zone", "zone2")
                     .Label("node", "node-b")
                     .Label("foo", "")
                     .Obj()},
       .want = WantState{{{1, "zone", 1, kHonor, kIgnore}},
                         {{{"zone1", 1}, {"zone2", 2}}},
                         {{{"zone1", 1}, {"zone2", 2}}}}},
      {.name =
           "add a pod when scheduling node affinity matched pod with NodeInclusionPolicy enabled",
       .preemptor =
           P().Name("p")
               .Label("foo", "")
               .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
               .Obj(),
       .added_pod = P().Name("p-b1").Node("node-b").Label("foo", "").Label("zone", "zone2").Obj(),
       .existing_pods =
           {
               P().Name("p-a1").Node("node-a").Label("foo", "").Label("zone", "zone1").Obj(),
               P().Name("p-b2").Node("node-b").Label("foo", "").Label("zone", "zone2").Obj()},
       .node_idx = 1,
       .nodes = {N().Name("node-a")
                     .Label("zone", "zone1")
                     .Label("node", "node-a")
                     .Label("foo", "bar")
                     .Obj(),
                 N().Name("node-b")
                     .Label("zone", "zone2")
                     .Label("node", "node-b")
                     .Label("foo", "")
                     .Obj()},
       .want = WantState{{{1, "zone", 1, kHonor, kIgnore}},
                         {{{"zone1", 1}, {"zone2", 2}}},
                         {{{"zone1", 1}, {"zone2", 2}}}}},
      {.name = "add a label selector not matched pod when with NodeInclusionPolicy enabled",
       .preemptor =
           P().Name("p")
               .Label("foo", "")
               .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
               .Obj(),
       .added_pod = P().Name("p-b1").Node("node-b").Label("zone", "zone2").Obj(),
       .existing_pods =
           {
               P().Name("p-a1").Node("node-a").Label("foo", "").Label("zone", "zone1").Obj(),
               P().Name("p-b2").Node("node-b").Label("foo", "").Label("zone", "zone2").Obj()},
       .node_idx = 1,
       .nodes = {N().Name("node-a")
                     .Label("zone", "zone1")
                     .Label("node", "node-a")
                     .Label("foo", "bar")
                     .Obj(),
                 N().Name("node-b")
                     .Label("zone", "zone2")
                     .Label("node", "node-b")
                     .Label("foo", "")
                     .Obj()},
       .want = WantState{{{1, "zone", 1, kHonor, kIgnore}},
                         {{{"zone1", 1}, {"zone2", 1}}},
                         {{{"zone1", 1}, {"zone2", 1}}}}},
      {.name = "add a pod when scheduling taint untolerated pod with NodeInclusionPolicy disabled",
       .preemptor =
           P().Name("p")
               .Label("foo", "")
               .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
               .Obj(),
       .added_pod = P().Name("p-b1").Node("node-b").Label("foo", "").Label("zone", "zone2").Obj(),
       .existing_pods =
           {
               P().Name("p-a1").Node("node-a").Label("foo", "").Label("zone", "zone1").Obj(),
               P().Name("p-b2").Node("node-b").Label("foo", "").Label("zone", "zone2").Obj()},
       .node_idx = 1,
       .nodes = {N().Name("node-a")
                     .Label("zone", "zone1")
                     .Label("node", "node-a")
                     .Taints(UnschedulableTaints())
                     .Obj(),
                 N().Name("node-b").Label("zone", "zone2").Label("node", "node-b").Obj()},
       .want = WantState{{{1, "zone", 1, kHonor, kIgnore}},
                         {{{"zone1", 1}, {"zone2", 2}}},
                         {{{"zone2", 2}, {"zone1", 1}}}}},
      {.name = "add a pod when scheduling taint tolerated pod with NodeInclusionPolicy enabled",
       .preemptor =
           P().Name("p")
               .Label("foo", "")
               .Toleration(kTaintUnschedulable)
               .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
               .Obj(),
       .added_pod = P().Name("p-b1").Node("node-b").Label("foo", "").Label("zone", "zone2").Obj(),
       .existing_pods =
           {
               P().Name("p-a1").Node("node-a").Label("foo", "").Label("zone", "zone1").Obj(),
               P().Name("p-b2").Node("node-b").Label("foo", "").Label("zone", "zone2").Obj()},
       .node_idx = 1,
       .nodes = {N().Name("node-a")
                     .Label("zone", "zone1")
                     .Label("node", "node-a")
                     .Taints(UnschedulableTaints())
                     .Obj(),
                 N().Name("node-b").Label("zone", "zone2").Label("node", "node-b").Obj()},
       .want = WantState{{{1, "zone", 1, kHonor, kIgnore}},
                         {{{"zone1", 1}, {"zone2", 2}}},
                         {{{"zone2", 2}, {"zone1", 1}}}}}};
  for (const AddPodCase& c : cases) {
    SCOPED_TRACE(c.name);
    FakeHandle h(c.nodes, c.existing_pods);
    PodTopologySpread pl(ListArgs(), h);
    CycleState state;
    PreFilterResult result;
    ASSERT_TRUE(pl.PreFilter(state, c.preemptor, h.snapshot().nodes(), &result).ok());
    const NodeInfo& node = *h.snapshot().Get(c.nodes[c.node_idx].metadata.name);
    auto added = PodInfo::Make(std::make_shared<const api::Pod>(c.added_pod));
    ASSERT_TRUE(pl.AddPod(state, c.preemptor, *added, node).ok());
    EXPECT_EQ(Sorted(StateOf(*state.Read(internal::kPreFilterStateKey))), Sorted(c.want));
  }
}

struct RemovePodCase {
  std::string name;
  api::Pod preemptor;
  std::vector<api::Node> nodes;
  std::vector<api::Pod> existing_pods;
  int deleted_pod_idx;  // Into existing_pods, or -1 for deleted_pod.
  std::optional<api::Pod> deleted_pod;
  int node_idx;  // The node of the deleted pod.
  WantState want;
};

TEST(PodTopologySpreadPreFilterTest, RemovePod) {
  const std::vector<RemovePodCase> cases =
      {
          {.name = "one spreadConstraint on zone, topologyKeyToMinPodsMap unchanged",
           .preemptor =
               P().Name("p")
                   .Label("foo", "")
                   .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                   .Obj(),
           .nodes = {N().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
                     N().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
                     N().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj()},
           .existing_pods = {P().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
                             P().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
                             P().Name("p-x1").Node("node-x").Label("foo", "").Obj()},
           .deleted_pod_idx = 0,
           .deleted_pod = std::nullopt,
           .node_idx = 0,
           .want = WantState{{{1, "zone", 1, kHonor, kIgnore}},
                             {{{"zone1", 1}, {"zone2", 1}}},
                             {{{"zone1", 1}, {"zone2", 1}}}}},
          {.name = "one spreadConstraint on node, topologyKeyToMinPodsMap changed",
           .preemptor =
               P().Name("p")
                   .Label("foo", "")
                   .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                   .Obj(),
           .nodes = {N().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
                     N().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
                     N().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
                     N().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj()},
           .existing_pods = {P().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
                             P().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
                             P().Name("p-x1").Node("node-x").Label("foo", "").Obj(),
                             P().Name("p-y1").Node("node-y").Label("foo", "").Obj()},
           .deleted_pod_idx = 0,
           .deleted_pod = std::nullopt,
           .node_idx = 0,
           .want = WantState{{{1, "zone", 1, kHonor, kIgnore}},
                             {{{"zone1", 1}, {"zone2", 2}}},
                             {{{"zone1", 1}, {"zone2", 2}}}}},
          {.name = "delete an irrelevant pod won't help",
           .preemptor =
               P().Name("p")
                   .Label("foo", "")
                   .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                   .Obj(),
           .nodes = {N().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
                     N().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
                     N().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
                     N().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj()},
           .existing_pods = {P().Name("p-a0").Node("node-a").Label("bar", "").Obj(),
                             P().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
                             P().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
                             P().Name("p-x1").Node("node-x").Label("foo", "").Obj(),
                             P().Name("p-y1").Node("node-y").Label("foo", "").Obj()},
           .deleted_pod_idx = 0,
           .deleted_pod = std::nullopt,
           .node_idx = 0,
           .want = WantState{{{1, "zone", 1, kHonor, kIgnore}},
                             {{{"zone1", 2}, {"zone2", 2}}},
                             {{{"zone1", 2}, {"zone2", 2}}}}},
          {.name = "delete a non-existing pod won't help",
           .preemptor =
               P().Name("p")
                   .Label("foo", "")
                   .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                   .Obj(),
           .nodes = {N().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
                     N().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
                     N().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
                     N().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj()},
           .existing_pods = {P().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
                             P().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
                             P().Name("p-x1").Node("node-x").Label("foo", "").Obj(),
                             P().Name("p-y1").Node("node-y").Label("foo", "").Obj()},
           .deleted_pod_idx = -1,
           .deleted_pod = P().Name("p-a0").Node("node-a").Label("bar", "").Obj(),
           .node_idx = 0,
           .want = WantState{{{1, "zone", 1, kHonor, kIgnore}},
                             {{{"zone1", 2}, {"zone2", 2}}},
                             {{{"zone1", 2}, {"zone2", 2}}}}},
          {.name = "two spreadConstraints",
           .preemptor =
               P().Name("p")
                   .Label("foo", "")
                   .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                   .SpreadConstraint(1, "node", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                   .Obj(),
           .nodes = {N().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
                     N().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
                     N().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj()},
           .existing_pods = {P().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
                             P().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
                             P().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
                             P().Name("p-x1").Node("node-x").Label("foo", "").Obj(),
                             P().Name("p-x2").Node("node-x").Label("foo", "").Obj()},
           .deleted_pod_idx = 3,
           .deleted_pod = std::nullopt,
           .node_idx = 2,
           .want = WantState{{{1, "zone", 1, kHonor, kIgnore}, {1, "node", 1, kHonor, kIgnore}},
                             {{{"zone2", 1}, {"zone1", 3}}, {{"node-b", 1}, {"node-x", 1}}},
                             {{{"zone1", 3}, {"zone2", 1}},
                              {{"node-a", 2}, {"node-b", 1}, {"node-x", 1}}}}},
          {.name = "remove a pod when scheduling node affinity unmatched pod with "
                   "NodeInclusionPolicy disabled",
           .preemptor =
               P().Name("p")
                   .Label("foo", "")
                   .NodeAffinityNotIn("foo", Strings{"bar"})
                   .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                   .Obj(),
           .nodes = {N().Name("node-a")
                         .Label("zone", "zone1")
                         .Label("node", "node-a")
                         .Label("foo", "bar")
                         .Obj(),
                     N().Name("node-b")
                         .Label("zone", "zone2")
                         .Label("node", "node-b")
                         .Label("foo", "")
                         .Obj()},
           .existing_pods =
               {
                   P().Name("p-a2").Node("node-a").Label("foo", "").Label("zone", "zone1").Obj(),
                   P().Name("p-b1").Node("node-b").Label("foo", "").Label("zone", "zone2").Obj()},
           .deleted_pod_idx = 0,
           .deleted_pod =
               P().Name("p-a1").Node("node-a").Label("foo", "").Label("zone", "zone1").Obj(),
           .node_idx = 0,
           .want = WantState{{{1, "zone", 1, kHonor, kIgnore}},
                             {{{"zone2", 1}, {"", kMaxInt32}}},
                             {{{"zone2", 1}}}}},
          {.name = "remove a pod when scheduling node affinity unmatched pod with "
                   "NodeInclusionPolicy enabled",
           .preemptor =
               P().Name("p")
                   .Label("foo", "")
                   .NodeAffinityNotIn("foo", Strings{"bar"})
                   .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                   .Obj(),
           .nodes = {N().Name("node-a")
                         .Label("zone", "zone1")
                         .Label("node", "node-a")
                         .Label("foo", "bar")
                         .Obj(),
                     N().Name("node-b")
                         .Label("zone", "zone2")
                         .Label("node", "node-b")
                         .Label("foo", "")
                         .Obj()},
           .existing_pods =
               {
                   P().Name("p-a2").Node("node-a").Label("foo", "").Label("zone", "zone1").Obj(),
                   P().Name("p-b1").Node("node-b").Label("foo", "").Label("zone", "zone2").Obj()},
           .deleted_pod_idx = 0,
           .deleted_pod =
               P().Name("p-a1").Node("node-a").Label("foo", "").Label("zone", "zone1").Obj(),
           .node_idx = 0,
           .want = WantState{{{1, "zone", 1, kHonor, kIgnore}},
                             {{{"zone2", 1}, {"", kMaxInt32}}},
                             {{{"zone2", 1}}}}},
          {.name = "remove a pod when scheduling node affinity matched pod with "
                   "NodeInclusionPolicy disabled",
           .preemptor =
               P().Name("p")
                   .Label("foo", "")
                   .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                   .Obj(),
           .nodes = {N().Name("node-a")
                         .Label("zone", "zone1")
                         .Label("node", "node-a")
                         .Label("foo", "bar")
                         .Obj(),
                     N().Name("node-b")
                         .Label("zone", "zone2")
                         .Label("node", "node-b")
                         .Label("foo", "")
                         .Obj()},
           .existing_pods =
               {
                   P().Name("p-a1").Node("node-a").Label("foo", "").Label("zone", "zone1").Obj(),
                   P().Name("p-b2").Node("node-b").Label("foo", "").Label("zone", "zone2").Obj()},
           .deleted_pod_idx = 0,
           .deleted_pod =
               P().Name("p-b1").Node("node-b").Label("foo", "").Label("zone", "zone2").Obj(),
           .node_idx = 1,
           .want = WantState{{{1, "zone", 1, kHonor, kIgnore}},
                             {{{"zone2", 0}, {"zone1", 1}}},
                             {{{"zone2", 0}, {"zone1", 1}}}}},
          {.name = "remove a pod when scheduling node affinity matched pod with "
                   "NodeInclusionPolicy enabled",
           .preemptor =
               P().Name("p")
                   .Label("foo", "")
                   .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                   .Obj(),
           .nodes = {N().Name("node-a")
                         .Label("zone", "zone1")
                         .Label("node", "node-a")
                         .Label("foo", "bar")
                         .Obj(),
                     N().Name("node-b")
                         .Label("zone", "zone2")
                         .Label("node", "node-b")
                         .Label("foo", "")
                         .Obj()},
           .existing_pods =
               {
                   P().Name("p-a1").Node("node-a").Label("foo", "").Label("zone", "zone1").Obj(),
                   P().Name("p-b2").Node("node-b").Label("foo", "").Label("zone", "zone2").Obj()},
           .deleted_pod_idx = 0,
           .deleted_pod =
               P().Name("p-b1").Node("node-b").Label("foo", "").Label("zone", "zone2").Obj(),
           .node_idx = 1,
           .want = WantState{{{1, "zone", 1, kHonor, kIgnore}},
                             {{{"zone2", 0}, {"zone1", 1}}},
                             {{{"zone2", 0}, {"zone1", 1}}}}}};
  for (const RemovePodCase& c : cases) {
    SCOPED_TRACE(c.name);
    FakeHandle h(c.nodes, c.existing_pods);
    PodTopologySpread pl(ListArgs(), h);
    CycleState state;
    PreFilterResult result;
    ASSERT_TRUE(pl.PreFilter(state, c.preemptor, h.snapshot().nodes(), &result).ok());
    const bool in_existing =
        c.deleted_pod_idx >= 0 && c.deleted_pod_idx < static_cast<int>(c.existing_pods.size());
    const api::Pod& deleted = in_existing ? c.existing_pods[c.deleted_pod_idx] : *c.deleted_pod;
    const NodeInfo& node = *h.snapshot().Get(c.nodes[c.node_idx].metadata.name);
    auto removed = PodInfo::Make(std::make_shared<const api::Pod>(deleted));
    ASSERT_TRUE(pl.RemovePod(state, c.preemptor, *removed, node).ok());
    EXPECT_EQ(Sorted(StateOf(*state.Read(internal::kPreFilterStateKey))), Sorted(c.want));
  }
}

}  // namespace
}  // namespace ksched::plugins::pod_topology_spread
