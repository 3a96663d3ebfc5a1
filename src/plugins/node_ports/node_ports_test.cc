#include "src/plugins/node_ports/node_ports.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "src/testing/builders.h"
#include "src/testing/fake_handle.h"

namespace ksched::plugins::node_ports {
namespace {

using ksched::testing::FakeHandle;
using ksched::testing::MakeNode;
using ksched::testing::MakePod;

constexpr char kNoFreePorts[] = "node(s) didn't have free ports for the requested pod ports";

struct Port {
  std::string protocol;
  std::string ip;
  int32_t port;
};

api::Pod PodWithPorts(const std::string& name, const std::vector<Port>& ports) {
  MakePod pod;
  pod.Name(name);
  for (const Port& p : ports) pod.HostPort(p.port, p.protocol, p.ip);
  return pod.Obj();
}

// Runs PreFilter and, unless it skipped, Filter against a node holding `existing`, as the
// framework does. Returns the PreFilter status when it is not success.
Status PreFilterAndFilter(const api::Pod& pod, const api::Pod& existing) {
  api::Pod placed = existing;
  placed.spec.node_name = "n";
  FakeHandle handle({MakeNode().Name("n").Obj()}, {placed});
  NodePorts plugin;
  CycleState state;
  PreFilterResult result;
  Status pre = plugin.PreFilter(state, pod, handle.snapshot().nodes(), &result);
  EXPECT_TRUE(result.AllNodes());
  if (!pre.ok()) return pre;
  return plugin.Filter(state, pod, *handle.snapshot().Get("n"));
}

// The cases of upstream's TestNodePorts.
TEST(NodePortsTest, PreFilterAndFilter) {
  struct Case {
    std::string name;
    std::vector<Port> wanted;
    std::vector<Port> in_use;
    Code want_code;
    std::string want_message;
  };
  const std::vector<Case> cases = {
      {"no host ports skips", {}, {{"TCP", "", 80}}, Code::kSkip, ""},
      {"other port",
       {{"UDP", "127.0.0.1", 8080}},
       {{"UDP", "127.0.0.1", 9090}},
       Code::kSuccess,
       ""},
      {"same udp port",
       {{"UDP", "127.0.0.1", 8080}},
       {{"UDP", "127.0.0.1", 8080}},
       Code::kUnschedulable,
       kNoFreePorts},
      {"same tcp port",
       {{"TCP", "127.0.0.1", 8080}},
       {{"TCP", "127.0.0.1", 8080}},
       Code::kUnschedulable,
       kNoFreePorts},
      {"different host ip",
       {{"TCP", "127.0.0.1", 8080}},
       {{"TCP", "127.0.0.2", 8080}},
       Code::kSuccess,
       ""},
      {"different protocol",
       {{"UDP", "127.0.0.1", 8080}},
       {{"TCP", "127.0.0.1", 8080}},
       Code::kSuccess,
       ""},
      {"second udp port conflict",
       {{"UDP", "127.0.0.1", 8000}, {"UDP", "127.0.0.1", 8080}},
       {{"UDP", "127.0.0.1", 8080}},
       Code::kUnschedulable,
       kNoFreePorts},
      {"first tcp port conflict",
       {{"TCP", "127.0.0.1", 8001}, {"UDP", "127.0.0.1", 8080}},
       {{"TCP", "127.0.0.1", 8001}, {"UDP", "127.0.0.1", 8081}},
       Code::kUnschedulable,
       kNoFreePorts},
      {"wanted 0.0.0.0 conflicts with a specific ip",
       {{"TCP", "0.0.0.0", 8001}},
       {{"TCP", "127.0.0.1", 8001}},
       Code::kUnschedulable,
       kNoFreePorts},
      {"empty ip means 0.0.0.0",
       {{"TCP", "", 8001}},
       {{"TCP", "127.0.0.1", 8001}},
       Code::kUnschedulable,
       kNoFreePorts},
      {"second wanted port on 0.0.0.0 conflicts",
       {{"TCP", "10.0.10.10", 8001}, {"TCP", "0.0.0.0", 8001}},
       {{"TCP", "127.0.0.1", 8001}},
       Code::kUnschedulable,
       kNoFreePorts},
      {"specific ip conflicts with 0.0.0.0 in use",
       {{"TCP", "127.0.0.1", 8001}},
       {{"TCP", "0.0.0.0", 8001}},
       Code::kUnschedulable,
       kNoFreePorts},
      {"0.0.0.0 in use on another protocol",
       {{"UDP", "127.0.0.1", 8001}},
       {{"TCP", "0.0.0.0", 8001}},
       Code::kSuccess,
       ""},
      {"udp conflict with 0.0.0.0 in use",
       {{"UDP", "127.0.0.1", 8001}},
       {{"TCP", "0.0.0.0", 8001}, {"UDP", "0.0.0.0", 8001}},
       Code::kUnschedulable,
       kNoFreePorts},
  };
  for (const Case& c : cases) {
    Status s = PreFilterAndFilter(PodWithPorts("p", c.wanted), PodWithPorts("e", c.in_use));
    EXPECT_EQ(s.code(), c.want_code) << c.name;
    EXPECT_EQ(s.Message(), c.want_message) << c.name;
  }
}

api::Pod WithSidecarPort(api::Pod pod, int32_t port) {
  api::Container sidecar{.name = "sidecar", .restart_policy = "Always"};
  sidecar.ports.push_back({.container_port = port, .host_port = port});
  pod.spec.init_containers.push_back(sidecar);
  return pod;
}

TEST(NodePortsTest, SidecarPortsCount) {
  api::Pod wants = WithSidecarPort(MakePod().Name("p").Obj(), 8080);
  Status s = PreFilterAndFilter(wants, PodWithPorts("e", {{"TCP", "", 8080}}));
  EXPECT_EQ(s.code(), Code::kUnschedulable);
  EXPECT_EQ(s.Message(), kNoFreePorts);

  api::Pod holds = WithSidecarPort(MakePod().Name("e").Obj(), 9090);
  s = PreFilterAndFilter(PodWithPorts("p", {{"TCP", "", 9090}}), holds);
  EXPECT_EQ(s.code(), Code::kUnschedulable);
}

TEST(NodePortsTest, FilterWithoutPreFilterComputesPorts) {
  api::Pod existing = PodWithPorts("e", {{"TCP", "", 80}});
  existing.spec.node_name = "n";
  FakeHandle handle({MakeNode().Name("n").Obj()}, {existing});
  NodePorts plugin;
  CycleState state;
  const NodeInfo& node = *handle.snapshot().Get("n");
  EXPECT_EQ(plugin.Filter(state, PodWithPorts("p", {{"TCP", "", 80}}), node).code(),
            Code::kUnschedulable);
  EXPECT_TRUE(plugin.Filter(state, PodWithPorts("p", {{"TCP", "", 81}}), node).ok());
}

// The cases of upstream's TestNodePortsIsSchedulableAfterPodDeleted.
TEST(NodePortsTest, PodDeletedHint) {
  NodePorts plugin;
  std::vector<ClusterEventWithHint> events = plugin.EventsToRegister();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].event.resource, EventResource::kPod);
  EXPECT_EQ(events[0].event.action, ActionType::kDelete);
  EXPECT_EQ(events[1].event.resource, EventResource::kNode);
  EXPECT_EQ(events[1].event.action, ActionType::kAdd);
  EXPECT_FALSE(events[1].hint);
  const QueueingHintFn& hint = events[0].hint;

  api::Pod pod = PodWithPorts("p", {{"TCP", "", 8080}});
  api::Pod unscheduled = PodWithPorts("d", {{"TCP", "", 8080}});
  api::Pod no_ports = MakePod().Name("d").Node("n").Obj();
  api::Pod unrelated = PodWithPorts("d", {{"TCP", "", 8081}});
  unrelated.spec.node_name = "n";
  api::Pod released = PodWithPorts("d", {{"TCP", "", 8080}});
  released.spec.node_name = "n";
  api::Pod nominated = PodWithPorts("d", {{"TCP", "", 8080}});
  nominated.status.nominated_node_name = "n";
  struct Case {
    std::string name;
    const api::Pod* deleted;
    QueueingHint want;
  };
  const std::vector<Case> cases = {
      {"no old object", nullptr, QueueingHint::kQueue},
      {"unscheduled pod deleted", &unscheduled, QueueingHint::kQueueSkip},
      {"pod without host ports deleted", &no_ports, QueueingHint::kQueueSkip},
      {"unrelated host port released", &unrelated, QueueingHint::kQueueSkip},
      {"wanted host port released", &released, QueueingHint::kQueue},
      {"nominated pod with the wanted port deleted", &nominated, QueueingHint::kQueue},
  };
  for (const Case& c : cases) {
    ClusterEventData e{.old_pod = c.deleted};
    EXPECT_EQ(hint(pod, e), c.want) << c.name;
  }
}

TEST(NodePortsTest, FactoryBuildsNamedPlugin) {
  FakeHandle handle;
  auto plugin = New(JsonArgs(), handle);
  ASSERT_TRUE(plugin.ok());
  EXPECT_EQ((*plugin)->Name(), "NodePorts");
}

}  // namespace
}  // namespace ksched::plugins::node_ports
