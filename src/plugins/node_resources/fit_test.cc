#include "src/plugins/node_resources/fit.h"

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "src/testing/builders.h"
#include "src/testing/fake_handle.h"
#include "src/testing/plugin_args.h"

namespace ksched::plugins::node_resources {
namespace {

using ksched::testing::MakeNode;
using ksched::testing::MakePod;
using nlohmann::json;

constexpr char kExtendedA[] = "example.com/aaa";
constexpr char kExtendedB[] = "example.com/bbb";
constexpr char kKubernetesIOA[] = "kubernetes.io/something";
constexpr char kKubernetesIOB[] = "subdomain.kubernetes.io/something";
constexpr char kHugePagesA[] = "hugepages-2Mi";

// A request list as upstream's fit_test.go builds it: cpu (milli) and memory always, plus extras.
api::ResourceList Res(int64_t milli_cpu, int64_t memory,
                      std::initializer_list<std::pair<std::string, int64_t>> extra = {}) {
  api::ResourceList r;
  r[api::kResourceCPU] = api::Quantity::FromMilli(milli_cpu);
  r[api::kResourceMemory] = api::Quantity::FromValue(memory);
  for (const auto& [name, v] : extra) r[name] = api::Quantity::FromValue(v);
  return r;
}

// A pod with one container per list in `containers`, and init containers likewise.
api::Pod ResourcePod(std::vector<api::ResourceList> containers,
                     std::vector<api::ResourceList> inits = {}) {
  api::Pod pod = MakePod().Name("p").Obj();
  for (api::ResourceList& r : containers) {
    pod.spec.containers.push_back({.name = "c", .resources = {.requests = std::move(r)}});
  }
  for (api::ResourceList& r : inits) {
    pod.spec.init_containers.push_back({.name = "i", .resources = {.requests = std::move(r)}});
  }
  return pod;
}

// Upstream's makeAllocatableResources(10, 20, pods, 5, 20, 5).
api::Node TestNode(const std::string& pods = "32") {
  return MakeNode()
      .Name("node1")
      .Capacity({{"cpu", "10m"},
                 {"memory", "20"},
                 {"pods", pods},
                 {kExtendedA, "5"},
                 {"ephemeral-storage", "20"},
                 {kHugePagesA, "5"}})
      .Obj();
}

NodeInfo MakeNodeInfo(const api::Node& node, const std::vector<api::Pod>& pods) {
  NodeInfo info;
  info.SetNode(std::make_shared<const api::Node>(node));
  for (const api::Pod& p : pods) info.AddPod(PodInfo::Make(std::make_shared<const api::Pod>(p)));
  return info;
}

std::unique_ptr<Fit> NewTestFit(const json& args = json::object()) {
  absl::StatusOr<FitArgs> parsed = ParseFitArgs(args);
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  return std::make_unique<Fit>(*parsed);
}

struct FilterCase {
  std::string name;
  api::Pod pod;
  api::Pod existing;  // The one pod already on the node.
  Code want_code = Code::kSuccess;
  std::vector<std::string> want_reasons;
  json args = json::object();
};

void RunFilterCases(const std::vector<FilterCase>& cases, const api::Node& node) {
  for (const FilterCase& c : cases) {
    std::unique_ptr<Fit> fit = NewTestFit(c.args);
    NodeInfo info = MakeNodeInfo(node, {c.existing});
    CycleState state;
    PreFilterResult result;
    Status pre = fit->PreFilter(state, c.pod, {&info}, &result);
    EXPECT_TRUE(pre.ok()) << c.name << ": " << pre.Message();
    EXPECT_TRUE(result.AllNodes()) << c.name;
    Status s = fit->Filter(state, c.pod, info);
    EXPECT_EQ(s.code(), c.want_code) << c.name << ": " << s.Message();
    EXPECT_EQ(s.reasons(), c.want_reasons) << c.name;
  }
}

constexpr Code kOk = Code::kSuccess;
constexpr Code kUnschedulable = Code::kUnschedulable;
constexpr Code kUnresolvable = Code::kUnschedulableAndUnresolvable;

// Upstream's TestEnoughRequests, with the status codes of the Unresolvable rule.
TEST(FitFilterTest, EnoughRequests) {
  const std::vector<FilterCase> cases = {
      {"no resources requested always fits", ResourcePod({}), ResourcePod({Res(10, 20)})},
      {"too many resources fails", ResourcePod({Res(1, 1)}), ResourcePod({Res(10, 20)}),
       kUnschedulable, {"Insufficient cpu", "Insufficient memory"}},
      {"too many resources fails due to init container cpu",
       ResourcePod({Res(1, 1)}, {Res(3, 1)}), ResourcePod({Res(8, 19)}), kUnschedulable,
       {"Insufficient cpu"}},
      {"too many resources fails due to highest init container cpu",
       ResourcePod({Res(1, 1)}, {Res(3, 1), Res(2, 1)}), ResourcePod({Res(8, 19)}),
       kUnschedulable, {"Insufficient cpu"}},
      {"too many resources fails due to init container memory",
       ResourcePod({Res(1, 1)}, {Res(1, 3)}), ResourcePod({Res(9, 19)}), kUnschedulable,
       {"Insufficient memory"}},
      {"too many resources fails due to highest init container memory",
       ResourcePod({Res(1, 1)}, {Res(1, 3), Res(1, 2)}), ResourcePod({Res(9, 19)}),
       kUnschedulable, {"Insufficient memory"}},
      {"init container fits because it's the max, not sum, of containers and init containers",
       ResourcePod({Res(1, 1)}, {Res(1, 1)}), ResourcePod({Res(9, 19)})},
      {"multiple init containers fit because it's the max, not sum, of containers and init "
       "containers",
       ResourcePod({Res(1, 1)}, {Res(1, 1), Res(1, 1)}), ResourcePod({Res(9, 19)})},
      {"both resources fit", ResourcePod({Res(1, 1)}), ResourcePod({Res(5, 5)})},
      {"one resource memory fits", ResourcePod({Res(2, 1)}), ResourcePod({Res(9, 5)}),
       kUnschedulable, {"Insufficient cpu"}},
      {"one resource cpu fits", ResourcePod({Res(1, 2)}), ResourcePod({Res(5, 19)}),
       kUnschedulable, {"Insufficient memory"}},
      {"equal edge case", ResourcePod({Res(5, 1)}), ResourcePod({Res(5, 19)})},
      {"equal edge case for init container", ResourcePod({Res(4, 1)}, {Res(5, 1)}),
       ResourcePod({Res(5, 19)})},
      {"extended resource fits", ResourcePod({Res(0, 0, {{kExtendedA, 1}})}), ResourcePod({})},
      {"extended resource fits for init container",
       ResourcePod({Res(0, 0)}, {Res(0, 0, {{kExtendedA, 1}})}), ResourcePod({})},
      {"extended resource capacity enforced", ResourcePod({Res(1, 1, {{kExtendedA, 10}})}),
       ResourcePod({Res(0, 0, {{kExtendedA, 0}})}), kUnresolvable,
       {"Insufficient example.com/aaa"}},
      {"extended resource capacity enforced for init container",
       ResourcePod({Res(0, 0)}, {Res(1, 1, {{kExtendedA, 10}})}),
       ResourcePod({Res(0, 0, {{kExtendedA, 0}})}), kUnresolvable,
       {"Insufficient example.com/aaa"}},
      {"extended resource allocatable enforced", ResourcePod({Res(1, 1, {{kExtendedA, 1}})}),
       ResourcePod({Res(0, 0, {{kExtendedA, 5}})}), kUnschedulable,
       {"Insufficient example.com/aaa"}},
      {"extended resource allocatable enforced for init container",
       ResourcePod({Res(0, 0)}, {Res(1, 1, {{kExtendedA, 1}})}),
       ResourcePod({Res(0, 0, {{kExtendedA, 5}})}), kUnschedulable,
       {"Insufficient example.com/aaa"}},
      {"extended resource allocatable enforced for multiple containers",
       ResourcePod({Res(1, 1, {{kExtendedA, 3}}), Res(1, 1, {{kExtendedA, 3}})}),
       ResourcePod({Res(0, 0, {{kExtendedA, 2}})}), kUnresolvable,
       {"Insufficient example.com/aaa"}},
      {"extended resource allocatable admits multiple init containers",
       ResourcePod({Res(0, 0)}, {Res(1, 1, {{kExtendedA, 3}}), Res(1, 1, {{kExtendedA, 3}})}),
       ResourcePod({Res(0, 0, {{kExtendedA, 2}})})},
      {"extended resource allocatable enforced for multiple init containers",
       ResourcePod({Res(0, 0)}, {Res(1, 1, {{kExtendedA, 6}}), Res(1, 1, {{kExtendedA, 3}})}),
       ResourcePod({Res(0, 0, {{kExtendedA, 2}})}), kUnresolvable,
       {"Insufficient example.com/aaa"}},
      {"extended resource allocatable enforced for unknown resource",
       ResourcePod({Res(1, 1, {{kExtendedB, 1}})}), ResourcePod({Res(0, 0)}), kUnresolvable,
       {"Insufficient example.com/bbb"}},
      {"extended resource allocatable enforced for unknown resource for init container",
       ResourcePod({Res(0, 0)}, {Res(1, 1, {{kExtendedB, 1}})}), ResourcePod({Res(0, 0)}),
       kUnresolvable, {"Insufficient example.com/bbb"}},
      {"kubernetes.io resource capacity enforced",
       ResourcePod({Res(1, 1, {{kKubernetesIOA, 10}})}), ResourcePod({Res(0, 0)}), kUnresolvable,
       {"Insufficient kubernetes.io/something"}},
      {"kubernetes.io resource capacity enforced for init container",
       ResourcePod({Res(0, 0)}, {Res(1, 1, {{kKubernetesIOB, 10}})}), ResourcePod({Res(0, 0)}),
       kUnresolvable, {"Insufficient subdomain.kubernetes.io/something"}},
      {"hugepages resource capacity enforced", ResourcePod({Res(1, 1, {{kHugePagesA, 10}})}),
       ResourcePod({Res(0, 0, {{kHugePagesA, 0}})}), kUnresolvable, {"Insufficient hugepages-2Mi"}},
      {"hugepages resource capacity enforced for init container",
       ResourcePod({Res(0, 0)}, {Res(1, 1, {{kHugePagesA, 10}})}),
       ResourcePod({Res(0, 0, {{kHugePagesA, 0}})}), kUnresolvable, {"Insufficient hugepages-2Mi"}},
      {"hugepages resource allocatable enforced for multiple containers",
       ResourcePod({Res(1, 1, {{kHugePagesA, 3}}), Res(1, 1, {{kHugePagesA, 3}})}),
       ResourcePod({Res(0, 0, {{kHugePagesA, 2}})}), kUnresolvable, {"Insufficient hugepages-2Mi"}},
      {"skip checking ignored extended resource", ResourcePod({Res(1, 1, {{kExtendedB, 1}})}),
       ResourcePod({Res(0, 0)}), kOk, {}, json{{"ignoredResources", {kExtendedB}}}},
      {"resources + pod overhead fits", [] {
         api::Pod p = ResourcePod({Res(1, 1)});
         p.spec.overhead = ksched::testing::Resources({{"cpu", "3m"}, {"memory", "13"}});
         return p;
       }(),
       ResourcePod({Res(5, 5)})},
      {"requests + overhead does not fit for memory", [] {
         api::Pod p = ResourcePod({Res(1, 1)});
         p.spec.overhead = ksched::testing::Resources({{"cpu", "1m"}, {"memory", "15"}});
         return p;
       }(),
       ResourcePod({Res(5, 5)}), kUnschedulable, {"Insufficient memory"}},
      {"skip checking ignored extended resource via resource groups",
       ResourcePod({Res(1, 1, {{kExtendedB, 1}, {kKubernetesIOA, 1}})}), ResourcePod({Res(0, 0)}),
       kUnresolvable, {"Insufficient kubernetes.io/something"},
       json{{"ignoredResourceGroups", {"example.com"}}}},
      {"skip checking extended resource request with quantity zero via resource groups",
       ResourcePod({Res(1, 1, {{kExtendedA, 0}})}), ResourcePod({Res(0, 0, {{kExtendedA, 6}})})},
      {"skip checking resource request with quantity zero",
       ResourcePod({Res(0, 0, {{kExtendedA, 1}})}), ResourcePod({Res(20, 30, {{kExtendedA, 1}})})},
  };
  RunFilterCases(cases, TestNode());
}

TEST(FitFilterTest, ReasonsOrderAndUnresolvable) {
  const std::vector<FilterCase> cases = {
      // Every check fails: fixed order, scalars by name; all exceed allocatable.
      {"all resources insufficient",
       ResourcePod({Res(11, 21, {{"ephemeral-storage", 21}, {kHugePagesA, 6}, {kExtendedA, 6}})}),
       ResourcePod({}),
       kUnresolvable,
       {"Insufficient cpu", "Insufficient memory", "Insufficient ephemeral-storage",
        "Insufficient example.com/aaa", "Insufficient hugepages-2Mi"}},
      {"one failure alone, beyond the whole node",
       ResourcePod({Res(11, 1)}),
       ResourcePod({}),
       kUnresolvable,
       {"Insufficient cpu"}},
      // One failure fits the empty node (preemption may help), one does not.
      {"one resolvable and one unresolvable failure",
       ResourcePod({Res(6, 21)}),
       ResourcePod({Res(5, 0)}),
       kUnresolvable,
       {"Insufficient cpu", "Insufficient memory"}},
      {"every failure fits the empty node",
       ResourcePod({Res(6, 2, {{kExtendedA, 2}})}),
       ResourcePod({Res(5, 19, {{kExtendedA, 4}})}),
       kUnschedulable,
       {"Insufficient cpu", "Insufficient memory", "Insufficient example.com/aaa"}},
      // Sidecars run alongside later init containers and the app: 1+5 beats 2+1.
      {"sidecar math",
       [] {
         api::Pod p = ResourcePod({Res(2, 0)}, {Res(1, 0), Res(5, 0)});
         p.spec.init_containers[0].restart_policy = "Always";
         return p;
       }(),
       ResourcePod({Res(5, 0)}),
       kUnschedulable,
       {"Insufficient cpu"}},
      {"pod-level requests replace the containers' total",
       [] {
         api::Pod p = ResourcePod({Res(1, 1)});
         p.spec.resources =
             api::ResourceRequirements{.requests = ksched::testing::Resources({{"cpu", "8m"}})};
         return p;
       }(),
       ResourcePod({Res(5, 0)}),
       kUnschedulable,
       {"Insufficient cpu"}},
  };
  RunFilterCases(cases, TestNode());
}

TEST(FitFilterTest, StorageRequests) {
  const std::vector<FilterCase> cases = {
      {"empty storage requested, and pod fits", ResourcePod({Res(1, 1)}),
       ResourcePod({Res(2, 10)})},
      {"storage ephemeral local storage request exceeds allocatable",
       ResourcePod({Res(0, 0, {{"ephemeral-storage", 25}})}),
       ResourcePod({Res(2, 2)}),
       kUnresolvable,
       {"Insufficient ephemeral-storage"}},
      {"ephemeral local storage is sufficient",
       ResourcePod({Res(0, 0, {{"ephemeral-storage", 5}})}),
       ResourcePod({Res(2, 2, {{"ephemeral-storage", 10}})})},
      {"ephemeral local storage is insufficient",
       ResourcePod({Res(0, 0, {{"ephemeral-storage", 11}})}),
       ResourcePod({Res(2, 2, {{"ephemeral-storage", 10}})}),
       kUnschedulable,
       {"Insufficient ephemeral-storage"}},
      {"pod fits", ResourcePod({Res(0, 0, {{"ephemeral-storage", 10}})}), ResourcePod({Res(2, 2)})},
  };
  RunFilterCases(cases, TestNode());
}

// Upstream's TestNotEnoughRequests: a node with room for one pod, which it already runs.
TEST(FitFilterTest, NotEnoughPods) {
  const std::vector<FilterCase> cases = {
      {"even without specified resources, predicate fails when there's no space for additional "
       "pod",
       ResourcePod({}),
       ResourcePod({Res(10, 20)}),
       kUnschedulable,
       {"Too many pods"}},
      {"even if both resources fit, predicate fails when there's no space for additional pod",
       ResourcePod({Res(1, 1)}),
       ResourcePod({Res(5, 5)}),
       kUnschedulable,
       {"Too many pods"}},
      {"even for equal edge case, predicate fails when there's no space for additional pod",
       ResourcePod({Res(5, 1)}),
       ResourcePod({Res(5, 19)}),
       kUnschedulable,
       {"Too many pods"}},
      {"even for equal edge case, predicate fails when there's no space for additional pod due "
       "to init container",
       ResourcePod({Res(5, 1)}, {Res(5, 1)}),
       ResourcePod({Res(5, 19)}),
       kUnschedulable,
       {"Too many pods"}},
      {"too many pods comes first",
       ResourcePod({Res(6, 1)}),
       ResourcePod({Res(5, 19)}),
       kUnschedulable,
       {"Too many pods", "Insufficient cpu"}},
  };
  RunFilterCases(cases, TestNode("1"));
}

TEST(FitFilterTest, ErrorWithoutPreFilter) {
  std::unique_ptr<Fit> fit = NewTestFit();
  NodeInfo info = MakeNodeInfo(TestNode(), {});
  CycleState state;
  Status s = fit->Filter(state, ResourcePod({}), info);
  EXPECT_EQ(s.code(), Code::kError);
  EXPECT_EQ(s.Message(), R"(error reading "PreFilterNodeResourcesFit" from cycleState: not found)");
}

TEST(FitFilterTest, FitsRequestReportsAmounts) {
  Resource request = Resource::FromList(Res(3, 0, {{kExtendedA, 2}}));
  Resource alloc = Resource::FromList(Res(10, 20, {{"pods", 2}}));
  Resource used = Resource::FromList(Res(8, 0));
  std::vector<InsufficientResource> got = FitsRequest(request, alloc, used, 2, {});
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0].resource, "pods");
  EXPECT_EQ(got[0].used, 2);
  EXPECT_EQ(got[0].capacity, 2);
  EXPECT_FALSE(got[0].unresolvable);
  EXPECT_EQ(got[1].resource, "cpu");
  EXPECT_EQ(got[1].requested, 3);
  EXPECT_EQ(got[1].used, 8);
  EXPECT_EQ(got[1].capacity, 10);
  EXPECT_FALSE(got[1].unresolvable);
  EXPECT_EQ(got[2].resource, kExtendedA);
  EXPECT_EQ(got[2].capacity, 0);
  EXPECT_TRUE(got[2].unresolvable);
}

// --- Queueing hints --------------------------------------------------------------------------

const ClusterEventWithHint& EventFor(const std::vector<ClusterEventWithHint>& events,
                                     EventResource resource) {
  for (const ClusterEventWithHint& e : events) {
    if (e.event.resource == resource) return e;
  }
  ADD_FAILURE() << "no event registered for the resource";
  return events.front();
}

TEST(FitEventsTest, Registration) {
  std::vector<ClusterEventWithHint> events = NewTestFit()->EventsToRegister();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].event.resource, EventResource::kPod);
  EXPECT_EQ(events[0].event.action, ActionType::kDelete | ActionType::kUpdatePodScaleDown);
  EXPECT_EQ(events[1].event.resource, EventResource::kNode);
  EXPECT_EQ(events[1].event.action, ActionType::kAdd | ActionType::kUpdateNodeAllocatable);
  EXPECT_TRUE(events[0].hint);
  EXPECT_TRUE(events[1].hint);
}

TEST(FitEventsTest, PodEventHint) {
  std::vector<ClusterEventWithHint> events = NewTestFit()->EventsToRegister();
  const QueueingHintFn& hint = EventFor(events, EventResource::kPod).hint;
  const api::Pod target = MakePod().Name("target").Req("cpu", "1").Obj();
  const api::Pod assigned =
      MakePod().Name("a").Node("node1").Req("cpu", "2").Req("memory", "2Gi").Obj();
  const api::Pod unassigned = MakePod().Name("u").Req("cpu", "2").Obj();
  api::Pod nominated = unassigned;
  nominated.status.nominated_node_name = "node1";
  const api::Pod cpu_down =
      MakePod().Name("a").Node("node1").Req("cpu", "1").Req("memory", "2Gi").Obj();
  const api::Pod mem_down =
      MakePod().Name("a").Node("node1").Req("cpu", "2").Req("memory", "1Gi").Obj();
  api::Pod target_down = target;
  target_down.spec.containers[0].resources.requests["cpu"] = ksched::testing::Q("500m");

  struct Case {
    std::string name;
    ClusterEventData data;
    QueueingHint want;
  };
  const std::vector<Case> cases = {
      {"assigned pod deleted", {.old_pod = &assigned}, QueueingHint::kQueue},
      {"unassigned pod deleted", {.old_pod = &unassigned}, QueueingHint::kQueueSkip},
      {"nominated pod deleted", {.old_pod = &nominated}, QueueingHint::kQueue},
      {"assigned pod scaled down a requested resource",
       {.old_pod = &assigned, .new_pod = &cpu_down},
       QueueingHint::kQueue},
      {"assigned pod scaled down an unrequested resource",
       {.old_pod = &assigned, .new_pod = &mem_down},
       QueueingHint::kQueueSkip},
      {"unassigned pod scaled down",
       {.old_pod = &unassigned, .new_pod = &unassigned},
       QueueingHint::kQueueSkip},
      {"the target itself scaled down",
       {.old_pod = &target, .new_pod = &target_down},
       QueueingHint::kQueue},
  };
  for (const Case& c : cases) EXPECT_EQ(hint(target, c.data), c.want) << c.name;
}

TEST(FitEventsTest, NodeEventHint) {
  std::vector<ClusterEventWithHint> events = NewTestFit()->EventsToRegister();
  const QueueingHintFn& hint = EventFor(events, EventResource::kNode).hint;
  const api::Pod target = MakePod().Name("target").Req("cpu", "4").Obj();
  auto node = [](const std::string& cpu, const std::string& memory, const std::string& pods) {
    return MakeNode().Name("n").Capacity({{"cpu", cpu}, {"memory", memory}, {"pods", pods}}).Obj();
  };
  const api::Node small = node("2", "8Gi", "10");
  const api::Node big = node("8", "8Gi", "10");
  const api::Node bigger = node("16", "8Gi", "10");
  const api::Node big_more_memory = node("8", "16Gi", "10");
  const api::Node big_more_pods = node("8", "8Gi", "20");
  const api::Node big_no_pods = node("8", "8Gi", "0");

  struct Case {
    std::string name;
    ClusterEventData data;
    QueueingHint want;
  };
  const std::vector<Case> cases = {
      {"added node fits", {.new_node = &big}, QueueingHint::kQueue},
      {"added node too small", {.new_node = &small}, QueueingHint::kQueueSkip},
      {"added node without pod slots", {.new_node = &big_no_pods}, QueueingHint::kQueueSkip},
      {"requested resource grew", {.old_node = &big, .new_node = &bigger}, QueueingHint::kQueue},
      {"node grew to fit", {.old_node = &small, .new_node = &big}, QueueingHint::kQueue},
      {"only an unrequested resource grew",
       {.old_node = &big, .new_node = &big_more_memory},
       QueueingHint::kQueueSkip},
      {"pod slots grew", {.old_node = &big, .new_node = &big_more_pods}, QueueingHint::kQueue},
      {"still too small", {.old_node = &small, .new_node = &small}, QueueingHint::kQueueSkip},
  };
  for (const Case& c : cases) EXPECT_EQ(hint(target, c.data), c.want) << c.name;
}

TEST(FitTest, FactoryValidatesArgs) {
  ksched::testing::FakeHandle handle;
  const PluginFactory factory = TypedFactory<FitArgs>(NewFit);
  const ArgsDecoder decode = MakeArgsDecoder(ParseFitArgs, FitArgsToJson);
  auto plugin = ksched::testing::NewFromArgs(decode, factory, json::object(), handle);
  ASSERT_TRUE(plugin.ok()) << plugin.status();
  EXPECT_EQ((*plugin)->Name(), "NodeResourcesFit");
  EXPECT_NE(dynamic_cast<FilterPlugin*>(plugin->get()), nullptr);
  EXPECT_NE(dynamic_cast<ScorePlugin*>(plugin->get()), nullptr);
  EXPECT_EQ(dynamic_cast<ScoreExtensions*>(plugin->get()), nullptr);  // Not normalized.

  auto bad = ksched::testing::NewFromArgs(decode, factory,
                                          json{{"scoringStrategy", {{"type", "Foo"}}}}, handle);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
}

// Upstream's TestScorePlacement_Resources: a pod group's placement scored as one node, with
// MostAllocated over the scoring strategy's resources (whatever the strategy).
TEST(FitPlacementScoreTest, ScoresThePlacementAsOneNode) {
  constexpr char kGpu[] = "nvidia.com/gpu";
  auto node = [&](const std::string& name) {
    return MakeNode()
        .Name(name)
        .Capacity({{"cpu", "5000m"}, {"memory", "5000"}, {kGpu, "5"}})
        .Obj();
  };
  auto pod = [&](int64_t milli_cpu, int64_t memory, int64_t gpu) {
    return ResourcePod({Res(milli_cpu, memory, {{kGpu, gpu}})});
  };
  const json cpu_memory = {
      {"scoringStrategy",
       {{"type", "LeastAllocated"},
        {"resources", {{{"name", "cpu"}, {"weight", 1}}, {{"name", "memory"}, {"weight", 1}}}}}}};
  json weighted = cpu_memory;
  weighted["scoringStrategy"]["resources"][0]["weight"] = 4;
  json with_gpu = cpu_memory;
  with_gpu["scoringStrategy"]["resources"].push_back({{"name", kGpu}, {"weight", 1}});
  struct Case {
    std::string name;
    json args;
    std::vector<api::Pod> group;
    std::vector<api::Pod> existing;  // On node1.
    int64_t want;
  } cases[] = {
      // cpu 3000/10000, memory 2000/10000: (30 + 20) / 2.
      {"total requests", cpu_memory, {pod(1000, 0, 0), pod(2000, 2000, 0)}, {}, 25},
      {"weights", weighted, {pod(1000, 0, 0), pod(2000, 2000, 0)}, {}, 28},
      {"a pod already there",
       cpu_memory,
       {pod(1000, 0, 0), pod(2000, 2000, 0)},
       {pod(1000, 0, 0)},
       30},
      // gpu 1/10 counts once the group asks for one.
      {"a scalar resource the group requests",
       with_gpu,
       {pod(1000, 0, 0), pod(1000, 2000, 1)},
       {pod(1000, 0, 0)},
       20},
      {"a scalar resource only others use",
       with_gpu,
       {pod(1000, 0, 0), pod(1000, 2000, 0)},
       {pod(1000, 0, 1)},
       25},
  };
  for (const Case& c : cases) {
    std::unique_ptr<Fit> fit = NewTestFit(c.args);
    NodeInfo n1 = MakeNodeInfo(node("node1"), c.existing), n2 = MakeNodeInfo(node("node2"), {});
    Placement placement{.name = "rack-1", .nodes = {&n1, &n2}};
    PodGroupAssignments a{.placement = &placement};
    for (const api::Pod& p : c.group) a.proposed.push_back({&p, "node1"});
    int64_t score = -1;
    ASSERT_TRUE(fit->ScorePlacement(api::PodGroup{}, a, &score).ok()) << c.name;
    EXPECT_EQ(score, c.want) << c.name;
  }
}

}  // namespace
}  // namespace ksched::plugins::node_resources
