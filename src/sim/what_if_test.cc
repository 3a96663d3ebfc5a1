#include "src/sim/what_if.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "src/sim/manifests.h"
#include "src/sim/simulate_testing.h"

namespace ksched::sim {
namespace {

using ::testing::HasSubstr;

// node-a holds web-1 and web-2 (2 CPUs each), a DaemonSet's pod, a static pod and a terminating
// pod; node-b is empty; node-c has room for one web pod.
constexpr char kCluster[] = R"(
apiVersion: v1
kind: Node
metadata: {name: node-a}
status: {allocatable: {cpu: "8", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: node-b}
status: {allocatable: {cpu: "2", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: node-c}
status: {allocatable: {cpu: "3", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: web-1, ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web, uid: rs, controller: true}]}
spec: {nodeName: node-a, containers: [{name: c, image: registry.k8s.io/pause:3.10, resources: {requests: {cpu: "2", memory: 1Gi}}}]}
---
apiVersion: v1
kind: Pod
metadata: {name: web-2}
spec: {nodeName: node-a, containers: [{name: c, image: registry.k8s.io/pause:3.10, resources: {requests: {cpu: "2", memory: 1Gi}}}]}
---
apiVersion: v1
kind: Pod
metadata: {name: logs, ownerReferences: [{apiVersion: apps/v1, kind: DaemonSet, name: logs, uid: ds, controller: true}]}
spec: {nodeName: node-a, containers: [{name: c, image: registry.k8s.io/pause:3.10, resources: {requests: {cpu: 100m}}}]}
---
apiVersion: v1
kind: Pod
metadata: {name: static, annotations: {kubernetes.io/config.mirror: abc}}
spec: {nodeName: node-a, containers: [{name: c, image: registry.k8s.io/pause:3.10, resources: {requests: {cpu: 100m}}}]}
---
apiVersion: v1
kind: Pod
metadata: {name: leaving, deletionTimestamp: "2026-11-28T04:00:00Z"}
spec: {nodeName: node-a, containers: [{name: c, image: registry.k8s.io/pause:3.10, resources: {requests: {cpu: 100m}}}]}
)";

std::vector<api::Object> Cluster() {
  absl::StatusOr<std::vector<api::Object>> objects = ParseManifest(kCluster, "cluster.yaml");
  EXPECT_TRUE(objects.ok()) << objects.status();
  return *objects;
}

const api::Pod* PodNamed(const std::vector<api::Object>& objects, const std::string& name) {
  for (const api::Object& o : objects) {
    const auto* p = std::get_if<api::Pod>(&o);
    if (p != nullptr && p->metadata.name == name) return p;
  }
  return nullptr;
}

const api::Node* NodeNamed(const std::vector<api::Object>& objects, const std::string& name) {
  for (const api::Object& o : objects) {
    const auto* n = std::get_if<api::Node>(&o);
    if (n != nullptr && n->metadata.name == name) return n;
  }
  return nullptr;
}

TEST(WhatIfTest, ADrainCordonsTheNodeAndMakesAllButDaemonSetStaticAndTerminatingPodsPending) {
  std::vector<api::Object> objects = Cluster();
  const std::vector<NodeLoad> before = LoadsBefore(objects);
  absl::StatusOr<std::map<std::string, std::string>> moved =
      ApplyWhatIf({.drain = {"node-a"}}, &objects);
  ASSERT_TRUE(moved.ok()) << moved.status();
  EXPECT_EQ(*moved, (std::map<std::string, std::string>{{"default/web-1", "node-a"},
                                                        {"default/web-2", "node-a"}}));
  EXPECT_TRUE(NodeNamed(objects, "node-a")->spec.unschedulable);
  EXPECT_EQ(PodNamed(objects, "web-1")->spec.node_name, "");
  EXPECT_EQ(PodNamed(objects, "logs")->spec.node_name, "node-a");
  EXPECT_EQ(PodNamed(objects, "static")->spec.node_name, "node-a");
  EXPECT_EQ(PodNamed(objects, "leaving")->spec.node_name, "node-a");

  // node-b and node-c have room for one pod of 2 CPUs each.
  const SimulationResult result = SimulateObjects(std::move(objects));
  std::map<std::string, std::string> placed;
  for (const PodOutcome& o : result.pods) placed[o.name] = o.node.value_or("");
  EXPECT_EQ(placed.size(), 2u);
  EXPECT_NE(placed["web-1"], placed["web-2"]);
  for (const auto& [pod, node] : placed) EXPECT_TRUE(node == "node-b" || node == "node-c") << node;

  const WhatIfSummary s = Summarize(before, result, *moved);
  EXPECT_TRUE(s.pending.empty());
  ASSERT_EQ(s.nodes.size(), 3u);
  EXPECT_EQ(s.nodes[0].node, "node-a");
  EXPECT_EQ(s.nodes[0].cpu_before, 4300);
  EXPECT_EQ(s.nodes[0].cpu_after, 300);
  EXPECT_EQ(s.nodes[0].memory_before, int64_t{2} << 30);
  EXPECT_EQ(s.nodes[0].memory_after, 0);
  EXPECT_EQ(s.nodes[1].cpu_after + s.nodes[2].cpu_after, 4000);
  const std::string table = FormatSummaryTable(s);
  EXPECT_THAT(table, HasSubstr("Pending after the change: 0 pod(s)\n"));
  EXPECT_THAT(table, HasSubstr("  default/web-1 (was on node-a)\n"));
  EXPECT_THAT(table, HasSubstr("node-a  4300m -> 300m of 8"));
  EXPECT_THAT(table, HasSubstr("2Gi -> 0 of 8Gi"));
  const nlohmann::ordered_json j = SummaryJson(s);
  EXPECT_EQ(j["moved"]["default/web-2"], "node-a");
  EXPECT_EQ(j["nodes"][0]["cpu"]["requestedAfter"], "300m");
}

TEST(WhatIfTest, ADeletedNodesPodsArePendingAndTheyStaySoWhereNothingFits) {
  std::vector<api::Object> objects = Cluster();
  const std::vector<NodeLoad> before = LoadsBefore(objects);
  absl::StatusOr<std::map<std::string, std::string>> moved =
      ApplyWhatIf({.cordon = {"node-b"}, .delete_nodes = {"node-a"}}, &objects);
  ASSERT_TRUE(moved.ok()) << moved.status();
  EXPECT_EQ(NodeNamed(objects, "node-a"), nullptr);
  EXPECT_EQ(PodNamed(objects, "logs"), nullptr);  // Gone with its node.
  EXPECT_EQ(PodNamed(objects, "static"), nullptr);
  EXPECT_EQ(moved->size(), 2u);
  // node-b is cordoned: one of the two fits on node-c, the other stays pending.
  const SimulationResult result = SimulateObjects(std::move(objects));
  const WhatIfSummary s = Summarize(before, result, *moved);
  EXPECT_EQ(s.pending.size(), 1u);
  EXPECT_FALSE(s.nodes[0].after);
  EXPECT_THAT(FormatSummaryTable(s), HasSubstr("node-a  4300m -> (gone) of 8"));
  EXPECT_EQ(s.nodes[2].cpu_after, 2000);
}

TEST(WhatIfTest, AnAddedDeploymentBringsItsReplicasPods) {
  const std::string file = std::filesystem::temp_directory_path() / "what-if-add.yaml";
  std::ofstream(file) << R"(
apiVersion: apps/v1
kind: Deployment
metadata: {name: api, namespace: shop}
spec:
  replicas: 3
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api}}
    spec: {containers: [{name: c, image: registry.k8s.io/pause:3.10, resources: {requests: {cpu: "1"}}}]}
---
apiVersion: v1
kind: Node
metadata: {name: node-d}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: node-c}
status: {allocatable: {cpu: "16", memory: 8Gi, pods: "110"}}
)";
  std::vector<api::Object> objects = Cluster();
  absl::StatusOr<std::map<std::string, std::string>> moved = ApplyWhatIf({.add = {file}}, &objects);
  ASSERT_TRUE(moved.ok()) << moved.status();
  EXPECT_TRUE(moved->empty());
  ASSERT_NE(NodeNamed(objects, "node-d"), nullptr);
  // node-c was there: the added one takes its place, once.
  EXPECT_EQ(NodeNamed(objects, "node-c")->status.allocatable.at("cpu").MilliValue(), 16000);
  EXPECT_EQ(
      std::count_if(objects.begin(), objects.end(),
                    [](const api::Object& o) { return std::holds_alternative<api::Node>(o); }),
      4);
  for (const std::string name : {"api-0", "api-1", "api-2"}) {
    const api::Pod* p = PodNamed(objects, name);
    ASSERT_NE(p, nullptr) << name;
    EXPECT_EQ(p->metadata.namespace_, "shop");
    EXPECT_EQ(p->metadata.labels.at("app"), "api");
    ASSERT_EQ(p->metadata.owner_references.size(), 1u);
    EXPECT_EQ(p->metadata.owner_references[0].kind, "ReplicaSet");
  }
  EXPECT_EQ(PodNamed(objects, "api-3"), nullptr);
  bool replica_set = false;
  for (const api::Object& o : objects) {
    if (const auto* rs = std::get_if<api::ReplicaSet>(&o)) replica_set = rs->metadata.name == "api";
  }
  EXPECT_TRUE(replica_set);
  const SimulationResult result = SimulateObjects(std::move(objects));
  for (const PodOutcome& o : result.pods) EXPECT_TRUE(o.node.has_value()) << o.name;
  std::filesystem::remove(file);
}

TEST(WhatIfTest, BadInputNamesTheFlagOrTheFileAndField) {
  std::vector<api::Object> objects = Cluster();
  absl::StatusOr<std::map<std::string, std::string>> r =
      ApplyWhatIf({.drain = {"node-9"}}, &objects);
  EXPECT_EQ(r.status().message(), "--drain node-9: no such node");
  r = ApplyWhatIf({.delete_nodes = {"node-9"}}, &objects);
  EXPECT_EQ(r.status().message(), "--delete-node node-9: no such node");
  r = ApplyWhatIf({.add = {"/nonexistent/more.yaml"}}, &objects);
  EXPECT_EQ(r.status().message(), "open /nonexistent/more.yaml: no such file or directory");
  const std::string file = std::filesystem::temp_directory_path() / "what-if-bad.yaml";
  std::ofstream(file) << R"(
apiVersion: apps/v1
kind: Deployment
metadata: {name: api}
spec:
  replicas: 1
  template:
    spec: {containers: [{name: c, image: registry.k8s.io/pause:3.10, resources: {requests: {cpu: "1.5.3"}}}]}
)";
  r = ApplyWhatIf({.add = {file}}, &objects);
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(r.status().message()),
              HasSubstr(file + ": Deployment default/api, pod api-0: "
                               "spec.containers[0].resources.requests.cpu: invalid quantity"));
  std::filesystem::remove(file);
}

}  // namespace
}  // namespace ksched::sim
