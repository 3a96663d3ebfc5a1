#include "src/sim/manifests.h"

#include <gtest/gtest.h>

namespace ksched::sim {
namespace {

TEST(ParseManifestTest, MultiDocumentYamlKeepsOrder) {
  auto objects = ParseManifest(
      "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n---\n"
      "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Pod, metadata: {name: a}, "
      "spec: {containers: [{name: c, image: registry.k8s.io/pause:3.10}]}}\n"
      "- {apiVersion: v1, kind: Pod, metadata: {name: b}, spec: {containers: [{name: c, image: "
      "registry.k8s.io/pause:3.10}]}}\n",
      "c.yaml");
  ASSERT_TRUE(objects.ok()) << objects.status();
  ASSERT_EQ(objects->size(), 3u);
  EXPECT_EQ(api::MetaOf((*objects)[0]).name, "n1");
  EXPECT_EQ(api::MetaOf((*objects)[2]).name, "b");
}

TEST(ParseManifestTest, JsonListAsKubectlPrintsIt) {
  auto objects = ParseManifest(
      R"({"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"Node","metadata":{"name":"x"}}]})",
      "nodes.json");
  ASSERT_TRUE(objects.ok()) << objects.status();
  EXPECT_EQ(api::KindOf(objects->at(0)), "Node");
}

TEST(ParseManifestTest, ErrorNamesFileDocumentObjectAndField) {
  auto objects = ParseManifest(
      "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n---\napiVersion: v1\nkind: Pod\nmetadata: "
      "{name: web, namespace: prod}\n"
      "spec:\n  containers:\n  - name: c\n    resources: {requests: {cpu: 1.5.3}}\n",
      "cluster.yaml");
  ASSERT_FALSE(objects.ok());
  EXPECT_EQ(std::string(objects.status().message()),
            "cluster.yaml: document 2 (Pod prod/web): spec.containers[0].resources.requests.cpu: "
            "invalid quantity \"1.5.3\"");
}

TEST(ParseManifestTest, UnknownKindIsAnError) {
  auto objects =
      ParseManifest("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\n", "d.yaml");
  ASSERT_FALSE(objects.ok());
  EXPECT_EQ(std::string(objects.status().message()),
            "d.yaml: document 1 (Deployment d): kind: unknown kind \"Deployment\": give it with "
            "--add FILE, which adds its replicas' pods");
}

TEST(ParseManifestTest, WorkloadsAndDisruptionBudgets) {
  auto objects = ParseManifest(R"(apiVersion: v1
kind: Service
metadata: {name: web, namespace: prod}
spec:
  selector: {app: web}
---
apiVersion: v1
kind: ReplicationController
metadata: {name: rc}
spec: {selector: {app: rc}}
---
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: rs}
spec: {selector: {matchLabels: {app: rs}}}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec: {selector: {matchLabels: {app: db}}}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web, namespace: prod}
spec:
  minAvailable: 50%
  selector: {matchLabels: {app: web}}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: db}
spec:
  maxUnavailable: 1
  selector: {matchLabels: {app: db}}
)",
                               "workloads.yaml");
  ASSERT_TRUE(objects.ok()) << objects.status();
  std::vector<std::string> kinds;
  for (const api::Object& o : *objects) kinds.emplace_back(api::KindOf(o));
  EXPECT_EQ(kinds, (std::vector<std::string>{"Service", "ReplicationController", "ReplicaSet",
                                             "StatefulSet", "PodDisruptionBudget",
                                             "PodDisruptionBudget"}));
  const auto& web = std::get<api::PodDisruptionBudget>(objects->at(4));
  EXPECT_EQ(web.min_available->str_value, "50%");
  const auto& db = std::get<api::PodDisruptionBudget>(objects->at(5));
  EXPECT_FALSE(db.max_unavailable->is_string);
  EXPECT_EQ(db.max_unavailable->int_value, 1);
}

TEST(ParseManifestTest, BadDisruptionBudgetNamesTheField) {
  auto objects = ParseManifest(
      "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: web}\n"
      "spec: {minAvailable: 200%}\n",
      "pdb.yaml");
  ASSERT_FALSE(objects.ok());
  EXPECT_EQ(std::string(objects.status().message()),
            "pdb.yaml: document 1 (PodDisruptionBudget web): spec.minAvailable: Invalid value: "
            "\"200%\": must not be greater than 100%");
}

TEST(ParseManifestTest, YamlSyntaxErrorNamesTheLine) {
  auto objects = ParseManifest("apiVersion: v1\nkind: Pod\nmetadata:\n  name: [oops\n", "bad.yaml");
  ASSERT_FALSE(objects.ok());
  EXPECT_EQ(std::string(objects.status().message()).rfind("bad.yaml: line ", 0), 0u)
      << objects.status();
}

TEST(LoadManifestsTest, UnreadableFile) {
  auto objects = LoadManifests({"/nonexistent/x.yaml"});
  ASSERT_FALSE(objects.ok());
  EXPECT_EQ(std::string(objects.status().message()),
            "open /nonexistent/x.yaml: no such file or directory");
}

TEST(AdmitPrioritiesTest, SetsPriorityAsTheAdmissionPluginDoes) {
  auto objects = ParseManifest(R"(apiVersion: v1
kind: List
items:
- {apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: high}, value: 1000, preemptionPolicy: Never}
- {apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: d1}, value: 7, globalDefault: true}
- {apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: d2}, value: 5, globalDefault: true}
- {apiVersion: v1, kind: Pod, metadata: {name: classed}, spec: {priorityClassName: high, containers: [{name: c, image: registry.k8s.io/pause:3.10}]}}
- {apiVersion: v1, kind: Pod, metadata: {name: plain}, spec: {containers: [{name: c, image: registry.k8s.io/pause:3.10}]}}
- {apiVersion: v1, kind: Pod, metadata: {name: node-critical}, spec: {priorityClassName: system-node-critical, containers: [{name: c, image: registry.k8s.io/pause:3.10}]}}
- {apiVersion: v1, kind: Pod, metadata: {name: exported}, spec: {priorityClassName: high, priority: 3, containers: [{name: c, image: registry.k8s.io/pause:3.10}]}}
)",
                               "p.yaml");
  ASSERT_TRUE(objects.ok()) << objects.status();
  ASSERT_TRUE(AdmitPriorities(&*objects).ok());
  auto pod = [&](size_t i) { return std::get<api::Pod>(objects->at(i)).spec; };
  EXPECT_EQ(pod(3).priority, 1000);
  EXPECT_EQ(pod(3).preemption_policy, "Never");
  // Several global defaults (a race upstream tolerates): the lowest wins.
  EXPECT_EQ(pod(4).priority, 5);
  EXPECT_EQ(pod(4).priority_class_name, "d2");
  EXPECT_EQ(pod(4).preemption_policy, "PreemptLowerPriority");
  EXPECT_EQ(pod(5).priority, 2000001000);
  EXPECT_EQ(pod(6).priority, 3);  // Already admitted elsewhere: kept.
}

TEST(AdmitPrioritiesTest, UnknownClassIsTheApiServersError) {
  auto objects = ParseManifest(
      "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec: {priorityClassName: gold, "
      "containers: [{name: c, image: registry.k8s.io/pause:3.10}]}\n",
      "p.yaml");
  ASSERT_TRUE(objects.ok()) << objects.status();
  EXPECT_EQ(AdmitPriorities(&*objects).message(),
            "pods \"web\" is forbidden: no PriorityClass with name gold was found");
}

TEST(AdmitPrioritiesTest, PodGroupsGetTheirClassesPriority) {
  auto objects = ParseManifest(R"(apiVersion: v1
kind: List
items:
- {apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: high}, value: 1000}
- {apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: d}, value: 7, globalDefault: true}
- {apiVersion: scheduling.k8s.io/v1beta1, kind: PodGroup, metadata: {name: classed}, spec: {priorityClassName: high, schedulingPolicy: {gang: {minCount: 2}}}}
- {apiVersion: scheduling.k8s.io/v1beta1, kind: PodGroup, metadata: {name: plain}, spec: {schedulingPolicy: {basic: {}}}}
)",
                               "g.yaml");
  ASSERT_TRUE(objects.ok()) << objects.status();
  ASSERT_TRUE(AdmitPriorities(&*objects).ok());
  auto group = [&](size_t i) { return std::get<api::PodGroup>(objects->at(i)); };
  EXPECT_EQ(group(2).priority, 1000);
  EXPECT_EQ(group(3).priority, 7);
  EXPECT_EQ(group(3).priority_class_name, "d");

  objects = ParseManifest(
      "apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {name: g}\n"
      "spec: {priorityClassName: gold, schedulingPolicy: {basic: {}}}\n",
      "g.yaml");
  ASSERT_TRUE(objects.ok()) << objects.status();
  EXPECT_EQ(AdmitPriorities(&*objects).message(),
            "podgroups.scheduling.k8s.io \"g\" is forbidden: no PriorityClass with name gold was "
            "found");
}

// The pod of a one-pod manifest, admitted as the API server admits it.
absl::StatusOr<api::Pod> Admitted(const std::string& manifest) {
  auto objects = ParseManifest(manifest, "p.yaml");
  if (!objects.ok()) return objects.status();
  api::Pod pod = std::get<api::Pod>(objects->at(0));
  if (absl::Status st = AdmitPod(pod); !st.ok()) return st;
  return pod;
}

TEST(AdmitPodTest, AnExtendedResourceNeedsAnEqualLimitAsTheApiServerSays) {
  absl::StatusOr<api::Pod> pod = Admitted(
      "apiVersion: v1\nkind: Pod\nmetadata: {name: train}\nspec:\n"
      "  containers: [{name: c, image: registry.k8s.io/pause:3.10, resources: {requests: "
      "{example.com/gpu: '1'}}}]\n");
  EXPECT_EQ(pod.status().message(),
            "Pod \"train\" is invalid: spec.containers[0].resources.limits: Required value: Limit "
            "must be set for non overcommitable resources");
  pod = Admitted(
      "apiVersion: v1\nkind: Pod\nmetadata: {name: train}\nspec:\n"
      "  containers: [{name: c, image: registry.k8s.io/pause:3.10, resources: {requests: "
      "{example.com/gpu: '1'}, limits: "
      "{example.com/gpu: '2'}}}]\n");
  EXPECT_EQ(pod.status().message(),
            "Pod \"train\" is invalid: spec.containers[0].resources.requests: Invalid value: "
            "\"1\": must be equal to example.com/gpu limit of 2");
}

TEST(MergeMatchLabelKeysTest, LabelKeysBecomeSelectorRequirementsAsTheApiServerMakesThem) {
  auto objects = ParseManifest(R"(
apiVersion: v1
kind: Pod
metadata: {name: web-7, labels: {app: web, pod-template-hash: abc, tenant: t1}}
spec:
  containers: [{name: c, image: registry.k8s.io/pause:3.10}]
  affinity:
    podAntiAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
      - labelSelector: {matchLabels: {app: web}}
        matchLabelKeys: [pod-template-hash, absent]
        mismatchLabelKeys: [tenant]
        topologyKey: kubernetes.io/hostname
    podAffinity:
      preferredDuringSchedulingIgnoredDuringExecution:
      - weight: 1
        podAffinityTerm: {matchLabelKeys: [app], topologyKey: zone}
  topologySpreadConstraints:
  - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule,
     labelSelector: {matchLabels: {app: web}}, matchLabelKeys: [pod-template-hash]}
)",
                               "web.yaml");
  ASSERT_TRUE(objects.ok()) << objects.status();
  api::Pod pod = std::get<api::Pod>(objects->at(0));
  MergeMatchLabelKeys(&pod);
  const auto& anti =
      pod.spec.affinity->pod_anti_affinity->required_during_scheduling_ignored_during_execution[0]
          .label_selector->match_expressions;
  ASSERT_EQ(anti.size(), 2u);
  EXPECT_EQ(anti[0].key, "pod-template-hash");
  EXPECT_EQ(anti[0].op, "In");
  EXPECT_EQ(anti[0].values, std::vector<std::string>{"abc"});
  EXPECT_EQ(anti[1].key, "tenant");
  EXPECT_EQ(anti[1].op, "NotIn");
  // Without a labelSelector the term selects nothing, and stays so.
  EXPECT_FALSE(
      pod.spec.affinity->pod_affinity->preferred_during_scheduling_ignored_during_execution[0]
          .pod_affinity_term.label_selector.has_value());
  const auto& spread = pod.spec.topology_spread_constraints[0].label_selector->match_expressions;
  ASSERT_EQ(spread.size(), 1u);
  EXPECT_EQ(spread[0].values, std::vector<std::string>{"abc"});
}

}  // namespace
}  // namespace ksched::sim
