#include "src/plugins/node_unschedulable/node_unschedulable.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "src/testing/builders.h"
#include "src/testing/fake_handle.h"

namespace ksched::plugins::node_unschedulable {
namespace {

using ksched::testing::FakeHandle;
using ksched::testing::MakeNode;
using ksched::testing::MakePod;

// The cases of upstream's node_unschedulable_test.go.
TEST(NodeUnschedulableTest, Filter) {
  struct Case {
    std::string name;
    api::Pod pod;
    bool unschedulable;
    Code want_code;
    std::string want_message;
  };
  const std::vector<Case> cases = {
      {"schedulable node", MakePod().Name("p").Obj(), false, Code::kSuccess, ""},
      {"unschedulable node", MakePod().Name("p").Obj(), true, Code::kUnschedulableAndUnresolvable,
       "node(s) were unschedulable"},
      {"unschedulable node, pod tolerates the taint",
       MakePod()
           .Name("p")
           .Toleration("node.kubernetes.io/unschedulable", "Exists", "", "NoSchedule")
           .Obj(),
       true, Code::kSuccess, ""},
      {"unschedulable node, pod tolerates everything",
       MakePod().Name("p").Toleration("", "Exists").Obj(), true, Code::kSuccess, ""},
      {"unschedulable node, toleration of another effect",
       MakePod()
           .Name("p")
           .Toleration("node.kubernetes.io/unschedulable", "Exists", "", "NoExecute")
           .Obj(),
       true, Code::kUnschedulableAndUnresolvable, "node(s) were unschedulable"},
  };
  for (const Case& c : cases) {
    FakeHandle handle({MakeNode().Name("n1").Unschedulable(c.unschedulable).Obj()});
    CycleState state;
    NodeUnschedulable plugin;
    Status s = plugin.Filter(state, c.pod, *handle.snapshot().Get("n1"));
    EXPECT_EQ(s.code(), c.want_code) << c.name;
    EXPECT_EQ(s.Message(), c.want_message) << c.name;
  }
}

TEST(NodeUnschedulableTest, NodeChangeHint) {
  NodeUnschedulable plugin;
  std::vector<ClusterEventWithHint> events = plugin.EventsToRegister();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].event.resource, EventResource::kNode);
  EXPECT_EQ(events[0].event.action, ActionType::kAdd | ActionType::kUpdateNodeTaint);
  const QueueingHintFn& hint = events[0].hint;

  api::Pod pod = MakePod().Name("p").Obj();
  api::Node schedulable = MakeNode().Name("n1").Obj();
  api::Node cordoned = MakeNode().Name("n1").Unschedulable().Obj();
  struct Case {
    std::string name;
    const api::Node* old_node;
    const api::Node* new_node;
    QueueingHint want;
  };
  const std::vector<Case> cases = {
      {"schedulable node added", nullptr, &schedulable, QueueingHint::kQueue},
      {"unschedulable node added", nullptr, &cordoned, QueueingHint::kQueueSkip},
      {"node uncordoned", &cordoned, &schedulable, QueueingHint::kQueue},
      {"node cordoned", &schedulable, &cordoned, QueueingHint::kQueueSkip},
      {"schedulable node updated", &schedulable, &schedulable, QueueingHint::kQueueSkip},
  };
  for (const Case& c : cases) {
    ClusterEventData e{.old_node = c.old_node, .new_node = c.new_node};
    EXPECT_EQ(hint(pod, e), c.want) << c.name;
  }
}

TEST(NodeUnschedulableTest, PodTolerationChangeHint) {
  NodeUnschedulable plugin;
  std::vector<ClusterEventWithHint> events = plugin.EventsToRegister();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[1].event.resource, EventResource::kPod);
  EXPECT_EQ(events[1].event.action, ActionType::kUpdatePodToleration);
  const QueueingHintFn& hint = events[1].hint;

  api::Pod pod = MakePod().Name("p").UID("u1").Obj();
  api::Pod tolerating =
      MakePod()
          .Name("p")
          .UID("u1")
          .Toleration("node.kubernetes.io/unschedulable", "Exists", "", "NoSchedule")
          .Obj();
  api::Pod unrelated_toleration = MakePod().Name("p").UID("u1").Toleration("foo", "Exists").Obj();
  api::Pod other = tolerating;
  other.metadata.uid = "u2";
  struct Case {
    std::string name;
    const api::Pod* new_pod;
    QueueingHint want;
  };
  const std::vector<Case> cases = {
      {"same pod now tolerates", &tolerating, QueueingHint::kQueue},
      {"same pod, unrelated toleration", &unrelated_toleration, QueueingHint::kQueueSkip},
      {"another pod", &other, QueueingHint::kQueueSkip},
  };
  for (const Case& c : cases) {
    ClusterEventData e{.old_pod = &pod, .new_pod = c.new_pod};
    EXPECT_EQ(hint(pod, e), c.want) << c.name;
  }
}

TEST(NodeUnschedulableTest, FactoryBuildsNamedPlugin) {
  FakeHandle handle;
  auto plugin = New(JsonArgs(), handle);
  ASSERT_TRUE(plugin.ok());
  EXPECT_EQ((*plugin)->Name(), "NodeUnschedulable");
}

}  // namespace
}  // namespace ksched::plugins::node_unschedulable
