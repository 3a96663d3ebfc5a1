#include "src/sim/simulate.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>

#include "nlohmann/json.hpp"
#include "src/plugins/registry.h"
#include "src/sim/manifests.h"
#include "src/sim/simulate_testing.h"
#include "src/testing/files.h"

namespace ksched::sim {
namespace {

constexpr char kCluster[] = R"(
apiVersion: v1
kind: Node
metadata: {name: node-a}
status: {allocatable: {cpu: "2", memory: 4Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: node-b}
spec: {taints: [{key: k, effect: NoSchedule}]}
status: {allocatable: {cpu: "8", memory: 4Gi, pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: web-1}
spec: {containers: [{name: c, image: registry.k8s.io/pause:3.10, resources: {requests: {cpu: "1"}}}]}
---
apiVersion: v1
kind: Pod
metadata: {name: big}
spec: {containers: [{name: c, image: registry.k8s.io/pause:3.10, resources: {requests: {cpu: "4"}}}]}
---
apiVersion: v1
kind: Pod
metadata: {name: g}
spec: {schedulingGates: [{name: example.com/gate}], containers: [{name: c, image: registry.k8s.io/pause:3.10}]}
---
apiVersion: v1
kind: Pod
metadata: {name: running}
spec: {nodeName: node-a, containers: [{name: c, image: registry.k8s.io/pause:3.10}]}
)";

std::map<std::string, std::string> NodesOf(const SimulationResult& r) {
  std::map<std::string, std::string> out;
  for (const PodOutcome& o : r.pods) out[o.name] = o.node.value_or(o.status);
  for (const EvictedPod& e : r.evicted) out[e.name] = "evicted from " + e.node;
  return out;
}

// examples/one-at-a-time/cluster.yaml, from make difftest's seed 70016: given one at a time,
// web is tried again once cache's preemption has evicted db, and late goes to node-3; in one
// queue, late is tried while web waits out its backoff, and web then preempts it.
TEST(SimulateTest, OneAtATimeGivesEachPodOnceTheOneBeforeIsDecided) {
  using Nodes = std::map<std::string, std::string>;
  auto simulate = [](const SimulationOptions& options) {
    auto objects = LoadManifests({testing::SourcePath("examples/one-at-a-time/cluster.yaml")});
    EXPECT_TRUE(objects.ok()) << objects.status();
    auto result = Simulate(std::move(*objects), plugins::NewInTreeRegistry(), options);
    EXPECT_TRUE(result.ok()) << result.status();
    return NodesOf(*result);
  };
  EXPECT_EQ(simulate({.one_at_a_time = true}), (Nodes{{"cache", "node-3"},
                                                      {"db", "evicted from node-3"},
                                                      {"late", "node-3"},
                                                      {"web", "node-1"}}));
  EXPECT_EQ(simulate({}), (Nodes{{"cache", "node-3"},
                                 {"db", "evicted from node-3"},
                                 {"late", "evicted from node-1"},
                                 {"web", "node-1"}}));
}

// Every pod read is reported once: late, placed and then preempted, stays in the pods list with
// the pod that preempted it, as well as among the evicted.
TEST(SimulateTest, APreemptedPodStaysInThePodsListWithItsPreemptor) {
  auto objects = LoadManifests({testing::SourcePath("examples/one-at-a-time/cluster.yaml")});
  ASSERT_TRUE(objects.ok()) << objects.status();
  auto result = Simulate(std::move(*objects), plugins::NewInTreeRegistry(), {});
  ASSERT_TRUE(result.ok()) << result.status();
  std::vector<std::string> names;
  for (const PodOutcome& o : result->pods) names.push_back(o.name);
  EXPECT_EQ(names, (std::vector<std::string>{"late", "web", "cache"}));  // Input order.
  const PodOutcome& late = result->pods[0];
  EXPECT_EQ(late.status, "Preempted");
  EXPECT_EQ(late.node, std::nullopt);
  EXPECT_EQ(late.message, "preempted by default/web on node node-1");
  ASSERT_EQ(result->evicted.size(), 2u);
  EXPECT_EQ(result->evicted[1].preemptor, "default/web");
  EXPECT_THAT(
      FormatTable(*result, false),
      ::testing::HasSubstr("evicted: default/late from node-1 (preempted by default/web)\n"));
  const nlohmann::json json = nlohmann::json::parse(FormatJson(*result, false));
  EXPECT_EQ(json["pods"][0], nlohmann::json::parse(R"({"namespace": "default", "name": "late",
      "node": null, "status": "Preempted", "message": "preempted by default/web on node node-1"})"));
  EXPECT_EQ(json["evicted"][1], nlohmann::json::parse(R"({"namespace": "default", "name": "late",
      "node": "node-1", "preemptor": "default/web"})"));
}

// A pod whose schedulerName no profile serves is reported, not dropped: no scheduler here would
// place it, and the table says which profiles there are.
TEST(SimulateTest, APodForAnotherSchedulerIsNotOursAndSaysWhichProfilesThereAre) {
  config::Configuration cfg = config::DefaultConfiguration();
  cfg.profiles[0].scheduler_name = "ksched";
  SimulationResult r = SimulateYaml(R"(apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: theirs}
spec: {containers: [{name: c, image: registry.k8s.io/pause:3.10}]}
---
apiVersion: v1
kind: Pod
metadata: {name: ours}
spec: {schedulerName: ksched, containers: [{name: c, image: registry.k8s.io/pause:3.10}]}
)",
                                    {.config = cfg});
  ASSERT_EQ(r.pods.size(), 2u);
  EXPECT_EQ(r.pods[0].name, "theirs");
  EXPECT_EQ(r.pods[0].status, "NotOurs");
  EXPECT_EQ(r.pods[0].message,
            "no profile serves schedulerName \"default-scheduler\" (profiles: \"ksched\")");
  EXPECT_EQ(r.pods[1].status, "Scheduled");
}

// examples/volumes/cluster.yaml: VolumeBinding provisions db-0's volume in the zone it chose (a
// or b, where the class allows), and the pod that shares the claim follows it there; the local PV
// brings its pod to node-c; a missing claim keeps its pod pending with upstream's message.
TEST(SimulateTest, VolumesAreBoundOrProvisionedWhereThePodGoes) {
  auto objects = LoadManifests({testing::SourcePath("examples/volumes/cluster.yaml")});
  ASSERT_TRUE(objects.ok()) << objects.status();
  auto result = Simulate(std::move(*objects), plugins::NewInTreeRegistry(), {});
  ASSERT_TRUE(result.ok()) << result.status();
  std::map<std::string, std::string> nodes = NodesOf(*result);
  EXPECT_TRUE(nodes["db-0"] == "node-a" || nodes["db-0"] == "node-b") << nodes["db-0"];
  EXPECT_EQ(nodes["backup"], nodes["db-0"]);
  EXPECT_EQ(nodes["cache"], "node-c");
  EXPECT_EQ(nodes["orphan"], "Unschedulable");
  for (const PodOutcome& p : result->pods) {
    EXPECT_NE(p.status, "SchedulerError") << p.name << ": " << p.message;
    if (p.name != "orphan") continue;
    EXPECT_EQ(p.message,
              "0/3 nodes are available: persistentvolumeclaim \"nobody-made-me\" not found. not "
              "found");
  }
}

TEST(SimulateTest, JsonSchemaListsPendingPodsInInputOrder) {
  SimulationResult r = SimulateYaml(kCluster);
  nlohmann::json j = nlohmann::json::parse(FormatJson(r, false));
  nlohmann::json want = nlohmann::json::parse(R"({"pods":[
    {"namespace":"default","name":"web-1","node":"node-a","status":"Scheduled"},
    {"namespace":"default","name":"big","node":null,"status":"Unschedulable",
     "message":"0/2 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint(s). preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling."},
    {"namespace":"default","name":"g","node":null,"status":"SchedulingGated",
     "message":"Scheduling is blocked due to non-empty scheduling gates"}],
    "evicted":[]})");
  EXPECT_EQ(j, want) << j.dump(2);
}

TEST(SimulateTest, APendingPodsNominatedNodeIsInTheJsonAndTheExplanation) {
  SimulationResult r;
  r.pods.push_back({.namespace_ = "default",
                    .name = "urgent",
                    .status = "Unschedulable",
                    .message = "0/1 nodes are available: 1 Insufficient cpu.",
                    .nominated_node = "node-0",
                    .last_cycle = Explanation{}});
  nlohmann::json j = nlohmann::json::parse(FormatJson(r, false));
  EXPECT_EQ(j["pods"][0]["nominatedNode"], "node-0") << j.dump();
  EXPECT_NE(FormatTable(r, true).find("default/urgent: Unschedulable, nominated to node-0\n"),
            std::string::npos)
      << FormatTable(r, true);
  r.pods[0].nominated_node.clear();
  EXPECT_FALSE(nlohmann::json::parse(FormatJson(r, false))["pods"][0].contains("nominatedNode"));
}

TEST(SimulateTest, ExplainGivesEveryNodesVerdictAndScores) {
  SimulationResult r = SimulateYaml(kCluster, {.explain = true});
  nlohmann::json j = nlohmann::json::parse(FormatJson(r, true));
  const nlohmann::json& big = j["pods"][1];
  EXPECT_EQ(big["filter"]["node-a"], "NodeResourcesFit: Insufficient cpu");
  EXPECT_EQ(big["filter"]["node-b"], "TaintToleration: node(s) had untolerated taint(s)");
  EXPECT_TRUE(big["scores"].empty());
  const nlohmann::json& web = j["pods"][0];
  EXPECT_EQ(web["filter"]["node-a"], "passed");
  // One feasible node: kube-scheduler skips scoring, and so do we.
  EXPECT_TRUE(web["scores"].empty());
}

TEST(SimulateTest, ExplainScoresAddUpToTheTotal) {
  SimulationResult r = SimulateYaml(R"(
apiVersion: v1
kind: Node
metadata: {name: a}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: b}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: p}
spec: {containers: [{name: c, image: registry.k8s.io/pause:3.10, resources: {requests: {cpu: "1", memory: 1Gi}}}]}
)",
                                    {.explain = true});
  nlohmann::json j = nlohmann::json::parse(FormatJson(r, true));
  const nlohmann::json& scores = j["pods"][0]["scores"];
  ASSERT_EQ(scores.size(), 2u);
  for (const auto& [node, s] : scores.items()) {
    int64_t sum = 0;
    for (const auto& [plugin, v] : s.items()) {
      if (plugin != "total") sum += v.get<int64_t>();
    }
    EXPECT_EQ(sum, s["total"].get<int64_t>()) << node;
    EXPECT_TRUE(s.contains("NodeResourcesFit"));
    EXPECT_TRUE(s.contains("TaintToleration"));
  }
}

// Two nodes of 2 CPUs, and a gang of three pods of 1 CPU whose minCount is 3 (kGang plus one of
// its pods: whole), or whose pods need 2 CPUs (too big: two fit, the third does not).
constexpr char kGang[] = R"(
apiVersion: v1
kind: Node
metadata: {name: a}
status: {allocatable: {cpu: "2", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: b}
status: {allocatable: {cpu: "2", memory: 8Gi, pods: "110"}}
---
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: train}
spec: {schedulingPolicy: {gang: {minCount: 3}}}
)";

std::string GangPod(const std::string& name, const std::string& cpu) {
  return "---\napiVersion: v1\nkind: Pod\nmetadata: {name: " + name +
         "}\nspec: {schedulingGroup: {podGroupName: train}, containers: [{name: c, image: "
         "registry.k8s.io/pause:3.10, resources: {requests: {cpu: \"" +
         cpu + "\"}}}]}\n";
}

// A pod group cycle explains each pod as a pod's own cycle does: the filters' verdicts, and the
// scores of the pods that were scored, each on the nodes as the pods before it left them.
TEST(SimulateTest, ExplainShowsEachPodOfAGangAsItsGroupCycleTriedIt) {
  SimulationResult r = SimulateYaml(
      std::string(kGang) + GangPod("t-0", "1") + GangPod("t-1", "1") + GangPod("t-2", "1"),
      {.explain = true, .generic_workload = true});
  nlohmann::json j = nlohmann::json::parse(FormatJson(r, true));
  ASSERT_EQ(j["pods"].size(), 3u);
  for (const nlohmann::json& pod : j["pods"]) {
    EXPECT_EQ(pod["status"], "Scheduled") << pod.dump();
    EXPECT_EQ(pod["filter"]["a"], "passed") << pod.dump();
    EXPECT_EQ(pod["scores"].size(), 2u) << pod.dump();
    EXPECT_EQ(pod["podGroup"], "default/train") << pod.dump();
    EXPECT_EQ(pod["groupCycle"], nlohmann::json({{"reason", "Scheduled"}})) << pod.dump();
  }
  // t-0 took a (the tie broken by the seed) or b; t-1 then scores the other node higher.
  const std::string first = j["pods"][0]["node"];
  EXPECT_GT(j["pods"][1]["scores"][first == "a" ? "b" : "a"]["NodeResourcesFit"].get<int>(),
            j["pods"][1]["scores"][first]["NodeResourcesFit"].get<int>());

  r = SimulateYaml(
      std::string(kGang) + GangPod("t-0", "2") + GangPod("t-1", "2") + GangPod("t-2", "2"),
      {.explain = true, .generic_workload = true});
  j = nlohmann::json::parse(FormatJson(r, true));
  ASSERT_EQ(j["pods"].size(), 3u);
  // The two that fitted say so in their verdicts, though the group was not placed.
  EXPECT_EQ(j["pods"][0]["status"], "Unschedulable");
  EXPECT_THAT(j["pods"][0]["message"].get<std::string>(),
              ::testing::StartsWith("pod group is unschedulable, minCount (3) cannot be "
                                    "satisfied: 2 scheduled, 0 remaining"));
  EXPECT_EQ(j["pods"][0]["filter"].size(), 2u);
  EXPECT_EQ(j["pods"][2]["message"], "0/2 nodes are available: 2 Insufficient cpu.");
  EXPECT_EQ(j["pods"][2]["filter"]["a"], "NodeResourcesFit: Insufficient cpu");
  // Each says what the cycle decided for the group, and the table spells it out.
  for (const nlohmann::json& pod : j["pods"]) {
    EXPECT_EQ(pod["groupCycle"]["reason"], "Unschedulable") << pod.dump();
    EXPECT_THAT(
        pod["groupCycle"]["message"].get<std::string>(),
        ::testing::StartsWith("minCount (3) cannot be satisfied: 2 scheduled, 0 remaining"));
  }
  EXPECT_THAT(FormatTable(r, true),
              ::testing::HasSubstr("\ndefault/t-2: Unschedulable\n  group default/train: "
                                   "Unschedulable: minCount (3) cannot be satisfied: 2 scheduled, "
                                   "0 remaining"));
}

// upstream's WorkloadAwarePreemption e2e tests' cluster: the gang victim (priority 100) fills node
// n1 with its two pods, and hp1, the one pod of the gang pre (priority 1000), can only go there.
std::string PreemptionCase(const std::string& disruption_mode, const std::string& pre_cpu = "1") {
  return R"(
apiVersion: v1
kind: List
items:
- {apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: low}, value: 100}
- {apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: high}, value: 1000}
- {apiVersion: v1, kind: Node, metadata: {name: n1, labels: {kubernetes.io/hostname: n1}}, status: {allocatable: {cpu: "2", memory: 4Gi, pods: "10"}}}
- {apiVersion: v1, kind: Node, metadata: {name: n2, labels: {kubernetes.io/hostname: n2}}, status: {allocatable: {cpu: "1", memory: 4Gi, pods: "10"}}}
- {apiVersion: scheduling.k8s.io/v1beta1, kind: PodGroup, metadata: {name: victim}, spec: {priorityClassName: low, schedulingPolicy: {gang: {minCount: 2}}, disruptionMode: {)" +
         disruption_mode + R"(: {}}}}
- {apiVersion: v1, kind: Pod, metadata: {name: v1}, spec: {nodeName: n1, priorityClassName: low, schedulingGroup: {podGroupName: victim}, containers: [{name: c, image: i, resources: {requests: {cpu: "1"}}}]}, status: {startTime: "2026-01-01T00:00:00Z"}}
- {apiVersion: v1, kind: Pod, metadata: {name: v2}, spec: {nodeName: n1, priorityClassName: low, schedulingGroup: {podGroupName: victim}, containers: [{name: c, image: i, resources: {requests: {cpu: "1"}}}]}, status: {startTime: "2026-01-01T00:00:01Z"}}
- {apiVersion: scheduling.k8s.io/v1beta1, kind: PodGroup, metadata: {name: pre}, spec: {priorityClassName: high, schedulingPolicy: {gang: {minCount: 1}}}}
- {apiVersion: v1, kind: Pod, metadata: {name: hp1}, spec: {priorityClassName: high, nodeSelector: {kubernetes.io/hostname: n1}, schedulingGroup: {podGroupName: pre}, containers: [{name: c, image: i, resources: {requests: {cpu: ")" +
         pre_cpu + R"("}}}]}}
)";
}

// The manifest's objects with their priorities, as `ksched simulate` admits them.
SimulationResult SimulateAdmitted(const std::string& yaml, const SimulationOptions& options) {
  absl::StatusOr<std::vector<api::Object>> objects = ParseManifest(yaml, "test.yaml");
  EXPECT_TRUE(objects.ok()) << objects.status();
  if (!objects.ok()) return {};
  EXPECT_TRUE(AdmitPriorities(&*objects).ok());
  return SimulateObjects(*std::move(objects), options);
}

// A gang preempts for its pods as upstream's PodGroupPostFilter: a PodGroup disrupted as a whole
// goes whole; one of disruptionMode single loses only what the gang needs, the pod that started
// last. The victims' events name the PodGroup.
TEST(SimulateTest, AGangPreemptsLowerPriorityPodGroupsWholeOrPodByPod) {
  std::map<std::string, std::string> all =
      NodesOf(SimulateAdmitted(PreemptionCase("all"), {.generic_workload = true}));
  EXPECT_EQ(all, (std::map<std::string, std::string>{
                     {"hp1", "n1"}, {"v1", "evicted from n1"}, {"v2", "evicted from n1"}}));
  SimulationResult single = SimulateAdmitted(PreemptionCase("single"), {.generic_workload = true});
  EXPECT_EQ(NodesOf(single),
            (std::map<std::string, std::string>{{"hp1", "n1"}, {"v2", "evicted from n1"}}));
  ASSERT_EQ(single.evicted.size(), 1u);
  EXPECT_EQ(single.evicted[0].preemptor, "podgroup default/pre");
}

// With PodGroupPreemptionPolicy, the group's preemptionPolicy decides whether it preempts, and
// its pods must share it; without, a pod's Never stops the group from preempting.
TEST(SimulateTest, APodGroupsOwnPreemptionPolicyDecidesWithItsGate) {
  // hp1 says Never; the group pre says nothing (PreemptLowerPriority), or Never too.
  std::string pod_never = PreemptionCase("all");
  pod_never.insert(pod_never.find("nodeSelector", pod_never.find("{name: hp1}")),
                   "preemptionPolicy: Never, ");
  std::string both_never = pod_never;
  const size_t pre = both_never.find("{name: pre}, spec: {");
  both_never.insert(both_never.find("spec: {", pre) + 7, "preemptionPolicy: Never, ");
  const SimulationOptions gated = {.generic_workload = true, .pod_group_preemption_policy = true};
  // The pod says why it does not fit; its group's cycle, why it did not preempt.
  for (const auto& [yaml, gate] : {std::pair{both_never, true}, std::pair{pod_never, false}}) {
    SimulationResult r = SimulateAdmitted(
        yaml, {.explain = true, .generic_workload = true, .pod_group_preemption_policy = gate});
    ASSERT_EQ(r.pods.size(), 1u);
    EXPECT_TRUE(r.evicted.empty());
    ASSERT_TRUE(r.pods[0].last_cycle.has_value());
    EXPECT_THAT(r.pods[0].last_cycle->group_message,
                ::testing::HasSubstr("pod group preemption: not eligible due to "
                                     "preemptionPolicy=Never."));
  }
  SimulationResult mixed = SimulateAdmitted(pod_never, gated);
  ASSERT_EQ(mixed.pods.size(), 1u);
  EXPECT_EQ(mixed.pods[0].status, "SchedulerError");
  EXPECT_EQ(mixed.pods[0].message,
            "all pods in a single pod group should have the same preemption policy as the pod "
            "group's preemption policy, got Never and PreemptLowerPriority");
}

// A pod of no group preempts as upstream's DefaultPreemption with GenericWorkload: a PodGroup
// disrupted as a whole is one victim, of the group's priority, so its pod on the other node goes
// too; one of disruptionMode single loses only the pod in the way; without the gate each pod is its
// own victim.
TEST(SimulateTest, APodPreemptsAPodGroupDisruptedAsAWholeOnEveryNode) {
  auto spread = [](const std::string& mode) {
    std::string yaml = PreemptionCase(mode);
    auto replace = [&](const std::string& from, const std::string& to) {
      yaml.replace(yaml.find(from), from.size(), to);
    };
    // n1 holds one pod, v2 runs on n2, and hp1 is a pod of no group.
    replace(R"(cpu: "2", memory: 4Gi)", R"(cpu: "1", memory: 4Gi)");
    replace("name: v2}, spec: {nodeName: n1", "name: v2}, spec: {nodeName: n2");
    replace(", schedulingGroup: {podGroupName: pre}", "");
    return yaml;
  };
  SimulationResult all = SimulateAdmitted(spread("all"), {.generic_workload = true});
  EXPECT_EQ(NodesOf(all),
            (std::map<std::string, std::string>{
                {"hp1", "n1"}, {"v1", "evicted from n1"}, {"v2", "evicted from n2"}}));
  ASSERT_EQ(all.evicted.size(), 2u);
  EXPECT_EQ(all.evicted[1].preemptor, "default/hp1");
  for (const std::string mode : {"single", "all"}) {
    const bool gate = mode == "single";  // Single with the gate; All without it.
    EXPECT_EQ(NodesOf(SimulateAdmitted(spread(mode), {.generic_workload = gate})),
              (std::map<std::string, std::string>{{"hp1", "n1"}, {"v1", "evicted from n1"}}))
        << mode;
  }
}

// When the gang does not fit even with every lower-priority pod gone, nothing is evicted, and its
// pods say why in upstream's words.
TEST(SimulateTest, AGangThatCannotFitEvenWithoutItsVictimsEvictsNothing) {
  SimulationResult r = SimulateAdmitted(PreemptionCase("all", "3"), {.generic_workload = true});
  EXPECT_TRUE(r.evicted.empty());
  ASSERT_EQ(r.pods.size(), 1u);
  EXPECT_EQ(r.pods[0].name, "hp1");
  EXPECT_EQ(r.pods[0].message,
            "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) didn't match Pod's node "
            "affinity/selector.");
}

// Given one at a time, a group's pods that come one after another are given together, as a
// Job's are created: a gang with more pods than its minCount is tried in one cycle, not with its
// first minCount pods (t-c and t-b, which would take both nodes). Given at the same moment, the
// pods are tried in name order (upstream's last tie-break, after priority, attempts and time).
TEST(SimulateTest, OneAtATimeGivesAGroupsPodsTogether) {
  std::string yaml = kGang;
  yaml.replace(yaml.find("minCount: 3"), 11, "minCount: 2");
  yaml += GangPod("t-c", "2") + GangPod("t-b", "2") + GangPod("t-a", "2");
  std::map<std::string, std::string> nodes =
      NodesOf(SimulateYaml(yaml, {.one_at_a_time = true, .generic_workload = true}));
  EXPECT_EQ(nodes["t-c"], "Unschedulable");
  EXPECT_NE(nodes["t-a"], "Unschedulable");
  EXPECT_NE(nodes["t-b"], "Unschedulable");
}

// As `ksched explain`: nodes grouped by verdict, the largest group first, and scores best first
// (node-c, emptiest, scores best though it comes last).
TEST(SimulateTest, ExplainGroupsNodesByVerdictAndListsScoresBestFirst) {
  SimulationResult r = SimulateYaml(R"(
apiVersion: v1
kind: Node
metadata: {name: node-a}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: node-b}
spec: {unschedulable: true}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: node-c}
status: {allocatable: {cpu: "16", memory: 32Gi, pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: p}
spec: {containers: [{name: c, image: registry.k8s.io/pause:3.10, resources: {requests: {cpu: "2", memory: 2Gi}}}]}
)",
                                    {.explain = true});
  const std::string table = FormatTable(r, true);
  EXPECT_THAT(table, ::testing::HasSubstr("  filter:\n"
                                          "    2 node(s): passed\n"
                                          "      node-a, node-c\n"
                                          "    1 node(s): NodeUnschedulable: node(s) were "
                                          "unschedulable\n"
                                          "      node-b\n"
                                          "  scores (weighted, best first):\n"
                                          "    node-c"));
  nlohmann::ordered_json j = nlohmann::ordered_json::parse(FormatJson(r, true));
  EXPECT_EQ(j["pods"][0]["scores"].begin().key(), "node-c");
}

// A pod whose nominated node fits is filtered on that node alone, as upstream does; the other
// nodes say so rather than blame percentageOfNodesToScore.
TEST(SimulateTest, ExplainSaysTheOtherNodesWereNotEvaluatedBecauseTheNominatedNodeFit) {
  SimulationResult r = SimulateYaml(R"(
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: n2}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: p}
spec: {containers: [{name: c, image: registry.k8s.io/pause:3.10, resources: {requests: {cpu: "1"}}}]}
status: {nominatedNodeName: n2}
)",
                                    {.explain = true});
  ASSERT_EQ(r.pods.size(), 1u);
  EXPECT_EQ(r.pods[0].node, "n2");
  nlohmann::json j = nlohmann::json::parse(FormatJson(r, true));
  EXPECT_EQ(j["pods"][0]["filter"]["n2"], "passed");
  EXPECT_EQ(j["pods"][0]["filter"]["n1"], "not evaluated (the pod's nominated node fit)");
}

TEST(SimulateTest, ExplainSaysWhyNoDeviceFittedAndTheMessageStaysUpstreams) {
  SimulationResult r = SimulateYaml(R"(
apiVersion: v1
kind: Node
metadata: {name: a}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: a-gpus}
spec: {driver: gpu.example.com, nodeName: a, pool: {name: a, resourceSliceCount: 1},
       devices: [{name: g0}, {name: g1}]}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: three, namespace: default}
spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu, count: 3}}]}}
---
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers: [{name: c, image: registry.k8s.io/pause:3.10}]
  resourceClaims: [{name: gpus, resourceClaimName: three}]
)",
                                    {.explain = true});
  ASSERT_EQ(r.pods.size(), 1u);
  EXPECT_EQ(r.pods[0].message,
            "0/1 nodes are available: 1 cannot allocate all claims. "
            "preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.");
  nlohmann::json j = nlohmann::json::parse(FormatJson(r, true));
  EXPECT_EQ(j["pods"][0]["filter"]["a"],
            "DynamicResources: cannot allocate all claims (claim default/three, request gpu: 3 "
            "wanted, 2 of the node's 2 devices match and are free)");
}

TEST(SimulateTest, TableForPeople) {
  SimulationResult r = SimulateYaml(kCluster);
  std::string t = FormatTable(r, false);
  EXPECT_NE(t.find("NAMESPACE  NAME   STATUS           NODE    MESSAGE"), std::string::npos) << t;
  EXPECT_NE(t.find("default    web-1  Scheduled        node-a"), std::string::npos) << t;
  EXPECT_NE(t.find("default    g      SchedulingGated  <none>  Scheduling is blocked due to "
                   "non-empty scheduling gates"),
            std::string::npos)
      << t;
}

TEST(SimulateTest, DemoClusterShowsEveryFeature) {
  auto objects = LoadManifests({testing::SourcePath("examples/demo/nodes.yaml"),
                                testing::SourcePath("examples/demo/pods.yaml")});
  ASSERT_TRUE(objects.ok()) << objects.status();
  Registry registry = plugins::NewInTreeRegistry();
  auto r = Simulate(std::move(*objects), registry, {});
  ASSERT_TRUE(r.ok());
  std::map<std::string, PodOutcome> by_name;
  for (const PodOutcome& o : r->pods) by_name[o.name] = o;
  EXPECT_EQ(by_name["batch-high"].status, "Scheduled");  // priority first
  EXPECT_EQ(by_name["batch-low"].status, "Unschedulable");
  EXPECT_EQ(by_name["db-0"].node, "node-a");       // nodeSelector disktype=ssd
  EXPECT_EQ(by_name["trainer"].node, "node-gpu");  // toleration + extended resource
  EXPECT_EQ(by_name["gpu-no-toleration"].status, "Unschedulable");
  EXPECT_EQ(by_name["redis-1"].node, "node-a");
  EXPECT_EQ(by_name["redis-2"].status, "Unschedulable");  // host port taken
  EXPECT_EQ(by_name["waiting-for-quota"].status, "SchedulingGated");
  EXPECT_EQ(by_name.size(), 12u);
}

}  // namespace
}  // namespace ksched::sim
