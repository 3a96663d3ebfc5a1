#include "contrib/coscheduling/coscheduling.h"

#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/base/clock.h"
#include "src/config/load.h"
#include "src/plugins/registry.h"
#include "src/scheduler/scheduler.h"
#include "src/sim/manifests.h"
#include "src/sim/simulate.h"
#include "src/testing/builders.h"
#include "src/testing/fake_handle.h"
#include "src/testing/files.h"

namespace ksched::coscheduling {
namespace {

using ::testing::ElementsAre;
using testing::MakeNode;
using testing::MakePod;
using ::testing::UnorderedElementsAre;

constexpr char kNs[] = "default";

std::shared_ptr<const CustomObject> PodGroup(std::string name, int min,
                                             nlohmann::json min_resources = nullptr,
                                             std::string created = "2026-01-01T00:00:00Z") {
  auto pg = std::make_shared<CustomObject>();
  pg->metadata.name = name;
  pg->metadata.namespace_ = kNs;
  pg->metadata.creation_timestamp = created;
  pg->object = {{"apiVersion", "scheduling.x-k8s.io/v1alpha1"},
                {"kind", "PodGroup"},
                {"metadata", {{"name", name}, {"namespace", kNs}}},
                {"spec", {{"minMember", min}}}};
  if (!min_resources.is_null()) pg->object["spec"]["minResources"] = min_resources;
  return pg;
}

api::Pod Member(std::string name, std::string group, std::string memory = "50") {
  return MakePod().Name(name).Label(kPodGroupLabel, group).Req("memory", memory).Obj();
}

// --- The plugin alone, on a FakeHandle -----------------------------------------------------------

class CoschedulingTest : public ::testing::Test {
 protected:
  void Make(std::vector<api::Node> nodes, std::vector<api::Pod> pods, CoschedulingArgs args = {}) {
    handle_ = std::make_unique<testing::FakeHandle>(nodes, pods);
    for (const api::Pod& p : pods) handle_->pod_index().Set(std::make_shared<api::Pod>(p));
    plugin_ = std::make_unique<Coscheduling>(args, *handle_);
  }
  void AddGroup(std::shared_ptr<const CustomObject> pg) {
    handle_->listers().custom.Watch(PodGroupResource()).objects().Set(std::move(pg));
  }
  Status PreFilter(const api::Pod& pod) {
    CycleState state;
    PreFilterResult result;
    return plugin_->PreFilter(state, pod, handle_->snapshot().nodes(), &result);
  }
  Status PostFilter(const api::Pod& pod) {
    CycleState state;
    PostFilterResult result;
    return plugin_->PostFilter(state, pod, NodeToStatus{}, &result);
  }
  Status Permit(const api::Pod& pod, absl::Duration* timeout) {
    CycleState state;
    return plugin_->Permit(state, pod, "n1", timeout);
  }

  std::unique_ptr<testing::FakeHandle> handle_;
  std::unique_ptr<Coscheduling> plugin_;
};

TEST(CoschedulingArgsTest, DefaultsAndValidationAreSchedulerPluginsV1s) {
  absl::StatusOr<CoschedulingArgs> a = ParseCoschedulingArgs(nullptr);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(CoschedulingArgsToJson(*a),
            nlohmann::json::parse(R"({"apiVersion":"kubescheduler.config.k8s.io/v1",
                "kind":"CoschedulingArgs","permitWaitingTimeSeconds":60,
                "podGroupBackoffSeconds":0,"podGroupRejectPercentage":10})"));
  a = ParseCoschedulingArgs({{"permitWaitingTimeSeconds", 0}, {"podGroupRejectPercentage", 0}});
  ASSERT_TRUE(a.ok());  // 0 is valid for each.
  EXPECT_EQ(a->permit_waiting_time_seconds, 0);
  EXPECT_EQ(a->pod_group_reject_percentage, 0);
  EXPECT_EQ(ParseCoschedulingArgs({{"permitWaitingTimeSeconds", -10}}).status().message(),
            "permitWaitingTimeSeconds: Invalid value: -10: must be greater than 0");
  EXPECT_EQ(
      ParseCoschedulingArgs({{"podGroupBackoffSeconds", -1}, {"podGroupRejectPercentage", 101}})
          .status()
          .message(),
      "[podGroupBackoffSeconds: Invalid value: -1: must be greater than 0, "
      "podGroupRejectPercentage: Invalid value: 101: must be between 0 and 100]");
  EXPECT_FALSE(ParseCoschedulingArgs({{"permitWaitingTime", 1}}).ok());  // Unknown field.
}

TEST_F(CoschedulingTest, PreFilterWaitsForMinMemberPodsAndForGatedOnes) {
  api::Pod gated = Member("p3", "pg");
  gated.spec.scheduling_gates.push_back({"example.com/hold"});
  Make({MakeNode().Name("n1").Capacity({{"memory", "300"}, {"pods", "32"}}).Obj()},
       {Member("p1", "pg"), Member("p2", "pg"), gated, MakePod().Name("alone").Obj()});
  // No PodGroup yet, or no label: the pod passes, as a pod outside any group.
  EXPECT_TRUE(PreFilter(Member("p1", "pg")).ok());
  EXPECT_TRUE(PreFilter(MakePod().Name("alone").Obj()).ok());
  AddGroup(PodGroup("pg", 4));
  Status s = PreFilter(Member("p1", "pg"));
  EXPECT_EQ(s.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(s.Message(),
            "pre-filter pod p1 cannot find enough sibling pods, current pods number: 3, "
            "minMember of group: 4");
  AddGroup(PodGroup("pg", 3));
  EXPECT_EQ(PreFilter(Member("p1", "pg")).Message(),
            "pre-filter pod p1 cannot proceed due to gated pods in the same PodGroup");
  AddGroup(PodGroup("pg", 2));  // One gated pod of three leaves two: enough.
  EXPECT_TRUE(PreFilter(Member("p1", "pg")).ok());
}

TEST_F(CoschedulingTest, PreFilterNamesTheResourceGapAsSchedulerPluginsPrintsIt) {
  Make({MakeNode().Name("n1").Capacity({{"memory", "300"}, {"cpu", "2"}, {"pods", "32"}}).Obj()},
       {Member("p1", "pg"), Member("p2", "pg"), Member("p3", "pg"),
        MakePod().Name("other").Req("memory", "100").Node("n1").Obj()});
  AddGroup(PodGroup("pg", 3, {{"memory", "400"}, {"cpu", "3"}}));
  Status s = PreFilter(Member("p1", "pg"));
  EXPECT_EQ(s.code(), Code::kUnschedulableAndUnresolvable);
  // 400 - (300 - 100) = 200 bytes; 3 cpu - 2000m = 1000m.
  EXPECT_EQ(s.Message(),
            "resource gap: map[cpu:{{1000 -3} {<nil>}  DecimalSI} memory:{{200 0} {<nil>}  "
            "DecimalSI}]");
  AddGroup(PodGroup("pg", 3, {{"memory", "200"}}));
  EXPECT_TRUE(PreFilter(Member("p1", "pg")).ok());
  // Passed, the group is not checked again for permitWaitingTimeSeconds (permittedPG).
  AddGroup(PodGroup("pg", 3, {{"memory", "1Gi"}}));
  EXPECT_TRUE(PreFilter(Member("p1", "pg")).ok());
  handle_->now += absl::Seconds(60);
  // A binary quantity with a fraction is 0.25 Ki = 256 bytes: more than the 200 free.
  AddGroup(PodGroup("pg", 3, {{"memory", "0.25Ki"}}));
  EXPECT_EQ(PreFilter(Member("p1", "pg")).code(), Code::kUnschedulableAndUnresolvable);
}

TEST_F(CoschedulingTest, PermitHoldsTheGroupUntilMinMemberAndActivatesTheSiblingsOnce) {
  Make({MakeNode().Name("n1").Capacity({{"memory", "300"}, {"pods", "32"}}).Obj()},
       {Member("p1", "pg"), Member("p2", "pg"), Member("p3", "pg")},
       {.permit_waiting_time_seconds = 3});
  absl::Duration timeout;
  EXPECT_EQ(Permit(MakePod().Name("alone").Obj(), &timeout).code(), Code::kSuccess);
  Status s = Permit(Member("p1", "pg"), &timeout);
  EXPECT_EQ(s.code(), Code::kUnschedulable);
  EXPECT_EQ(s.Message(), "PodGroup not found");
  AddGroup(PodGroup("pg", 3));
  timeout = absl::ZeroDuration();
  EXPECT_EQ(Permit(Member("p1", "pg"), &timeout).code(), Code::kWait);
  EXPECT_EQ(timeout, absl::Seconds(3));
  EXPECT_THAT(handle_->activated, UnorderedElementsAre("default/p2", "default/p3"));
  handle_->activated.clear();
  EXPECT_EQ(Permit(Member("p2", "pg"), &timeout).code(), Code::kWait);
  EXPECT_TRUE(handle_->activated.empty());  // Only the first to wait activates.
  EXPECT_EQ(Permit(Member("p3", "pg"), &timeout).code(), Code::kSuccess);
}

TEST_F(CoschedulingTest, ThePodGroupsTimeoutWinsOverTheArgs) {
  Make({}, {Member("p1", "pg"), Member("p2", "pg")}, {.permit_waiting_time_seconds = 3});
  auto pg = std::make_shared<CustomObject>(*PodGroup("pg", 2));
  pg->object["spec"]["scheduleTimeoutSeconds"] = 10;
  AddGroup(pg);
  absl::Duration timeout;
  EXPECT_EQ(Permit(Member("p1", "pg"), &timeout).code(), Code::kWait);
  EXPECT_EQ(timeout, absl::Seconds(10));
}

TEST_F(CoschedulingTest, PostFilterRejectsTheGroupAndBacksItOff) {
  Make({},
       {Member("p1", "pg"), Member("p2", "pg"), Member("p3", "pg"), MakePod().Name("alone").Obj()},
       {.pod_group_backoff_seconds = 1, .pod_group_reject_percentage = 10});
  EXPECT_EQ(PostFilter(MakePod().Name("alone").Obj()).Message(), "can not find pod group");
  AddGroup(PodGroup("pg", 3));
  Status s = PostFilter(Member("p2", "pg"));
  EXPECT_EQ(s.code(), Code::kUnschedulable);
  EXPECT_EQ(s.Message(),
            "PodGroup default/pg gets rejected due to Pod p2 is unschedulable even after "
            "PostFilter");
  EXPECT_EQ(PreFilter(Member("p1", "pg")).Message(), "podGroup default/pg failed recently");
  handle_->now += absl::Seconds(1);
  EXPECT_TRUE(PreFilter(Member("p1", "pg")).ok());
}

TEST_F(CoschedulingTest, PostFilterSparesAGroupWithinTheRejectPercentage) {
  std::vector<api::Pod> pods;
  for (int i = 0; i < 10; ++i) pods.push_back(Member("p" + std::to_string(i), "pg"));
  Make({}, pods, {.pod_group_backoff_seconds = 1, .pod_group_reject_percentage = 10});
  AddGroup(PodGroup("pg", 10));
  absl::Duration timeout;
  for (int i = 0; i < 9; ++i) ASSERT_EQ(Permit(pods[i], &timeout).code(), Code::kWait);
  // 1 of 10 short: 10% is within the threshold, so nothing is rejected and nothing backs off.
  Status s = PostFilter(pods[9]);
  EXPECT_EQ(s.code(), Code::kUnschedulable);
  EXPECT_EQ(s.Message(), "");
  EXPECT_TRUE(PreFilter(pods[9]).ok());
}

TEST_F(CoschedulingTest, LessOrdersByPriorityThenGroupCreationThenName) {
  Make({}, {});
  AddGroup(PodGroup("old", 1, nullptr, "2026-01-01T00:00:00Z"));
  AddGroup(PodGroup("new", 1, nullptr, "2026-01-01T00:00:05Z"));
  auto info = [](api::Pod p, absl::Time first) {
    QueuedPodInfo q;
    q.pod_info = PodInfo::Make(std::make_shared<api::Pod>(std::move(p)));
    q.initial_attempt_timestamp = first;
    return q;
  };
  const absl::Time t0 = absl::FromUnixSeconds(1767225600);
  QueuedPodInfo new_a = info(Member("a", "new"), t0);
  QueuedPodInfo old_z = info(Member("z", "old"), t0 + absl::Hours(1));
  QueuedPodInfo old_y = info(Member("y", "old"), t0);
  QueuedPodInfo high = info(MakePod().Name("high").Priority(10).Obj(), t0 + absl::Hours(2));
  EXPECT_TRUE(plugin_->Less(high, old_y));
  EXPECT_TRUE(plugin_->Less(old_z, new_a));  // The older group first, whatever the pods' times.
  EXPECT_TRUE(plugin_->Less(old_y, old_z));  // One group: by name.
  EXPECT_FALSE(plugin_->Less(old_z, old_y));
  // A group that failed goes behind work created before its failure.
  CycleState state;
  handle_->now = t0 + absl::Seconds(10);
  plugin_->Unreserve(state, Member("y", "old"), "n1");
  EXPECT_TRUE(plugin_->Less(new_a, old_y));
}

// --- In a scheduler ------------------------------------------------------------------------------

// A scheduler with Coscheduling as scheduler-plugins' manifests enable it, on FakeClock time; the
// writer's binds are handed back as the API server's watch would.
class CoschedulingSchedulerTest : public ::testing::Test {
 protected:
  void Build(std::string args) {
    ASSERT_TRUE(Register(registry_).ok());
    absl::StatusOr<config::Configuration> cfg = config::DecodeConfiguration(
        R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    multiPoint: {enabled: [{name: Coscheduling}]}
    queueSort: {enabled: [{name: Coscheduling}], disabled: [{name: "*"}]}
  pluginConfig:
  - name: Coscheduling
    args: )" +
            args + "\n",
        registry_);
    ASSERT_TRUE(cfg.ok()) << cfg.status();
    auto s = scheduler::Scheduler::Create(
        {.config = *cfg, .writer = &writer_, .clock = &clock_, .binding_threads = 16}, registry_);
    ASSERT_TRUE(s.ok()) << s.status();
    s_ = std::move(*s);
    s_->OnNodeAdd(MakeNode().Name("fake-node").Capacity({{"memory", "300"}, {"pods", "32"}}).Ptr());
  }
  void AddGroup(std::shared_ptr<const CustomObject> pg) {
    CustomObjects::Store* store = s_->listers().custom.Find(kPodGroupResource);
    ASSERT_NE(store, nullptr);
    std::shared_ptr<const CustomObject> old = store->objects().Set(pg);
    s_->OnCustomObjectChange(store->resource(), old, pg);
  }
  void Add(api::Pod pod) {
    auto p = std::make_shared<api::Pod>(std::move(pod));
    pods_[p->metadata.name] = p;
    s_->OnPodAdd(p);
  }
  // Schedules until nothing is left to try, handing binds back; the clock moves past backoffs.
  void Settle() {
    for (int round = 0; round < 50; ++round) {
      while (s_->ScheduleOne()) {
      }
      s_->WaitForBindings();
      bool delivered = false;
      for (const auto& [key, node] : writer_.binds) {
        const std::string name = key.substr(key.find('/') + 1);
        std::shared_ptr<const api::Pod>& p = pods_[name];
        if (!p->spec.node_name.empty()) continue;
        auto bound = std::make_shared<api::Pod>(*p);
        bound->spec.node_name = node;
        s_->OnPodUpdate(p, bound);
        p = bound;
        delivered = true;
      }
      if (!delivered) {
        clock_.Advance(absl::Seconds(1));
        s_->queue().FlushBackoffQCompleted();
      }
    }
  }
  std::vector<std::string> Bound() const {
    std::vector<std::string> out;
    for (const auto& [key, node] : writer_.binds) out.push_back(key.substr(key.find('/') + 1));
    std::sort(out.begin(), out.end());
    return out;
  }

  FakeClock clock_;
  testing::RecordingWriter writer_;
  Registry registry_ = plugins::NewInTreeRegistry();
  std::unique_ptr<scheduler::Scheduler> s_;
  std::map<std::string, std::shared_ptr<const api::Pod>> pods_;
};

// scheduler-plugins' TestCoschedulingPlugin, "equal priority, not sequentially pg1 meet min and
// pg2 not meet min": the pods of the two groups arrive interleaved; pg1 binds whole, pg2 (4 × 100
// of memory on a node of 300) binds none.
TEST_F(CoschedulingSchedulerTest, OneGroupBindsWholeAndTheOtherNone) {
  Build("{permitWaitingTimeSeconds: 3}");
  AddGroup(PodGroup("pg1", 3));
  AddGroup(PodGroup("pg2", 4));
  for (int i = 1; i <= 4; ++i) {
    if (i <= 3) Add(Member("p1-" + std::to_string(i), "pg1", "50"));
    Add(Member("p2-" + std::to_string(i), "pg2", "100"));
  }
  Settle();
  EXPECT_THAT(Bound(), ElementsAre("p1-1", "p1-2", "p1-3"));
}

// "equal priority, not sequentially pg1 not meet min and 3 regular pods": a group short of pods
// never gets past PreFilter; the pods outside any group bind.
TEST_F(CoschedulingSchedulerTest, AGroupShortOfPodsWaitsAndOthersBind) {
  Build("{permitWaitingTimeSeconds: 3}");
  AddGroup(PodGroup("pg3", 4));
  Add(Member("p1-1", "pg3"));
  Add(MakePod().Name("p2").Req("memory", "100").Obj());
  Add(Member("p1-2", "pg3"));
  Add(MakePod().Name("p3").Req("memory", "100").Obj());
  Add(Member("p1-3", "pg3"));
  Settle();
  EXPECT_THAT(Bound(), ElementsAre("p2", "p3"));
  EXPECT_EQ(writer_.conditions.at("default/p1-1").message,
            "0/1 nodes are available: pre-filter pod p1-1 cannot find enough sibling pods, current "
            "pods number: 3, minMember of group: 4. preemption: 0/1 nodes are available: 1 "
            "Preemption is not helpful for scheduling., PodGroup default/pg3 gets rejected due to "
            "Pod p1-1 is unschedulable even after PostFilter");
}

// TestPodgroupBackoff: pg1 (six pods of 4 cpu, one node of 6) cannot fit; once rejected it backs
// off, and pg2's one pod binds.
TEST_F(CoschedulingSchedulerTest, ARejectedGroupBacksOffAndLetsAnotherBind) {
  Build("{permitWaitingTimeSeconds: 3, podGroupBackoffSeconds: 1}");
  s_->OnNodeAdd(MakeNode().Name("fake-node-1").Capacity({{"cpu", "6"}, {"pods", "32"}}).Ptr());
  for (int i = 2; i <= 4; ++i) {
    s_->OnNodeAdd(MakeNode()
                      .Name("fake-node-" + std::to_string(i))
                      .Capacity({{"cpu", "2"}, {"pods", "32"}})
                      .Ptr());
  }
  AddGroup(PodGroup("pg1-1", 6));
  AddGroup(PodGroup("pg2-1", 1));
  for (int i = 1; i <= 6; ++i) {
    Add(MakePod()
            .Name("t1-p1-" + std::to_string(i))
            .Label(kPodGroupLabel, "pg1-1")
            .Req("cpu", "4")
            .Obj());
  }
  Add(MakePod().Name("t1-p2-1").Label(kPodGroupLabel, "pg2-1").Req("cpu", "2").Obj());
  Settle();
  EXPECT_THAT(Bound(), ElementsAre("t1-p2-1"));
}

// --- In `ksched simulate`
// --------------------------------------------------------------------------

class CoschedulingSimulateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(Register(registry_).ok());
    absl::StatusOr<config::Configuration> cfg =
        config::LoadConfigFile(testing::SourcePath("examples/coscheduling/config.yaml"), registry_);
    ASSERT_TRUE(cfg.ok()) << cfg.status();
    cfg_ = *cfg;
    absl::StatusOr<std::vector<CustomResource>> kinds =
        sim::WatchedCustomResources(cfg_, registry_);
    ASSERT_TRUE(kinds.ok()) << kinds.status();
    kinds_ = *kinds;
  }
  absl::StatusOr<std::vector<api::Object>> Load(const std::string& path) {
    custom_.clear();
    return sim::LoadManifests({path}, sim::FieldValidation::kStrict, nullptr, kinds_, &custom_);
  }

  Registry registry_ = plugins::NewInTreeRegistry();
  config::Configuration cfg_;
  std::vector<CustomResource> kinds_;
  std::vector<sim::CustomManifestObject> custom_;
};

// examples/coscheduling: sweep's three pods of 3 CPUs on two nodes of 4: two would fit, and wait
// at Permit until the third fails and rejects them; none is placed. train fits whole.
TEST_F(CoschedulingSimulateTest, TheExampleGangIsPlacedWholeOrNotAtAll) {
  ASSERT_EQ(kinds_.size(), 1u);
  EXPECT_EQ(kinds_[0].resource, kPodGroupResource);
  absl::StatusOr<std::vector<api::Object>> objects =
      Load(testing::SourcePath("examples/coscheduling/cluster.yaml"));
  ASSERT_TRUE(objects.ok()) << objects.status();
  ASSERT_EQ(custom_.size(), 2u);
  EXPECT_EQ(custom_[0].object->metadata.namespace_, "default");
  absl::StatusOr<sim::SimulationResult> result =
      sim::Simulate(*std::move(objects), registry_, {.config = cfg_, .custom_objects = custom_});
  ASSERT_TRUE(result.ok()) << result.status();
  std::map<std::string, std::string> placed;
  for (const sim::PodOutcome& o : result->pods)
    placed[o.name] = o.status + " " + o.node.value_or("");
  EXPECT_EQ(placed["train-0"].substr(0, 9), "Scheduled");
  EXPECT_EQ(placed["train-1"].substr(0, 9), "Scheduled");
  EXPECT_EQ(placed["train-2"].substr(0, 9), "Scheduled");
  EXPECT_EQ(placed["web"].substr(0, 9), "Scheduled");
  for (const char* sweep : {"sweep-0", "sweep-1", "sweep-2"}) {
    EXPECT_EQ(placed[sweep].substr(0, 13), "Unschedulable") << sweep;
  }
  for (const sim::PodOutcome& o : result->pods) {
    if (o.name.starts_with("sweep")) {
      EXPECT_THAT(o.message,
                  ::testing::HasSubstr("PodGroup default/sweep gets rejected due to Pod"));
    }
  }
}

TEST_F(CoschedulingSimulateTest, APodGroupTheApiServerWouldRefuseIsRefusedByFileAndField) {
  const std::string path = ::testing::TempDir() + "/bad_podgroup.yaml";
  std::ofstream(path) << "apiVersion: scheduling.x-k8s.io/v1alpha1\nkind: PodGroup\n"
                         "metadata: {name: g}\nspec: {minMember: 0}\n";
  absl::StatusOr<std::vector<api::Object>> objects = Load(path);
  ASSERT_FALSE(objects.ok());
  EXPECT_EQ(
      std::string(objects.status().message()),
      path +
          ": document 1 (PodGroup g): PodGroup \"g\" is invalid: spec.minMember: Invalid value: 0: "
          "spec.minMember in body should be greater than or equal to 1");
  // Without Coscheduling, no plugin watches the kind: refused as the API server refuses a kind
  // whose CRD is not installed.
  objects = sim::LoadManifests({path});
  ASSERT_FALSE(objects.ok());
  EXPECT_EQ(std::string(objects.status().message()),
            path +
                ": document 1 (PodGroup g): no matches for kind \"PodGroup\" in version "
                "\"scheduling.x-k8s.io/v1alpha1\"");
}

// kubectl's strict field validation, which the API server makes by the CRD's schema: a
// misspelled field is refused, named as kubectl names it; with --validate=warn it is a warning
// and the PodGroup is read without it, as the API server prunes it.
TEST_F(CoschedulingSimulateTest, AFieldThePodGroupsSchemaLacksIsRefusedOrDropped) {
  const std::string path = ::testing::TempDir() + "/misspelled_podgroup.yaml";
  std::ofstream(path) << "apiVersion: scheduling.x-k8s.io/v1alpha1\nkind: PodGroup\n"
                         "metadata: {name: g}\n"
                         "spec: {minMembr: 3, minResources: {cpu: 2, example.com/gpu: 1}}\n"
                         "---\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\n"
                         "spec: {containers: [{name: c, image: pause}]}\n";
  absl::StatusOr<std::vector<api::Object>> objects = Load(path);
  ASSERT_FALSE(objects.ok());
  EXPECT_EQ(std::string(objects.status().message()),
            path +
                ": document 1 (PodGroup g): strict decoding error: unknown field "
                "\"spec.minMembr\"");

  std::vector<std::string> warnings;
  objects = sim::LoadManifests({path}, sim::FieldValidation::kWarn, &warnings, kinds_, &custom_);
  ASSERT_TRUE(objects.ok()) << objects.status();
  EXPECT_THAT(warnings, ::testing::ElementsAre(path + ": document 1 (PodGroup g): unknown field "
                                                      "\"spec.minMembr\""));
  ASSERT_EQ(custom_.size(), 1u);
  const nlohmann::json& spec = custom_[0].object->object["spec"];
  EXPECT_FALSE(spec.contains("minMembr"));
  EXPECT_EQ(spec["minResources"].size(), 2u);  // A map: any resource name is a field of it.
}

// PodGroupResource's schema holds exactly the fields of the CRD that deploys it.
TEST(PodGroupSchemaTest, HoldsTheFieldsOfTheCrd) {
  std::ifstream in(testing::SourcePath("contrib/coscheduling/crd.yaml"));
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  absl::StatusOr<std::vector<std::string>> docs = sim::ManifestDocuments(text, "crd.yaml");
  ASSERT_TRUE(docs.ok()) << docs.status();
  nlohmann::json crd;
  for (const std::string& doc : *docs) {
    nlohmann::json j = nlohmann::json::parse(doc);
    if (j.is_object() && j.value("kind", "") == "CustomResourceDefinition") crd = std::move(j);
  }
  ASSERT_TRUE(crd.is_object());
  // Each field's path, with "*" for a map's values.
  std::function<void(const nlohmann::json&, const std::string&, std::set<std::string>*)> paths =
      [&](const nlohmann::json& schema, const std::string& at, std::set<std::string>* out) {
        const nlohmann::json properties = schema.value("properties", nlohmann::json::object());
        for (const auto& [name, child] : properties.items()) {
          out->insert(at + name);
          paths(child, at + name + ".", out);
        }
        if (schema.contains("additionalProperties")) out->insert(at + "*");
      };
  std::set<std::string> want, have;
  paths(crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"], "", &want);
  paths(PodGroupResource().schema, "", &have);
  EXPECT_EQ(have, want);
  EXPECT_TRUE(have.contains("spec.minMember"));
}

}  // namespace
}  // namespace ksched::coscheduling
