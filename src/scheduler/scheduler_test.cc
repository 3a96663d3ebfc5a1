#include "src/scheduler/scheduler.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <stdexcept>
#include <thread>

#include "absl/synchronization/notification.h"
#include "fmt/format.h"
#include "ksched/async_bind_plugin.h"
#include "ksched/stable.h"
#include "src/api/decode.h"
#include "src/api/kinds.h"
#include "src/plugins/registry.h"
#include "src/scheduler/explain_records.h"
#include "src/sdk/stable.h"
#include "src/testing/builders.h"
#include "src/testing/fake_handle.h"

namespace ksched::scheduler {
namespace {

using ::testing::HasSubstr;
using testing::MakeNode;
using testing::MakePod;

// The default profile with `plugin` enabled at one more extension point (a member of
// config::Plugins), beside the defaults.
config::Configuration WithPluginAt(config::PluginSet config::Plugins::*point,
                                   const std::string& plugin) {
  config::Profile prof;
  (prof.plugins.*point).enabled.push_back({plugin, 0});
  config::MergeDefaultPlugins(prof);
  config::Configuration cfg;
  cfg.profiles.push_back(prof);
  return cfg;
}

// What an observer sees of each attempt, copied out of its views.
struct Seen {
  std::string pod, result, node;
  bool in_binding = false;
  int cluster_nodes = 0;
  std::vector<std::string> rejected, feasible;  // By the scheduling cycle's filters.
  size_t diagnosed = 0;                         // Nodes in `diagnosis`.
};

class RecordingObserver : public AttemptObserver {
 public:
  void Observe(const Attempt& a) override {
    Seen s{.pod = a.pod->metadata.name,
           .result = a.result,
           .node = a.node,
           .in_binding = a.in_binding,
           .cluster_nodes = a.cluster_nodes};
    if (a.filtered != nullptr) {
      for (const auto& [node, status] : a.filtered->node_to_status.statuses) {
        s.rejected.push_back(node);
      }
    }
    for (const NodeInfo* ni : a.feasible) s.feasible.push_back(ni->name());
    if (a.diagnosis != nullptr) s.diagnosed = a.diagnosis->node_to_status.statuses.size();
    seen.push_back(std::move(s));
  }
  std::vector<Seen> seen;
};

// A scheduler on a fake clock whose writes land in a RecordingWriter. Binds are fed back to the
// scheduler as the informer would.
class SchedulerTest : public ::testing::Test {
 protected:
  void SetUp() override { Build(config::DefaultConfiguration(), plugins::NewInTreeRegistry()); }

  void Build(config::Configuration cfg, Registry registry) {
    registry_ = std::move(registry);
    auto s = Scheduler::Create({.config = std::move(cfg),
                                .writer = &writer_,
                                .clock = &clock_,
                                .seed = 1,
                                .observers = {&explain_, &observer_},
                                .nominated_node_name_for_expectation = nominate_for_expectation_,
                                .opportunistic_batching = batching_,
                                .throttle = throttle_,
                                .generic_workload = generic_workload_,
                                .topology_aware_workload_scheduling = topology_aware_},
                               registry_);
    ASSERT_TRUE(s.ok()) << s.status();
    s_ = std::move(*s);
  }

  // Builds the scheduler with one more plugin, registered as `name` and enabled through
  // multiPoint beside the defaults, as the guides' compiled-in plugins are.
  void BuildWithPlugin(std::string_view name,
                       const std::function<std::unique_ptr<Plugin>(Handle&)>& make) {
    Registry r = plugins::NewInTreeRegistry();
    ASSERT_TRUE(
        r.Register(std::string(name),
                   [make](const PluginArgs&, Handle& h) -> absl::StatusOr<std::unique_ptr<Plugin>> {
                     return make(h);
                   })
            .ok());
    config::Configuration cfg = WithPluginAt(&config::Plugins::multi_point, std::string(name));
    Build(std::move(cfg), std::move(r));
  }

  // Schedules until no pod is ready, confirming binds through the informer path.
  void Drain() {
    while (s_->ScheduleOne()) ConfirmBinds();
  }
  void ConfirmBinds() {
    for (const auto& [key, node] : writer_.binds) {
      if (confirmed_.contains(key)) continue;
      confirmed_.insert(key);
      auto old_pod = pods_.at(key);
      auto bound = std::make_shared<api::Pod>(*old_pod);
      bound->spec.node_name = node;
      s_->OnPodUpdate(old_pod, bound);
    }
  }
  void AddPod(const MakePod& p) { AddPod(p.Obj()); }
  void AddPod(const api::Pod& p) {
    auto pod = std::make_shared<const api::Pod>(p);
    pods_[pod->metadata.namespace_ + "/" + pod->metadata.name] = pod;
    s_->OnPodAdd(pod);
  }
  // With GenericWorkload: node n1 of `cpu` CPUs, and the gang default/train of `min_count`.
  void GangCluster(const std::string& cpu, int min_count) {
    generic_workload_ = true;
    Build(config::DefaultConfiguration(), plugins::NewInTreeRegistry());
    s_->OnNodeAdd(MakeNode().Name("n1").Capacity({{"cpu", cpu}, {"pods", "110"}}).Ptr());
    SetObject(*s_, std::make_shared<const api::PodGroup>(api::PodGroup{
                       .metadata = {.name = "train", .namespace_ = "default", .uid = "g1"},
                       .gang_min_count = min_count}));
  }
  // A pod of 1 CPU of the gang default/train.
  void AddGangPod(const std::string& name) {
    api::Pod pod = MakePod().Name(name).Req("cpu", "1").Obj();
    pod.spec.pod_group_name = "train";
    AddPod(pod);
  }
  std::vector<std::string> EventsFor(const std::string& key, const std::string& reason) {
    std::vector<std::string> out;
    for (const auto& e : writer_.events) {
      if (e.pod == key && e.reason == reason) out.push_back(e.message);
    }
    return out;
  }

  FakeClock clock_;
  bool nominate_for_expectation_ = true;  // The NominatedNodeNameForExpectation gate.
  bool batching_ = true;                  // The OpportunisticBatching gate.
  bool generic_workload_ = false;         // The GenericWorkload gate.
  bool topology_aware_ = false;           // TopologyAwareWorkloadScheduling.
  std::function<void()> throttle_;        // SchedulerOptions::throttle.
  testing::RecordingWriter writer_;
  Registry registry_;
  ExplainRecords explain_;  // Every attempt's, as `ksched run` keeps them.
  RecordingObserver observer_;
  std::unique_ptr<Scheduler> s_;
  std::map<std::string, std::shared_ptr<const api::Pod>> pods_;
  std::set<std::string> confirmed_;
};

TEST_F(SchedulerTest, BindsAndRecordsTheScheduledEvent) {
  s_->OnNodeAdd(MakeNode().Name("n1").Capacity({{"cpu", "2"}, {"pods", "110"}}).Ptr());
  AddPod(MakePod().Name("p").Req("cpu", "1"));
  Drain();
  EXPECT_EQ(writer_.binds.at("default/p"), "n1");
  EXPECT_THAT(EventsFor("default/p", "Scheduled"),
              ::testing::ElementsAre("Successfully assigned default/p to n1"));
  EXPECT_FALSE(s_->cache().IsAssumedPod("p"));  // confirmed by the informer
  EXPECT_EQ(s_->cache().NodeOf("p"), "n1");
  // Nothing to do before the bind: no nomination is written.
  EXPECT_FALSE(writer_.nominated.contains("default/p"));
}

// `ksched run` holds each cycle while its API client has many requests outstanding: the throttle
// runs before each pod is taken, and a pod it holds is not scheduled meanwhile.
TEST_F(SchedulerTest, TheThrottleRunsBeforeEachCycle) {
  std::vector<size_t> binds_before;  // How many pods were bound when it ran.
  throttle_ = [&] { binds_before.push_back(writer_.binds.size()); };
  Build(config::DefaultConfiguration(), plugins::NewInTreeRegistry());
  s_->OnNodeAdd(MakeNode().Name("n1").Capacity({{"cpu", "2"}, {"pods", "110"}}).Ptr());
  AddPod(MakePod().Name("a").Req("cpu", "1"));
  AddPod(MakePod().Name("b").Req("cpu", "1"));
  Drain();
  EXPECT_EQ(writer_.binds.size(), 2u);
  // Before a, before b, and before the pop that found none.
  EXPECT_THAT(binds_before, ::testing::ElementsAre(0, 1, 2));
}

// A gang placed with a pod left over: that pod is tried again at once, on its own (where it may
// preempt), not after a backoff, as upstream requeues a placed group's other pods.
TEST_F(SchedulerTest, APlacedGangsLeftoverPodIsTriedAgainAtOnce) {
  GangCluster("2", 2);
  for (const char* name : {"t-0", "t-1", "t-2"}) AddGangPod(name);
  Drain();
  EXPECT_EQ(writer_.binds.size(), 2u);
  // Once in the group's cycle, once alone right after; then it backs off.
  EXPECT_THAT(EventsFor("default/t-2", "FailedScheduling"),
              ::testing::ElementsAre("0/1 nodes are available: 1 Insufficient cpu.",
                                     "0/1 nodes are available: 1 Insufficient cpu."));
  EXPECT_THAT(s_->metrics_registry().Text(),
              HasSubstr("scheduler_podgroup_schedule_attempts_total{profile=\"default-scheduler\","
                        "result=\"scheduled\"} 1\n"));
  // The leftover's own failure does not take the group's condition back to False, though the
  // True is not back from the API server yet (here, never).
  EXPECT_THAT(writer_.group_conditions, ::testing::ElementsAre("default/train True Scheduled: "));
}

// A gang's pods arriving one by one wait at PreEnqueue until the last; each arrival turns the ones
// waiting down again (counted as upstream counts them), and the last one lets them all through.
TEST_F(SchedulerTest, AGangArrivingPodByPodWaitsForItsLastPodThenIsPlacedWhole) {
  GangCluster("8", 5);
  for (int i = 0; i < 5; ++i) {
    AddGangPod("t-" + std::to_string(i));
    Drain();
    EXPECT_EQ(writer_.binds.size(), i < 4 ? 0u : 5u) << i;
  }
  EXPECT_THAT(s_->metrics_registry().Text(),
              HasSubstr("scheduler_queue_incoming_pods_total{event=\"UnscheduledPodAdd\",queue="
                        "\"unschedulable\"} 14\n"));
}

// What `ksched explain` reads of a gang's pod: what its group's cycle decided for the group, as the
// PodGroup's condition says it.
TEST_F(SchedulerTest, AGangsPodsRecordsSayWhatTheirGroupCycleDecided) {
  GangCluster("2", 3);
  for (const char* name : {"t-0", "t-1", "t-2"}) AddGangPod(name);
  Drain();
  for (const char* name : {"t-0", "t-2"}) {
    std::optional<nlohmann::ordered_json> j = explain_.Json("default", name);
    ASSERT_TRUE(j.has_value()) << name;
    EXPECT_EQ((*j)["podGroup"]["name"], "default/train") << name;
    EXPECT_EQ((*j)["podGroup"]["reason"], "Unschedulable") << name;
    EXPECT_EQ((*j)["podGroup"]["message"],
              "minCount (3) cannot be satisfied: 2 scheduled, 0 remaining, pod group preemption: "
              "No preemption victims found for incoming preemptor")
        << name;
  }
}

TEST_F(SchedulerTest, MetricsCountAttemptsQueuesAndFilterEvaluations) {
  s_->OnNodeAdd(MakeNode().Name("n1").Capacity({{"cpu", "2"}, {"pods", "110"}}).Ptr());
  s_->OnNodeAdd(MakeNode().Name("n2").Capacity({{"cpu", "1"}, {"pods", "110"}}).Ptr());
  s_->OnNodeAdd(
      MakeNode().Name("cordoned").Unschedulable().Capacity({{"cpu", "8"}, {"pods", "110"}}).Ptr());
  AddPod(MakePod().Name("fits").Req("cpu", "2"));
  AddPod(MakePod().Name("big").Req("cpu", "4"));
  Drain();
  const std::string text = s_->metrics_registry().Text();
  auto has = [&](const std::string& line) { EXPECT_THAT(text, HasSubstr(line + "\n")); };
  has("scheduler_schedule_attempts_total{profile=\"default-scheduler\",result=\"scheduled\"} 1");
  has("scheduler_schedule_attempts_total{profile=\"default-scheduler\",result=\"unschedulable\"} "
      "1");
  has("scheduler_pending_pods{queue=\"unschedulable\"} 1");
  has("scheduler_pending_pods{queue=\"active\"} 0");
  has("scheduler_queue_incoming_pods_total{event=\"UnscheduledPodAdd\",queue=\"active\"} 2");
  has("scheduler_queue_incoming_pods_total{event=\"ScheduleAttemptFailure\",queue="
      "\"unschedulable\"}"
      " 1");
  // Entities: the new pods; not "big" going where its queueing hint sent it.
  has("scheduler_queue_incoming_entities_total{event=\"UnscheduledPodAdd\",queue=\"active\","
      "type=\"pod\"} 2");
  EXPECT_THAT(text, ::testing::Not(HasSubstr("scheduler_queue_incoming_entities_total{event="
                                             "\"ScheduleAttemptFailure\"")));
  has("scheduler_unschedulable_pods{plugin=\"NodeResourcesFit\",profile=\"default-scheduler\"} 1");
  has("scheduler_cache_size{type=\"nodes\"} 3");
  has("scheduler_cache_size{type=\"pods\"} 1");
  has("scheduler_pod_scheduling_attempts_count 1");
  // Each pod was filtered on the three nodes; NodeUnschedulable (after NodeName, which passes
  // every node) stopped the cordoned node both times, so the later filters ran on two nodes per
  // pod.
  has("scheduler_plugin_evaluation_total{extension_point=\"Filter\",plugin=\"NodeUnschedulable\","
      "profile=\"default-scheduler\"} 6");
  has("scheduler_plugin_evaluation_total{extension_point=\"Filter\",plugin=\"NodeResourcesFit\","
      "profile=\"default-scheduler\"} 4");
  EXPECT_THAT(text, HasSubstr("scheduler_framework_extension_point_duration_seconds_count{"
                              "extension_point=\"Bind\",profile=\"default-scheduler\","
                              "status=\"Success\"} 1"));

  // The unschedulable pod leaves the gauge when a node that fits it arrives.
  s_->OnNodeAdd(MakeNode().Name("n3").Capacity({{"cpu", "8"}, {"pods", "110"}}).Ptr());
  Drain();
  EXPECT_THAT(s_->metrics_registry().Text(),
              HasSubstr("scheduler_unschedulable_pods{plugin=\"NodeResourcesFit\","
                        "profile=\"default-scheduler\"} 0\n"));
}

TEST_F(SchedulerTest, UnschedulablePodGetsEventAndConditionThenFitsANewNode) {
  s_->OnNodeAdd(MakeNode().Name("small").Capacity({{"cpu", "1"}, {"pods", "110"}}).Ptr());
  AddPod(MakePod().Name("big").Req("cpu", "2"));
  Drain();
  EXPECT_THAT(EventsFor("default/big", "FailedScheduling"),
              ::testing::ElementsAre("0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 "
                                     "nodes are available: 1 "
                                     "Preemption is not helpful for scheduling."));
  const api::PodCondition& c = writer_.conditions.at("default/big");
  EXPECT_EQ(c.type, "PodScheduled");
  EXPECT_EQ(c.status, "False");
  EXPECT_EQ(c.reason, "Unschedulable");
  EXPECT_EQ(c.message,
            "0/1 nodes are available: 1 Insufficient cpu. preemption: "
            "0/1 nodes are available: 1 Preemption is not helpful for scheduling.");
  EXPECT_EQ(s_->queue().Counts().unschedulable, 1u);

  // A node that fits: NodeResourcesFit's hint requeues the pod.
  s_->OnNodeAdd(MakeNode().Name("large").Capacity({{"cpu", "4"}, {"pods", "110"}}).Ptr());
  Drain();
  EXPECT_EQ(writer_.binds.at("default/big"), "large");
}

// A plugin of the stable ABI (ksched/stable.h), queueing hint included, in a running scheduler:
// TeamOnly keeps a pod on nodes of its team, and its hint brings the pod back only for such a node.
namespace team_only {

const ksched_host* const host = &stable::Host();
constexpr ksched_str kTeam = {"team", 4};

bool SameTeam(const ksched_pod* pod, const ksched_node* node) {
  ksched_str want, have;
  return node != nullptr && host->meta_label(host->pod_meta(pod), kTeam, &want) &&
         host->meta_label(host->node_meta(node), kTeam, &have) &&
         std::string_view(want.data, want.size) == std::string_view(have.data, have.size);
}
int32_t Filter(void*, const ksched_cycle_state*, const ksched_pod* pod,
               const ksched_node_info* node, ksched_status* status) {
  if (SameTeam(pod, host->node_info_node(node))) return KSCHED_SUCCESS;
  host->status_add_reason(status, {"node(s) of another team", 23});
  return KSCHED_UNSCHEDULABLE_AND_UNRESOLVABLE;
}
int32_t NodeAdds(void*, ksched_events* events) {
  host->events_add(events, {"Node", 4}, KSCHED_ACTION_ADD);
  return KSCHED_SUCCESS;
}
int Hint(void*, size_t, const ksched_pod* pod, const ksched_event* event) {
  return SameTeam(pod, host->event_new_node(event));
}
const ksched_plugin* Make(const ksched_host*, ksched_handle*, const ksched_args*, ksched_status*) {
  static const ksched_plugin plugin = {.size = sizeof(ksched_plugin),
                                       .events_to_register = NodeAdds,
                                       .filter = Filter,
                                       .queueing_hint = Hint};
  return &plugin;
}

}  // namespace team_only

TEST_F(SchedulerTest, AStablePluginsQueueingHintDecidesWhichNewNodeBringsItsPodBack) {
  const ksched_plugin_factory factory = {"TeamOnly", team_only::Make};
  const ksched_stable_library library = {sizeof(ksched_stable_library), KSCHED_STABLE_ABI, &factory,
                                         1};
  Registry r = plugins::NewInTreeRegistry();
  ASSERT_TRUE(stable::RegisterLibrary(library, r).ok());
  Build(WithPluginAt(&config::Plugins::multi_point, "TeamOnly"), std::move(r));
  s_->OnNodeAdd(MakeNode().Name("plain").Capacity({{"cpu", "4"}, {"pods", "110"}}).Ptr());
  AddPod(MakePod().Name("web").Label("team", "blue").Req("cpu", "1"));
  Drain();
  EXPECT_EQ(EventsFor("default/web", "FailedScheduling").size(), 1u);
  EXPECT_EQ(s_->queue().Counts().unschedulable, 1u);

  // Another team's node: the hint leaves the pod where it is, and it is not tried again.
  s_->OnNodeAdd(MakeNode().Name("red").Label("team", "red").Capacity({{"cpu", "4"}}).Ptr());
  Drain();
  EXPECT_EQ(s_->queue().Counts().unschedulable, 1u);
  EXPECT_EQ(EventsFor("default/web", "FailedScheduling").size(), 1u);

  // Its team's node: the hint queues it, and it lands there.
  s_->OnNodeAdd(MakeNode()
                    .Name("blue")
                    .Label("team", "blue")
                    .Capacity({{"cpu", "4"}, {"pods", "110"}})
                    .Ptr());
  Drain();
  EXPECT_EQ(writer_.binds.at("default/web"), "blue");
}

// A pod with a resource claim waits until the claim exists, then gets a device and is bound to
// its node; the claim says so, and the device is not given twice.
TEST_F(SchedulerTest, APodWithAClaimWaitsForItThenGetsADevice) {
  s_->OnNodeAdd(MakeNode().Name("n1").Capacity({{"cpu", "2"}, {"pods", "110"}}).Ptr());
  s_->OnNodeAdd(MakeNode().Name("n2").Capacity({{"cpu", "2"}, {"pods", "110"}}).Ptr());
  DraObjects& dra = s_->listers().dra;
  writer_.dra = &dra;
  api::DeviceClass gpu;
  gpu.metadata.name = "gpu";
  SetObject(*s_, std::make_shared<const api::DeviceClass>(gpu));
  api::ResourceSlice slice;
  slice.metadata.name = "n2-gpu";
  slice.driver = "gpu.example.com";
  slice.pool = "n2";
  slice.pool_slice_count = 1;
  slice.node_name = "n2";
  slice.devices.push_back({.name = "g0"});
  SetObject(*s_, std::make_shared<const api::ResourceSlice>(slice));
  auto claim_pod = [](std::string name, std::string claim) {
    api::Pod pod = MakePod().Name(name).Obj();
    pod.metadata.uid = name;
    pod.spec.resource_claims.push_back({.name = "gpu", .resource_claim_name = claim});
    return pod;
  };
  auto add_claim = [&](std::string name) {
    api::ResourceClaim claim;
    claim.metadata = {.name = name, .namespace_ = "default", .uid = name, .resource_version = "1"};
    claim.spec.requests.push_back(
        {.name = "gpu", .exactly = api::DeviceSubRequest{.device_class_name = "gpu"}});
    SetObject(*s_, std::make_shared<const api::ResourceClaim>(claim));
  };
  AddPod(claim_pod("first", "one"));
  Drain();
  EXPECT_TRUE(writer_.binds.empty());
  EXPECT_EQ(s_->queue().Counts().gated, 1u);  // DynamicResources' PreEnqueue holds it back.

  add_claim("one");
  Drain();
  EXPECT_EQ(writer_.binds.at("default/first"), "n2");
  const api::ResourceClaim& written = writer_.claims.at("default/one");
  ASSERT_TRUE(written.allocation.has_value());
  EXPECT_EQ(written.allocation->results.at(0).device, "g0");
  EXPECT_EQ(written.reserved_for.at(0).name, "first");

  // The only device is taken: the next claim's pod stays pending, and says why.
  add_claim("two");
  AddPod(claim_pod("second", "two"));
  Drain();
  EXPECT_FALSE(writer_.binds.contains("default/second"));
  EXPECT_EQ(writer_.conditions.at("default/second").message,
            "0/2 nodes are available: 2 cannot allocate all claims. "
            "preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.");
}

// A pod whose claim does not exist waits with upstream's message; the claim's creation (bound to
// a PV on one node) brings it back, and it goes to that node.
TEST_F(SchedulerTest, AMissingClaimKeepsThePodPendingUntilTheClaimAppears) {
  for (const char* name : {"n1", "n2"}) {
    s_->OnNodeAdd(MakeNode()
                      .Name(name)
                      .Label("kubernetes.io/hostname", name)
                      .Capacity({{"cpu", "2"}, {"pods", "110"}})
                      .Ptr());
  }
  api::Pod pod = MakePod().Name("db").Obj();
  pod.spec.volumes.push_back(
      {.name = "data", .source = "persistentVolumeClaim", .claim_name = "data"});
  AddPod(pod);
  Drain();
  // As kube-scheduler's: DynamicResources' PostFilter fails ("not found") when an earlier
  // PreFilter rejected the pod, and DefaultPreemption is not tried.
  const std::string want =
      "0/2 nodes are available: persistentvolumeclaim \"data\" not found. not found";
  EXPECT_TRUE(writer_.binds.empty());
  EXPECT_THAT(EventsFor("default/db", "FailedScheduling"), ::testing::ElementsAre(want));
  // VolumeRestrictions' PreFilter, the first to look the claim up, rejects it, as upstream's.
  EXPECT_THAT(s_->metrics_registry().Text(),
              HasSubstr("scheduler_unschedulable_pods{plugin=\"VolumeRestrictions\","
                        "profile=\"default-scheduler\"} 1\n"));

  auto pv = std::make_shared<api::PersistentVolume>();
  pv->metadata.name = "pv-1";
  pv->node_affinity =
      api::NodeSelector{{{.match_expressions = {{"kubernetes.io/hostname", "In", {"n2"}}}}}};
  pv->phase = "Bound";
  SetObject(*s_, pv);
  auto pvc = std::make_shared<api::PersistentVolumeClaim>();
  pvc->metadata = {
      .name = "data", .namespace_ = "default", .annotations = {{api::kAnnBindCompleted, "yes"}}};
  pvc->volume_name = "pv-1";
  SetObject(*s_, pvc);
  clock_.Advance(absl::Seconds(10));  // Past its backoff.
  Drain();
  EXPECT_EQ(writer_.binds.at("default/db"), "n2");
}

// Rejects every pod, and asks to hear of every kind of the table that has cluster events
// (src/api/kinds.h): its hint records each event's label and whether the object reached it.
class HearsEveryKind : public FilterPlugin, public EnqueueExtensions {
 public:
  explicit HearsEveryKind(std::vector<std::string>* heard) : heard_(heard) {}
  std::string_view Name() const override { return "HearsEveryKind"; }
  Status Filter(const CycleState&, const api::Pod&, const NodeInfo&) override {
    return Status::UnschedulableAndUnresolvable("not yet");
  }
  std::vector<ClusterEventWithHint> EventsToRegister() const override {
    std::vector<ClusterEventWithHint> out;
    api::ForEachKind([&]<typename T>() {
      constexpr const api::KindInfo<T>& kind = api::kKind<T>;
      if constexpr (kind.change != nullptr) {
        out.push_back(
            {{*kind.event, kAdd}, [heard = heard_](const api::Pod&, const ClusterEventData& e) {
               const T* obj = (e.storage.*kind.change).new_obj;
               heard->push_back(e.event.label + ":" +
                                (obj != nullptr ? obj->metadata.name : "null"));
               return QueueingHint::kQueue;
             }});
      }
    });
    return out;
  }

 private:
  std::vector<std::string>* heard_;
};

// Each kind plugins hear of reaches them, when a source sets it, as upstream's one generic handler
// hands it on: the event labelled "<Kind>Add", with the object, and the pod moved (the metric).
TEST_F(SchedulerTest, EveryKindWithEventsReachesThePluginsThatRegisteredForIt) {
  std::vector<std::string> heard;
  BuildWithPlugin("HearsEveryKind",
                  [&](Handle&) { return std::make_unique<HearsEveryKind>(&heard); });
  s_->OnNodeAdd(MakeNode().Name("n1").Capacity({{"cpu", "2"}, {"pods", "110"}}).Ptr());
  AddPod(MakePod().Name("p"));
  std::vector<std::string> want;
  api::ForEachKind([&]<typename T>() {
    if constexpr (api::kKind<T>.change != nullptr) {
      Drain();  // Rejected again: back among the unschedulable pods.
      auto obj = std::make_shared<T>();
      obj->metadata = {.name = "x", .namespace_ = api::kKind<T>.namespaced ? "default" : ""};
      SetObject(*s_, obj);
      const std::string label = fmt::format("{}Add", api::kKind<T>.name);
      want.push_back(label + ":x");
      EXPECT_THAT(
          s_->metrics_registry().Text(),
          HasSubstr(fmt::format("scheduler_queue_incoming_pods_total{{event=\"{}\"", label)));
      clock_.Advance(absl::Seconds(60));  // Past its backoff.
    }
  });
  EXPECT_EQ(heard, want);
  EXPECT_EQ(want.size(), 11u);  // The storage, DRA and workload kinds.
}

// Rejects a pod until a Foo (foos.v1.example.com) of its name exists, and hears of Foos' adds.
class NeedsFoo : public PreFilterPlugin, public EnqueueExtensions {
 public:
  explicit NeedsFoo(Handle& h)
      : foos_(h.WatchCustomResource({.resource = "foos.v1.example.com", .kind = "Foo"})) {}
  std::string_view Name() const override { return "NeedsFoo"; }
  Status PreFilter(CycleState&, const api::Pod& pod, const std::vector<const NodeInfo*>&,
                   PreFilterResult*) override {
    if (foos_.Get(pod.metadata.namespace_, pod.metadata.name) == nullptr) {
      return Status::Unschedulable("no foo");
    }
    return Status();
  }
  std::vector<ClusterEventWithHint> EventsToRegister() const override {
    return {{{EventResource::kCustom, kAdd, "", "foos.v1.example.com"}, nullptr}};
  }

 private:
  const CustomObjectLister& foos_;
};

// A custom resource a plugin watches: its store is the plugin's lister, and a change of it moves
// the pods the plugin rejected, as upstream's dynamic informers do, under the label
// "<resource><action>"; a change of another resource does not.
TEST_F(SchedulerTest, ACustomResourceChangeMovesThePodsOfThePluginsThatWatchIt) {
  BuildWithPlugin("NeedsFoo", [&](Handle& h) { return std::make_unique<NeedsFoo>(h); });
  s_->OnNodeAdd(MakeNode().Name("n1").Capacity({{"cpu", "2"}, {"pods", "110"}}).Ptr());
  AddPod(MakePod().Name("p"));
  Drain();
  EXPECT_EQ(writer_.conditions.at("default/p").message,
            "0/1 nodes are available: no foo. preemption: 0/1 nodes are available: 1 No "
            "preemption victims found for incoming pod.");
  CustomObjects::Store* foos = s_->listers().custom.Find("foos.v1.example.com");
  ASSERT_NE(foos, nullptr);
  EXPECT_EQ(foos->resource().kind, "Foo");
  EXPECT_EQ(s_->listers().custom.FindKind("example.com/v1", "Foo"), foos);
  auto bar = std::make_shared<CustomObject>();
  bar->metadata = {.name = "p", .namespace_ = "default"};
  s_->OnCustomObjectChange({.resource = "bars.v1.example.com"}, nullptr, bar);
  clock_.Advance(absl::Seconds(60));
  EXPECT_FALSE(s_->ScheduleOne());  // Not an event NeedsFoo registered.
  foos->objects().Set(bar);
  s_->OnCustomObjectChange(foos->resource(), nullptr, bar);
  EXPECT_THAT(s_->metrics_registry().Text(),
              HasSubstr("scheduler_queue_incoming_pods_total{event=\"foos.v1.example.comAdd\""));
  Drain();
  EXPECT_EQ(writer_.binds.at("default/p"), "n1");
}

// Handle::pods(): every pod that is not terminal, pending for any scheduler or on a node, by
// namespace, as upstream's pod lister.
TEST_F(SchedulerTest, ThePodListerHoldsThePodsThatAreNotTerminal) {
  const PodLister* lister = nullptr;
  BuildWithPlugin("NeedsFoo", [&](Handle& h) {
    lister = &h.pods();
    return std::make_unique<NeedsFoo>(h);
  });
  ASSERT_NE(lister, nullptr);
  auto names = [&](std::string_view ns) {
    std::vector<std::string> out;
    for (const auto& p : lister->List(ns)) out.push_back(p->metadata.name);
    std::sort(out.begin(), out.end());
    return out;
  };
  AddPod(MakePod().Name("mine"));
  AddPod(MakePod().Name("theirs").SchedulerName("other-scheduler"));
  AddPod(MakePod().Name("bound").Node("n1"));
  AddPod(MakePod().Name("elsewhere").Namespace("ml"));
  api::Pod done = MakePod().Name("done").Obj();
  done.status.phase = "Succeeded";
  AddPod(done);
  EXPECT_THAT(names("default"), ::testing::ElementsAre("bound", "mine", "theirs"));
  EXPECT_THAT(names("ml"), ::testing::ElementsAre("elsewhere"));
  auto finished = std::make_shared<api::Pod>(*pods_.at("default/theirs"));
  finished->status.phase = "Failed";
  s_->OnPodUpdate(pods_.at("default/theirs"), finished);
  s_->OnPodDelete(pods_.at("default/bound"));
  EXPECT_THAT(names("default"), ::testing::ElementsAre("mine"));
}

// PodTopologySpread is a default plugin: a pod whose zone spread the free node would break waits
// with its message; a pod its selector matches, placed in the other zone, requeues it (only
// PodTopologySpread asks for assigned pods' arrivals) and evens the zones out.
TEST_F(SchedulerTest, ASpreadConstraintKeepsThePodPendingUntilTheZonesEvenOut) {
  s_->OnNodeAdd(MakeNode()
                    .Name("a")
                    .Label("topology.kubernetes.io/zone", "z1")
                    .Capacity({{"cpu", "2"}, {"pods", "110"}})
                    .Ptr());
  s_->OnNodeAdd(MakeNode()
                    .Name("b")
                    .Label("topology.kubernetes.io/zone", "z2")
                    .Capacity({{"cpu", "1"}, {"pods", "110"}})
                    .Ptr());
  AddPod(MakePod().Name("web-0").Label("app", "web").Node("a"));
  api::Pod pod = MakePod().Name("web-1").Label("app", "web").Req("cpu", "2").Obj();
  pod.spec.topology_spread_constraints.push_back(
      {.max_skew = 1,
       .topology_key = "topology.kubernetes.io/zone",
       .when_unsatisfiable = "DoNotSchedule",
       .label_selector = api::LabelSelector{.match_labels = {{"app", "web"}}}});
  AddPod(pod);
  Drain();
  const std::string want =
      "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) didn't match pod topology spread "
      "constraints. preemption: 0/2 nodes are available: 1 No "
      "preemption victims found for incoming pod, 1 Preemption is not helpful for scheduling.";
  EXPECT_TRUE(writer_.binds.empty());
  EXPECT_THAT(EventsFor("default/web-1", "FailedScheduling"), ::testing::ElementsAre(want));
  EXPECT_EQ(s_->queue().Counts().unschedulable, 1u);
  // A pod the selector does not match arrives: nothing moves.
  AddPod(MakePod().Name("db-0").Label("app", "db").Node("b"));
  EXPECT_EQ(s_->queue().Counts().unschedulable, 1u);
  // A web pod arrives in z2: the zones hold one each, and web-1 fits on a.
  AddPod(MakePod().Name("web-2").Label("app", "web").Node("b"));
  EXPECT_EQ(s_->queue().Counts().unschedulable, 0u);
  clock_.Advance(absl::Seconds(10));
  Drain();
  EXPECT_EQ(writer_.binds.at("default/web-1"), "a");
}

// A running pod's required anti-affinity keeps the pods it selects off its domain, and only those.
TEST_F(SchedulerTest, AnExistingPodsAntiAffinityKeepsOnlyThePodsItSelectsOffItsDomain) {
  s_->OnNodeAdd(MakeNode().Name("n1").Capacity({{"cpu", "2"}, {"pods", "110"}}).Ptr());
  s_->OnNodeAdd(MakeNode().Name("n2").Capacity({{"cpu", "2"}, {"pods", "110"}}).Ptr());
  s_->OnPodAdd(MakePod()
                   .Name("db-0")
                   .Label("app", "db")
                   .Node("n1")
                   .RequiredAntiAffinity("app", "db", "kubernetes.io/hostname")
                   .Ptr());
  AddPod(MakePod().Name("db-1").Label("app", "db"));
  Drain();
  EXPECT_EQ(writer_.binds.at("default/db-1"), "n2");
  // db-2 goes to n2 as well: only db-0 has the rule, and its domain is n1 alone.
  AddPod(MakePod().Name("db-2").Label("app", "db"));
  AddPod(MakePod().Name("db-elsewhere").Namespace("other").Label("app", "db"));
  Drain();
  EXPECT_EQ(writer_.binds.at("default/db-2"), "n2");
  EXPECT_TRUE(writer_.binds.contains("other/db-elsewhere"));  // The term's scope is its namespace.
}

TEST(SchedulerCreateTest, AnExtenderThatCannotBeBuiltStopsTheStartWithUpstreamsWords) {
  testing::RecordingWriter writer;
  config::Configuration cfg = config::DefaultConfiguration();
  cfg.extenders.push_back({{"urlPrefix", "ftp://127.0.0.1:8888/"}});
  auto s = Scheduler::Create({.config = cfg, .writer = &writer}, plugins::NewInTreeRegistry());
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().message(),
            "couldn't build extenders: extender ftp://127.0.0.1:8888/: urlPrefix must start with "
            "http:// or https://");
  api::KeepObjectJson(false);
}

TEST_F(SchedulerTest, NodeThatStillDoesNotFitLeavesThePodAlone) {
  s_->OnNodeAdd(MakeNode().Name("small").Capacity({{"cpu", "1"}, {"pods", "110"}}).Ptr());
  AddPod(MakePod().Name("big").Req("cpu", "2"));
  Drain();
  s_->OnNodeAdd(MakeNode().Name("small2").Capacity({{"cpu", "1"}, {"pods", "110"}}).Ptr());
  EXPECT_EQ(s_->queue().Counts().unschedulable, 1u);
  EXPECT_EQ(s_->queue().Counts().active + s_->queue().Counts().backoff, 0u);
}

TEST_F(SchedulerTest, FailedBindLeavesNoPhantomUsageAndRetries) {
  s_->OnNodeAdd(MakeNode().Name("n1").Capacity({{"cpu", "2"}, {"pods", "110"}}).Ptr());
  writer_.bind_error = absl::NotFoundError("pods \"p\" not found");
  AddPod(MakePod().Name("p").Req("cpu", "2"));
  ASSERT_TRUE(s_->ScheduleOne());
  EXPECT_EQ(s_->cache().NodeOf("p"), "");  // forgotten
  EXPECT_EQ(writer_.conditions.at("default/p").reason, "SchedulerError");
  EXPECT_THAT(EventsFor("default/p", "FailedScheduling").at(0),
              HasSubstr("running Bind plugin \"DefaultBinder\""));
  // The pod is retried after its backoff and binds once the API server accepts it.
  writer_.bind_error = absl::OkStatus();
  clock_.Advance(absl::Seconds(2));
  s_->queue().FlushBackoffQCompleted();
  Drain();
  EXPECT_EQ(writer_.binds.at("default/p"), "n1");
}

// Observers hear of each scheduling cycle once, at its end, with what its filters found; and of
// a failed bind once more, with the one node it tried. `ksched explain` then shows the failure.
TEST_F(SchedulerTest, ObserversSeeEachCycleOnceAndAFailedBindOnceMore) {
  s_->OnNodeAdd(MakeNode().Name("n1").Capacity({{"cpu", "2"}, {"pods", "110"}}).Ptr());
  s_->OnNodeAdd(MakeNode().Name("n2").Capacity({{"cpu", "1"}, {"pods", "110"}}).Ptr());
  writer_.bind_error = absl::NotFoundError("pods \"p\" not found");
  AddPod(MakePod().Name("p").Req("cpu", "2"));
  ASSERT_TRUE(s_->ScheduleOne());
  s_->WaitForBindings();
  ASSERT_EQ(observer_.seen.size(), 2u);
  const Seen& decided = observer_.seen[0];
  EXPECT_EQ(decided.result, "Scheduled");
  EXPECT_EQ(decided.node, "n1");
  EXPECT_FALSE(decided.in_binding);
  EXPECT_EQ(decided.cluster_nodes, 2);
  EXPECT_THAT(decided.rejected, ::testing::ElementsAre("n2"));
  EXPECT_THAT(decided.feasible, ::testing::ElementsAre("n1"));
  const Seen& failed = observer_.seen[1];
  EXPECT_EQ(failed.result, "SchedulerError");
  EXPECT_TRUE(failed.in_binding);
  EXPECT_EQ(failed.cluster_nodes, 0);
  EXPECT_TRUE(failed.rejected.empty());
  EXPECT_EQ(explain_.Json("default", "p")->at("result"), "SchedulerError");

  // An unschedulable pod: one cycle, one attempt, every node diagnosed.
  AddPod(MakePod().Name("q").Req("cpu", "3"));
  ASSERT_TRUE(s_->ScheduleOne());
  ASSERT_EQ(observer_.seen.size(), 3u);
  EXPECT_EQ(observer_.seen[2].pod, "q");
  EXPECT_EQ(observer_.seen[2].result, "Unschedulable");
  EXPECT_EQ(observer_.seen[2].diagnosed, 2u);
  EXPECT_THAT(observer_.seen[2].rejected, ::testing::UnorderedElementsAre("n1", "n2"));
}

TEST_F(SchedulerTest, PodsOfOtherSchedulersAreLeftAlone) {
  s_->OnNodeAdd(MakeNode().Name("n1").Capacity({{"cpu", "2"}, {"pods", "110"}}).Ptr());
  AddPod(MakePod().Name("theirs").SchedulerName("other-scheduler"));
  EXPECT_FALSE(s_->ScheduleOne());
  EXPECT_TRUE(writer_.binds.empty());
  EXPECT_TRUE(writer_.events.empty());
}

TEST_F(SchedulerTest, NoNodesMessage) {
  AddPod(MakePod().Name("p"));
  Drain();
  EXPECT_EQ(writer_.conditions.at("default/p").message, "no nodes available to schedule pods");
}

TEST_F(SchedulerTest, BoundPodOfAnotherSchedulerCountsOnItsNode) {
  s_->OnNodeAdd(MakeNode().Name("n1").Capacity({{"cpu", "2"}, {"pods", "110"}}).Ptr());
  s_->OnPodAdd(MakePod().Name("theirs").SchedulerName("other").Node("n1").Req("cpu", "2").Ptr());
  AddPod(MakePod().Name("mine").Req("cpu", "1"));
  Drain();
  EXPECT_EQ(writer_.conditions.at("default/mine").message,
            "0/1 nodes are available: 1 Insufficient cpu. preemption: "
            "0/1 nodes are available: 1 No preemption victims found for incoming pod.");
  // Deleting the other pod frees the room: NodeResourcesFit requeues on pod deletion.
  s_->OnPodDelete(MakePod().Name("theirs").SchedulerName("other").Node("n1").Req("cpu", "2").Ptr());
  Drain();
  EXPECT_EQ(writer_.binds.at("default/mine"), "n1");
}

TEST_F(SchedulerTest, TiesAreBrokenAtRandomAmongTheBest) {
  std::set<std::string> chosen;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    testing::RecordingWriter w;
    auto s = Scheduler::Create({.writer = &w, .clock = &clock_, .seed = seed}, registry_);
    ASSERT_TRUE(s.ok());
    for (const char* n : {"a", "b", "c"}) {
      (*s)->OnNodeAdd(MakeNode().Name(n).Capacity({{"cpu", "2"}, {"pods", "110"}}).Ptr());
    }
    (*s)->OnPodAdd(MakePod().Name("p").Ptr());
    while ((*s)->ScheduleOne()) {
    }
    chosen.insert(w.binds.at("default/p"));
  }
  EXPECT_EQ(chosen.size(), 3u);  // every equal node gets picked for some seed
}

// OpportunisticBatching (beta, on since 1.35), in a profile without PodTopologySpread (whose
// default constraints keep the default profile from signing pods). Nodes: a1 (gold and silver,
// room for one pod), b1 (gold) and c1 (silver, large); identical pods prefer gold (10) and silver
// (8). The first goes to a1. With batching, the second, popped right after, goes to the head of
// the first's other nodes (c1) unscored; a full cycle, once a1 is out of NodeAffinity's
// normalization, picks b1. test/scenarios/opportunistic_batching*.yaml are the same cluster, which
// kube-scheduler v1.37.2 decides alike.
class BatchingTest : public SchedulerTest {
 protected:
  void SetUp() override {}
  void Start(Registry registry = plugins::NewInTreeRegistry(),
             std::vector<std::string> more_filters = {}) {
    config::Profile prof;
    prof.plugins.multi_point.disabled.push_back({"PodTopologySpread", 0});
    for (const std::string& f : more_filters) prof.plugins.multi_point.enabled.push_back({f, 0});
    config::MergeDefaultPlugins(prof);
    config::Configuration cfg;
    cfg.profiles.push_back(prof);
    Build(std::move(cfg), std::move(registry));
    s_->OnNodeAdd(MakeNode()
                      .Name("a1")
                      .Label("gold", "true")
                      .Label("silver", "true")
                      .Capacity({{"cpu", "1"}, {"memory", "2Gi"}, {"pods", "110"}})
                      .Ptr());
    s_->OnNodeAdd(MakeNode()
                      .Name("b1")
                      .Label("gold", "true")
                      .Capacity({{"cpu", "2"}, {"memory", "4Gi"}, {"pods", "110"}})
                      .Ptr());
    s_->OnNodeAdd(MakeNode()
                      .Name("c1")
                      .Label("silver", "true")
                      .Capacity({{"cpu", "16"}, {"memory", "32Gi"}, {"pods", "110"}})
                      .Ptr());
  }
  static MakePod Web(std::string name) {
    return MakePod()
        .Name(std::move(name))
        .Label("app", "web")
        .Req("cpu", "1")
        .Req("memory", "1Gi")
        .PreferredNodeAffinityIn(10, "gold", {"true"})
        .PreferredNodeAffinityIn(8, "silver", {"true"});
  }
  std::string Metrics() { return s_->metrics_registry().Text(); }
};

TEST_F(BatchingTest, TheSecondOfTwoIdenticalPodsGoesToTheNextNodeOfTheFirstsScoring) {
  Start();
  AddPod(Web("web-1"));
  AddPod(Web("web-2"));
  Drain();
  EXPECT_EQ(writer_.binds.at("default/web-1"), "a1");
  EXPECT_EQ(writer_.binds.at("default/web-2"), "c1");
  const std::string text = Metrics();
  EXPECT_THAT(text, HasSubstr("scheduler_batch_attempts_total{profile=\"default-scheduler\","
                              "result=\"hint_used\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("scheduler_batch_attempts_total{profile=\"default-scheduler\","
                              "result=\"no_hint\"} 1\n"));
  // The batch's latencies: a hint looked for twice, found once; the results stored twice.
  for (const char* line :
       {"scheduler_get_node_hint_duration_seconds_count{hinted=\"hint\",profile="
        "\"default-scheduler\"} 1\n",
        "scheduler_get_node_hint_duration_seconds_count{hinted=\"no_hint\",profile="
        "\"default-scheduler\"} 1\n",
        "scheduler_store_schedule_results_duration_seconds_count{profile=\"default-scheduler\"} "
        "2\n"}) {
    EXPECT_THAT(text, HasSubstr(line));
  }
}

TEST_F(BatchingTest, WithTheGateOffEachPodGetsAFullCycle) {
  batching_ = false;
  Start();
  AddPod(Web("web-1"));
  AddPod(Web("web-2"));
  Drain();
  EXPECT_EQ(writer_.binds.at("default/web-1"), "a1");
  EXPECT_EQ(writer_.binds.at("default/web-2"), "b1");
  EXPECT_THAT(Metrics(), ::testing::Not(HasSubstr("scheduler_batch_attempts_total{")));
}

TEST_F(BatchingTest, PodsThatDifferInWhatAPluginReadsAreNotBatched) {
  Start();
  AddPod(Web("web-1"));
  AddPod(Web("web-2").Label("tier", "front"));  // InterPodAffinity signs the labels.
  Drain();
  EXPECT_EQ(writer_.binds.at("default/web-2"), "b1");
  EXPECT_THAT(Metrics(), HasSubstr("scheduler_batch_cache_flushed_total{profile=\"default-"
                                   "scheduler\",reason=\"pod_incompatible\"} 1\n"));
}

TEST_F(BatchingTest, AStaleBatchIsNotUsed) {
  Start();
  AddPod(Web("web-1"));
  ASSERT_TRUE(s_->ScheduleOne());
  ConfirmBinds();
  clock_.Advance(absl::Milliseconds(501));
  AddPod(Web("web-2"));
  Drain();
  EXPECT_EQ(writer_.binds.at("default/web-2"), "b1");
  EXPECT_THAT(Metrics(), HasSubstr("scheduler_batch_cache_flushed_total{profile=\"default-"
                                   "scheduler\",reason=\"expired\"} 1\n"));
}

// A plugin that does not sign pods (as every plugin written before the SDK had SignPlugin).
class PassesAll : public FilterPlugin {
 public:
  std::string_view Name() const override { return "PassesAll"; }
  Status Filter(const CycleState&, const api::Pod&, const NodeInfo&) override { return Status(); }
};

TEST_F(BatchingTest, APluginThatDoesNotSignTurnsBatchingOffForItsProfile) {
  Registry r = plugins::NewInTreeRegistry();
  ASSERT_TRUE(r.Register("PassesAll",
                         [](const PluginArgs&, Handle&) -> absl::StatusOr<std::unique_ptr<Plugin>> {
                           return std::make_unique<PassesAll>();
                         })
                  .ok());
  Start(std::move(r), {"PassesAll"});
  AddPod(Web("web-1"));
  AddPod(Web("web-2"));
  Drain();
  EXPECT_EQ(writer_.binds.at("default/web-2"), "b1");
}

// A compiled-in plugin, as in the guides: a Filter enabled through multiPoint.
class OnlyLabeled : public FilterPlugin {
 public:
  std::string_view Name() const override { return "OnlyLabeled"; }
  Status Filter(const CycleState&, const api::Pod&, const NodeInfo& node) override {
    if (node.node()->metadata.labels.contains("team")) return Status();
    return Status::UnschedulableAndUnresolvable("node(s) had no team label");
  }
};

TEST_F(SchedulerTest, OutOfTreePluginThroughMultiPoint) {
  BuildWithPlugin("OnlyLabeled", [](Handle&) { return std::make_unique<OnlyLabeled>(); });
  s_->OnNodeAdd(MakeNode().Name("plain").Capacity({{"cpu", "8"}, {"pods", "110"}}).Ptr());
  s_->OnNodeAdd(
      MakeNode().Name("teamed").Label("team", "a").Capacity({{"cpu", "1"}, {"pods", "110"}}).Ptr());
  AddPod(MakePod().Name("p"));
  AddPod(MakePod().Name("q").Req("cpu", "2"));
  Drain();
  EXPECT_EQ(writer_.binds.at("default/p"), "teamed");
  EXPECT_EQ(writer_.conditions.at("default/q").message,
            "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) had no team label. "
            "preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.");
}

// An out-of-tree Filter with a metric of its own, registered in its factory: the nodes it rejected.
class CountsRejections : public FilterPlugin {
 public:
  explicit CountsRejections(PluginCounter* rejected) : rejected_(rejected) {}
  std::string_view Name() const override { return "CountsRejections"; }
  Status Filter(const CycleState&, const api::Pod&, const NodeInfo& node) override {
    if (node.node()->metadata.labels.contains("team")) return Status();
    rejected_->Add({node.name()});
    return Status::UnschedulableAndUnresolvable("node(s) had no team label");
  }

 private:
  PluginCounter* rejected_;
};

// Each profile makes its own instance of the plugin; both record into the one family, which
// /metrics serves with the scheduler's.
TEST_F(SchedulerTest, APluginsOwnMetricIsServedWithTheSchedulers) {
  Registry r = plugins::NewInTreeRegistry();
  ASSERT_TRUE(
      r.Register("CountsRejections",
                 [](const PluginArgs&, Handle& h) -> absl::StatusOr<std::unique_ptr<Plugin>> {
                   absl::StatusOr<PluginCounter*> rejected =
                       h.metrics().Counter({.name = "counts_rejections_nodes_total",
                                            .help = "Nodes CountsRejections rejected.",
                                            .labels = {"node"}});
                   if (!rejected.ok()) return rejected.status();
                   return std::make_unique<CountsRejections>(*rejected);
                 })
          .ok());
  config::Configuration cfg = WithPluginAt(&config::Plugins::filter, "CountsRejections");
  cfg.profiles.push_back(cfg.profiles[0]);
  cfg.profiles[1].scheduler_name = "second";
  Build(std::move(cfg), std::move(r));
  s_->OnNodeAdd(MakeNode().Name("plain").Capacity({{"cpu", "8"}, {"pods", "110"}}).Ptr());
  s_->OnNodeAdd(
      MakeNode().Name("teamed").Label("team", "a").Capacity({{"cpu", "8"}, {"pods", "110"}}).Ptr());
  AddPod(MakePod().Name("p"));
  AddPod(MakePod().Name("q").SchedulerName("second"));
  Drain();
  EXPECT_EQ(writer_.binds.at("default/p"), "teamed");
  EXPECT_EQ(writer_.binds.at("default/q"), "teamed");
  const std::string text = s_->metrics_registry().Text();
  EXPECT_THAT(text, HasSubstr("# HELP counts_rejections_nodes_total [ALPHA] Nodes "
                              "CountsRejections rejected.\n# TYPE counts_rejections_nodes_total "
                              "counter\ncounts_rejections_nodes_total{node=\"plain\"} 2\n"));
}

// A Filter slow enough that the nodes are filtered on the workers; it counts how many threads
// run it at once.
class SlowFilter : public FilterPlugin {
 public:
  explicit SlowFilter(std::atomic<int>* most) : most_(most) {}
  std::string_view Name() const override { return "SlowFilter"; }
  Status Filter(const CycleState&, const api::Pod&, const NodeInfo&) override {
    const int now = ++running_;
    for (int seen = *most_; now > seen && !most_->compare_exchange_weak(seen, now);) {
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
    --running_;
    return Status();
  }

 private:
  std::atomic<int>* most_;
  std::atomic<int> running_ = 0;
};

// KubeSchedulerConfiguration.parallelism bounds the threads that filter and score, as upstream's
// number of workers.
TEST_F(SchedulerTest, ParallelismBoundsTheThreadsThatFilter) {
  for (int parallelism : {1, 2}) {
    std::atomic<int> most = 0;
    Registry r = plugins::NewInTreeRegistry();
    ASSERT_TRUE(
        r.Register("SlowFilter",
                   [&most](const PluginArgs&, Handle&) -> absl::StatusOr<std::unique_ptr<Plugin>> {
                     return std::make_unique<SlowFilter>(&most);
                   })
            .ok());
    config::Configuration cfg = WithPluginAt(&config::Plugins::multi_point, "SlowFilter");
    cfg.parallelism = parallelism;
    Build(std::move(cfg), std::move(r));
    for (int i = 0; i < 64; ++i) {
      s_->OnNodeAdd(
          MakeNode().Name("n" + std::to_string(i)).Capacity({{"cpu", "8"}, {"pods", "110"}}).Ptr());
    }
    // The first cycle measures the cost on the scheduling thread; the next ones share it.
    for (int i = 0; i < 4; ++i) AddPod(MakePod().Name(fmt::format("p{}-{}", parallelism, i)));
    Drain();
    EXPECT_EQ(writer_.binds.size(), 4u * parallelism);
    EXPECT_LE(most.load(), parallelism);
    if (parallelism == 1) {
      EXPECT_EQ(most.load(), 1);
    }
  }
}

// A Filter with a bug: it throws for the pods named "bug...", which plugin.h forbids; it takes its
// time over the others, so that the filters of the next pods are worth running in parallel.
class ThrowingFilter : public FilterPlugin {
 public:
  std::string_view Name() const override { return "ThrowingFilter"; }
  Status Filter(const CycleState&, const api::Pod& pod, const NodeInfo&) override {
    if (pod.metadata.name.starts_with("bug")) throw std::runtime_error("a bug in ThrowingFilter");
    std::this_thread::sleep_for(std::chrono::microseconds(20));
    return Status();
  }
};

// plugin.h: the framework does not catch an exception a plugin lets out, whether the filters ran
// on the scheduling thread or on its workers; it reaches the scheduling loop, which does not
// catch it either, so that the process ends (std::terminate) rather than go on with a plugin's
// state half-changed, as a Go plugin's panic ends kube-scheduler.
TEST_F(SchedulerTest, AnExceptionFromAPluginIsNotCaught) {
  for (int nodes : {1, 600}) {
    BuildWithPlugin("ThrowingFilter", [](Handle&) { return std::make_unique<ThrowingFilter>(); });
    for (int i = 0; i < nodes; ++i) {
      s_->OnNodeAdd(
          MakeNode().Name("n" + std::to_string(i)).Capacity({{"cpu", "8"}, {"pods", "110"}}).Ptr());
    }
    AddPod(MakePod().Name(fmt::format("fine-{}", nodes)));
    Drain();
    EXPECT_EQ(writer_.binds.count(fmt::format("default/fine-{}", nodes)), 1u);
    AddPod(MakePod().Name(fmt::format("bug-{}", nodes)));
    EXPECT_THROW(Drain(), std::runtime_error) << nodes << " nodes";
    EXPECT_EQ(writer_.binds.count(fmt::format("default/bug-{}", nodes)), 0u);
  }
}

// A Filter that reads the pod's Namespace through the Handle: only "tier: gold" namespaces.
class GoldNamespacesOnly : public FilterPlugin {
 public:
  explicit GoldNamespacesOnly(Handle& h) : handle_(h) {}
  std::string_view Name() const override { return "GoldNamespacesOnly"; }
  Status Filter(const CycleState&, const api::Pod& pod, const NodeInfo&) override {
    auto ns = handle_.GetNamespace(pod.metadata.namespace_);
    if (ns && ns->metadata.labels.contains("tier") && ns->metadata.labels.at("tier") == "gold") {
      return Status();
    }
    return Status::UnschedulableAndUnresolvable("namespace is not gold");
  }

 private:
  Handle& handle_;
};

TEST_F(SchedulerTest, PluginsReadNamespacesThroughTheHandle) {
  BuildWithPlugin("GoldNamespacesOnly",
                  [](Handle& h) { return std::make_unique<GoldNamespacesOnly>(h); });
  s_->listers().namespaces.Set(std::make_shared<api::Namespace>(
      api::Namespace{.metadata = {.name = "team-a", .labels = {{"tier", "gold"}}}}));
  s_->OnNodeAdd(MakeNode().Name("n1").Capacity({{"cpu", "8"}, {"pods", "110"}}).Ptr());
  AddPod(MakePod().Name("gold").Namespace("team-a"));
  AddPod(MakePod().Name("plain"));
  Drain();
  EXPECT_EQ(writer_.binds.at("team-a/gold"), "n1");
  EXPECT_EQ(writer_.conditions.at("default/plain").message,
            "0/1 nodes are available: 1 namespace is not gold. "
            "preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.");
}

TEST_F(SchedulerTest, WorkloadsAndDisruptionBudgetsReachPluginsThroughTheHandle) {
  const Handle& h = *s_->FrameworkFor("default-scheduler");
  api::ObjectMeta web{.name = "web", .namespace_ = "prod"};
  Listers& l = s_->listers();
  l.services.Set(
      std::make_shared<api::Service>(api::Service{.metadata = web, .selector = {{"app", "web"}}}));
  l.services.Set(std::make_shared<api::Service>(api::Service{.metadata = {.name = "other"}}));
  l.replication_controllers.Set(
      std::make_shared<api::ReplicationController>(api::ReplicationController{.metadata = web}));
  l.replica_sets.Set(std::make_shared<api::ReplicaSet>(api::ReplicaSet{.metadata = web}));
  l.stateful_sets.Set(std::make_shared<api::StatefulSet>(api::StatefulSet{.metadata = web}));
  l.pod_disruption_budgets.Set(std::make_shared<api::PodDisruptionBudget>(
      api::PodDisruptionBudget{.metadata = web, .disruptions_allowed = 1}));
  ASSERT_EQ(h.ListServices("prod").size(), 1u);
  EXPECT_EQ(h.ListServices("prod")[0]->selector.at("app"), "web");
  EXPECT_NE(h.GetReplicationController("prod", "web"), nullptr);
  EXPECT_EQ(h.GetReplicationController("default", "web"), nullptr);
  EXPECT_NE(h.GetReplicaSet("prod", "web"), nullptr);
  EXPECT_NE(h.GetStatefulSet("prod", "web"), nullptr);
  ASSERT_EQ(h.ListPodDisruptionBudgets().size(), 1u);
  EXPECT_EQ(h.ListPodDisruptionBudgets()[0]->disruptions_allowed, 1);

  // An update replaces the object; a delete removes it and nothing else.
  l.pod_disruption_budgets.Set(std::make_shared<api::PodDisruptionBudget>(
      api::PodDisruptionBudget{.metadata = web, .disruptions_allowed = 0}));
  EXPECT_EQ(h.ListPodDisruptionBudgets()[0]->disruptions_allowed, 0);
  l.services.Remove("prod", "web");
  l.replication_controllers.Remove("prod", "web");
  l.replica_sets.Remove("prod", "web");
  l.stateful_sets.Remove("prod", "web");
  l.pod_disruption_budgets.Remove("prod", "web");
  EXPECT_TRUE(h.ListServices("prod").empty());
  EXPECT_EQ(h.ListServices("").size(), 1u);
  EXPECT_EQ(h.GetReplicationController("prod", "web"), nullptr);
  EXPECT_EQ(h.GetReplicaSet("prod", "web"), nullptr);
  EXPECT_EQ(h.GetStatefulSet("prod", "web"), nullptr);
  EXPECT_TRUE(h.ListPodDisruptionBudgets().empty());
}

// A PostFilter that nominates the first node it is shown, as preemption nominates.
class NominateFirst : public PostFilterPlugin {
 public:
  std::string_view Name() const override { return "NominateFirst"; }
  Status PostFilter(CycleState&, const api::Pod&, const NodeToStatus& filtered,
                    PostFilterResult* result) override {
    result->nominated_node_name = filtered.statuses.begin()->first;
    return Status();
  }
};

// DefaultPreemption: the victim gets DisruptionTarget, an event and a delete; the preemptor is
// nominated, waits, and lands on the node once the victim is gone.
// With GenericWorkload, a pod preempting a PodGroup disrupted as a whole evicts its pods on every
// node, and the preemption's evaluation, execution, PodDisruptionBudget violations and group
// victims are counted as upstream counts them.
TEST_F(SchedulerTest, APodPreemptingAWholeGangEvictsItOnEveryNodeAndCountsIt) {
  generic_workload_ = true;
  Build(config::DefaultConfiguration(), plugins::NewInTreeRegistry({.generic_workload = true}));
  for (const char* node : {"n1", "n2"}) {
    s_->OnNodeAdd(MakeNode().Name(node).Capacity({{"cpu", "2"}, {"pods", "110"}}).Ptr());
  }
  SetObject(*s_, std::make_shared<const api::PodGroup>(api::PodGroup{
                     .metadata = {.name = "train", .namespace_ = "default", .uid = "g1"},
                     .gang_min_count = 2,
                     .disrupt_all = true}));
  SetObject(*s_, std::make_shared<const api::PodDisruptionBudget>(api::PodDisruptionBudget{
                     .metadata = {.name = "train", .namespace_ = "default", .uid = "b1"},
                     .selector = api::LabelSelector{.match_labels = {{"app", "train"}}}}));
  for (const auto& [name, node] : {std::pair{"t-0", "n1"}, std::pair{"t-1", "n2"}}) {
    api::Pod pod = MakePod().Name(name).Label("app", "train").Req("cpu", "1500m").Node(node).Obj();
    pod.spec.pod_group_name = "train";
    s_->OnPodAdd(std::make_shared<const api::Pod>(pod));
  }
  AddPod(MakePod().Name("high").Priority(1000).Req("cpu", "1"));
  Drain();
  EXPECT_THAT(writer_.deleted, ::testing::UnorderedElementsAre("default/t-0", "default/t-1"));
  const std::string metrics = s_->metrics_registry().Text();
  EXPECT_THAT(metrics, HasSubstr("scheduler_preemption_evaluation_duration_seconds_count{preemptor="
                                 "\"pod\",result=\"Success\"} 1\n"));
  EXPECT_THAT(metrics, HasSubstr("scheduler_preemption_execution_duration_seconds_count{preemptor="
                                 "\"pod\",result=\"success\"} 1\n"));
  EXPECT_THAT(metrics,
              HasSubstr("scheduler_preemption_pdb_violations_total{preemptor=\"pod\"} 2\n"));
  EXPECT_THAT(metrics,
              HasSubstr("scheduler_preemption_workload_disruptions_sum{preemptor=\"pod\"} 1\n"));
}

// With TopologyAwareWorkloadScheduling, upstream's defaults generate placements by topology and
// score them by NodeResourcesFit and PodGroupPodsCount; a group confined to a rack is tried in
// each rack, and the placements are counted.
TEST_F(SchedulerTest, WithTopologyAwareSchedulingAGroupIsTriedInEachDomainAndCounted) {
  generic_workload_ = topology_aware_ = true;
  Build(config::DefaultConfiguration(),
        plugins::NewInTreeRegistry(
            {.generic_workload = true, .topology_aware_workload_scheduling = true}));
  std::map<std::string, std::vector<std::string>> points =
      s_->FrameworkFor("default-scheduler")->PluginsByExtensionPoint();
  EXPECT_THAT(points["placementGenerate"], ::testing::ElementsAre("TopologyPlacementGenerator"));
  EXPECT_THAT(points["placementScore"],
              ::testing::ElementsAre("NodeResourcesFit", "PodGroupPodsCount"));
  for (const auto& [node, rack] : {std::pair{"n1", "r1"}, std::pair{"n2", "r2"}}) {
    s_->OnNodeAdd(
        MakeNode().Name(node).Label("rack", rack).Capacity({{"cpu", "2"}, {"pods", "110"}}).Ptr());
  }
  api::PodGroup group{.metadata = {.name = "train", .namespace_ = "default", .uid = "g1"},
                      .gang_min_count = 2};
  group.scheduling_constraints = {{.topology_keys = {"rack"}}};
  SetObject(*s_, std::make_shared<const api::PodGroup>(group));
  for (const char* name : {"t-0", "t-1"}) {
    api::Pod pod = MakePod().Name(name).Req("cpu", "1").Obj();
    pod.spec.pod_group_name = "train";
    AddPod(pod);
  }
  Drain();
  ASSERT_EQ(writer_.binds.size(), 2u);
  EXPECT_EQ(writer_.binds.at("default/t-0"), writer_.binds.at("default/t-1"));
  const std::string metrics = s_->metrics_registry().Text();
  EXPECT_THAT(metrics,
              HasSubstr("scheduler_generated_placements_total{profile=\"default-scheduler\"} 2\n"));
  EXPECT_THAT(metrics, HasSubstr("scheduler_placement_evaluations_total{profile=\"default-"
                                 "scheduler\",result=\"feasible\"} 2\n"));
  EXPECT_THAT(metrics, HasSubstr("scheduler_placement_evaluation_duration_seconds_count{profile="
                                 "\"default-scheduler\",result=\"feasible\"} 2\n"));
}

TEST_F(SchedulerTest, AHigherPriorityPodPreemptsAndLandsOnTheNodeItWasNominatedTo) {
  s_->OnNodeAdd(MakeNode().Name("n1").Capacity({{"cpu", "2"}, {"pods", "110"}}).Ptr());
  auto low = MakePod().Name("low").Priority(0).Req("cpu", "1500m").Node("n1").Ptr();
  s_->OnPodAdd(low);
  AddPod(MakePod().Name("high").Priority(1000).Req("cpu", "1"));
  Drain();
  EXPECT_EQ(writer_.deleted, std::vector<std::string>{"default/low"});
  EXPECT_EQ(writer_.conditions.at("default/low").type, "DisruptionTarget");
  EXPECT_EQ(writer_.conditions.at("default/low").reason, "PreemptionByScheduler");
  EXPECT_EQ(writer_.conditions.at("default/low").message,
            "default-scheduler: preempting to accommodate a higher priority pod");
  // Answered before the deletion was sent: the terminating victim reads as preemption's.
  EXPECT_EQ(writer_.awaited, std::vector<std::string>{"default/low DisruptionTarget"});
  EXPECT_EQ(EventsFor("default/low", "Preempted"),
            std::vector<std::string>{"Preempted by pod high on node n1"});
  EXPECT_EQ(writer_.nominated.at("default/high"), "n1");
  const std::string metrics = s_->metrics_registry().Text();
  EXPECT_THAT(metrics, HasSubstr("scheduler_preemption_attempts_total 1\n"));
  EXPECT_THAT(metrics, HasSubstr("scheduler_preemption_victims_count 1\n"));
  EXPECT_THAT(metrics, HasSubstr("scheduler_preemption_victims_bucket{le=\"1\"} 1\n"));
  // Without GenericWorkload, upstream has no such series.
  EXPECT_THAT(metrics, ::testing::Not(HasSubstr("scheduler_preemption_evaluation_duration")));
  // Once preemption succeeded, the message says where (since 1.37).
  constexpr char kPreempting[] =
      "0/1 nodes are available: 1 Insufficient cpu. preemption: found a potential placement for "
      "pod on node n1, preempting 1 victims";
  EXPECT_EQ(writer_.conditions.at("default/high").message, kPreempting);
  EXPECT_FALSE(writer_.binds.contains("default/high"));
  // `ksched explain` of the preemptor: where it made room, whom it evicted, what it waits for.
  std::optional<nlohmann::ordered_json> j = explain_.Json("default", "high");
  ASSERT_TRUE(j.has_value());
  EXPECT_EQ((*j)["result"], "Unschedulable");
  EXPECT_EQ((*j)["message"], kPreempting);
  EXPECT_EQ((*j)["preemption"]["nominatedNode"], "n1");
  EXPECT_EQ((*j)["preemption"]["victims"], nlohmann::json::array({"default/low"}));
  EXPECT_EQ((*j)["rejected"][0]["plugin"], "NodeResourcesFit");
  EXPECT_EQ((*j)["waitingFor"][0]["plugin"], "NodeResourcesFit");
  EXPECT_THAT((*j)["waitingFor"][0]["events"].dump(), HasSubstr("Pod/Delete"));
  // A lesser pod may not take the room meanwhile: the nominated pod counts on n1 (1 of 2 cpu), so
  // 1500m does not fit there, though the node is empty.
  s_->OnPodDelete(low);
  AddPod(MakePod().Name("lesser").Priority(0).Req("cpu", "1500m"));
  Drain();
  EXPECT_EQ(writer_.binds.at("default/high"), "n1");
  EXPECT_FALSE(writer_.binds.contains("default/lesser"));
  EXPECT_EQ(explain_.Json("default", "high")->at("result"), "Scheduled");
  EXPECT_EQ(explain_.Json("default", "high")->at("node"), "n1");
  EXPECT_EQ(explain_.Json("default", "lesser")->at("result"), "Unschedulable");
  // A deleted pod's record goes with it.
  s_->OnPodDelete(pods_.at("default/lesser"));
  EXPECT_FALSE(explain_.Json("default", "lesser").has_value());
}

// `ksched run --simulator-annotations`: each attempt's verdicts, as kube-scheduler-simulator's
// result annotations, patched onto the pod once it is bound or has failed.
TEST_F(SchedulerTest, SimulatorAnnotationsTellEachPluginsVerdictOnEachNode) {
  auto s = Scheduler::Create(
      {.writer = &writer_, .clock = &clock_, .seed = 1, .simulator_annotations = true}, registry_);
  ASSERT_TRUE(s.ok()) << s.status();
  s_ = std::move(*s);
  s_->OnNodeAdd(MakeNode().Name("n1").Capacity({{"cpu", "2"}, {"pods", "110"}}).Ptr());
  s_->OnNodeAdd(MakeNode().Name("n2").Capacity({{"cpu", "4"}, {"pods", "110"}}).Ptr());
  s_->OnNodeAdd(MakeNode().Name("n3").Capacity({{"cpu", "8"}, {"pods", "110"}}).Ptr());
  AddPod(MakePod().Name("web").Req("cpu", "3"));
  AddPod(MakePod().Name("huge").Req("cpu", "16"));
  Drain();
  const std::string k = "kube-scheduler-simulator.sigs.k8s.io/";
  const std::map<std::string, std::string>& web = writer_.annotations.at("default/web");
  EXPECT_EQ(web.at(k + "selected-node"), writer_.binds.at("default/web"));
  const nlohmann::json filter = nlohmann::json::parse(web.at(k + "filter-result"));
  EXPECT_EQ(filter["n1"]["NodeResourcesFit"], "Insufficient cpu");
  EXPECT_EQ(filter["n2"]["NodeResourcesFit"], "passed");
  EXPECT_EQ(filter["n2"]["TaintToleration"], "passed");
  const nlohmann::json score = nlohmann::json::parse(web.at(k + "score-result"));
  const nlohmann::json final_score = nlohmann::json::parse(web.at(k + "finalscore-result"));
  EXPECT_TRUE(score.contains("n2") && score.contains("n3")) << score;
  EXPECT_FALSE(score.contains("n1"));
  // TaintToleration scores 0 raw everywhere; normalized (reversed) to 100, times its weight 3.
  EXPECT_EQ(score["n2"]["TaintToleration"], "0");
  EXPECT_EQ(final_score["n2"]["TaintToleration"], "300");
  EXPECT_EQ(web.at(k + "bind-result"), R"({"DefaultBinder":"success"})");
  EXPECT_EQ(nlohmann::json::parse(web.at(k + "prefilter-result-status"))["NodeResourcesFit"],
            "success");
  const nlohmann::json history = nlohmann::json::parse(web.at(k + "result-history"));
  ASSERT_EQ(history.size(), 1u);
  EXPECT_EQ(history[0][k + "selected-node"], web.at(k + "selected-node"));

  const std::map<std::string, std::string>& huge = writer_.annotations.at("default/huge");
  EXPECT_EQ(huge.at(k + "selected-node"), "");
  EXPECT_EQ(nlohmann::json::parse(huge.at(k + "filter-result"))["n3"]["NodeResourcesFit"],
            "Insufficient cpu");
  EXPECT_EQ(huge.at(k + "postfilter-result"), R"({"n1":{},"n2":{},"n3":{}})");
  EXPECT_EQ(huge.at(k + "bind-result"), "{}");
}

// Every simulator annotation of three attempts, word for word: one narrowed by PreFilter and
// scored, one that preempts, one that nothing can help. (The plugins' outcomes are recorded by
// wrapping the plugins; this holds what the web UI shows unchanged.)
TEST_F(SchedulerTest, SimulatorAnnotationsOfPreFilterPreemptionAndFailureWordForWord) {
  auto s = Scheduler::Create(
      {.writer = &writer_, .clock = &clock_, .seed = 1, .simulator_annotations = true}, registry_);
  ASSERT_TRUE(s.ok()) << s.status();
  s_ = std::move(*s);
  s_->OnNodeAdd(
      MakeNode().Name("n1").Label("zone", "a").Capacity({{"cpu", "2"}, {"pods", "110"}}).Ptr());
  s_->OnNodeAdd(
      MakeNode().Name("n2").Label("zone", "b").Capacity({{"cpu", "4"}, {"pods", "110"}}).Ptr());
  s_->OnNodeAdd(
      MakeNode().Name("n3").Label("zone", "b").Capacity({{"cpu", "8"}, {"pods", "110"}}).Ptr());
  s_->OnPodAdd(MakePod().Name("low").Req("cpu", "2").Node("n1").Ptr());
  api::Pod pinned = MakePod().Name("pinned").Req("cpu", "1").NodeAffinityIn("zone", {"b"}).Obj();
  pinned.spec.affinity->node_affinity->required_during_scheduling_ignored_during_execution
      ->node_selector_terms[0]
      .match_fields = {{"metadata.name", "In", {"n2", "n3"}}};
  AddPod(MakePod(pinned));
  AddPod(MakePod().Name("urgent").Priority(1000).Req("cpu", "1").NodeAffinityIn("zone", {"a"}));
  AddPod(MakePod().Name("huge").Req("cpu", "16"));
  Drain();
  s_->WaitForBindings();
  const std::string k = "kube-scheduler-simulator.sigs.k8s.io/";
  std::string got;
  for (const char* pod : {"default/pinned", "default/urgent", "default/huge"}) {
    for (const auto& [key, value] : writer_.annotations.at(pod)) {
      if (key != k + "result-history")
        got += std::string(pod) + " " + key.substr(k.size()) + "=" + value + "\n";
    }
  }
  EXPECT_EQ(
      got,
      R"(default/pinned bind-result={"DefaultBinder":"success"})"
      "\n"
      R"(default/pinned filter-result={"n2":{"NodeAffinity":"passed","NodeName":"passed","NodeResourcesFit":"passed","NodeUnschedulable":"passed","TaintToleration":"passed"},"n3":{"NodeAffinity":"passed","NodeName":"passed","NodeResourcesFit":"passed","NodeUnschedulable":"passed","TaintToleration":"passed"}})"
      "\n"
      R"(default/pinned finalscore-result={"n2":{"DynamicResources":"0","ImageLocality":"0","NodeResourcesBalancedAllocation":"75","NodeResourcesFit":"75","TaintToleration":"300","VolumeBinding":"0"},"n3":{"DynamicResources":"0","ImageLocality":"0","NodeResourcesBalancedAllocation":"75","NodeResourcesFit":"87","TaintToleration":"300","VolumeBinding":"0"}})"
      "\n"
      R"(default/pinned permit-result={})"
      "\n"
      R"(default/pinned permit-result-timeout={})"
      "\n"
      R"(default/pinned postfilter-result={})"
      "\n"
      R"(default/pinned prebind-result={})"
      "\n"
      R"(default/pinned prefilter-result={"NodeAffinity":["n2","n3"]})"
      "\n"
      R"(default/pinned prefilter-result-status={"DynamicResources":"","InterPodAffinity":"","NodeAffinity":"success","NodeDeclaredFeatures":"","NodeName":"success","NodePorts":"","NodeResourcesFit":"success","NodeUnschedulable":"success","NodeVolumeLimits":"","PodTopologySpread":"","TaintToleration":"success","VolumeBinding":"","VolumeRestrictions":"","VolumeZone":""})"
      "\n"
      R"(default/pinned prescore-result={"InterPodAffinity":"","NodeAffinity":"","NodeResourcesBalancedAllocation":"success","NodeResourcesFit":"success","PodTopologySpread":"","TaintToleration":"success","VolumeBinding":"success"})"
      "\n"
      R"(default/pinned reserve-result={"DynamicResources":"success","VolumeBinding":"success"})"
      "\n"
      R"(default/pinned score-result={"n2":{"DynamicResources":"0","ImageLocality":"0","NodeResourcesBalancedAllocation":"75","NodeResourcesFit":"75","TaintToleration":"0","VolumeBinding":"0"},"n3":{"DynamicResources":"0","ImageLocality":"0","NodeResourcesBalancedAllocation":"75","NodeResourcesFit":"87","TaintToleration":"0","VolumeBinding":"0"}})"
      "\n"
      R"(default/pinned selected-node=n3)"
      "\n"
      R"(default/urgent bind-result={})"
      "\n"
      R"(default/urgent filter-result={"n1":{"NodeAffinity":"passed","NodeName":"passed","NodeResourcesFit":"Insufficient cpu","NodeUnschedulable":"passed","TaintToleration":"passed"},"n2":{"NodeAffinity":"node(s) didn't match Pod's node affinity/selector","NodeName":"passed","NodeUnschedulable":"passed","TaintToleration":"passed"},"n3":{"NodeAffinity":"node(s) didn't match Pod's node affinity/selector","NodeName":"passed","NodeUnschedulable":"passed","TaintToleration":"passed"}})"
      "\n"
      R"(default/urgent finalscore-result={})"
      "\n"
      R"(default/urgent permit-result={})"
      "\n"
      R"(default/urgent permit-result-timeout={})"
      "\n"
      R"(default/urgent postfilter-result={"n1":{"DefaultPreemption":"preemption victim"},"n2":{},"n3":{}})"
      "\n"
      R"(default/urgent prebind-result={})"
      "\n"
      R"(default/urgent prefilter-result={})"
      "\n"
      R"(default/urgent prefilter-result-status={"DynamicResources":"","InterPodAffinity":"","NodeAffinity":"success","NodeDeclaredFeatures":"","NodeName":"success","NodePorts":"","NodeResourcesFit":"success","NodeUnschedulable":"success","NodeVolumeLimits":"","PodTopologySpread":"","TaintToleration":"success","VolumeBinding":"","VolumeRestrictions":"","VolumeZone":""})"
      "\n"
      R"(default/urgent prescore-result={})"
      "\n"
      R"(default/urgent reserve-result={})"
      "\n"
      R"(default/urgent score-result={})"
      "\n"
      R"(default/urgent selected-node=)"
      "\n"
      R"(default/huge bind-result={})"
      "\n"
      R"(default/huge filter-result={"n2":{"NodeName":"passed","NodeResourcesFit":"Insufficient cpu","NodeUnschedulable":"passed","TaintToleration":"passed"},"n3":{"NodeName":"passed","NodeResourcesFit":"Insufficient cpu","NodeUnschedulable":"passed","TaintToleration":"passed"}})"
      "\n"
      R"(default/huge finalscore-result={})"
      "\n"
      R"(default/huge permit-result={})"
      "\n"
      R"(default/huge permit-result-timeout={})"
      "\n"
      R"(default/huge postfilter-result={"n1":{},"n2":{},"n3":{}})"
      "\n"
      R"(default/huge prebind-result={})"
      "\n"
      R"(default/huge prefilter-result={})"
      "\n"
      R"(default/huge prefilter-result-status={"DynamicResources":"","InterPodAffinity":"","NodeAffinity":"","NodeDeclaredFeatures":"","NodeName":"success","NodePorts":"","NodeResourcesFit":"success","NodeUnschedulable":"success","NodeVolumeLimits":"","PodTopologySpread":"","TaintToleration":"success","VolumeBinding":"","VolumeRestrictions":"","VolumeZone":""})"
      "\n"
      R"(default/huge prescore-result={})"
      "\n"
      R"(default/huge reserve-result={})"
      "\n"
      R"(default/huge score-result={})"
      "\n"
      R"(default/huge selected-node=)"
      "\n");
}

TEST_F(SchedulerTest, PreemptionNamesWhyItCannotHelp) {
  s_->OnNodeAdd(MakeNode().Name("n1").Capacity({{"cpu", "2"}, {"pods", "110"}}).Ptr());
  s_->OnPodAdd(MakePod().Name("peer").Priority(1000).Req("cpu", "1500m").Node("n1").Ptr());
  AddPod(MakePod().Name("same").Priority(1000).Req("cpu", "1"));
  api::Pod never = MakePod().Name("never").Priority(2000).Req("cpu", "1").Obj();
  never.spec.preemption_policy = "Never";
  AddPod(MakePod(never));
  Drain();
  EXPECT_EQ(writer_.conditions.at("default/same").message,
            "0/1 nodes are available: 1 Insufficient cpu. preemption: "
            "0/1 nodes are available: 1 No preemption victims found for incoming pod.");
  EXPECT_EQ(writer_.conditions.at("default/never").message,
            "0/1 nodes are available: 1 Insufficient cpu. preemption: "
            "not eligible due to preemptionPolicy=Never.");
  EXPECT_TRUE(writer_.deleted.empty());
}

// Writes a value of each scope in PreFilter and notes, in Filter and in PreBind, which it finds.
class ScopedState : public PreFilterPlugin, public FilterPlugin, public PreBindPlugin {
 public:
  struct Mark : StateData {
    std::unique_ptr<StateData> Clone() const override { return std::make_unique<Mark>(); }
  };
  static constexpr StateKey<Mark> kPodKey{"ScopedStatePod"};
  static constexpr StateKey<Mark> kCycleKey{"ScopedStateCycle", StateScope::kSchedulingCycle};

  std::string_view Name() const override { return "ScopedState"; }
  Status PreFilter(CycleState& state, const api::Pod&, const std::vector<const NodeInfo*>&,
                   PreFilterResult*) override {
    state.Write(kPodKey, std::make_unique<Mark>());
    state.Write(kCycleKey, std::make_unique<Mark>());
    return Status();
  }
  Status Filter(const CycleState& state, const api::Pod&, const NodeInfo&) override {
    if (state.Read(kCycleKey) == nullptr) return Status::Error("no cycle value in Filter");
    return Status();
  }
  Status PreBind(CycleState& state, const api::Pod&, std::string_view) override {
    if (state.Read(kPodKey) == nullptr) return Status::Error("no pod value in PreBind");
    if (state.Read(kCycleKey) != nullptr) return Status::Error("a cycle value in PreBind");
    return Status();
  }
};

TEST_F(SchedulerTest, SchedulingCycleStateIsGoneByTheBindingCycle) {
  BuildWithPlugin("ScopedState", [](Handle&) { return std::make_unique<ScopedState>(); });
  s_->OnNodeAdd(MakeNode().Name("n1").Capacity({{"cpu", "1"}, {"pods", "110"}}).Ptr());
  AddPod(MakePod().Name("p"));
  Drain();
  s_->WaitForBindings();
  EXPECT_EQ(writer_.binds.at("default/p"), "n1");
}

// A PreBind plugin with work to do (its PreBindPreFlight is the default, Success).
class FuncPreBind : public PreBindPlugin {
 public:
  explicit FuncPreBind(std::function<Status()> f) : f_(std::move(f)) {}
  std::string_view Name() const override { return "FuncPreBind"; }
  Status PreBind(CycleState&, const api::Pod&, std::string_view) override { return f_(); }

 private:
  std::function<Status()> f_;
};

TEST_F(SchedulerTest, APodIsNominatedToItsNodeWhilePreBindWorksAndClearedIfItFails) {
  std::string seen = "PreBind did not run";
  BuildWithPlugin("FuncPreBind", [&](Handle&) {
    return std::make_unique<FuncPreBind>([&] {
      auto it = writer_.nominated.find("default/p");  // Written before the binding cycle began.
      seen = it == writer_.nominated.end() ? "none" : it->second;
      return Status::Error("volumes are not bound yet");
    });
  });
  s_->OnNodeAdd(MakeNode().Name("n1").Capacity({{"cpu", "1"}, {"pods", "110"}}).Ptr());
  AddPod(MakePod().Name("p"));
  ASSERT_TRUE(s_->ScheduleOne());
  s_->WaitForBindings();
  EXPECT_EQ(seen, "n1");
  EXPECT_EQ(writer_.nominated.at("default/p"), "");  // The failure cleared it.
  EXPECT_EQ(writer_.conditions.at("default/p").message,
            "running PreBind plugin \"FuncPreBind\": volumes are not bound yet");
  EXPECT_FALSE(writer_.binds.contains("default/p"));
}

// Emulating 1.34, where NominatedNodeNameForExpectation is off: no nomination while PreBind works.
TEST_F(SchedulerTest, WithoutNominatedNodeNameForExpectationPreBindWorksUnnominated) {
  nominate_for_expectation_ = false;
  std::string seen = "PreBind did not run";
  BuildWithPlugin("FuncPreBind", [&](Handle&) {
    return std::make_unique<FuncPreBind>([&] {
      seen = writer_.nominated.contains("default/p") ? "nominated" : "none";
      return Status();
    });
  });
  s_->OnNodeAdd(MakeNode().Name("n1").Capacity({{"cpu", "1"}, {"pods", "110"}}).Ptr());
  AddPod(MakePod().Name("p"));
  ASSERT_TRUE(s_->ScheduleOne());
  s_->WaitForBindings();
  EXPECT_EQ(seen, "none");
  EXPECT_EQ(writer_.binds.at("default/p"), "n1");
}

TEST_F(SchedulerTest, APostFilterNominationIsWrittenToThePodStatus) {
  BuildWithPlugin("NominateFirst", [](Handle&) { return std::make_unique<NominateFirst>(); });
  s_->OnNodeAdd(MakeNode().Name("n1").Capacity({{"cpu", "1"}, {"pods", "110"}}).Ptr());
  AddPod(MakePod().Name("big").Req("cpu", "2"));
  Drain();
  EXPECT_EQ(writer_.nominated.at("default/big"), "n1");
  EXPECT_EQ(writer_.conditions.at("default/big").reason, "Unschedulable");
}

}  // namespace
}  // namespace ksched::scheduler

namespace ksched::scheduler {
namespace {

// Each PreBind call waits until `want` calls are inside at once (10 s at most), and notes the most
// it saw: binding cycles of different pods run concurrently, as plugin.h's contract says.
class MeetingPreBind : public PreBindPlugin {
 public:
  explicit MeetingPreBind(int want) : want_(want) {}
  std::string_view Name() const override { return "MeetingPreBind"; }
  Status PreBind(CycleState&, const api::Pod&, std::string_view) override {
    absl::MutexLock lock(&mu_);
    ++inside_;
    most_ = std::max(most_, inside_);
    auto met = [this]() ABSL_SHARED_LOCKS_REQUIRED(mu_) { return most_ >= want_; };
    mu_.AwaitWithTimeout(absl::Condition(&met), absl::Seconds(10));
    --inside_;
    return Status();
  }
  int most() {
    absl::MutexLock lock(&mu_);
    return most_;
  }

 private:
  const int want_;
  absl::Mutex mu_;
  int inside_ ABSL_GUARDED_BY(mu_) = 0;
  int most_ ABSL_GUARDED_BY(mu_) = 0;
};

TEST(BindingCycleTest, PreBindRunsConcurrentlyForDifferentPods) {
  auto plugin = std::make_shared<MeetingPreBind>(2);
  Registry registry = plugins::NewInTreeRegistry();
  ASSERT_TRUE(registry
                  .Register("MeetingPreBind",
                            [plugin](const PluginArgs&,
                                     Handle&) -> absl::StatusOr<std::unique_ptr<Plugin>> {
                              // The framework owns its plugin; this one forwards to the shared.
                              struct Forward : PreBindPlugin {
                                std::shared_ptr<MeetingPreBind> p;
                                std::string_view Name() const override { return p->Name(); }
                                Status PreBind(CycleState& s, const api::Pod& pod,
                                               std::string_view node) override {
                                  return p->PreBind(s, pod, node);
                                }
                              };
                              auto f = std::make_unique<Forward>();
                              f->p = plugin;
                              return f;
                            })
                  .ok());
  config::Configuration cfg = WithPluginAt(&config::Plugins::pre_bind, "MeetingPreBind");
  testing::RecordingWriter writer;
  auto s = Scheduler::Create({.config = cfg, .writer = &writer, .binding_threads = 2}, registry);
  ASSERT_TRUE(s.ok()) << s.status();
  (*s)->OnNodeAdd(MakeNode().Name("n1").Capacity({{"cpu", "2"}, {"pods", "110"}}).Ptr());
  (*s)->OnPodAdd(MakePod().Name("a").Ptr());
  (*s)->OnPodAdd(MakePod().Name("b").Ptr());
  // The scheduling thread hands each pod to a binding thread and goes on to the next.
  ASSERT_TRUE((*s)->ScheduleOne());
  ASSERT_TRUE((*s)->ScheduleOne());
  (*s)->WaitForBindings();
  EXPECT_EQ(plugin->most(), 2);
  EXPECT_EQ(writer.binds.at("default/a"), "n1");
  EXPECT_EQ(writer.binds.at("default/b"), "n1");
}

// Binds that the writer answers later, from a thread of its own, as the API server's answers
// arrive on the HTTP client's I/O thread.
class AsyncBindTest : public ::testing::Test {
 protected:
  void SetUp() override {
    writer_.hold_binds = true;
    Build(plugins::NewInTreeRegistry(), config::DefaultConfiguration());
  }
  void Build(Registry registry, config::Configuration cfg) {
    registry_ = std::move(registry);
    auto s = Scheduler::Create({.config = std::move(cfg), .writer = &writer_, .binding_threads = 2},
                               registry_);
    ASSERT_TRUE(s.ok()) << s.status();
    s_ = std::move(*s);
    s_->OnNodeAdd(MakeNode().Name("n1").Capacity({{"cpu", "2"}, {"pods", "110"}}).Ptr());
  }
  void TearDown() override {
    if (answer_.joinable()) answer_.join();
  }
  // Answers the held binds from another thread after a moment, and waits for the cycles to end.
  void AnswerLaterAndWait() {
    answer_ = std::thread([this] {
      absl::SleepFor(absl::Milliseconds(100));
      writer_.AnswerHeldBinds();
    });
    s_->WaitForBindings();
  }
  std::string Metrics() { return s_->metrics_registry().Text(); }

  testing::RecordingWriter writer_;
  Registry registry_;
  std::unique_ptr<Scheduler> s_;
  std::thread answer_;
};

TEST_F(AsyncBindTest, PodsWaitingOnTheirBindsAreAssumedAndTheAnswerFinishesThem) {
  s_->OnPodAdd(MakePod().Name("a").Req("cpu", "1").Ptr());
  s_->OnPodAdd(MakePod().Name("b").Req("cpu", "1").Ptr());
  ASSERT_TRUE(s_->ScheduleOne());
  ASSERT_TRUE(s_->ScheduleOne());
  // Both binds are on their way, unanswered.
  EXPECT_TRUE(s_->cache().IsAssumedPod("a"));
  EXPECT_TRUE(s_->cache().IsAssumedPod("b"));
  EXPECT_TRUE(writer_.events.empty());
  EXPECT_THAT(Metrics(), HasSubstr("scheduler_goroutines{operation=\"binding\"} 2\n"));

  AnswerLaterAndWait();  // Returns only once both answers have finished their cycles.
  EXPECT_EQ(writer_.binds,
            (std::map<std::string, std::string>{{"default/a", "n1"}, {"default/b", "n1"}}));
  ASSERT_EQ(writer_.events.size(), 2u);
  EXPECT_EQ(writer_.events[0].message, "Successfully assigned default/a to n1");
  EXPECT_EQ(writer_.events[1].message, "Successfully assigned default/b to n1");
  const std::string text = Metrics();
  EXPECT_THAT(text, HasSubstr("scheduler_goroutines{operation=\"binding\"} 0\n"));
  EXPECT_THAT(text, HasSubstr("scheduler_framework_extension_point_duration_seconds_count{"
                              "extension_point=\"Bind\",profile=\"default-scheduler\","
                              "status=\"Success\"} 2\n"));
}

TEST_F(AsyncBindTest, ARefusedBindIsRolledBackAndThePodRetried) {
  s_->OnPodAdd(MakePod().Name("a").Req("cpu", "2").Ptr());
  ASSERT_TRUE(s_->ScheduleOne());
  writer_.bind_error = absl::NotFoundError("pods \"a\" not found");
  AnswerLaterAndWait();
  EXPECT_EQ(s_->cache().NodeOf("a"), "");  // Forgotten: n1's CPU is free again.
  EXPECT_EQ(writer_.conditions.at("default/a").reason, "SchedulerError");
  ASSERT_EQ(writer_.events.size(), 1u);
  EXPECT_EQ(writer_.events[0].reason, "FailedScheduling");
  EXPECT_THAT(writer_.events[0].message, HasSubstr("running Bind plugin \"DefaultBinder\": pods "
                                                   "\"a\" not found"));
  EXPECT_EQ(s_->queue().Counts().backoff, 1u);
  EXPECT_THAT(Metrics(), HasSubstr("scheduler_framework_extension_point_duration_seconds_count{"
                                   "extension_point=\"Bind\",profile=\"default-scheduler\","
                                   "status=\"Error\"} 1\n"));
}

// Records the pods it saw bound.
class NotePostBind : public PostBindPlugin {
 public:
  explicit NotePostBind(std::vector<std::string>* seen) : seen_(seen) {}
  std::string_view Name() const override { return "NotePostBind"; }
  void PostBind(CycleState&, const api::Pod& pod, std::string_view node) override {
    seen_->push_back(pod.metadata.name + " " + std::string(node));
  }

 private:
  std::vector<std::string>* seen_;
};

TEST_F(AsyncBindTest, PostBindPluginsRunOnceTheAnswerCame) {
  std::vector<std::string> seen;
  Registry registry = plugins::NewInTreeRegistry();
  ASSERT_TRUE(
      registry
          .Register("NotePostBind",
                    [&seen](const PluginArgs&, Handle&) -> absl::StatusOr<std::unique_ptr<Plugin>> {
                      return std::make_unique<NotePostBind>(&seen);
                    })
          .ok());
  config::Configuration cfg = WithPluginAt(&config::Plugins::post_bind, "NotePostBind");
  Build(std::move(registry), std::move(cfg));
  s_->OnPodAdd(MakePod().Name("a").Ptr());
  ASSERT_TRUE(s_->ScheduleOne());
  EXPECT_TRUE(seen.empty());
  AnswerLaterAndWait();
  EXPECT_EQ(seen, std::vector<std::string>{"a n1"});
  EXPECT_EQ(writer_.binds.at("default/a"), "n1");
}

// A PreBind plugin with work for every pod that answers later: PreBindAsync keeps `done` for the
// test to call, as a write's answer would arrive on the HTTP client's I/O thread.
class HeldPreBind : public PreBindPlugin, public AsyncPreBindPlugin {
 public:
  std::string_view Name() const override { return "HeldPreBind"; }
  Status PreBind(CycleState&, const api::Pod&, std::string_view) override {
    return Status::Error("the PreBind that holds a thread ran");
  }
  void PreBindAsync(CycleState&, const api::Pod& pod, std::string_view node,
                    std::function<void(Status)> done) override {
    absl::MutexLock lock(&mu_);
    started_.push_back(pod.metadata.name + " " + std::string(node));
    held_.push_back(std::move(done));
  }
  std::vector<std::string> started() {
    absl::MutexLock lock(&mu_);
    return started_;
  }
  void Answer(const Status& s) {
    std::vector<std::function<void(Status)>> held;
    {
      absl::MutexLock lock(&mu_);
      held.swap(held_);
    }
    for (auto& done : held) done(s);
  }

 private:
  absl::Mutex mu_;
  std::vector<std::string> started_ ABSL_GUARDED_BY(mu_);
  std::vector<std::function<void(Status)>> held_ ABSL_GUARDED_BY(mu_);
};

class AsyncPreBindTest : public AsyncBindTest {
 protected:
  void SetUp() override {
    writer_.hold_binds = true;
    Registry registry = plugins::NewInTreeRegistry();
    ASSERT_TRUE(registry
                    .Register("HeldPreBind",
                              [this](const PluginArgs&,
                                     Handle&) -> absl::StatusOr<std::unique_ptr<Plugin>> {
                                auto p = std::make_unique<HeldPreBind>();
                                plugin_ = p.get();
                                return p;
                              })
                    .ok());
    Build(std::move(registry), WithPluginAt(&config::Plugins::pre_bind, "HeldPreBind"));
    s_->OnPodAdd(MakePod().Name("a").Req("cpu", "2").Ptr());
    ASSERT_TRUE(s_->ScheduleOne());
  }
  HeldPreBind* plugin_ = nullptr;
};

TEST_F(AsyncPreBindTest, APreBindAnsweredLaterHoldsNoThreadAndThePodThenBinds) {
  // The scheduling cycle started PreBind, nominated the pod, and went on; no binding thread
  // waits for the answer.
  EXPECT_EQ(plugin_->started(), std::vector<std::string>{"a n1"});
  EXPECT_EQ(writer_.nominated.at("default/a"), "n1");
  EXPECT_TRUE(s_->cache().IsAssumedPod("a"));
  EXPECT_TRUE(writer_.binds.empty());
  EXPECT_EQ(writer_.AnswerHeldBinds(), 0u);  // No bind before PreBind's answer.

  plugin_->Answer(Status());  // The bind goes out where PreBind's answer arrived.
  AnswerLaterAndWait();
  EXPECT_EQ(writer_.binds.at("default/a"), "n1");
  ASSERT_EQ(writer_.events.size(), 1u);
  EXPECT_EQ(writer_.events[0].message, "Successfully assigned default/a to n1");
  EXPECT_THAT(Metrics(), HasSubstr("scheduler_framework_extension_point_duration_seconds_count{"
                                   "extension_point=\"PreBind\",profile=\"default-scheduler\","
                                   "status=\"Success\"} 1\n"));
}

TEST_F(AsyncPreBindTest, AFailedPreBindIsRolledBackAndTheNominationCleared) {
  plugin_->Answer(Status::Error("claim default/gpu got deleted in the meantime"));
  s_->WaitForBindings();
  EXPECT_TRUE(writer_.binds.empty());
  EXPECT_EQ(s_->cache().NodeOf("a"), "");  // Forgotten: n1's CPU is free again.
  EXPECT_EQ(writer_.nominated.at("default/a"), "");
  EXPECT_EQ(writer_.conditions.at("default/a").message,
            "running PreBind plugin \"HeldPreBind\": claim default/gpu got deleted in the "
            "meantime");
  EXPECT_EQ(s_->queue().Counts().backoff, 1u);
}

// Holds every pod at Permit; the test allows or lets the wait time out.
class WaitPlugin : public PermitPlugin {
 public:
  explicit WaitPlugin(absl::Duration timeout) : timeout_(timeout) {}
  std::string_view Name() const override { return "WaitPlugin"; }
  Status Permit(CycleState&, const api::Pod&, std::string_view, absl::Duration* timeout) override {
    *timeout = timeout_;
    return Status(Code::kWait);
  }

 private:
  absl::Duration timeout_;
};

class PermitTest : public ::testing::Test {
 protected:
  void Build(absl::Duration timeout, size_t binding_threads = 1) {
    registry_ = plugins::NewInTreeRegistry();
    ASSERT_TRUE(registry_
                    .Register("WaitPlugin",
                              [timeout](const PluginArgs&,
                                        Handle&) -> absl::StatusOr<std::unique_ptr<Plugin>> {
                                return std::make_unique<WaitPlugin>(timeout);
                              })
                    .ok());
    config::Configuration cfg = WithPluginAt(&config::Plugins::permit, "WaitPlugin");
    auto s = Scheduler::Create(
        {.config = cfg, .writer = &writer_, .clock = &clock_, .binding_threads = binding_threads},
        registry_);
    ASSERT_TRUE(s.ok()) << s.status();
    s_ = std::move(*s);
    s_->OnNodeAdd(MakeNode().Name("n1").Capacity({{"cpu", "2"}, {"pods", "110"}}).Ptr());
    s_->OnPodAdd(MakePod().Name("p").Ptr());
    // The binding cycle waits at Permit on its own thread, or, with none, set aside.
    ASSERT_TRUE(s_->ScheduleOne());
  }

  FakeClock clock_;
  testing::RecordingWriter writer_;
  Registry registry_;
  std::unique_ptr<Scheduler> s_;
};

TEST_F(PermitTest, WaitingPodBindsOnceAllowed) {
  Build(absl::Minutes(1));
  const framework::Framework* fw = s_->FrameworkFor("default-scheduler");
  std::shared_ptr<WaitingPod> wp = const_cast<framework::Framework*>(fw)->GetWaitingPod("p");
  ASSERT_NE(wp, nullptr);
  EXPECT_EQ(wp->PendingPlugins(), std::vector<std::string>{"WaitPlugin"});
  EXPECT_TRUE(s_->cache().IsAssumedPod("p"));  // counts on its node while it waits
  wp->Allow("WaitPlugin");
  s_->WaitForBindings();
  EXPECT_EQ(writer_.binds.at("default/p"), "n1");
}

TEST_F(PermitTest, WaitingPodIsRejectedWhenTheWaitTimesOut) {
  Build(absl::Minutes(10));
  // The scheduler's clock times the wait: once it has moved past the deadline, the binding cycle
  // finds the wait timed out without waiting in real time.
  clock_.Advance(absl::Minutes(10));
  s_->WaitForBindings();
  EXPECT_TRUE(writer_.binds.empty());
  EXPECT_EQ(s_->cache().NodeOf("p"), "");  // unreserved and forgotten
  EXPECT_EQ(writer_.conditions.at("default/p").reason, "Unschedulable");
  EXPECT_EQ(writer_.conditions.at("default/p").message,
            "0/1 nodes are available: 1 rejected due to timeout after waiting 10m0s at plugin "
            "WaitPlugin.");
}

// Without binding threads (`ksched simulate`), the waiting pod's binding cycle is set aside, not
// run inline where it would wait forever: allowed, it binds at the next cycle's start; its
// deadline is the next time to move the clock to.
TEST_F(PermitTest, WithoutBindingThreadsAWaitIsSetAsideUntilDecided) {
  Build(absl::Minutes(1), /*binding_threads=*/0);
  EXPECT_TRUE(writer_.binds.empty());
  EXPECT_EQ(s_->NextPermitDeadline(), clock_.Now() + absl::Minutes(1));
  const framework::Framework* fw = s_->FrameworkFor("default-scheduler");
  const_cast<framework::Framework*>(fw)->GetWaitingPod("p")->Allow("WaitPlugin");
  EXPECT_FALSE(s_->ScheduleOne());  // No pod to pop; the allowed cycle runs.
  EXPECT_EQ(writer_.binds.at("default/p"), "n1");
  EXPECT_EQ(s_->NextPermitDeadline(), absl::InfiniteFuture());
}

TEST_F(PermitTest, WithoutBindingThreadsAWaitTimesOutOnTheClock) {
  Build(absl::Minutes(10), /*binding_threads=*/0);
  clock_.Advance(absl::Minutes(10));
  s_->RunDecidedBindingCycles();
  EXPECT_TRUE(writer_.binds.empty());
  EXPECT_EQ(writer_.conditions.at("default/p").message,
            "0/1 nodes are available: 1 rejected due to timeout after waiting 10m0s at plugin "
            "WaitPlugin.");
}

}  // namespace
}  // namespace ksched::scheduler

namespace ksched::scheduler {
namespace {

// Its deletions wait until released, as those of a slow API server would.
class SlowDeleteWriter : public testing::RecordingWriter {
 public:
  absl::Status DeletePod(const api::Pod& pod) override {
    if (!deleting.HasBeenNotified()) deleting.Notify();
    release.WaitForNotification();
    return RecordingWriter::DeletePod(pod);
  }
  absl::Notification deleting;  // A DELETE is in flight.
  absl::Notification release;
};

// One binding thread, and DELETEs that wait for `writer.release`.
class AsyncPreemptionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = Scheduler::Create(
        {.writer = &writer, .clock = &clock, .seed = 1, .binding_threads = 1}, registry);
    ASSERT_TRUE(s.ok()) << s.status();
    scheduler = *std::move(s);
  }

  SlowDeleteWriter writer;
  FakeClock clock;
  Registry registry = plugins::NewInTreeRegistry();
  std::unique_ptr<Scheduler> scheduler;
};

// Upstream's async preemption: the preemptor is nominated at once, its victims are evicted off the
// scheduling thread, and until that is done PreEnqueue holds it back even when an event would
// move it.
TEST_F(AsyncPreemptionTest, ThePreemptorIsHeldBackUntilItsEvictionsAreSent) {
  scheduler->OnNodeAdd(MakeNode().Name("n1").Capacity({{"cpu", "2"}, {"pods", "110"}}).Ptr());
  auto low = MakePod().Name("low").Priority(0).Req("cpu", "1500m").Node("n1").Ptr();
  auto crumb = MakePod().Name("crumb").Priority(0).Req("cpu", "100m").Node("n1").Ptr();
  scheduler->OnPodAdd(low);
  scheduler->OnPodAdd(crumb);
  scheduler->OnNodeAdd(MakeNode().Name("n2").Capacity({{"cpu", "500m"}, {"pods", "110"}}).Ptr());
  auto elsewhere = MakePod().Name("elsewhere").Priority(0).Req("cpu", "100m").Node("n2").Ptr();
  scheduler->OnPodAdd(elsewhere);
  auto high = MakePod().Name("high").Priority(1000).Req("cpu", "1").Ptr();
  scheduler->OnPodAdd(high);
  ASSERT_TRUE(scheduler->ScheduleOne());  // Fails, preempts; the deletion of `low` waits.

  // A deletion that frees room would move the pod, but its own evictions still run.
  scheduler->OnPodDelete(crumb);
  EXPECT_EQ(scheduler->queue().Counts().gated, 1u);
  Status held = scheduler->FrameworkFor("default-scheduler")->RunPreEnqueuePlugins(*high);
  EXPECT_EQ(held.plugin(), "DefaultPreemption");
  EXPECT_EQ(held.Message(), "waiting for the preemption for this pod to be finished");
  EXPECT_FALSE(scheduler->ScheduleOne());

  writer.release.Notify();
  scheduler->WaitForBindings();
  EXPECT_EQ(writer.deleted, std::vector<std::string>{"default/low"});
  EXPECT_EQ(writer.nominated.at("default/high"), "n1");
  // The deletion is answered but not yet watched: the scheduler still counts `low` on n1, so the
  // pod waits, even when another deletion comes, rather than fail there and preempt again.
  EXPECT_EQ(scheduler->queue().Counts().active, 0u);
  scheduler->OnPodDelete(elsewhere);
  EXPECT_EQ(scheduler->queue().Counts().gated, 1u);
  // Each deletion moved it and PreEnqueue put it back, counted as upstream counts it.
  const std::string text = scheduler->metrics_registry().Text();
  EXPECT_THAT(text, HasSubstr("scheduler_queue_incoming_pods_total{event=\"AssignedPodDelete\","
                              "queue=\"unschedulable\"} 2\n"));
  EXPECT_THAT(text, HasSubstr("scheduler_pending_pods{queue=\"gated\"} 1\n"));
  for (const char* plugin : {"DefaultPreemption", "NodeResourcesFit"}) {
    EXPECT_THAT(text, HasSubstr(fmt::format("scheduler_unschedulable_pods{{plugin=\"{}\","
                                            "profile=\"default-scheduler\"}} 1\n",
                                            plugin)));
  }
  EXPECT_FALSE(scheduler->ScheduleOne());
  scheduler->OnPodDelete(low);  // The victim's deletion, as the informer delivers it.
  EXPECT_EQ(scheduler->queue().Counts().gated, 0u);
  ASSERT_TRUE(scheduler->ScheduleOne());
  scheduler->WaitForBindings();
  EXPECT_EQ(writer.binds.at("default/high"), "n1");
  EXPECT_EQ(writer.deleted, std::vector<std::string>{"default/low"});  // Once.
}

// Victims the API had already deleted, their deletions watched while the pod was held back: no
// event is left to move it once its evictions are answered, so it is activated then.
TEST_F(AsyncPreemptionTest, APreemptorWhoseVictimsAreAllWatchedGoneIsActivated) {
  scheduler->OnNodeAdd(MakeNode().Name("n1").Capacity({{"cpu", "2"}, {"pods", "110"}}).Ptr());
  auto a = MakePod().Name("low-a").Priority(0).Req("cpu", "800m").Node("n1").Ptr();
  auto b = MakePod().Name("low-b").Priority(0).Req("cpu", "800m").Node("n1").Ptr();
  scheduler->OnPodAdd(a);
  scheduler->OnPodAdd(b);
  scheduler->OnPodAdd(MakePod().Name("high").Priority(1000).Req("cpu", "1500m").Ptr());
  ASSERT_TRUE(scheduler->ScheduleOne());  // Fails, preempts both; the first deletion waits.
  ASSERT_TRUE(writer.deleting.WaitForNotificationWithTimeout(absl::Seconds(10)));
  scheduler->OnPodDelete(a);
  scheduler->OnPodDelete(b);
  EXPECT_EQ(scheduler->queue().Counts().gated, 1u);
  writer.release.Notify();
  scheduler->WaitForBindings();
  EXPECT_EQ(scheduler->queue().Counts().active, 1u);
  ASSERT_TRUE(scheduler->ScheduleOne());
  scheduler->WaitForBindings();
  EXPECT_EQ(writer.binds.at("default/high"), "n1");
}

// The victim in the way of the port is deleted while the pod is held back, and the last victim
// frees CPU only, which NodePorts, the plugin that rejected the pod, does not wait for: the
// evictions are answered before the last victim goes from the scheduler's view, and its deletion,
// once watched, still moves the pod (upstream v1.36's pod waits for another event:
// kubernetes/kubernetes#141694).
TEST_F(AsyncPreemptionTest, APreemptorHeldBackIsQueuedByItsLastVictimsDeletion) {
  scheduler->OnNodeAdd(MakeNode().Name("n1").Capacity({{"cpu", "2"}, {"pods", "110"}}).Ptr());
  auto port = MakePod().Name("port").Priority(10).Req("cpu", "100m").HostPort(8080).Node("n1");
  auto cpu = MakePod().Name("cpu").Priority(0).Req("cpu", "1500m").Node("n1").Ptr();
  scheduler->OnPodAdd(port.Ptr());
  scheduler->OnPodAdd(cpu);
  scheduler->OnPodAdd(MakePod().Name("high").Priority(1000).Req("cpu", "1").HostPort(8080).Ptr());
  ASSERT_TRUE(scheduler->ScheduleOne());  // NodePorts rejects it; it preempts both.
  ASSERT_TRUE(writer.deleting.WaitForNotificationWithTimeout(absl::Seconds(10)));
  scheduler->OnPodDelete(port.Ptr());  // NodePorts queues it; PreEnqueue holds it back.
  EXPECT_EQ(scheduler->queue().Counts().gated, 1u);
  writer.release.Notify();
  scheduler->WaitForBindings();
  EXPECT_EQ(writer.deleted, (std::vector<std::string>{"default/port", "default/cpu"}));
  EXPECT_EQ(scheduler->queue().Counts().gated, 1u);  // `cpu` is still on n1.

  scheduler->OnPodDelete(cpu);
  EXPECT_EQ(scheduler->queue().Counts().gated, 0u);
  clock.Advance(absl::Seconds(10));  // Past its backoff.
  ASSERT_TRUE(scheduler->ScheduleOne());
  scheduler->WaitForBindings();
  EXPECT_EQ(writer.binds.at("default/high"), "n1");
}

// The last victim's deletion can be watched before its DELETE is answered: PreEnqueue then finds
// the victim gone and lets the pod through (upstream reads its pod lister).
TEST_F(AsyncPreemptionTest, TheLastVictimWatchedGoneLetsThePreemptorThrough) {
  scheduler->OnNodeAdd(MakeNode().Name("n1").Capacity({{"cpu", "2"}, {"pods", "110"}}).Ptr());
  auto low = MakePod().Name("low").Priority(0).Req("cpu", "1500m").Node("n1").Ptr();
  scheduler->OnPodAdd(low);
  scheduler->OnPodAdd(MakePod().Name("high").Priority(1000).Req("cpu", "1").Ptr());
  ASSERT_TRUE(scheduler->ScheduleOne());  // Fails, preempts; the deletion of `low` waits.
  ASSERT_TRUE(writer.deleting.WaitForNotificationWithTimeout(absl::Seconds(10)));

  scheduler->OnPodDelete(low);  // Watched while the DELETE is still in flight.
  EXPECT_EQ(scheduler->queue().Counts().gated, 0u);
  ASSERT_TRUE(scheduler->ScheduleOne());
  writer.release.Notify();
  scheduler->WaitForBindings();
  EXPECT_EQ(writer.binds.at("default/high"), "n1");
}

// A late echo of an earlier status patch, for a pod already scheduled and binding (the bind not
// yet watched), does not queue the pod again: it is neither scheduled twice nor preempts for a
// second copy of itself.
TEST_F(SchedulerTest, ALateUpdateOfAnAssumedPodDoesNotQueueItAgain) {
  s_->OnNodeAdd(MakeNode().Name("n1").Capacity({{"cpu", "2"}, {"pods", "110"}}).Ptr());
  api::Pod p = MakePod().Name("p").Req("cpu", "1500m").Obj();
  p.metadata.resource_version = "1";
  AddPod(p);
  ASSERT_TRUE(s_->ScheduleOne());
  s_->WaitForBindings();
  ASSERT_EQ(writer_.binds.at("default/p"), "n1");
  ASSERT_TRUE(s_->cache().IsAssumedPod(p.metadata.uid));
  api::Pod echo = p;  // The PodScheduled=False patch of an earlier attempt, watched late.
  echo.metadata.resource_version = "2";
  echo.status.conditions.push_back(
      {.type = "PodScheduled", .status = "False", .reason = "Unschedulable"});
  s_->OnPodUpdate(std::make_shared<const api::Pod>(p), std::make_shared<const api::Pod>(echo));
  EXPECT_FALSE(s_->queue().Contains(p.metadata.uid));
  EXPECT_FALSE(s_->ScheduleOne());
  EXPECT_TRUE(writer_.deleted.empty());
}

// The nomination counts before the API echoes it: a preemptor tried again while its victim is
// still terminating waits for it, and does not preempt on another node, though its pod object has
// no status.nominatedNodeName yet (the writer here never echoes one).
TEST_F(SchedulerTest, APreemptorWaitsForItsTerminatingVictimBeforeTheApiEchoesItsNomination) {
  for (const char* n : {"n1", "n2"}) {
    s_->OnNodeAdd(MakeNode().Name(n).Capacity({{"cpu", "2"}, {"pods", "110"}}).Ptr());
    s_->OnPodAdd(
        MakePod().Name(std::string("low-") + n).Priority(0).Req("cpu", "1500m").Node(n).Ptr());
  }
  api::Pod high = MakePod().Name("high").Priority(1000).Req("cpu", "1").Obj();
  AddPod(high);
  Drain();
  ASSERT_EQ(writer_.deleted.size(), 1u);
  const std::string victim = writer_.deleted[0].substr(std::string("default/").size());
  const std::string node = victim.substr(std::string("low-").size());
  // The victim's deletion begins: it is terminating, by preemption, and still on its node.
  api::Pod terminating = MakePod().Name(victim).Priority(0).Req("cpu", "1500m").Node(node).Obj();
  terminating.metadata.deletion_timestamp = "2026-11-25T00:00:00Z";
  terminating.status.conditions.push_back(
      {.type = "DisruptionTarget", .status = "True", .reason = "PreemptionByScheduler"});
  s_->OnPodUpdate(MakePod().Name(victim).Priority(0).Req("cpu", "1500m").Node(node).Ptr(),
                  std::make_shared<const api::Pod>(terminating));
  s_->queue().Activate({high.metadata.uid});
  Drain();
  EXPECT_EQ(writer_.deleted.size(), 1u);  // No second preemption.
  EXPECT_THAT(
      writer_.conditions.at("default/high").message,
      HasSubstr("preemption: not eligible due to a terminating pod on the nominated node."));
  EXPECT_FALSE(writer_.binds.contains("default/high"));
}

// A lower-priority pod nominated to the node where a preemption makes room loses its nomination.
TEST_F(SchedulerTest, PreemptionClearsTheNominationOfLesserPodsOnItsNode) {
  s_->OnNodeAdd(MakeNode().Name("n1").Capacity({{"cpu", "2"}, {"pods", "110"}}).Ptr());
  s_->OnPodAdd(MakePod().Name("low").Priority(0).Req("cpu", "1500m").Node("n1").Ptr());
  api::Pod mid = MakePod().Name("mid").Priority(10).Req("cpu", "3").Obj();
  mid.status.nominated_node_name = "n1";  // From an earlier preemption; it fits nowhere now.
  AddPod(mid);
  AddPod(MakePod().Name("high").Priority(1000).Req("cpu", "1"));
  Drain();
  EXPECT_EQ(writer_.deleted, std::vector<std::string>{"default/low"});
  EXPECT_EQ(writer_.nominated.at("default/high"), "n1");
  EXPECT_EQ(writer_.nominated.at("default/mid"), "");
}

}  // namespace
}  // namespace ksched::scheduler
