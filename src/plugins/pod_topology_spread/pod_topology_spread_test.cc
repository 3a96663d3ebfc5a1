#include "src/plugins/pod_topology_spread/pod_topology_spread.h"

#include <gtest/gtest.h>

#include <bit>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "src/plugins/pod_topology_spread/test_builders.h"
#include "src/testing/fake_handle.h"
#include "src/testing/plugin_args.h"

namespace ksched::plugins::pod_topology_spread {
namespace {

using namespace testing;  // NOLINT: the builders of upstream's cases.
using ksched::testing::FakeHandle;
using nlohmann::json;

const PodTopologySpreadArgs kListArgs{.defaulting_type = DefaultingType::kList};

// --- Queueing hints: upstream's plugin_test.go --------------------------------------------------

QueueingHint Hint(const PodTopologySpread& pl, size_t event, const api::Pod& pod,
                  const ClusterEventData& data) {
  return pl.EventsToRegister().at(event).hint(pod, data);
}

TEST(PodTopologySpreadHintTest, NodeChange) {
  struct Case {
    std::string name;
    api::Pod pod;
    std::optional<api::Node> old_node, new_node;
    QueueingHint want;
  };
  const std::vector<Case> cases = {
      {.name = "node updates label which matches topologyKey",
       .pod = P().Name("p")
                  .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                  .Obj(),
       .old_node = N().Name("node-a").Label("zone", "zone1").Obj(),
       .new_node = N().Name("node-a").Label("zone", "zone2").Obj(),
       .want = QueueingHint::kQueue},
      {.name = "node that doesn't match topologySpreadConstraints updates non-related label",
       .pod = P().Name("p")
                  .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                  .Obj(),
       .old_node = N().Name("node-a").Label("foo", "bar1").Obj(),
       .new_node = N().Name("node-a").Label("foo", "bar2").Obj(),
       .want = QueueingHint::kQueueSkip},
      {.name = "node that match topologySpreadConstraints adds non-related label",
       .pod = P().Name("p")
                  .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                  .SpreadConstraint(1, "node", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                  .Obj(),
       .old_node = N().Name("node-a")
                       .Label("zone", "zone1")
                       .Label("node", "node1")
                       .Label("foo", "bar")
                       .Obj(),
       .new_node = N().Name("node-a").Label("zone", "zone1").Label("node", "node1").Obj(),
       .want = QueueingHint::kQueueSkip},
      {.name = "create node with non-related labels",
       .pod = P().Name("p")
                  .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                  .Obj(),
       .old_node = std::nullopt,
       .new_node = N().Name("node-a").Label("foo", "bar").Obj(),
       .want = QueueingHint::kQueueSkip},
      {.name = "create node with related labels",
       .pod = P().Name("p")
                  .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                  .Obj(),
       .old_node = std::nullopt,
       .new_node = N().Name("node-a").Label("zone", "zone1").Obj(),
       .want = QueueingHint::kQueue},
      {.name = "delete node with non-related labels",
       .pod = P().Name("p")
                  .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                  .Obj(),
       .old_node = N().Name("node-a").Label("foo", "bar").Obj(),
       .new_node = std::nullopt,
       .want = QueueingHint::kQueueSkip},
      {.name = "delete node with related labels",
       .pod = P().Name("p")
                  .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                  .Obj(),
       .old_node = N().Name("node-a").Label("zone", "zone1").Obj(),
       .new_node = std::nullopt,
       .want = QueueingHint::kQueue},
      {.name = "add node with related labels that only match one of topologySpreadConstraints",
       .pod = P().Name("p")
                  .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                  .SpreadConstraint(1, "node", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                  .Obj(),
       .old_node = std::nullopt,
       .new_node = N().Name("node-a").Label("zone", "zone1").Obj(),
       .want = QueueingHint::kQueueSkip},
      {.name = "add node with related labels that match all topologySpreadConstraints",
       .pod = P().Name("p")
                  .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                  .SpreadConstraint(1, "node", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                  .Obj(),
       .old_node = std::nullopt,
       .new_node = N().Name("node-a").Label("zone", "zone1").Label("node", "node1").Obj(),
       .want = QueueingHint::kQueue},
      {.name = "update node with related labels that only match one of topologySpreadConstraints",
       .pod = P().Name("p")
                  .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                  .SpreadConstraint(1, "node", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                  .Obj(),
       .old_node = N().Name("node-a").Label("zone", "zone1").Obj(),
       .new_node = N().Name("node-a").Label("zone", "zone1").Obj(),
       .want = QueueingHint::kQueueSkip},
      {.name = "update node with related labels that match all topologySpreadConstraints",
       .pod = P().Name("p")
                  .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                  .SpreadConstraint(1, "node", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                  .Obj(),
       .old_node = N().Name("node-a").Label("zone", "zone1").Label("node", "node1").Obj(),
       .new_node = N().Name("node-a").Label("zone", "zone1").Label("node", "node2").Obj(),
       .want = QueueingHint::kQueue},
      {.name = "update node with different taints that match all topologySpreadConstraints",
       .pod = P().Name("p")
                  .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                  .SpreadConstraint(1, "node", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                  .Obj(),
       .old_node = N().Name("node-a")
                       .Label("zone", "zone1")
                       .Label("node", "node1")
                       .Taints(TaintList{{.key = "aaa", .value = "bbb", .effect = "NoSchedule"}})
                       .Obj(),
       .new_node = N().Name("node-a")
                       .Label("zone", "zone1")
                       .Label("node", "node1")
                       .Taints(TaintList{{.key = "ccc", .value = "bbb", .effect = "NoSchedule"}})
                       .Obj(),
       .want = QueueingHint::kQueue},
      {.name = "update node with different taints that only match one of topologySpreadConstraints",
       .pod = P().Name("p")
                  .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                  .SpreadConstraint(1, "node", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                  .Obj(),
       .old_node = N().Name("node-a")
                       .Label("node", "node1")
                       .Taints(TaintList{{.key = "aaa", .value = "bbb", .effect = "NoSchedule"}})
                       .Obj(),
       .new_node = N().Name("node-a")
                       .Label("node", "node1")
                       .Taints(TaintList{{.key = "ccc", .value = "bbb", .effect = "NoSchedule"}})
                       .Obj(),
       .want = QueueingHint::kQueueSkip}};
  FakeHandle h;
  PodTopologySpread pl(kListArgs, h);
  for (const Case& c : cases) {
    ClusterEventData data{.old_node = c.old_node ? &*c.old_node : nullptr,
                          .new_node = c.new_node ? &*c.new_node : nullptr};
    EXPECT_EQ(Hint(pl, 1, c.pod, data), c.want) << c.name;
  }
}

TEST(PodTopologySpreadHintTest, PodChange) {
  struct Case {
    std::string name;
    api::Pod pod;
    std::optional<api::Pod> old_pod, new_pod;
    QueueingHint want;
  };
  const std::vector<Case> cases = {
      {.name = "add pod with labels match topologySpreadConstraints selector",
       .pod = P().UID("p")
                  .Name("p")
                  .Label("foo", "")
                  .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                  .Obj(),
       .old_pod = std::nullopt,
       .new_pod = P().UID("p2").Node("fake-node").Label("foo", "").Obj(),
       .want = QueueingHint::kQueue},
      {.name = "add un-scheduled pod",
       .pod = P().UID("p")
                  .Name("p")
                  .Label("foo", "")
                  .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                  .Obj(),
       .old_pod = std::nullopt,
       .new_pod = P().UID("p2").Label("foo", "").Obj(),
       .want = QueueingHint::kQueueSkip},
      {.name = "update un-scheduled pod",
       .pod = P().UID("p")
                  .Name("p")
                  .Label("foo", "")
                  .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                  .Obj(),
       .old_pod = P().UID("p2").Label("bar", "").Obj(),
       .new_pod = P().UID("p2").Label("foo", "").Obj(),
       .want = QueueingHint::kQueueSkip},
      {.name = "delete un-scheduled pod",
       .pod = P().UID("p")
                  .Name("p")
                  .Label("foo", "")
                  .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                  .Obj(),
       .old_pod = P().UID("p2").Label("foo", "").Obj(),
       .new_pod = std::nullopt,
       .want = QueueingHint::kQueueSkip},
      {.name = "add pod with different namespace",
       .pod = P().UID("p")
                  .Name("p")
                  .Label("foo", "")
                  .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                  .Obj(),
       .old_pod = std::nullopt,
       .new_pod =
           P().UID("p2").Node("fake-node").Namespace("fake-namespace").Label("foo", "").Obj(),
       .want = QueueingHint::kQueueSkip},
      {.name = "add pod with labels don't match topologySpreadConstraints selector",
       .pod = P().UID("p")
                  .Name("p")
                  .Label("foo", "")
                  .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                  .Obj(),
       .old_pod = std::nullopt,
       .new_pod = P().UID("p2").Node("fake-node").Label("bar", "").Obj(),
       .want = QueueingHint::kQueueSkip},
      {.name = "delete pod with labels that match topologySpreadConstraints selector",
       .pod = P().UID("p")
                  .Name("p")
                  .Label("foo", "")
                  .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                  .Obj(),
       .old_pod = P().UID("p2").Node("fake-node").Label("foo", "").Obj(),
       .new_pod = std::nullopt,
       .want = QueueingHint::kQueue},
      {.name =
           "delete nominated pod with labels that don't match topologySpreadConstraints selector",
       .pod = P().UID("p")
                  .Name("p")
                  .Label("foo", "")
                  .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                  .Obj(),
       .old_pod = P().UID("p2").NominatedNodeName("fake-node").Label("bar", "").Obj(),
       .new_pod = std::nullopt,
       .want = QueueingHint::kQueueSkip},
      {.name = "delete nominated pod with labels that match topologySpreadConstraints selector",
       .pod = P().UID("p")
                  .Name("p")
                  .Label("foo", "")
                  .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                  .Obj(),
       .old_pod = P().UID("p2").NominatedNodeName("fake-node").Label("foo", "").Obj(),
       .new_pod = std::nullopt,
       .want = QueueingHint::kQueue},
      {.name = "delete pod with labels that don't match topologySpreadConstraints selector",
       .pod = P().UID("p")
                  .Name("p")
                  .Label("foo", "")
                  .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                  .Obj(),
       .old_pod = P().UID("p2").Node("fake-node").Label("bar", "").Obj(),
       .new_pod = std::nullopt,
       .want = QueueingHint::kQueueSkip},
      {.name = "update pod's non-related label",
       .pod = P().UID("p")
                  .Name("p")
                  .Label("foo", "")
                  .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                  .Obj(),
       .old_pod = P().UID("p2").Node("fake-node").Label("foo", "").Label("bar", "bar1").Obj(),
       .new_pod = P().UID("p2").Node("fake-node").Label("foo", "").Label("bar", "bar2").Obj(),
       .want = QueueingHint::kQueueSkip},
      {.name = "add pod's label that matches topologySpreadConstraints selector",
       .pod = P().UID("p")
                  .Name("p")
                  .Label("foo", "")
                  .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                  .Obj(),
       .old_pod = P().UID("p2").Node("fake-node").Obj(),
       .new_pod = P().UID("p2").Node("fake-node").Label("foo", "").Obj(),
       .want = QueueingHint::kQueue},
      {.name = "delete pod label that matches topologySpreadConstraints selector",
       .pod = P().UID("p")
                  .Name("p")
                  .Label("foo", "")
                  .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                  .Obj(),
       .old_pod = P().UID("p2").Node("fake-node").Label("foo", "").Obj(),
       .new_pod = P().UID("p2").Node("fake-node").Obj(),
       .want = QueueingHint::kQueue},
      {.name = "change pod's label that matches topologySpreadConstraints selector",
       .pod = P().UID("p")
                  .Name("p")
                  .Label("foo", "")
                  .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                  .Obj(),
       .old_pod = P().UID("p2").Node("fake-node").Label("foo", "foo1").Obj(),
       .new_pod = P().UID("p2").Node("fake-node").Label("foo", "foo2").Obj(),
       .want = QueueingHint::kQueueSkip},
      {.name = "change pod's label that doesn't match topologySpreadConstraints selector",
       .pod = P().UID("p")
                  .Name("p")
                  .Label("foo", "")
                  .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                  .Obj(),
       .old_pod = P().UID("p2").Node("fake-node").Label("foo", "").Label("bar", "bar1").Obj(),
       .new_pod = P().UID("p2").Node("fake-node").Label("foo", "").Label("bar", "bar2").Obj(),
       .want = QueueingHint::kQueueSkip},
      {.name = "add pod's label that matches topologySpreadConstraints selector with multi "
               "topologySpreadConstraints",
       .pod = P().UID("p")
                  .Name("p")
                  .Label("foo", "")
                  .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                  .SpreadConstraint(1, "node", "DoNotSchedule", BarSelector(), nil, nil, nil, nil)
                  .Obj(),
       .old_pod = P().UID("p2").Node("fake-node").Label("foo", "").Obj(),
       .new_pod = P().UID("p2").Node("fake-node").Label("foo", "").Label("bar", "bar2").Obj(),
       .want = QueueingHint::kQueue},
      {.name = "change pod's label that doesn't match topologySpreadConstraints selector with "
               "multi topologySpreadConstraints",
       .pod = P().UID("p")
                  .Name("p")
                  .Label("foo", "")
                  .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                  .SpreadConstraint(1, "node", "DoNotSchedule", BarSelector(), nil, nil, nil, nil)
                  .Obj(),
       .old_pod = P().UID("p2").Node("fake-node").Label("foo", "").Obj(),
       .new_pod = P().UID("p2").Node("fake-node").Label("foo", "").Label("baz", "").Obj(),
       .want = QueueingHint::kQueueSkip},
      {.name = "change pod's label that match topologySpreadConstraints selector with multi "
               "topologySpreadConstraints",
       .pod = P().UID("p")
                  .Name("p")
                  .Label("foo", "")
                  .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
                  .SpreadConstraint(1, "node", "DoNotSchedule", BarSelector(), nil, nil, nil, nil)
                  .Obj(),
       .old_pod = P().UID("p2").Node("fake-node").Label("foo", "").Label("bar", "").Obj(),
       .new_pod = P().UID("p2").Node("fake-node").Label("foo", "").Label("bar", "bar2").Obj(),
       .want = QueueingHint::kQueueSkip},
      {.name = "the unschedulable Pod has topologySpreadConstraint with NodeTaintsPolicy:Honor and "
               "has got a new toleration",
       .pod =
           P().UID("p")
               .Name("p")
               .Label("foo", "")
               .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, nil, kHonor, nil)
               .SpreadConstraint(1, "node", "DoNotSchedule", BarSelector(), nil, nil, nil, nil)
               .Obj(),
       .old_pod = P().UID("p").Name("p").Label("foo", "").Obj(),
       .new_pod = P().UID("p").Name("p").Label("foo", "").Toleration(kTaintUnschedulable).Obj(),
       .want = QueueingHint::kQueue},
      {.name = "the unschedulable Pod has topologySpreadConstraint without NodeTaintsPolicy:Honor "
               "and has got a new toleration",
       .pod =
           P().UID("p")
               .Name("p")
               .Label("foo", "")
               .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, nil, kIgnore, nil)
               .SpreadConstraint(1, "node", "DoNotSchedule", BarSelector(), nil, nil, nil, nil)
               .Obj(),
       .old_pod = P().UID("p").Name("p").Label("foo", "").Obj(),
       .new_pod = P().UID("p").Name("p").Label("foo", "").Toleration(kTaintUnschedulable).Obj(),
       .want = QueueingHint::kQueueSkip},
      {.name = "the unschedulable Pod has topologySpreadConstraint and has got a new label "
               "matching the selector of the constraint",
       .pod =
           P().UID("p")
               .Name("p")
               .Label("foo", "")
               .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, nil, kIgnore, nil)
               .SpreadConstraint(1, "node", "DoNotSchedule", BarSelector(), nil, nil, nil, nil)
               .Obj(),
       .old_pod = P().UID("p").Name("p").Obj(),
       .new_pod = P().UID("p").Name("p").Label("foo", "").Obj(),
       .want = QueueingHint::kQueue},
      {.name =
           "the unschedulable Pod has topologySpreadConstraint and has got a new unrelated label",
       .pod =
           P().UID("p")
               .Name("p")
               .Label("foo", "")
               .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, nil, kIgnore, nil)
               .SpreadConstraint(1, "node", "DoNotSchedule", BarSelector(), nil, nil, nil, nil)
               .Obj(),
       .old_pod = P().UID("p").Name("p").Obj(),
       .new_pod = P().UID("p").Name("p").Label("unrelated", "").Obj(),
       .want = QueueingHint::kQueueSkip}};
  FakeHandle h;
  PodTopologySpread pl(kListArgs, h);
  for (const Case& c : cases) {
    ClusterEventData data{.old_pod = c.old_pod ? &*c.old_pod : nullptr,
                          .new_pod = c.new_pod ? &*c.new_pod : nullptr};
    EXPECT_EQ(Hint(pl, 0, c.pod, data), c.want) << c.name;
  }
}

TEST(PodTopologySpreadHintTest, RegistersPodAndNodeEvents) {
  FakeHandle h;
  PodTopologySpread pl(kListArgs, h);
  std::vector<ClusterEventWithHint> events = pl.EventsToRegister();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].event.resource, EventResource::kPod);
  EXPECT_EQ(events[0].event.action, kAdd | kUpdatePodLabel | kUpdatePodToleration | kDelete);
  EXPECT_EQ(events[1].event.resource, EventResource::kNode);
  EXPECT_EQ(events[1].event.action, kAdd | kDelete | kUpdateNodeLabel | kUpdateNodeTaint);
}

// A pod without constraints of its own is judged by the default ones: the hints see the
// defaults' selector, from the Service that selects the pod.
TEST(PodTopologySpreadHintTest, DefaultConstraintsSelectFromTheService) {
  FakeHandle h;
  AddObjects(h, {Svc("default", {{"app", "web"}})});
  PodTopologySpread pl({.default_constraints = {{.max_skew = 1,
                                                 .topology_key = "zone",
                                                 .when_unsatisfiable = "DoNotSchedule"}},
                        .defaulting_type = DefaultingType::kList},
                       h);
  const api::Pod pod = P().Name("p").Namespace("default").Label("app", "web").Obj();
  const api::Pod web = P().Name("w").Namespace("default").Node("n").Label("app", "web").Obj();
  const api::Pod db = P().Name("d").Namespace("default").Node("n").Label("app", "db").Obj();
  EXPECT_EQ(Hint(pl, 0, pod, {.old_pod = &web}), QueueingHint::kQueue);
  EXPECT_EQ(Hint(pl, 0, pod, {.old_pod = &db}), QueueingHint::kQueueSkip);
}

// --- Default constraints ------------------------------------------------------------------------

// Three zoned nodes; node-a holds two pods of the web Service, node-b one, node-c none.
struct WebCluster {
  std::vector<api::Node> nodes = {
      N().Name("node-a").Label(kHostname, "node-a").Label(kZone, "z1").Obj(),
      N().Name("node-b").Label(kHostname, "node-b").Label(kZone, "z1").Obj(),
      N().Name("node-c").Label(kHostname, "node-c").Label(kZone, "z2").Obj()};
  std::vector<api::Pod> pods = {
      P().Name("w1").Namespace("default").Node("node-a").Label("app", "web").Obj(),
      P().Name("w2").Namespace("default").Node("node-a").Label("app", "web").Obj(),
      P().Name("w3").Namespace("default").Node("node-b").Label("app", "web").Obj(),
      // Not selected: another app, another namespace.
      P().Name("d1").Namespace("default").Node("node-c").Label("app", "db").Obj(),
      P().Name("w4").Namespace("other").Node("node-c").Label("app", "web").Obj()};
};

std::map<std::string, int64_t> ScoresOf(PodTopologySpread& pl, const FakeHandle& h,
                                        const api::Pod& pod) {
  CycleState state;
  const std::vector<const NodeInfo*>& nodes = h.snapshot().nodes();
  Status s = pl.PreScore(state, pod, nodes);
  if (s.IsSkip()) return {};
  EXPECT_TRUE(s.ok()) << s.Message();
  NodeScoreList scores;
  for (const NodeInfo* ni : nodes) scores.push_back({ni, 0});
  EXPECT_TRUE(pl.ScoreNodes(state, pod, scores).ok());
  EXPECT_TRUE(pl.NormalizeScore(state, pod, scores).ok());
  std::map<std::string, int64_t> out;
  for (const NodeScore& ns : scores) out[ns.node->name()] = ns.score;
  return out;
}

// The System defaults (hostname maxSkew 3, zone maxSkew 5, both ScheduleAnyway) only score:
// PreFilter skips. With the Service's selector, node-c (no web pod, the emptier zone) wins.
TEST(PodTopologySpreadDefaultsTest, SystemDefaultsWithAService) {
  WebCluster cluster;
  FakeHandle h(cluster.nodes, cluster.pods);
  AddObjects(h, {Svc("default", {{"app", "web"}})});
  PodTopologySpread pl(PodTopologySpreadArgs{}, h);
  const api::Pod pod = P().Name("p").Namespace("default").Label("app", "web").Obj();

  CycleState state;
  PreFilterResult result;
  EXPECT_TRUE(pl.PreFilter(state, pod, h.snapshot().nodes(), &result).IsSkip());

  // hostname: w=log(5); counts 2/1/0 -> 2w+2, w+2, 2. zone: w=log(4); counts 3/3/0 -> 3w+4,
  // 3w+4, 4. Raw: 13.38, 11.77, 6 -> rounded 13, 12, 6; normalized 100*(13+6-s)/13.
  EXPECT_EQ(ScoresOf(pl, h, pod),
            (std::map<std::string, int64_t>{{"node-a", 46}, {"node-b", 53}, {"node-c", 100}}));
}

// A pod no Service or controller selects gets no default constraints.
TEST(PodTopologySpreadDefaultsTest, NoSelectorNoDefaults) {
  WebCluster cluster;
  FakeHandle h(cluster.nodes, cluster.pods);
  AddObjects(h, {Svc("default", {{"app", "db"}}), Svc("other", {{"app", "web"}})});
  PodTopologySpread pl(PodTopologySpreadArgs{}, h);
  const api::Pod pod = P().Name("p").Namespace("default").Label("app", "web").Obj();
  CycleState state;
  EXPECT_TRUE(pl.PreScore(state, pod, h.snapshot().nodes()).IsSkip());
}

// The ReplicaSet that controls the pod gives the selector: its requirements, ANDed with the
// Services'.
TEST(PodTopologySpreadDefaultsTest, ReplicaSetSelector) {
  WebCluster cluster;
  FakeHandle h(cluster.nodes, cluster.pods);
  AddObjects(h, {RS("default", "web-rs", LS().Label("app", "web").Obj())});
  PodTopologySpread pl(PodTopologySpreadArgs{}, h);
  const api::Pod pod = P().Name("p")
                           .Namespace("default")
                           .Label("app", "web")
                           .OwnerReference("web-rs", "apps/v1", "ReplicaSet")
                           .Obj();
  EXPECT_EQ(ScoresOf(pl, h, pod),
            (std::map<std::string, int64_t>{{"node-a", 46}, {"node-b", 53}, {"node-c", 100}}));
  // An owner of another API group, or one the cluster does not have, selects nothing.
  for (const auto& [name, api_version] :
       {std::pair{"web-rs", "extensions/v1beta1"}, std::pair{"missing", "apps/v1"}}) {
    const api::Pod other = P().Name("p")
                               .Namespace("default")
                               .Label("app", "web")
                               .OwnerReference(name, api_version, "ReplicaSet")
                               .Obj();
    EXPECT_TRUE(ScoresOf(pl, h, other).empty()) << name << " " << api_version;
  }
}

// List defaults may filter; the pod's own constraints, when it has any, replace them all.
TEST(PodTopologySpreadDefaultsTest, ListDefaultsFilter) {
  WebCluster cluster;
  FakeHandle h(cluster.nodes, cluster.pods);
  AddObjects(h, {Svc("default", {{"app", "web"}})});
  PodTopologySpread pl({.default_constraints = {{.max_skew = 1,
                                                 .topology_key = kHostname,
                                                 .when_unsatisfiable = "DoNotSchedule"}},
                        .defaulting_type = DefaultingType::kList},
                       h);
  auto filter = [&](const api::Pod& pod) {
    CycleState state;
    PreFilterResult result;
    std::map<std::string, std::string> out;
    Status pre = pl.PreFilter(state, pod, h.snapshot().nodes(), &result);
    if (pre.IsSkip()) return out;
    for (const NodeInfo* ni : h.snapshot().nodes()) {
      Status s = pl.Filter(state, pod, *ni);
      out[ni->name()] = s.ok() ? "" : s.Message();
      // A copy of the node (preemption's), and a node the snapshot does not hold with the same
      // Node copied, which reads its own labels: the same verdict.
      NodeInfo stranger;
      stranger.SetNode(std::make_shared<const api::Node>(*ni->node()));
      EXPECT_EQ(pl.Filter(state, pod, *ni->Clone()).Message(), s.Message()) << ni->name();
      EXPECT_EQ(pl.Filter(state, pod, stranger).Message(), s.Message()) << ni->name();
    }
    return out;
  };
  const api::Pod pod = P().Name("p").Namespace("default").Label("app", "web").Obj();
  // Counts 2/1/0: only node-c keeps the skew within 1.
  EXPECT_EQ(filter(pod),
            (std::map<std::string, std::string>{{"node-a", kErrReasonConstraintsNotMatch},
                                                {"node-b", kErrReasonConstraintsNotMatch},
                                                {"node-c", ""}}));
  const api::Pod own =
      P().Name("p")
          .Namespace("default")
          .Label("app", "web")
          .SpreadConstraint(1, "rack", "ScheduleAnyway", FooSelector(), nil, nil, nil, nil)
          .Obj();
  EXPECT_TRUE(filter(own).empty());  // Skip: its own constraints have no DoNotSchedule one.
}

// --- Filter messages and codes ------------------------------------------------------------------

TEST(PodTopologySpreadFilterTest, MessagesAndCodes) {
  FakeHandle h({N().Name("a").Label("zone", "z1").Obj(), N().Name("b").Label("zone", "z2").Obj(),
                N().Name("c").Obj()},
               {P().Name("x").Node("a").Label("foo", "").Obj()});
  PodTopologySpread pl(kListArgs, h);
  const api::Pod pod =
      P().Name("p")
          .Label("foo", "")
          .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
          .Obj();
  CycleState state;
  PreFilterResult result;
  ASSERT_TRUE(pl.PreFilter(state, pod, h.snapshot().nodes(), &result).ok());
  Status a = pl.Filter(state, pod, *h.snapshot().Get("a"));
  EXPECT_EQ(a.code(), Code::kUnschedulable);
  EXPECT_EQ(a.Message(), "node(s) didn't match pod topology spread constraints");
  EXPECT_TRUE(pl.Filter(state, pod, *h.snapshot().Get("b")).ok());
  Status c = pl.Filter(state, pod, *h.snapshot().Get("c"));
  EXPECT_EQ(c.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(c.Message(),
            "node(s) didn't match pod topology spread constraints (missing required label)");
}

// PreFilter's state is copied for preemption's what-if runs: a change to the copy leaves the
// original as it was.
TEST(PodTopologySpreadFilterTest, CloneIsDeep) {
  FakeHandle h({N().Name("a").Label("zone", "z1").Obj(), N().Name("b").Label("zone", "z2").Obj()});
  PodTopologySpread pl(kListArgs, h);
  const api::Pod pod =
      P().Name("p")
          .Label("foo", "")
          .SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(), nil, nil, nil, nil)
          .Obj();
  CycleState state;
  PreFilterResult result;
  ASSERT_TRUE(pl.PreFilter(state, pod, h.snapshot().nodes(), &result).ok());
  std::unique_ptr<CycleState> copy = state.Clone();
  auto added = PodInfo::Make(
      std::make_shared<const api::Pod>(P().Name("x").Node("a").Label("foo", "").Obj()));
  ASSERT_TRUE(pl.AddPod(*copy, pod, *added, *h.snapshot().Get("a")).ok());
  ASSERT_TRUE(pl.AddPod(*copy, pod, *added, *h.snapshot().Get("a")).ok());
  EXPECT_EQ(pl.Filter(*copy, pod, *h.snapshot().Get("a")).code(), Code::kUnschedulable);
  EXPECT_TRUE(pl.Filter(state, pod, *h.snapshot().Get("a")).ok());
}

TEST(PodTopologySpreadFilterTest, NoStateIsAnError) {
  FakeHandle h({N().Name("a").Label("zone", "z1").Obj()});
  PodTopologySpread pl(kListArgs, h);
  CycleState state;
  const api::Pod pod = P().Name("p").Obj();
  EXPECT_EQ(pl.Filter(state, pod, *h.snapshot().Get("a")).code(), Code::kError);
  auto info = PodInfo::Make(std::make_shared<const api::Pod>(pod));
  EXPECT_EQ(pl.AddPod(state, pod, *info, *h.snapshot().Get("a")).code(), Code::kError);
}

// --- Go's logarithm -----------------------------------------------------------------------------

// Go's math.Log for integers where glibc's log differs in the last bit (the bits are Go 1.26's
// on amd64); the weights, and so the rounded scores, must use Go's.
TEST(PodTopologySpreadScoreTest, GoLogMatchesGo) {
  const std::map<int, uint64_t> go = {{3, 0x3ff193ea7aad030a},    {14, 0x40051cca16d7bba8},
                                      {48, 0x400ef8383c50bb74},   {74, 0x4011375cd6fcab1c},
                                      {1002, 0x401ba3965d405f5f}, {5002, 0x40210901f6dc84b9}};
  for (const auto& [x, bits] : go) {
    EXPECT_EQ(std::bit_cast<uint64_t>(internal::GoLog(x)), bits) << x;
  }
}

// --- Registry -----------------------------------------------------------------------------------

TEST(PodTopologySpreadTest, FactoryBuildsNamedPlugin) {
  FakeHandle h;
  absl::StatusOr<std::unique_ptr<Plugin>> plugin = ksched::testing::NewFromArgs(
      MakeArgsDecoder(ParseArgs, ArgsToJson), TypedFactory<PodTopologySpreadArgs>(New),
      json{{"defaultingType", "List"}}, h);
  ASSERT_TRUE(plugin.ok()) << plugin.status();
  EXPECT_EQ((*plugin)->Name(), "PodTopologySpread");
  EXPECT_NE(dynamic_cast<PreFilterExtensions*>(plugin->get()), nullptr);
  EXPECT_NE(dynamic_cast<ScoreExtensions*>(plugin->get()), nullptr);
}

}  // namespace
}  // namespace ksched::plugins::pod_topology_spread
