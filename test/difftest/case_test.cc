#include "test/difftest/case.h"

#include <gtest/gtest.h>

namespace ksched::difftest {
namespace {

using nlohmann::json;

const std::vector<std::string> kUpstream = {"NodeResourcesFit", "TaintToleration"};

json Pod(const std::string& name, json spec = json::object()) {
  if (!spec.contains("containers")) spec["containers"] = {{{"name", "c"}}};
  return {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", {{"name", name}}}, {"spec", spec}};
}

TEST(CaseTest, WithBurstIdenticalPendingPodsInARowAreGivenTogether) {
  const json big = {{"containers", {{{"name", "c"}, {"image", "big"}}}}};
  json scenario;
  scenario["cluster"] =
      json::array({Pod("a"), Pod("a-1"), Pod("a-2"), Pod("b", big), Pod("b-1", big), Pod("c")});
  absl::StatusOr<Case> c = MakeCase("alone", scenario, kUpstream);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->first, (std::vector<size_t>{0, 1, 2, 3, 4, 5}));  // One at a time by default.
  scenario["burst"] = true;
  c = MakeCase("bursts", scenario, kUpstream);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->first, (std::vector<size_t>{0, 0, 0, 3, 3, 5}));
}

// A group's pods in a row are given together, burst or not; its PodGroup is kept apart, for the
// harness to create once they are given.
TEST(CaseTest, APodGroupsPodsInARowAreGivenTogetherAndItsPodGroupApart) {
  auto member = [](const std::string& name, const std::string& group) {
    return Pod(name, {{"schedulingGroup", {{"podGroupName", group}}}});
  };
  const json group = {{"apiVersion", "scheduling.k8s.io/v1beta1"},
                      {"kind", "PodGroup"},
                      {"metadata", {{"name", "train"}}},
                      {"spec", {{"schedulingPolicy", {{"gang", {{"minCount", 2}}}}}}}};
  json scenario;
  scenario["cluster"] = json::array({group, member("t-0", "train"), member("t-1", "train"),
                                     Pod("x"), member("w-0", "web"), member("t-2", "train")});
  absl::StatusOr<Case> c = MakeCase("gangs", scenario, kUpstream);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->incomparable, "");
  EXPECT_EQ(c->first, (std::vector<size_t>{0, 0, 2, 3, 4}));
  EXPECT_EQ(GivenEnd(*c, 1), 2u);
  EXPECT_EQ(GivenEnd(*c, 4), 5u);
  ASSERT_EQ(c->pod_groups.size(), 1u);
  EXPECT_EQ(KeyOf(c->pod_groups[0]), "default/train");
  EXPECT_EQ(c->pod_groups[0]["metadata"]["namespace"], "default");
  EXPECT_EQ(PodGroupOf(c->pending[4]), "default/train");
  EXPECT_EQ(PodGroupOf(c->pending[2]), "");
  for (const json& o : c->setup) EXPECT_NE(o["kind"], "PodGroup");

  // A PodGroup of running pods is set up before them.
  json running = member("r-0", "train");
  running["spec"]["nodeName"] = "n";
  scenario["cluster"].push_back(running);
  c = MakeCase("gangs", scenario, kUpstream);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_TRUE(c->pod_groups.empty());
  ASSERT_EQ(c->setup.size(), 2u);
  EXPECT_EQ(c->setup[0]["kind"], "PodGroup");
  EXPECT_EQ(KeyOf(c->setup[1]), "default/r-0");
}

TEST(CaseTest, PendingPodsComeInQueueOrderAndTheRestIsSetUpFirst) {
  json cls = {{"apiVersion", "scheduling.k8s.io/v1"},
              {"kind", "PriorityClass"},
              {"metadata", {{"name", "high"}}},
              {"value", 100}};
  json node = {{"apiVersion", "v1"}, {"kind", "Node"}, {"metadata", {{"name", "n1"}}}};
  json scenario;
  scenario["cluster"] =
      json::array({Pod("low"), cls, Pod("high", {{"priorityClassName", "high"}}),
                   Pod("critical", {{"priorityClassName", "system-node-critical"}}),
                   Pod("also-low"), Pod("running", {{"nodeName", "n1"}}), node});
  absl::StatusOr<Case> c = MakeCase("order", scenario, kUpstream);
  ASSERT_TRUE(c.ok()) << c.status();
  std::vector<std::string> pending, setup;
  for (const json& p : c->pending) pending.push_back(KeyOf(p));
  for (const json& o : c->setup) setup.push_back(o["kind"].get<std::string>() + " " + KeyOf(o));
  EXPECT_EQ(pending, (std::vector<std::string>{"default/critical", "default/high", "default/low",
                                               "default/also-low"}));
  EXPECT_EQ(setup, (std::vector<std::string>{"PriorityClass default/high", "Node default/n1",
                                             "Pod default/running"}));
  EXPECT_TRUE(c->adaptations.empty());
  EXPECT_EQ(c->incomparable, "");
}

TEST(CaseTest, AdmissionAdaptationsAreMadeAndRecorded) {
  json gpu_container = {{"name", "c"},
                        {"resources", {{"requests", {{"example.com/gpu", "1"}, {"cpu", "1"}}}}}};
  json scenario;
  scenario["cluster"] =
      json::array({Pod("urgent", {{"priority", 30}}),
                   Pod("gpu", {{"containers", json::array({gpu_container})}}), Pod("in-team")});
  scenario["cluster"][2]["metadata"]["namespace"] = "team";
  absl::StatusOr<Case> c = MakeCase("admission", scenario, kUpstream);
  ASSERT_TRUE(c.ok()) << c.status();
  // spec.priority became a class the setup creates, which also orders the queue.
  EXPECT_EQ(c->pending[0]["spec"]["priorityClassName"], "difftest-priority-30");
  EXPECT_FALSE(c->pending[0]["spec"].contains("priority"));
  EXPECT_EQ(c->pending[1]["spec"]["containers"][0]["resources"]["limits"],
            json({{"example.com/gpu", "1"}}));
  EXPECT_EQ(c->pending[1]["spec"]["containers"][0]["image"], "registry.k8s.io/pause:3.10");
  bool made_class = false, made_namespace = false;
  for (const json& o : c->setup) {
    made_class |= o["kind"] == "PriorityClass" && o["value"] == 30;
    made_namespace |= o["kind"] == "Namespace" && o["metadata"]["name"] == "team";
  }
  EXPECT_TRUE(made_class);
  EXPECT_TRUE(made_namespace);
  ASSERT_EQ(c->adaptations.size(), 2u);
  EXPECT_EQ(c->adaptations[0],
            "default/urgent: spec.priority 30 became PriorityClass difftest-priority-30");
  EXPECT_EQ(c->adaptations[1],
            "default/gpu: container c got limit example.com/gpu=\"1\" (required for an extended "
            "resource)");
}

TEST(CaseTest, AConfigWithAPluginKubeSchedulerLacksIsNotComparable) {
  json scenario;
  scenario["config"]["profiles"][0]["schedulerName"] = "mine";
  scenario["config"]["profiles"][0]["plugins"]["multiPoint"]["enabled"][0]["name"] = "NetworkAware";
  scenario["cluster"] = json::array();
  absl::StatusOr<Case> c = MakeCase("guide", scenario, kUpstream);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->incomparable, "its config names plugin NetworkAware, which kube-scheduler lacks");

  json config = ConfigFor(*c, "up-", "/kc");
  EXPECT_EQ(config["profiles"][0]["schedulerName"], "up-mine");
  EXPECT_EQ(config["leaderElection"]["leaderElect"], false);
  EXPECT_EQ(config["clientConnection"]["kubeconfig"], "/kc");
}

TEST(CaseTest, AnUnknownKindIsAnErrorThatNamesIt) {
  json scenario;
  scenario["cluster"][0] = {{"apiVersion", "apps/v1"}, {"kind", "Deployment"}};
  absl::StatusOr<Case> c = MakeCase("deploy", scenario, kUpstream);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().message(),
            "deploy: cluster[0]: kind \"Deployment\" is not used by the differential test");
}

TEST(CaseTest, ACaseWithObjectsTheHarnessDoesNotCreateIsNotComparable) {
  json scenario;
  scenario["cluster"][0] = {{"apiVersion", "v1"}, {"kind", "Service"}};
  absl::StatusOr<Case> c = MakeCase("svc", scenario, kUpstream);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->incomparable, "it has a Service, which the harness does not create yet");
}

// Storage objects are created after the nodes and before the running pods that use them, each
// kind after those it names; a claim being deleted is made, then deleted.
TEST(CaseTest, StorageIsSetUpAfterTheNodesInTheOrderItsReferencesNeed) {
  json scenario = json::parse(R"({"cluster": [
    {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "data"},
     "spec": {"storageClassName": "local"}},
    {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
     "metadata": {"name": "going", "deletionTimestamp": "2026-11-26T10:00:00Z"}, "spec": {}},
    {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "pv-1"}, "spec": {}},
    {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "db"},
     "spec": {"nodeName": "n1", "containers": [{"name": "c"}]}},
    {"apiVersion": "storage.k8s.io/v1", "kind": "CSINode", "metadata": {"name": "n1"}},
    {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}},
    {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "local"},
     "provisioner": "kubernetes.io/no-provisioner"}]})");
  absl::StatusOr<Case> c = MakeCase("storage", scenario, kUpstream);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->incomparable, "");
  std::vector<std::string> setup;
  for (const json& o : c->setup) setup.push_back(o["kind"].get<std::string>() + " " + KeyOf(o));
  EXPECT_EQ(setup, (std::vector<std::string>{
                       "Node default/n1", "StorageClass default/local", "CSINode default/n1",
                       "PersistentVolume default/pv-1", "PersistentVolumeClaim default/data",
                       "PersistentVolumeClaim default/going", "Pod default/db"}));
  EXPECT_EQ(c->adaptations,
            (std::vector<std::string>{"PersistentVolumeClaim default/going: created with a "
                                      "finalizer, then deleted (it has a deletionTimestamp)"}));
}

// The rig runs no disruption controller: a budget gets the status it would write, over the pods
// on nodes (two of app=etl, minAvailable 1: one may go).
TEST(CaseTest, ABudgetGetsTheStatusTheDisruptionControllerWouldWrite) {
  json scenario = json::parse(R"({"cluster": [
    {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "etl"},
     "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "etl"}}}},
    {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "etl-0", "labels": {"app": "etl"}},
     "spec": {"nodeName": "n1", "containers": [{"name": "c"}]}},
    {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "etl-1", "labels": {"app": "etl"}},
     "spec": {"nodeName": "n1", "containers": [{"name": "c"}]}},
    {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "etl-2", "labels": {"app": "etl"}},
     "spec": {"containers": [{"name": "c"}]}}]})");
  absl::StatusOr<Case> c = MakeCase("pdb", scenario, kUpstream);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->incomparable, "");
  const json* budget = nullptr;
  for (const json& o : c->setup) {
    if (o["kind"] == "PodDisruptionBudget") budget = &o;
  }
  ASSERT_NE(budget, nullptr);
  EXPECT_EQ((*budget)["metadata"]["namespace"], "default");
  EXPECT_EQ((*budget)["status"]["disruptionsAllowed"], 1);
  EXPECT_EQ((*budget)["status"]["currentHealthy"], 2);
  EXPECT_EQ((*budget)["status"]["expectedPods"], 2);
}

}  // namespace
}  // namespace ksched::difftest
