#include "ksched/node_info.h"

#include <gtest/gtest.h>

namespace ksched {
namespace {

api::Quantity Q(const char* s) { return *api::Quantity::Parse(s); }

std::shared_ptr<const PodInfo> MakePodInfo(std::string uid, const char* cpu, const char* mem,
                                           int32_t host_port = 0) {
  auto pod = std::make_shared<api::Pod>();
  pod->metadata.uid = pod->metadata.name = std::move(uid);
  api::Container c;
  if (cpu) c.resources.requests["cpu"] = Q(cpu);
  if (mem) c.resources.requests["memory"] = Q(mem);
  if (host_port) c.ports.push_back({.container_port = 80, .host_port = host_port});
  pod->spec.containers.push_back(c);
  return PodInfo::Make(pod);
}

TEST(NodeInfoTest, AggregatesRequestsAndNonZeroRequests) {
  auto node = std::make_shared<api::Node>();
  node->metadata.name = "n1";
  node->status.allocatable = {
      {"cpu", Q("4")}, {"memory", Q("8Gi")}, {"pods", Q("110")}, {"example.com/gpu", Q("2")}};
  node->status.images = {{.names = {"nginx:1.27", "nginx@sha256:ab"}, .size_bytes = 500}};
  NodeInfo ni;
  ni.SetNode(node);
  EXPECT_EQ(ni.name(), "n1");
  EXPECT_EQ(ni.allocatable().milli_cpu, 4000);
  EXPECT_EQ(ni.allocatable().allowed_pod_number, 110);
  EXPECT_EQ(ni.allocatable().Get("example.com/gpu"), 2);
  EXPECT_EQ(ni.image_sizes().at("nginx@sha256:ab"), 500);

  int64_t g0 = ni.generation();
  ni.AddPod(MakePodInfo("a", "500m", "1Gi"));
  ni.AddPod(MakePodInfo("b", nullptr, nullptr));  // best effort: non-zero defaults only
  EXPECT_GT(ni.generation(), g0);
  EXPECT_EQ(ni.requested().milli_cpu, 500);
  EXPECT_EQ(ni.requested().memory, 1LL << 30);
  EXPECT_EQ(ni.non_zero_requested().milli_cpu, 600);
  EXPECT_EQ(ni.non_zero_requested().memory, (1LL << 30) + 200LL * 1024 * 1024);
  EXPECT_EQ(ni.pods().size(), 2u);

  EXPECT_TRUE(ni.RemovePod("a"));
  EXPECT_FALSE(ni.RemovePod("a"));
  EXPECT_EQ(ni.requested().milli_cpu, 0);
  EXPECT_EQ(ni.non_zero_requested().milli_cpu, 100);
  EXPECT_EQ(ni.pods().size(), 1u);
}

TEST(NodeInfoTest, HostPortsFollowPods) {
  NodeInfo ni;
  ni.AddPod(MakePodInfo("a", "1", nullptr, 8080));
  EXPECT_TRUE(ni.pods()[0]->has_host_ports);
  EXPECT_TRUE(ni.used_ports().CheckConflict("", "TCP", 8080));
  EXPECT_FALSE(ni.used_ports().CheckConflict("", "UDP", 8080));
  EXPECT_TRUE(ni.RemovePod("a"));
  EXPECT_FALSE(ni.used_ports().CheckConflict("", "TCP", 8080));

  // A restartable init container's host port counts too; a container port alone does not.
  auto sidecar = std::make_shared<api::Pod>();
  sidecar->metadata.uid = "b";
  sidecar->spec.init_containers.push_back(
      {.ports = {{.container_port = 80, .host_port = 9090}},
       .restart_policy = std::string(api::kContainerRestartPolicyAlways)});
  sidecar->spec.containers.push_back({.ports = {{.container_port = 8080}}});
  std::shared_ptr<const PodInfo> b = PodInfo::Make(sidecar);
  EXPECT_TRUE(b->has_host_ports);
  ni.AddPod(b);
  EXPECT_TRUE(ni.used_ports().CheckConflict("", "TCP", 9090));
  EXPECT_FALSE(ni.used_ports().CheckConflict("", "TCP", 8080));
  EXPECT_FALSE(MakePodInfo("c", "1", nullptr)->has_host_ports);
}

TEST(HostPortInfoTest, ConflictRules) {
  HostPortInfo h;
  h.Add("10.0.0.1", "TCP", 80);
  EXPECT_TRUE(h.CheckConflict("10.0.0.1", "TCP", 80));
  EXPECT_FALSE(h.CheckConflict("10.0.0.2", "TCP", 80));  // another IP, same port: fine
  EXPECT_TRUE(h.CheckConflict("0.0.0.0", "TCP", 80));    // all IPs collide with any IP
  EXPECT_TRUE(h.CheckConflict("", "", 80));              // "" is 0.0.0.0 and TCP
  EXPECT_FALSE(h.CheckConflict("10.0.0.1", "UDP", 80));
  EXPECT_FALSE(h.CheckConflict("10.0.0.1", "TCP", 0));
  h.Add("", "TCP", 443);
  EXPECT_TRUE(h.CheckConflict("10.9.9.9", "TCP", 443));  // 0.0.0.0 holds every IP
}

TEST(ResourceNamesTest, ScalarAndExtended) {
  EXPECT_FALSE(IsScalarResourceName("cpu"));
  EXPECT_TRUE(IsScalarResourceName("example.com/gpu"));
  EXPECT_TRUE(IsScalarResourceName("hugepages-2Mi"));
  EXPECT_TRUE(IsExtendedResourceName("example.com/gpu"));
  EXPECT_FALSE(IsExtendedResourceName("hugepages-2Mi"));
  EXPECT_FALSE(IsExtendedResourceName("kubernetes.io/batteries"));
  // As upstream: any name with "kubernetes.io/" in it is native, and a name must stay a
  // qualified name with a quota's "requests." before it: its name part at most 63 characters,
  // its prefix, "requests." included, at most 253.
  EXPECT_FALSE(IsExtendedResourceName("xkubernetes.io/gpu"));
  EXPECT_TRUE(IsExtendedResourceName("example.com/" + std::string(63, 'g')));
  EXPECT_FALSE(IsExtendedResourceName("example.com/" + std::string(64, 'g')));
  EXPECT_TRUE(IsExtendedResourceName(std::string(240, 'e') + ".com/gpu"));
  EXPECT_FALSE(IsExtendedResourceName(std::string(241, 'e') + ".com/gpu"));
  EXPECT_FALSE(IsExtendedResourceName("requests.example.com/gpu"));
}

}  // namespace
}  // namespace ksched
