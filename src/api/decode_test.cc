#include "src/api/decode.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "src/testing/files.h"

namespace ksched::api {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;

Pod LoadPod() {
  absl::StatusOr<Pod> pod = DecodePod(testing::ReadSourceFile("src/api/testdata/pod.json"));
  EXPECT_TRUE(pod.ok()) << pod.status();
  return pod.ok() ? *pod : Pod{};
}

TEST(DecodePodTest, Metadata) {
  Pod pod = LoadPod();
  const ObjectMeta& m = pod.metadata;
  EXPECT_EQ(m.name, "web-1");
  EXPECT_EQ(m.namespace_, "prod");
  EXPECT_EQ(m.uid, "6a1e0f32-2222-4c56-9a5e-2f3b1a6d7e02");
  EXPECT_THAT(m.labels, ElementsAre(Pair("app", "web"), Pair("tier", "frontend")));
  EXPECT_THAT(m.annotations, ElementsAre(Pair("example.com/owner", "team-a")));
  ASSERT_EQ(m.owner_references.size(), 1u);
  EXPECT_EQ(m.owner_references[0].kind, "ReplicaSet");
  EXPECT_EQ(m.owner_references[0].name, "web-5d8f");
  EXPECT_EQ(m.owner_references[0].api_version, "apps/v1");
  EXPECT_EQ(m.owner_references[0].uid, "0b7c1c9a-1111-4c56-9a5e-2f3b1a6d7e01");
  EXPECT_TRUE(m.owner_references[0].controller);
  EXPECT_EQ(m.creation_timestamp, "2026-11-01T10:00:00Z");
  EXPECT_EQ(m.deletion_timestamp, "2026-11-01T11:00:00Z");
  EXPECT_EQ(m.resource_version, "12345");
}

TEST(DecodePodTest, SchedulingFields) {
  PodSpec s = LoadPod().spec;
  EXPECT_EQ(s.scheduler_name, "ksched");
  EXPECT_EQ(s.node_name, "");
  EXPECT_THAT(s.node_selector, ElementsAre(Pair("kubernetes.io/os", "linux")));
  EXPECT_EQ(s.priority, 1000);
  EXPECT_EQ(s.priority_class_name, "high");
  EXPECT_EQ(s.preemption_policy, "PreemptLowerPriority");
  EXPECT_EQ(s.overhead.at("cpu").MilliValue(), 10);
  EXPECT_EQ(s.overhead.at("memory").Value(), 16 << 20);
  ASSERT_EQ(s.scheduling_gates.size(), 1u);
  EXPECT_EQ(s.scheduling_gates[0].name, "example.com/gate");
  ASSERT_TRUE(s.resources.has_value());
  EXPECT_EQ(s.resources->requests.at("cpu").Value(), 2);

  ASSERT_EQ(s.tolerations.size(), 2u);
  EXPECT_EQ(s.tolerations[0].key, "node.kubernetes.io/not-ready");
  EXPECT_EQ(s.tolerations[0].op, "Exists");
  EXPECT_EQ(s.tolerations[0].effect, "NoExecute");
  EXPECT_EQ(s.tolerations[0].toleration_seconds, 300);
  EXPECT_EQ(s.tolerations[1].value, "web");
  EXPECT_FALSE(s.tolerations[1].toleration_seconds.has_value());

  ASSERT_EQ(s.topology_spread_constraints.size(), 1u);
  const TopologySpreadConstraint& c = s.topology_spread_constraints[0];
  EXPECT_EQ(c.max_skew, 1);
  EXPECT_EQ(c.topology_key, "topology.kubernetes.io/zone");
  EXPECT_EQ(c.when_unsatisfiable, "DoNotSchedule");
  EXPECT_THAT(c.label_selector->match_labels, ElementsAre(Pair("app", "web")));
  EXPECT_EQ(c.min_domains, 2);
  EXPECT_EQ(c.node_affinity_policy, "Honor");
  EXPECT_EQ(c.node_taints_policy, "Ignore");
  EXPECT_THAT(c.match_label_keys, ElementsAre("pod-template-hash"));
}

TEST(DecodePodTest, Affinity) {
  PodSpec s = LoadPod().spec;
  ASSERT_TRUE(s.affinity && s.affinity->node_affinity);
  const NodeAffinity& na = *s.affinity->node_affinity;
  const auto& terms = na.required_during_scheduling_ignored_during_execution->node_selector_terms;
  ASSERT_EQ(terms.size(), 1u);
  ASSERT_EQ(terms[0].match_expressions.size(), 2u);
  EXPECT_EQ(terms[0].match_expressions[0].key, "topology.kubernetes.io/zone");
  EXPECT_THAT(terms[0].match_expressions[0].values, ElementsAre("zone-a", "zone-b"));
  EXPECT_EQ(terms[0].match_expressions[1].op, "Gt");
  ASSERT_EQ(terms[0].match_fields.size(), 1u);
  EXPECT_EQ(terms[0].match_fields[0].op, "NotIn");
  ASSERT_EQ(na.preferred_during_scheduling_ignored_during_execution.size(), 1u);
  EXPECT_EQ(na.preferred_during_scheduling_ignored_during_execution[0].weight, 10);

  const PodAffinityTerm& pa =
      s.affinity->pod_affinity->required_during_scheduling_ignored_during_execution.at(0);
  EXPECT_THAT(pa.label_selector->match_labels, ElementsAre(Pair("app", "cache")));
  EXPECT_THAT(pa.namespaces, ElementsAre("prod", "staging"));
  EXPECT_EQ(pa.topology_key, "kubernetes.io/hostname");
  EXPECT_TRUE(pa.namespace_selector.has_value());  // {} selects all namespaces; absent selects none
  EXPECT_THAT(pa.match_label_keys, ElementsAre("pod-template-hash"));
  EXPECT_THAT(pa.mismatch_label_keys, ElementsAre("tenant"));

  const WeightedPodAffinityTerm& anti =
      s.affinity->pod_anti_affinity->preferred_during_scheduling_ignored_during_execution.at(0);
  EXPECT_EQ(anti.weight, 50);
  EXPECT_EQ(anti.pod_affinity_term.label_selector->match_expressions.at(0).op, "Exists");
  EXPECT_FALSE(anti.pod_affinity_term.namespace_selector.has_value());
}

TEST(DecodePodTest, ContainersAndVolumes) {
  PodSpec s = LoadPod().spec;
  ASSERT_EQ(s.containers.size(), 1u);
  const Container& web = s.containers[0];
  EXPECT_EQ(web.name, "web");
  EXPECT_EQ(web.image, "nginx:1.27");
  EXPECT_EQ(web.resources.requests.at("cpu").MilliValue(), 500);
  EXPECT_EQ(web.resources.requests.at("example.com/gpu").Value(), 1);
  EXPECT_EQ(web.resources.limits.at("memory").Value(), 1 << 30);
  ASSERT_EQ(web.ports.size(), 2u);
  EXPECT_EQ(web.ports[0].container_port, 8080);
  EXPECT_EQ(web.ports[0].host_port, 80);
  EXPECT_EQ(web.ports[0].host_ip, "10.0.0.1");
  EXPECT_EQ(web.ports[0].protocol, "TCP");
  EXPECT_EQ(web.ports[1].protocol, "UDP");
  EXPECT_EQ(web.ports[1].host_port, 0);
  EXPECT_FALSE(web.restart_policy.has_value());

  ASSERT_EQ(s.init_containers.size(), 2u);
  EXPECT_FALSE(s.init_containers[0].restart_policy.has_value());
  EXPECT_EQ(s.init_containers[1].restart_policy, "Always");

  ASSERT_EQ(s.volumes.size(), 5u);
  EXPECT_EQ(s.volumes[0].source, "persistentVolumeClaim");
  EXPECT_EQ(s.volumes[0].claim_name, "data-web-1");
  EXPECT_TRUE(s.volumes[0].read_only);
  EXPECT_EQ(s.volumes[1].source, "ephemeral");
  EXPECT_TRUE(s.volumes[1].ephemeral_claim);
  EXPECT_EQ(s.volumes[2].csi_driver, "secrets-store.csi.k8s.io");
  EXPECT_EQ(s.volumes[3].disk_id, "disk-1");
  EXPECT_EQ(s.volumes[4].source, "configMap");
}

TEST(DecodePodTest, RequestsDefaultToLimitsAsTheApiServerDefaultsThem) {
  absl::StatusOr<Pod> pod = DecodePod(R"({"metadata": {"name": "p"}, "spec": {
      "initContainers": [{"name": "i", "resources": {"limits": {"memory": "1Gi"}}}],
      "containers": [{"name": "c", "resources": {"requests": {"cpu": "500m"},
                                                 "limits": {"cpu": "3", "example.com/gpu": "1"}}}]}})");
  ASSERT_TRUE(pod.ok()) << pod.status();
  const ResourceList& requests = pod->spec.containers[0].resources.requests;
  EXPECT_EQ(requests.at("cpu").String(), "500m");  // A request given is kept.
  EXPECT_EQ(requests.at("example.com/gpu").String(), "1");
  EXPECT_EQ(pod->spec.init_containers[0].resources.requests.at("memory").String(), "1Gi");
}

TEST(DecodePodTest, APodOnTheHostNetworkExposesEveryContainerPortOnTheHost) {
  // As the API server defaults it: a port without hostPort gets its containerPort.
  absl::StatusOr<Pod> pod = DecodePod(R"({"metadata": {"name": "dns"}, "spec": {
      "hostNetwork": true,
      "initContainers": [{"name": "i", "ports": [{"containerPort": 9100}]}],
      "containers": [{"name": "c", "ports": [{"containerPort": 53, "protocol": "UDP"},
                                             {"containerPort": 8080, "hostPort": 8081}]}]}})");
  ASSERT_TRUE(pod.ok()) << pod.status();
  EXPECT_EQ(pod->spec.init_containers[0].ports[0].host_port, 9100);
  EXPECT_EQ(pod->spec.containers[0].ports[0].host_port, 53);
  EXPECT_EQ(pod->spec.containers[0].ports[1].host_port, 8081);
  // Off the host network a container port stays off the host.
  pod = DecodePod(R"({"metadata": {"name": "web"}, "spec": {
      "containers": [{"name": "c", "ports": [{"containerPort": 80}]}]}})");
  ASSERT_TRUE(pod.ok()) << pod.status();
  EXPECT_EQ(pod->spec.containers[0].ports[0].host_port, 0);
}

TEST(DecodePodTest, Status) {
  PodStatus st = LoadPod().status;
  EXPECT_EQ(st.phase, "Pending");
  EXPECT_EQ(st.nominated_node_name, "node-2");
  ASSERT_EQ(st.conditions.size(), 1u);
  EXPECT_EQ(st.conditions[0].type, "PodScheduled");
  EXPECT_EQ(st.conditions[0].status, "False");
  EXPECT_EQ(st.conditions[0].reason, "Unschedulable");
  EXPECT_EQ(st.conditions[0].message, "0/3 nodes are available: 3 Insufficient cpu.");
  EXPECT_EQ(st.conditions[0].last_transition_time, "2026-11-01T10:00:01Z");
}

TEST(DecodeNodeTest, AllFields) {
  absl::StatusOr<Node> node = DecodeNode(testing::ReadSourceFile("src/api/testdata/node.json"));
  ASSERT_TRUE(node.ok()) << node.status();
  EXPECT_EQ(node->metadata.name, "node-1");
  EXPECT_EQ(node->metadata.labels.at("topology.kubernetes.io/zone"), "zone-a");
  EXPECT_EQ(node->metadata.annotations.at("node.alpha.kubernetes.io/ttl"), "0");
  EXPECT_TRUE(node->spec.unschedulable);
  ASSERT_EQ(node->spec.taints.size(), 2u);
  EXPECT_EQ(node->spec.taints[0].key, "dedicated");
  EXPECT_EQ(node->spec.taints[0].value, "web");
  EXPECT_EQ(node->spec.taints[0].effect, "NoSchedule");
  EXPECT_EQ(node->spec.taints[1].effect, "PreferNoSchedule");
  EXPECT_EQ(node->spec.taints[1].time_added, "2026-10-02T00:00:00Z");
  EXPECT_EQ(node->status.allocatable.at("cpu").MilliValue(), 3920);
  EXPECT_EQ(node->status.allocatable.at("pods").Value(), 110);
  EXPECT_EQ(node->status.capacity.at("memory").Value(), 32LL << 30);
  EXPECT_EQ(node->status.capacity.at("example.com/gpu").Value(), 2);
  ASSERT_EQ(node->status.images.size(), 2u);
  EXPECT_THAT(node->status.images[0].names,
              ElementsAre("docker.io/library/nginx@sha256:0123", "docker.io/library/nginx:1.27"));
  EXPECT_EQ(node->status.images[0].size_bytes, 187654321);
  ASSERT_EQ(node->status.conditions.size(), 2u);
  EXPECT_EQ(node->status.conditions[0].type, "Ready");
  EXPECT_EQ(node->status.conditions[0].status, "True");
  EXPECT_EQ(node->status.conditions[0].reason, "KubeletReady");
  EXPECT_EQ(node->status.conditions[1].message, "kubelet has sufficient memory available");
}

// As the API server defaults it: a node without allocatable has its capacity to give; one with an
// empty allocatable has nothing.
TEST(DecodeNodeTest, AllocatableDefaultsToCapacity) {
  absl::StatusOr<Node> node =
      DecodeNode(R"({"metadata":{"name":"n"},"status":{"capacity":{"cpu":"4","pods":"110"}}})");
  ASSERT_TRUE(node.ok()) << node.status();
  EXPECT_EQ(node->status.allocatable.at("cpu").MilliValue(), 4000);
  EXPECT_EQ(node->status.allocatable.at("pods").Value(), 110);
  node = DecodeNode(R"({"metadata":{"name":"n"},"status":{"capacity":{"cpu":"4"},)"
                    R"("allocatable":{}}})");
  ASSERT_TRUE(node.ok()) << node.status();
  EXPECT_TRUE(node->status.allocatable.empty());
}

TEST(DecodeObjectsTest, KubectlListKeepsOrderAndKinds) {
  auto objects = DecodeObjects(testing::ReadSourceFile("src/api/testdata/list.json"));
  ASSERT_TRUE(objects.ok()) << objects.status();
  ASSERT_EQ(objects->size(), 2u);
  EXPECT_EQ(KindOf((*objects)[0]), "Node");
  EXPECT_EQ(MetaOf((*objects)[0]).name, "node-a");
  EXPECT_EQ(KindOf((*objects)[1]), "Pod");
  EXPECT_FALSE(IsNamespaced((*objects)[0]));
  EXPECT_TRUE(IsNamespaced((*objects)[1]));
  EXPECT_TRUE(IsNamespaced(Object(CSIStorageCapacity{})));
  EXPECT_FALSE(IsNamespaced(Object(ResourceSlice{})));
  EXPECT_TRUE(IsNamespaced(Object(ResourceClaimTemplate{})));
  EXPECT_FALSE(IsNamespaced(Object(VolumeAttachment{})));
  EXPECT_EQ(
      std::get<Pod>((*objects)[1]).spec.containers[0].resources.requests.at("cpu").MilliValue(),
      250);
}

TEST(DecodeObjectsTest, ApiListItemsTakeTheListKind) {
  auto objects = DecodeObjects(testing::ReadSourceFile("src/api/testdata/podlist.json"));
  ASSERT_TRUE(objects.ok()) << objects.status();
  ASSERT_EQ(objects->size(), 2u);
  EXPECT_EQ(std::get<Pod>((*objects)[1]).spec.node_name, "node-a");
}

TEST(DecodeObjectsTest, SingleObject) {
  auto objects = DecodeObjects(R"({"kind":"Node","metadata":{"name":"n"}})");
  ASSERT_TRUE(objects.ok()) << objects.status();
  EXPECT_EQ(MetaOf(objects->at(0)).name, "n");
}

TEST(DecodeObjectsTest, NullsAndUnknownFieldsAreIgnored) {
  auto pod = DecodePod(
      R"({"kind":"Pod","metadata":{"name":"p","labels":null,"futureField":{"x":[1,2]}},
          "spec":{"affinity":null,"tolerations":null,"containers":[{"name":"c","resources":{}}]}})");
  ASSERT_TRUE(pod.ok()) << pod.status();
  EXPECT_FALSE(pod->spec.affinity.has_value());
  EXPECT_TRUE(pod->metadata.labels.empty());
}

TEST(DecodeObjectsTest, WorkloadsThatSelectPods) {
  auto objects = DecodeObjects(R"({"kind":"List","items":[
      {"apiVersion":"v1","kind":"Service","metadata":{"name":"web","namespace":"prod"},
       "spec":{"selector":{"app":"web"},"ports":[{"port":80}]}},
      {"apiVersion":"v1","kind":"Service","metadata":{"name":"external"},
       "spec":{"type":"ExternalName","externalName":"example.com"}},
      {"apiVersion":"v1","kind":"ReplicationController","metadata":{"name":"rc"},
       "spec":{"replicas":3,"selector":{"app":"old"}}},
      {"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":"rs","namespace":"prod"},
       "spec":{"replicas":2,"selector":{"matchLabels":{"app":"web"},
               "matchExpressions":[{"key":"tier","operator":"In","values":["a","b"]}]}}},
      {"apiVersion":"apps/v1","kind":"StatefulSet","metadata":{"name":"db"},
       "spec":{"serviceName":"db","selector":{"matchLabels":{"app":"db"}}}}]})");
  ASSERT_TRUE(objects.ok()) << objects.status();
  ASSERT_EQ(objects->size(), 5u);
  const auto& svc = std::get<Service>(objects->at(0));
  EXPECT_EQ(KindOf(objects->at(0)), "Service");
  EXPECT_EQ(svc.metadata.namespace_, "prod");
  EXPECT_THAT(svc.selector, ElementsAre(Pair("app", "web")));
  EXPECT_TRUE(std::get<Service>(objects->at(1)).selector.empty());
  EXPECT_EQ(KindOf(objects->at(2)), "ReplicationController");
  EXPECT_THAT(std::get<ReplicationController>(objects->at(2)).selector,
              ElementsAre(Pair("app", "old")));
  EXPECT_EQ(KindOf(objects->at(3)), "ReplicaSet");
  const auto& rs = std::get<ReplicaSet>(objects->at(3));
  ASSERT_TRUE(rs.selector.has_value());
  EXPECT_THAT(rs.selector->match_labels, ElementsAre(Pair("app", "web")));
  ASSERT_EQ(rs.selector->match_expressions.size(), 1u);
  EXPECT_THAT(rs.selector->match_expressions[0].values, ElementsAre("a", "b"));
  EXPECT_EQ(KindOf(objects->at(4)), "StatefulSet");
  EXPECT_EQ(MetaOf(objects->at(4)).name, "db");
  EXPECT_THAT(std::get<StatefulSet>(objects->at(4)).selector->match_labels,
              ElementsAre(Pair("app", "db")));
}

TEST(DecodeObjectsTest, PodDisruptionBudgets) {
  // As the API serves them (a PodDisruptionBudgetList with a status), and as written by hand.
  auto objects = DecodeObjects(R"({"kind":"PodDisruptionBudgetList","items":[
      {"metadata":{"name":"web","namespace":"prod"},
       "spec":{"minAvailable":"50%","selector":{"matchLabels":{"app":"web"}}},
       "status":{"currentHealthy":3,"desiredHealthy":2,"disruptionsAllowed":1,"expectedPods":3,
                 "disruptedPods":{"web-1":"2026-11-01T10:00:00Z"},"observedGeneration":1}},
      {"apiVersion":"policy/v1","kind":"PodDisruptionBudget","metadata":{"name":"db"},
       "spec":{"maxUnavailable":1,"selector":{}}}]})");
  ASSERT_TRUE(objects.ok()) << objects.status();
  ASSERT_EQ(objects->size(), 2u);
  EXPECT_EQ(KindOf(objects->at(0)), "PodDisruptionBudget");
  const auto& web = std::get<PodDisruptionBudget>(objects->at(0));
  EXPECT_EQ(web.metadata.namespace_, "prod");
  ASSERT_TRUE(web.min_available.has_value());
  EXPECT_TRUE(web.min_available->is_string);
  EXPECT_EQ(web.min_available->str_value, "50%");
  EXPECT_FALSE(web.max_unavailable.has_value());
  EXPECT_THAT(web.selector->match_labels, ElementsAre(Pair("app", "web")));
  EXPECT_TRUE(web.has_status);
  EXPECT_EQ(web.disruptions_allowed, 1);
  EXPECT_THAT(web.disrupted_pods, ElementsAre(Pair("web-1", "2026-11-01T10:00:00Z")));

  const auto& db = std::get<PodDisruptionBudget>(objects->at(1));
  ASSERT_TRUE(db.max_unavailable.has_value());
  EXPECT_FALSE(db.max_unavailable->is_string);
  EXPECT_EQ(db.max_unavailable->int_value, 1);
  ASSERT_TRUE(db.selector.has_value());  // Empty, not absent.
  EXPECT_TRUE(db.selector->match_labels.empty());
  EXPECT_FALSE(db.has_status);
  EXPECT_EQ(db.disruptions_allowed, 0);
}

// The DRA objects as the API server serves them (resource.k8s.io/v1), and a pod that names claims.
TEST(DecodeObjectsTest, DraObjects) {
  auto objects = DecodeObjects(R"({"kind":"List","items":[
      {"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass","metadata":{"name":"gpu"},
       "spec":{"selectors":[{"cel":{"expression":"device.driver == 'gpu.example.com'"}}],
               "config":[{"opaque":{"driver":"gpu.example.com","parameters":{"a": 1}}}],
               "extendedResourceName":"example.com/gpu"}},
      {"apiVersion":"resource.k8s.io/v1","kind":"ResourceSlice","metadata":{"name":"n1-gpu"},
       "spec":{"driver":"gpu.example.com","nodeName":"n1",
               "pool":{"name":"n1","generation":3,"resourceSliceCount":1},
               "devices":[{"name":"gpu-0",
                           "attributes":{"model":{"string":"a100"},"index":{"int":0},
                                         "shared":{"bool":false},"driverVersion":{"version":"1.2.3"}},
                           "capacity":{"memory":{"value":"80Gi"}},
                           "taints":[{"key":"broken","value":"yes","effect":"NoSchedule"}]},
                          {"name":"gpu-1","consumesCounters":[{"counterSet":"s","counters":{
                                "memory":{"value":"10Gi"}},"compatibilityGroups":["a"]}],
                           "allowMultipleAllocations":true,
                           "capacity":{"memory":{"value":"80Gi","requestPolicy":{"default":"1Gi",
                               "validRange":{"min":"1Gi","step":"1Gi"}}}}}],
               "sharedCounters":[{"name":"s","counters":{"memory":{"value":"80Gi"}}}]}},
      {"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim",
       "metadata":{"name":"train-gpu","namespace":"ml","uid":"c1"},
       "spec":{"devices":{
         "requests":[{"name":"gpu","exactly":{"deviceClassName":"gpu","allocationMode":"ExactCount",
                                              "count":2,"adminAccess":true,
                                              "capacity":{"requests":{"memory":"10Gi"}},
                                              "selectors":[{"cel":{"expression":"true"}}],
                                              "tolerations":[{"key":"broken","operator":"Exists",
                                                              "effect":"NoSchedule"}]}},
                     {"name":"any","firstAvailable":[{"name":"big","deviceClassName":"gpu"},
                                                     {"name":"small","deviceClassName":"gpu",
                                                      "allocationMode":"All"}]}],
         "constraints":[{"requests":["gpu"],"matchAttribute":"gpu.example.com/model"},
                        {"distinctAttribute":"gpu.example.com/index"}],
         "config":[{"requests":["gpu"],"opaque":{"driver":"gpu.example.com","parameters":{}}}]}},
       "status":{"allocation":{"devices":{"results":[{"request":"gpu","driver":"gpu.example.com",
                                                       "pool":"n1","device":"gpu-0",
                                                       "shareID":"5a8c63a2-7d0d-4b8e-9c3c-0d3c6f1e2a10",
                                                       "consumedCapacity":{"memory":"10Gi"}}],
                                          "config":[{"source":"FromClass","opaque":{
                                              "driver":"gpu.example.com","parameters":{"a":1}}}]},
                               "nodeSelector":{"nodeSelectorTerms":[{"matchFields":[
                                   {"key":"metadata.name","operator":"In","values":["n1"]}]}]},
                               "allocationTimestamp":"2026-11-27T10:00:00Z"},
                 "reservedFor":[{"resource":"pods","name":"train","uid":"p1"}]}},
      {"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaimTemplate",
       "metadata":{"name":"one-gpu","namespace":"ml"},
       "spec":{"metadata":{"labels":{"app":"train"}},
               "spec":{"devices":{"requests":[{"name":"gpu","exactly":{"deviceClassName":"gpu"}}]}}}},
      {"apiVersion":"v1","kind":"Pod","metadata":{"name":"train","namespace":"ml"},
       "spec":{"containers":[{"name":"c"}],
               "resourceClaims":[{"name":"gpu","resourceClaimName":"train-gpu"},
                                 {"name":"scratch","resourceClaimTemplateName":"one-gpu"}]},
       "status":{"resourceClaimStatuses":[{"name":"scratch","resourceClaimName":"train-scratch-x"}]}}
  ]})");
  ASSERT_TRUE(objects.ok()) << objects.status();
  ASSERT_EQ(objects->size(), 5u);

  const auto& cls = std::get<DeviceClass>(objects->at(0));
  EXPECT_EQ(KindOf(objects->at(0)), "DeviceClass");
  EXPECT_THAT(cls.selectors, ElementsAre("device.driver == 'gpu.example.com'"));
  ASSERT_EQ(cls.config.size(), 1u);
  EXPECT_EQ(cls.config[0].driver, "gpu.example.com");
  EXPECT_EQ(cls.config[0].parameters, R"({"a":1})");
  EXPECT_EQ(cls.extended_resource_name, "example.com/gpu");

  const auto& slice = std::get<ResourceSlice>(objects->at(1));
  EXPECT_EQ(slice.driver, "gpu.example.com");
  EXPECT_EQ(slice.node_name, "n1");
  EXPECT_EQ(slice.pool, "n1");
  EXPECT_EQ(slice.pool_generation, 3);
  EXPECT_EQ(slice.pool_slice_count, 1);
  ASSERT_EQ(slice.devices.size(), 2u);
  const Device& gpu0 = slice.devices[0];
  EXPECT_EQ(gpu0.attributes.at("model").string_value, "a100");
  EXPECT_EQ(gpu0.attributes.at("index").int_value, 0);
  EXPECT_EQ(gpu0.attributes.at("shared").bool_value, false);
  EXPECT_EQ(gpu0.attributes.at("driverVersion").version_value, "1.2.3");
  EXPECT_EQ(gpu0.capacity.at("memory").Value(), int64_t{80} << 30);
  ASSERT_EQ(gpu0.taints.size(), 1u);
  EXPECT_EQ(gpu0.taints[0].effect, "NoSchedule");
  EXPECT_TRUE(gpu0.unsupported.empty());
  // Partitionable devices: the counters a device consumes, and the pool's counter sets.
  ASSERT_EQ(slice.devices[1].consumes_counters.size(), 1u);
  EXPECT_EQ(slice.devices[1].consumes_counters[0].counter_set, "s");
  EXPECT_EQ(slice.devices[1].consumes_counters[0].counters.at("memory").Value(), int64_t{10} << 30);
  ASSERT_EQ(slice.shared_counters.size(), 1u);
  EXPECT_EQ(slice.shared_counters[0].name, "s");
  EXPECT_EQ(slice.shared_counters[0].counters.at("memory").Value(), int64_t{80} << 30);
  EXPECT_TRUE(slice.unsupported.empty());
  // Compatibility groups (alpha, off), which ksched does not implement.
  EXPECT_THAT(slice.devices[1].unsupported,
              ElementsAre("spec.devices[1].consumesCounters[0].compatibilityGroups"));
  // Consumable capacity: a device shared by several allocations, and how they consume its memory.
  EXPECT_EQ(slice.devices[1].allow_multiple_allocations, true);
  const CapacityRequestPolicy& policy = slice.devices[1].request_policies.at("memory");
  EXPECT_EQ(policy.default_value->String(), "1Gi");
  ASSERT_TRUE(policy.valid_range.has_value());
  EXPECT_EQ(policy.valid_range->step->String(), "1Gi");
  EXPECT_FALSE(policy.valid_range->max.has_value());

  const auto& claim = std::get<ResourceClaim>(objects->at(2));
  ASSERT_EQ(claim.spec.requests.size(), 2u);
  const DeviceSubRequest& exactly = *claim.spec.requests[0].exactly;
  EXPECT_EQ(exactly.device_class_name, "gpu");
  EXPECT_EQ(exactly.count, 2);
  EXPECT_TRUE(exactly.admin_access);
  EXPECT_THAT(exactly.selectors, ElementsAre("true"));
  ASSERT_EQ(exactly.tolerations.size(), 1u);
  EXPECT_EQ(exactly.tolerations[0].op, "Exists");
  const auto& alternatives = claim.spec.requests[1].first_available;
  ASSERT_EQ(alternatives.size(), 2u);
  EXPECT_EQ(alternatives[0].name, "big");
  EXPECT_EQ(alternatives[0].allocation_mode, "ExactCount");  // The API server's default.
  EXPECT_EQ(alternatives[0].count, 1);
  EXPECT_EQ(alternatives[1].allocation_mode, "All");
  ASSERT_EQ(claim.spec.constraints.size(), 2u);
  EXPECT_EQ(claim.spec.constraints[0].match_attribute, "gpu.example.com/model");
  EXPECT_EQ(claim.spec.constraints[1].distinct_attribute, "gpu.example.com/index");
  EXPECT_THAT(claim.spec.config[0].requests, ElementsAre("gpu"));
  ASSERT_TRUE(claim.allocation.has_value());
  ASSERT_EQ(claim.allocation->results.size(), 1u);
  EXPECT_EQ(claim.allocation->results[0].device, "gpu-0");
  EXPECT_EQ(claim.allocation->results[0].share_id, "5a8c63a2-7d0d-4b8e-9c3c-0d3c6f1e2a10");
  EXPECT_EQ(claim.allocation->results[0].consumed_capacity.at("memory").String(), "10Gi");
  EXPECT_EQ(exactly.capacity_requests.at("memory").String(), "10Gi");
  EXPECT_TRUE(claim.unsupported.empty());
  EXPECT_EQ(claim.allocation->config[0].source, "FromClass");
  EXPECT_EQ(claim.allocation->config[0].configuration.parameters, R"({"a":1})");
  EXPECT_EQ(claim.allocation->node_selector->node_selector_terms.size(), 1u);
  EXPECT_EQ(claim.allocation->allocation_timestamp, "2026-11-27T10:00:00Z");
  ASSERT_EQ(claim.reserved_for.size(), 1u);
  EXPECT_EQ(claim.reserved_for[0].uid, "p1");
  EXPECT_TRUE(claim.unsupported.empty());

  const auto& tmpl = std::get<ResourceClaimTemplate>(objects->at(3));
  EXPECT_EQ(tmpl.claim_labels.at("app"), "train");
  EXPECT_EQ(tmpl.spec.requests[0].exactly->device_class_name, "gpu");

  const auto& pod = std::get<Pod>(objects->at(4));
  ASSERT_EQ(pod.spec.resource_claims.size(), 2u);
  EXPECT_EQ(pod.spec.resource_claims[0].resource_claim_name, "train-gpu");
  EXPECT_EQ(pod.spec.resource_claims[1].resource_claim_template_name, "one-gpu");
  ASSERT_EQ(pod.status.resource_claim_statuses.size(), 1u);
  EXPECT_EQ(pod.status.resource_claim_statuses[0].resource_claim_name, "train-scratch-x");
}

// A request's count is defaulted as the API server defaults it: ExactCount's absent or zero count
// is 1 (a claim with `count: 0` gets one device, as with kube-scheduler), and All's stays 0.
TEST(DecodeObjectsTest, FieldsOf137) {
  auto objects = DecodeObjects(R"({"kind":"List","items":[
      {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"default"},
       "spec":{"containers":[{"name":"c","image":"i",
                              "volumeMounts":[{"name":"a","mountPath":"/a"},
                                              {"name":"m","mountPath":"/m",
                                               "bindMountOptions":["noexec"]}]}],
               "initContainers":[{"name":"i","image":"i","volumeMounts":[{"name":"a","mountPath":"/a"}]}],
               "volumes":[{"name":"m","image":{"reference":"registry.example/model:1"}}]}},
      {"apiVersion":"resource.k8s.io/v1","kind":"DeviceTaintRule","metadata":{"name":"drain"},
       "spec":{"deviceSelector":{"driver":"gpu.example.com","device":"gpu-0"},
               "taint":{"key":"drain","value":"now","effect":"NoSchedule",
                        "timeAdded":"2026-12-01T00:00:00Z"}}},
      {"apiVersion":"resource.k8s.io/v1","kind":"DeviceTaintRule","metadata":{"name":"none"},
       "spec":{"taint":{"key":"k","effect":"None"}}}]})");
  ASSERT_TRUE(objects.ok()) << objects.status();
  ASSERT_EQ(objects->size(), 3u);
  const Pod& pod = std::get<Pod>((*objects)[0]);
  EXPECT_TRUE(pod.spec.containers[0].bind_mount_options);
  EXPECT_FALSE(pod.spec.init_containers[0].bind_mount_options);
  EXPECT_EQ(pod.spec.volumes[0].source, "image");
  EXPECT_EQ(pod.spec.volumes[0].image_reference, "registry.example/model:1");
  const DeviceTaintRule& drain = std::get<DeviceTaintRule>((*objects)[1]);
  ASSERT_TRUE(drain.device_selector.has_value());
  EXPECT_EQ(drain.device_selector->driver, "gpu.example.com");
  EXPECT_FALSE(drain.device_selector->pool.has_value());
  EXPECT_EQ(drain.device_selector->device, "gpu-0");
  EXPECT_EQ(drain.taint.key, "drain");
  EXPECT_EQ(drain.taint.effect, "NoSchedule");
  EXPECT_FALSE(std::get<DeviceTaintRule>((*objects)[2]).device_selector.has_value());
}

TEST(DecodeObjectsTest, ARequestsCountIsDefaultedAsTheApiServerDoes) {
  auto objects = DecodeObjects(R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim",
      "metadata":{"name":"c"},"spec":{"devices":{"requests":[
        {"name":"zero","exactly":{"deviceClassName":"gpu","count":0}},
        {"name":"absent","exactly":{"deviceClassName":"gpu"}},
        {"name":"three","exactly":{"deviceClassName":"gpu","count":3}},
        {"name":"all","exactly":{"deviceClassName":"gpu","allocationMode":"All"}},
        {"name":"all-counted","exactly":{"deviceClassName":"gpu","allocationMode":"All","count":2}}]}}})");
  ASSERT_TRUE(objects.ok()) << objects.status();
  const auto& requests = std::get<ResourceClaim>(objects->at(0)).spec.requests;
  ASSERT_EQ(requests.size(), 5u);
  EXPECT_EQ(requests[0].exactly->count, 1);
  EXPECT_EQ(requests[1].exactly->count, 1);
  EXPECT_EQ(requests[2].exactly->count, 3);
  EXPECT_EQ(requests[3].exactly->count, 0);
  EXPECT_EQ(requests[4].exactly->count, 2);  // Kept, for validation to refuse.
}

// A DRA object with a field of the wrong type names it, as any object does.
TEST(DecodeObjectsTest, ABadDraFieldIsNamed) {
  auto bad = DecodeObjects(R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceSlice",
      "metadata":{"name":"s"},"spec":{"devices":[{"name":"d","capacity":{"mem":{"value":"lots"}}}]}})");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("spec.devices[0].capacity.mem.value: "));
}

TEST(DecodeObjectsTest, StorageObjects) {
  auto objects = DecodeObjects(R"({"kind":"List","items":[
      {"apiVersion":"v1","kind":"PersistentVolume",
       "metadata":{"name":"pv-1","resourceVersion":"17",
                   "annotations":{"volume.beta.kubernetes.io/storage-class":"beta"}},
       "spec":{"capacity":{"storage":"10Gi"},"accessModes":["ReadWriteOnce"],
               "storageClassName":"local","persistentVolumeReclaimPolicy":"Retain",
               "local":{"path":"/mnt/disk1"},
               "claimRef":{"kind":"PersistentVolumeClaim","namespace":"db","name":"data-0",
                           "uid":"u1"},
               "nodeAffinity":{"required":{"nodeSelectorTerms":[{"matchExpressions":[
                   {"key":"kubernetes.io/hostname","operator":"In","values":["node-1"]}]}]}}},
       "status":{"phase":"Bound"}},
      {"apiVersion":"v1","kind":"PersistentVolumeClaim",
       "metadata":{"name":"data-0","namespace":"db"},
       "spec":{"accessModes":["ReadWriteOncePod"],"storageClassName":"local",
               "resources":{"requests":{"storage":"5Gi","other":"1"}},
               "selector":{"matchLabels":{"tier":"fast"}},"volumeName":"pv-1"},
       "status":{"phase":"Bound"}},
      {"apiVersion":"storage.k8s.io/v1","kind":"StorageClass","metadata":{"name":"local"},
       "provisioner":"kubernetes.io/no-provisioner","volumeBindingMode":"WaitForFirstConsumer",
       "allowedTopologies":[{"matchLabelExpressions":[
           {"key":"topology.kubernetes.io/zone","values":["a","b"]}]}]},
      {"apiVersion":"storage.k8s.io/v1","kind":"StorageClass","metadata":{"name":"fast"},
       "provisioner":"ebs.csi.aws.com"},
      {"apiVersion":"storage.k8s.io/v1","kind":"CSINode","metadata":{"name":"node-1"},
       "spec":{"drivers":[{"name":"ebs.csi.aws.com","nodeID":"i-1",
                           "topologyKeys":["topology.ebs.csi.aws.com/zone"],
                           "allocatable":{"count":25}}]}},
      {"apiVersion":"storage.k8s.io/v1","kind":"CSIDriver","metadata":{"name":"ebs.csi.aws.com"},
       "spec":{"attachRequired":true,"storageCapacity":false,
               "preventPodSchedulingIfMissing":true}},
      {"apiVersion":"storage.k8s.io/v1","kind":"CSIStorageCapacity",
       "metadata":{"name":"cap-a","namespace":"kube-system"},"storageClassName":"fast",
       "nodeTopology":{"matchLabels":{"zone":"a"}},"capacity":"100Gi",
       "maximumVolumeSize":"50Gi"},
      {"apiVersion":"storage.k8s.io/v1","kind":"VolumeAttachment","metadata":{"name":"va-1"},
       "spec":{"attacher":"ebs.csi.aws.com","nodeName":"node-1",
               "source":{"persistentVolumeName":"pv-1"}}}]})");
  ASSERT_TRUE(objects.ok()) << objects.status();
  ASSERT_EQ(objects->size(), 8u);
  const auto& pv = std::get<PersistentVolume>(objects->at(0));
  EXPECT_EQ(KindOf(objects->at(0)), "PersistentVolume");
  EXPECT_EQ(pv.metadata.resource_version, "17");
  EXPECT_EQ(pv.capacity->Value(), int64_t{10} << 30);
  EXPECT_THAT(pv.access_modes, ElementsAre("ReadWriteOnce"));
  EXPECT_EQ(pv.storage_class_name, "local");
  EXPECT_EQ(StorageClassOf(pv), "beta");  // The annotation wins, as upstream.
  EXPECT_EQ(pv.source.kind, "local");
  EXPECT_EQ(pv.source.volume_handle, "/mnt/disk1");
  ASSERT_TRUE(pv.claim_ref.has_value());
  EXPECT_EQ(pv.claim_ref->namespace_, "db");
  EXPECT_EQ(pv.claim_ref->uid, "u1");
  ASSERT_TRUE(pv.node_affinity.has_value());
  EXPECT_EQ(pv.node_affinity->node_selector_terms[0].match_expressions[0].values[0], "node-1");
  EXPECT_EQ(pv.phase, "Bound");

  const auto& pvc = std::get<PersistentVolumeClaim>(objects->at(1));
  EXPECT_EQ(pvc.metadata.namespace_, "db");
  EXPECT_THAT(pvc.access_modes, ElementsAre("ReadWriteOncePod"));
  EXPECT_EQ(pvc.storage_request->Value(), int64_t{5} << 30);
  EXPECT_EQ(StorageClassOf(pvc), "local");
  EXPECT_EQ(pvc.volume_name, "pv-1");
  EXPECT_THAT(pvc.selector->match_labels, ElementsAre(Pair("tier", "fast")));
  EXPECT_EQ(pvc.phase, "Bound");

  const auto& local = std::get<StorageClass>(objects->at(2));
  EXPECT_EQ(local.provisioner, "kubernetes.io/no-provisioner");
  EXPECT_EQ(local.volume_binding_mode, "WaitForFirstConsumer");
  ASSERT_EQ(local.allowed_topologies.size(), 1u);
  EXPECT_THAT(local.allowed_topologies[0].match_label_expressions[0].values, ElementsAre("a", "b"));
  // The API server's default.
  EXPECT_EQ(std::get<StorageClass>(objects->at(3)).volume_binding_mode, "Immediate");

  const auto& csi_node = std::get<CSINode>(objects->at(4));
  ASSERT_EQ(csi_node.drivers.size(), 1u);
  EXPECT_EQ(csi_node.drivers[0].name, "ebs.csi.aws.com");
  EXPECT_EQ(csi_node.drivers[0].allocatable_count, 25);
  EXPECT_THAT(csi_node.drivers[0].topology_keys, ElementsAre("topology.ebs.csi.aws.com/zone"));
  const auto& driver = std::get<CSIDriver>(objects->at(5));
  EXPECT_EQ(driver.attach_required, true);
  EXPECT_EQ(driver.storage_capacity, false);
  EXPECT_EQ(driver.prevent_pod_scheduling_if_missing, true);
  const auto& cap = std::get<CSIStorageCapacity>(objects->at(6));
  EXPECT_EQ(cap.storage_class_name, "fast");
  EXPECT_EQ(cap.capacity->Value(), int64_t{100} << 30);
  EXPECT_EQ(cap.maximum_volume_size->Value(), int64_t{50} << 30);
  EXPECT_THAT(cap.node_topology->match_labels, ElementsAre(Pair("zone", "a")));
  const auto& va = std::get<VolumeAttachment>(objects->at(7));
  EXPECT_EQ(va.attacher, "ebs.csi.aws.com");
  EXPECT_EQ(va.node_name, "node-1");
  EXPECT_EQ(va.persistent_volume_name, "pv-1");
}

TEST(DecodeObjectsTest, StorageObjectErrorsNameTheField) {
  auto bad_mode = DecodeObjects(R"({"kind":"StorageClass","metadata":{"name":"x"},
      "provisioner":"p","volumeBindingMode":"Later"})");
  ASSERT_FALSE(bad_mode.ok());
  EXPECT_EQ(bad_mode.status().message(),
            "volumeBindingMode: Unsupported value: \"Later\": supported values: \"Immediate\", "
            "\"WaitForFirstConsumer\"");
  auto bad_size = DecodeObjects(R"({"kind":"PersistentVolumeClaim","metadata":{"name":"x"},
      "spec":{"resources":{"requests":{"storage":"5 Gi"}}}})");
  ASSERT_FALSE(bad_size.ok());
  EXPECT_EQ(bad_size.status().message(),
            "spec.resources.requests.storage: invalid quantity \"5 Gi\"");
  auto bad_affinity = DecodeObjects(R"({"kind":"PersistentVolume","metadata":{"name":"x"},
      "spec":{"nodeAffinity":{"required":{"nodeSelectorTerms":[{"matchExpressions":[
          {"key":"k","operator":"Near","values":["a"]}]}]}}}})");
  ASSERT_FALSE(bad_affinity.ok());
  EXPECT_THAT(bad_affinity.status().message(),
              HasSubstr("spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0]."
                        "operator: Invalid value: \"Near\": not a valid selector operator"));
}

struct BadInput {
  std::string name;
  std::string json;
  std::string message;
};

class DecodeErrorTest : public ::testing::TestWithParam<BadInput> {};

TEST_P(DecodeErrorTest, NamesTheField) {
  auto objects = DecodeObjects(GetParam().json);
  ASSERT_FALSE(objects.ok());
  EXPECT_EQ(objects.status().message(), GetParam().message);
}

INSTANTIATE_TEST_SUITE_P(
    Table, DecodeErrorTest,
    ::testing::Values(
        BadInput{
            "BadQuantity",
            R"({"kind":"Pod","spec":{"containers":[{"resources":{"requests":{"cpu":"1.5.3"}}}]}})",
            R"(spec.containers[0].resources.requests.cpu: invalid quantity "1.5.3")"},
        BadInput{"WrongType", R"({"kind":"Pod","spec":{"priority":"high"}})",
                 "spec.priority: expected integer, got string"},
        BadInput{"Int32Overflow", R"({"kind":"Pod","spec":{"priority":4294967296}})",
                 "spec.priority: integer 4294967296 out of range"},
        BadInput{"LabelNotString", R"({"kind":"Node","metadata":{"labels":{"zone":1}}})",
                 "metadata.labels.zone: expected string, got number"},
        BadInput{"NotAnObject", R"({"kind":"Node","spec":[]})", "spec: expected object, got array"},
        BadInput{"UnknownKind", R"({"kind":"Deployment"})", R"(kind: unknown kind "Deployment")"},
        BadInput{"MissingKind", R"({"metadata":{}})", "kind: Required value"},
        BadInput{"ServiceSelectorNotAMap", R"({"kind":"Service","spec":{"selector":["app"]}})",
                 "spec.selector: expected object, got array"},
        BadInput{"ReplicationControllerSelectorValue",
                 R"({"kind":"ReplicationController","spec":{"selector":{"app":3}}})",
                 "spec.selector.app: expected string, got number"},
        BadInput{
            "ReplicaSetSelectorOperator",
            R"({"kind":"ReplicaSet","spec":{"selector":{"matchExpressions":[{"key":"a","operator":"Gt","values":["1"]}]}}})",
            R"(spec.selector.matchExpressions[0].operator: Invalid value: "Gt": not a valid selector operator)"},
        BadInput{"StatefulSetSelectorNotAnObject",
                 R"({"kind":"StatefulSet","spec":{"selector":"app=db"}})",
                 "spec.selector: expected object, got string"},
        BadInput{
            "PdbNotAPercent", R"({"kind":"PodDisruptionBudget","spec":{"minAvailable":"half"}})",
            R"(spec.minAvailable: Invalid value: "half": a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%', or '93%', regex used for validation is '[0-9]+%'))"},
        BadInput{"PdbOver100Percent",
                 R"({"kind":"PodDisruptionBudget","spec":{"maxUnavailable":"150%"}})",
                 R"(spec.maxUnavailable: Invalid value: "150%": must not be greater than 100%)"},
        BadInput{"PdbNegative", R"({"kind":"PodDisruptionBudget","spec":{"minAvailable":-1}})",
                 "spec.minAvailable: Invalid value: -1: must be greater than or equal to 0"},
        BadInput{"PdbIntOrStringType",
                 R"({"kind":"PodDisruptionBudget","spec":{"maxUnavailable":1.5}})",
                 "spec.maxUnavailable: expected integer or string, got number"},
        BadInput{"PdbBothSet",
                 R"({"kind":"PodDisruptionBudget","spec":{"minAvailable":1,"maxUnavailable":1}})",
                 "spec: Invalid value: minAvailable and maxUnavailable cannot be both set"},
        BadInput{"PdbStatus",
                 R"({"kind":"PodDisruptionBudget","status":{"disruptionsAllowed":"1"}})",
                 "status.disruptionsAllowed: expected integer, got string"},
        BadInput{"PdbDisruptedPods",
                 R"({"kind":"PodDisruptionBudget","status":{"disruptedPods":{"web-1":1}}})",
                 "status.disruptedPods.web-1: expected string, got number"},
        BadInput{
            "BadOperator",
            R"({"kind":"Pod","spec":{"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"a","operator":"Like"}]}]}}}}})",
            R"(spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].operator: Invalid value: "Like": not a valid selector operator)"},
        BadInput{
            "GtNeedsInteger",
            R"({"kind":"Pod","spec":{"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"a","operator":"Gt","values":["x"]}]}]}}}}})",
            R"(spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].values[0]: Invalid value: "x": must be an integer)"},
        BadInput{
            "InNeedsValues",
            R"({"kind":"Pod","spec":{"topologySpreadConstraints":[{"labelSelector":{"matchExpressions":[{"key":"a","operator":"In"}]}}]}})",
            "spec.topologySpreadConstraints[0].labelSelector.matchExpressions[0].values: "
            "Required value: must be specified when `operator` is 'In' or 'NotIn'"},
        BadInput{
            "BadTaintEffect", R"({"kind":"Node","spec":{"taints":[{"key":"k","effect":"Never"}]}})",
            R"(spec.taints[0].effect: Unsupported value: "Never": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute")"},
        BadInput{
            "BadTolerationOperator",
            R"({"kind":"Pod","spec":{"tolerations":[{"key":"k","operator":"Has"}]}})",
            R"(spec.tolerations[0].operator: Unsupported value: "Has": supported values: "Equal", "Exists")"},
        BadInput{"ListItemNamesTheObject",
                 R"({"kind":"List","items":[{"kind":"Node","metadata":{"name":"ok"}},
                     {"kind":"Pod","metadata":{"name":"web","namespace":"prod"},"spec":{"nodeName":7}}]})",
                 "items[1] (Pod prod/web): spec.nodeName: expected string, got number"},
        BadInput{
            "InvalidJson", R"({"kind":"Pod",)",
            "invalid JSON: The JSON document has an improper structure: missing or superfluous "
            "commas, braces, missing keys, etc."}),
    [](const auto& info) { return info.param.name; });

TEST(DecodeSelectorTest, EmbeddedNodeAffinity) {
  simdjson::dom::parser parser;
  simdjson::dom::element e = parser.parse(std::string_view(
      R"({"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchFields":[{"key":"spec.nodeName","operator":"In","values":["a"]}]}]}})"));
  NodeAffinity affinity;
  absl::Status st = DecodeNodeAffinity(e, &affinity);
  EXPECT_THAT(std::string(st.message()),
              HasSubstr("matchFields[0].key: Invalid value: \"spec.nodeName\""));
}

// NodeAffinityArgs is validated as kube-scheduler validates its config, not as the API server
// validates a pod: an unknown operator is "Unsupported value", with the operators it takes.
TEST(DecodeSelectorTest, EmbeddedNodeAffinityOperatorIsWordedAsTheSchedulersConfig) {
  simdjson::dom::parser parser;
  simdjson::dom::element e = parser.parse(std::string_view(
      R"({"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":1,"preference":{"matchExpressions":[{"key":"a","operator":"Like"}]}}]})"));
  NodeAffinity affinity;
  absl::Status st = DecodeNodeAffinity(e, &affinity);
  EXPECT_EQ(
      std::string(st.message()),
      R"(preferredDuringSchedulingIgnoredDuringExecution[0].preference.matchExpressions[0].operator: Unsupported value: "Like": supported values: "In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")");
}

TEST(DecodePodGroupTest, GangPolicyPriorityConditionsAndTheSchedulingGroupOfItsPods) {
  auto objects = DecodeObjects(R"({"kind":"List","items":[
    {"apiVersion":"scheduling.k8s.io/v1beta1","kind":"PodGroup",
     "metadata":{"name":"train","namespace":"ml","generation":3},
     "spec":{"schedulingPolicy":{"gang":{"minCount":4}},"priority":100,
             "disruptionMode":{"all":{}},"schedulingConstraints":{"topology":[{"key":"rack"}]},
             "preemptionPolicy":"Never"},
     "status":{"conditions":[{"type":"PodGroupInitiallyScheduled","status":"False",
                              "reason":"Unschedulable","message":"m"}]}},
    {"apiVersion":"scheduling.k8s.io/v1beta1","kind":"PodGroup","metadata":{"name":"b"},
     "spec":{"schedulingPolicy":{"basic":{}}}},
    {"apiVersion":"v1","kind":"Pod","metadata":{"name":"w"},
     "spec":{"schedulingGroup":{"podGroupName":"train"},"containers":[{"name":"c"}]}}]})");
  ASSERT_TRUE(objects.ok()) << objects.status();
  ASSERT_EQ(objects->size(), 3u);
  const auto& gang = std::get<PodGroup>((*objects)[0]);
  EXPECT_EQ(gang.metadata.namespace_, "ml");
  EXPECT_EQ(gang.generation, 3);
  EXPECT_EQ(gang.gang_min_count, 4);
  EXPECT_FALSE(gang.basic);
  EXPECT_EQ(PodGroupPriority(gang), 100);
  EXPECT_TRUE(gang.disrupt_all);
  ASSERT_TRUE(gang.scheduling_constraints.has_value());
  EXPECT_THAT(gang.scheduling_constraints->topology_keys, ElementsAre("rack"));
  EXPECT_EQ(gang.preemption_policy, "Never");
  EXPECT_THAT(gang.gated_fields, ElementsAre());
  ASSERT_EQ(gang.conditions.size(), 1u);
  EXPECT_EQ(gang.conditions[0].reason, "Unschedulable");
  const auto& basic = std::get<PodGroup>((*objects)[1]);
  EXPECT_TRUE(basic.basic);
  EXPECT_FALSE(basic.gang_min_count.has_value());
  EXPECT_FALSE(basic.scheduling_constraints.has_value());
  EXPECT_EQ(PodGroupPriority(basic), 0);
  EXPECT_EQ(std::get<Pod>((*objects)[2]).spec.pod_group_name, "train");
}

}  // namespace
}  // namespace ksched::api
