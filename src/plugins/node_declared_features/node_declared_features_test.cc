#include "src/plugins/node_declared_features/node_declared_features.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "src/testing/builders.h"
#include "src/testing/fake_handle.h"

namespace ksched::plugins::node_declared_features {
namespace {

using ksched::testing::FakeHandle;
using ksched::testing::MakeNode;
using ksched::testing::MakePod;

api::Pod Plain(const std::string& name) {
  api::Pod pod = MakePod().Name(name).Obj();
  pod.metadata.uid = "uid-" + name;
  pod.spec.containers = {{.name = "c"}};
  return pod;
}

api::Pod RestartingAll(const std::string& name) {
  api::Pod pod = Plain(name);
  pod.spec.containers[0].restart_policy_rules = {{.action = "Restart"},
                                                 {.action = "RestartAllContainers"}};
  return pod;
}

TEST(NodeDeclaredFeaturesTest, RequiredFeaturesAreInferredFromTheSpec) {
  api::Pod plain = Plain("p");
  EXPECT_TRUE(RequiredFeatures(plain).empty());
  plain.spec.containers[0].restart_policy_rules = {{.action = "Restart"}};
  EXPECT_TRUE(RequiredFeatures(plain).empty());
  EXPECT_EQ(RequiredFeatures(RestartingAll("p")),
            std::vector<std::string_view>{"RestartAllContainersOnContainerExits"});
  api::Pod host = Plain("h");
  host.spec.host_network = true;
  EXPECT_TRUE(RequiredFeatures(host).empty());  // hostUsers unset: the host's user namespace.
  host.spec.host_users = false;
  host.spec.init_containers = RestartingAll("i").spec.containers;
  EXPECT_EQ(RequiredFeatures(host),
            (std::vector<std::string_view>{"RestartAllContainersOnContainerExits",
                                           "UserNamespacesHostNetworkSupport"}));
  // Since 1.37: a volume mount with bindMountOptions, in an init container too.
  host.spec.init_containers[0].bind_mount_options = true;
  EXPECT_EQ(RequiredFeatures(host),
            (std::vector<std::string_view>{"RestartAllContainersOnContainerExits",
                                           "UserNamespacesHostNetworkSupport",
                                           "VolumeBindMountOptions"}));
}

// Nodes that declare the pod's features pass; a node without declaredFeatures declares none.
TEST(NodeDeclaredFeaturesTest, FilterKeepsThePodOffNodesThatDoNotDeclareItsFeatures) {
  api::Node declares = MakeNode().Name("declares").Obj();
  declares.status.declared_features = {"RestartAllContainersOnContainerExits"};
  FakeHandle handle({declares, MakeNode().Name("silent").Obj()});
  NodeDeclaredFeatures plugin(/*enabled=*/true);
  const api::Pod pod = RestartingAll("p");
  CycleState state;
  PreFilterResult result;
  ASSERT_TRUE(plugin.PreFilter(state, pod, handle.snapshot().nodes(), &result).ok());
  EXPECT_TRUE(plugin.Filter(state, pod, *handle.snapshot().Get("declares")).ok());
  Status st = plugin.Filter(state, pod, *handle.snapshot().Get("silent"));
  EXPECT_EQ(st.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(st.Message(), "node(s) didn't match Pod's required features");

  // A pod that needs nothing, or any pod without the gate, skips the plugin.
  CycleState other;
  EXPECT_EQ(plugin.PreFilter(other, MakePod().Name("q").Obj(), {}, &result).code(), Code::kSkip);
  NodeDeclaredFeatures disabled(/*enabled=*/false);
  EXPECT_EQ(disabled.PreFilter(other, pod, {}, &result).code(), Code::kSkip);
  EXPECT_TRUE(disabled.EventsToRegister().empty());
}

TEST(NodeDeclaredFeaturesTest, QueueingHints) {
  NodeDeclaredFeatures plugin(/*enabled=*/true);
  std::vector<ClusterEventWithHint> events = plugin.EventsToRegister();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].event.action, kAdd | kUpdateNodeDeclaredFeature);
  const api::Pod pod = RestartingAll("p");
  api::Node before = MakeNode().Name("n").Obj();
  api::Node after = before;
  EXPECT_EQ(events[0].hint(pod, {.old_node = &before, .new_node = &after}),
            QueueingHint::kQueueSkip);
  after.status.declared_features = {"RestartAllContainersOnContainerExits"};
  EXPECT_EQ(events[0].hint(pod, {.old_node = &before, .new_node = &after}), QueueingHint::kQueue);
  EXPECT_EQ(events[0].hint(pod, {.new_node = &after}), QueueingHint::kQueue);  // Added.

  // The pod's own update that drops the rule changes what it needs; another pod's does not count.
  api::Pod relaxed = pod;
  relaxed.spec.containers[0].restart_policy_rules.clear();
  EXPECT_EQ(events[1].hint(pod, {.old_pod = &pod, .new_pod = &relaxed}), QueueingHint::kQueue);
  EXPECT_EQ(events[1].hint(pod, {.old_pod = &pod, .new_pod = &pod}), QueueingHint::kQueueSkip);
  const api::Pod other = RestartingAll("other");
  EXPECT_EQ(events[1].hint(pod, {.old_pod = &other, .new_pod = &other}), QueueingHint::kQueueSkip);
}

}  // namespace
}  // namespace ksched::plugins::node_declared_features
