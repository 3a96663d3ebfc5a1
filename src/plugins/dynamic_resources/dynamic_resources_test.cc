#include "src/plugins/dynamic_resources/dynamic_resources.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>

#include "fmt/format.h"
#include "src/plugins/dynamic_resources/test_objects.h"
#include "src/sdk/cycle_state_access.h"
#include "src/testing/builders.h"
#include "src/testing/fake_handle.h"

namespace ksched::plugins::dynamic_resources {
namespace {

using ksched::testing::FakeHandle;
using ksched::testing::MakeNode;
using ksched::testing::MakePod;
using testing::Claim;
using testing::Class;
using testing::Slice;

// Whether a pool's held devices (or none) include `device`.
bool Has(const std::shared_ptr<const HeldDevices::Pool>& held, std::string_view device) {
  return held != nullptr && held->names.contains(device);
}

TEST(DynamicResourcesTest, APodWithoutClaimsSkipsFilterAndScoresZeroEverywhere) {
  FakeHandle handle({MakeNode().Name("a").Obj(), MakeNode().Name("b").Obj()}, {});
  DynamicResources plugin(handle, {});
  CycleState state;
  api::Pod pod = MakePod().Name("p").Req("cpu", "1").Obj();
  PreFilterResult pre;
  EXPECT_TRUE(plugin.PreFilter(state, pod, handle.snapshot().nodes(), &pre).IsSkip());

  NodeScoreList scores;
  for (const NodeInfo* node : handle.snapshot().nodes()) {
    int64_t score = -1;
    ASSERT_TRUE(plugin.Score(state, pod, *node, &score).ok());
    scores.push_back({node, score});
  }
  ASSERT_TRUE(plugin.NormalizeScore(state, pod, scores).ok());
  for (const NodeScore& s : scores) EXPECT_EQ(s.score, 0) << s.node->name();
  EXPECT_TRUE(plugin.PreBindPreFlight(state, pod, "a").IsSkip());

  PostFilterResult result;
  Status s = plugin.PostFilter(state, pod, NodeToStatus{}, &result);
  EXPECT_EQ(s.code(), Code::kUnschedulable);
  EXPECT_TRUE(s.reasons().empty());  // Since 1.37 no reason (1.36: "no new claims to deallocate").
  // An earlier PreFilter rejected the pod: upstream's PostFilter finds no state of its PreFilter.
  CycleState rejected_before;
  s = plugin.PostFilter(rejected_before, pod, NodeToStatus{}, &result);
  EXPECT_EQ(s.code(), Code::kError);
  EXPECT_EQ(s.Message(), "not found");
}

// Two nodes; n1 has one GPU, n2 two.
class DynamicResourcesClaimsTest : public ::testing::Test {
 protected:
  DynamicResourcesClaimsTest()
      : handle_({MakeNode().Name("n1").Obj(), MakeNode().Name("n2").Obj()}, {}),
        plugin_(handle_, {}) {
    Set(Class("metadata: {name: gpu}"));
    Set(Slice(R"(
      metadata: {name: n1-gpu}
      spec: {driver: gpu.example.com, nodeName: n1, pool: {name: n1, resourceSliceCount: 1},
             devices: [{name: g0}]})"));
    Set(Slice(R"(
      metadata: {name: n2-gpu}
      spec: {driver: gpu.example.com, nodeName: n2, pool: {name: n2, resourceSliceCount: 1},
             devices: [{name: g0}, {name: g1}]})"));
  }
  template <typename T>
  void Set(const T& obj) {
    testing::Store(handle_.listers().dra, obj);
  }
  // A claim for `count` GPUs, stored.
  api::ResourceClaim AddClaim(const std::string& name, int count = 1) {
    api::ResourceClaim claim = Claim(fmt::format(R"(
      metadata: {{name: {0}, namespace: default, uid: {0}-uid, resourceVersion: "1"}}
      spec: {{devices: {{requests: [{{name: gpu, exactly: {{deviceClassName: gpu, count: {1}}}}}]}}}})",
                                                 name, count));
    Set(claim);
    return claim;
  }
  // Gives the claim n1's GPU g0, available on `nodes` (by name).
  static void Allocate(api::ResourceClaim* claim, std::vector<std::string> nodes) {
    claim->allocation.emplace();
    claim->allocation->results.push_back(
        {.request = "gpu", .driver = "gpu.example.com", .pool = "n1", .device = "g0"});
    claim->allocation->node_selector.emplace().node_selector_terms.push_back(
        {.match_fields = {{.key = "metadata.name", .op = "In", .values = std::move(nodes)}}});
  }
  static api::Pod PodWith(const std::string& name, const std::string& claim) {
    api::Pod pod = MakePod().Name(name).Obj();
    pod.metadata.uid = name + "-uid";
    pod.spec.resource_claims.push_back({.name = "gpu", .resource_claim_name = claim});
    return pod;
  }
  // `plugin`'s Filter verdict on each node: "" or the message.
  std::vector<std::string> FilterWith(DynamicResources& plugin, CycleState& state,
                                      const api::Pod& pod) {
    PreFilterResult pre;
    Status st = plugin.PreFilter(state, pod, handle_.snapshot().nodes(), &pre);
    if (!st.ok()) return {"PreFilter: " + st.Message()};
    std::vector<std::string> out;
    for (const NodeInfo* node : handle_.snapshot().nodes()) {
      out.push_back(plugin.Filter(state, pod, *node).Message());
    }
    return out;
  }
  std::vector<std::string> Filter(CycleState& state, const api::Pod& pod) {
    return FilterWith(plugin_, state, pod);
  }

  FakeHandle handle_;
  DynamicResources plugin_;
};

TEST_F(DynamicResourcesClaimsTest, APodWaitsForItsClaimToExist) {
  api::Pod pod = PodWith("p", "gpu");
  EXPECT_EQ(plugin_.PreEnqueue(pod).Message(), "could not find ResourceClaim \"default/gpu\"");
  EXPECT_EQ(plugin_.PreEnqueue(pod).code(), Code::kUnschedulableAndUnresolvable);
  api::Pod templated = MakePod().Name("t").Obj();
  templated.spec.resource_claims.push_back({.name = "gpu", .resource_claim_template_name = "gpu"});
  EXPECT_EQ(plugin_.PreEnqueue(templated).Message(),
            "pod \"default/t\": ResourceClaim not created yet");
  AddClaim("gpu");
  EXPECT_TRUE(plugin_.PreEnqueue(pod).ok());
  // The controller made the template's claim, but for another pod.
  templated.status.resource_claim_statuses.push_back({.name = "gpu", .resource_claim_name = "gpu"});
  EXPECT_EQ(plugin_.PreEnqueue(templated).Message(),
            "ResourceClaim default/gpu was not created for Pod default/t (Pod is not owner)");

  // The hints: the pod's own update that names its claim, and the claim's creation.
  std::vector<ClusterEventWithHint> events = plugin_.EventsToRegister();
  ASSERT_EQ(events.size(), 5u);
  EXPECT_EQ(events[2].event.action, kUpdatePodGeneratedResourceClaim);
  ClusterEventData changed{.new_pod = &pod};
  EXPECT_EQ(events[2].hint(pod, changed), QueueingHint::kQueue);
  api::Pod other = PodWith("other", "missing");
  EXPECT_EQ(events[2].hint(other, changed), QueueingHint::kQueueSkip);
  std::shared_ptr<const api::ResourceClaim> claim =
      handle_.dra().GetResourceClaim("default", "gpu");
  ClusterEventData created{.storage = {.resource_claim = {nullptr, claim.get()}}};
  EXPECT_EQ(events[1].hint(pod, created), QueueingHint::kQueue);
  EXPECT_EQ(events[1].hint(other, created), QueueingHint::kQueueSkip);
  // A deleted claim (registered since 1.37): its devices come free only if it was allocated.
  EXPECT_TRUE(events[1].event.action & kDelete);
  ClusterEventData deleted{.storage = {.resource_claim = {claim.get(), nullptr}}};
  EXPECT_EQ(events[1].hint(other, deleted), QueueingHint::kQueueSkip);
  api::ResourceClaim allocated = *claim;
  allocated.allocation.emplace();
  ClusterEventData freed{.storage = {.resource_claim = {&allocated, nullptr}}};
  EXPECT_EQ(events[1].hint(other, freed), QueueingHint::kQueue);
}

TEST_F(DynamicResourcesClaimsTest, DevicesAreAllocatedReservedAndWritten) {
  AddClaim("a");
  AddClaim("b");
  AddClaim("two", 2);
  CycleState sa;
  api::Pod pa = PodWith("pa", "a");
  EXPECT_THAT(Filter(sa, pa), ::testing::ElementsAre("", ""));
  ASSERT_TRUE(plugin_.Reserve(sa, pa, "n1").ok());

  // n1's only GPU is in flight for pa: pb can only go to n2.
  CycleState sb;
  api::Pod pb = PodWith("pb", "b");
  EXPECT_THAT(Filter(sb, pb), ::testing::ElementsAre("cannot allocate all claims", ""));
  CycleState s2;
  api::Pod p2 = PodWith("p2", "two");
  EXPECT_THAT(Filter(s2, p2), ::testing::ElementsAre("cannot allocate all claims", ""));

  // PreBind writes the allocation and the reservation.
  ASSERT_TRUE(plugin_.PreBindPreFlight(sa, pa, "n1").ok());
  ASSERT_TRUE(plugin_.PreBind(sa, pa, "n1").ok());
  const api::ResourceClaim& written = handle_.recording_writer().claims.at("default/a");
  ASSERT_TRUE(written.allocation.has_value());
  ASSERT_EQ(written.allocation->results.size(), 1u);
  EXPECT_EQ(written.allocation->results[0].request, "gpu");
  EXPECT_EQ(written.allocation->results[0].driver, "gpu.example.com");
  EXPECT_EQ(written.allocation->results[0].pool, "n1");
  EXPECT_EQ(written.allocation->results[0].device, "g0");
  EXPECT_FALSE(written.allocation->allocation_timestamp.empty());
  ASSERT_EQ(written.reserved_for.size(), 1u);
  EXPECT_EQ(written.reserved_for[0].resource, "pods");
  EXPECT_EQ(written.reserved_for[0].name, "pa");
  EXPECT_EQ(written.reserved_for[0].uid, "pa-uid");
  // No longer in flight, but allocated: still taken.
  EXPECT_FALSE(plugin_.tracker().InFlight("a-uid"));
  EXPECT_TRUE(Has(handle_.dra().AllocatedInPool("gpu.example.com", "n1"), "g0"));
  CycleState sb2;
  EXPECT_THAT(Filter(sb2, pb), ::testing::ElementsAre("cannot allocate all claims", ""));

  // The claim is pa's now: a second pod that shares it goes where the devices are.
  CycleState shared;
  api::Pod sharer = PodWith("sharer", "a");
  EXPECT_THAT(Filter(shared, sharer),
              ::testing::ElementsAre("", "resourceclaim not available on the node"));
}

// A DeviceTaintRule taints the devices it selects, as if the slice had the taint; without the
// DRADeviceTaintRules gate (its default before 1.37) the rules are not read.
TEST_F(DynamicResourcesClaimsTest, DeviceTaintRulesTaintTheDevicesTheySelect) {
  AddClaim("a");
  api::Pod pod = PodWith("p", "a");
  auto rule = [](std::string name, std::optional<api::DeviceTaintSelector> selector,
                 std::string effect) {
    api::DeviceTaintRule r{.device_selector = std::move(selector),
                           .taint = {.key = "drain", .effect = std::move(effect)}};
    r.metadata.name = std::move(name);
    return r;
  };
  // No selector selects nothing; effect None blocks nothing.
  Set(rule("nothing", std::nullopt, "NoSchedule"));
  Set(rule("none", api::DeviceTaintSelector{}, "None"));
  CycleState s1;
  EXPECT_THAT(Filter(s1, pod), ::testing::ElementsAre("", ""));
  // n1's g0, and n2's g1: n2 still has g0.
  Set(rule("n1", api::DeviceTaintSelector{.pool = "n1"}, "NoSchedule"));
  Set(rule("g1", api::DeviceTaintSelector{.driver = "gpu.example.com", .device = "g1"},
           "NoExecute"));
  CycleState s2;
  EXPECT_THAT(Filter(s2, pod), ::testing::ElementsAre("cannot allocate all claims", ""));
  // Every device.
  Set(rule("all", api::DeviceTaintSelector{}, "NoSchedule"));
  CycleState s3;
  EXPECT_THAT(Filter(s3, pod),
              ::testing::ElementsAre("cannot allocate all claims", "cannot allocate all claims"));
  // The gate off: the rules are not read.
  DynamicResources without(handle_, {}, {.device_taint_rules = false});
  CycleState s4;
  PreFilterResult pre;
  ASSERT_TRUE(without.PreFilter(s4, pod, handle_.snapshot().nodes(), &pre).ok());
  EXPECT_TRUE(without.Filter(s4, pod, *handle_.snapshot().nodes()[0]).ok());
}

// Emulating 1.35, where the partitionable, binding-conditions, consumable-capacity and taint gates
// are off: the allocator sees the slices as upstream's does then.
TEST(ForGatesTest, GatesThatAreOffLeaveOutWhatTheyGovern) {
  auto slice = [](const std::string& yaml) {
    return std::make_shared<const api::ResourceSlice>(Slice(yaml));
  };
  std::vector<std::shared_ptr<const api::ResourceSlice>> slices = {slice(R"(
        metadata: {name: counters}
        spec: {driver: gpu.example.com, nodeName: n1, pool: {name: p1, resourceSliceCount: 1},
               sharedCounters: [{name: mem, counters: {memory: {value: 1Gi}}}],
               devices: [{name: whole}]})"),
                                                                   slice(R"(
        metadata: {name: devices}
        spec: {driver: gpu.example.com, nodeName: n1, pool: {name: p2, resourceSliceCount: 1},
               devices: [{name: part, consumesCounters: [{counterSet: mem, counters: {memory: {value: 1Gi}}}]},
                         {name: waits, bindingConditions: [ready], bindingFailureConditions: [failed]},
                         {name: shared, allowMultipleAllocations: true},
                         {name: tainted, taints: [{key: k, effect: NoSchedule}]}]})"),
                                                                   slice(R"(
        metadata: {name: plain}
        spec: {driver: gpu.example.com, nodeName: n1, pool: {name: p3, resourceSliceCount: 1},
               devices: [{name: plain}]})")};
  // All on: nothing changes, nothing is copied.
  std::vector<std::shared_ptr<const api::ResourceSlice>> same = ForGates(slices, {});
  ASSERT_EQ(same.size(), 3u);
  EXPECT_EQ(same[0].get(), slices[0].get());
  const std::vector<std::shared_ptr<const api::ResourceSlice>> off =
      ForGates(slices, {.device_taints = false,
                        .partitionable_devices = false,
                        .consumable_capacity = false,
                        .binding_conditions = false});
  ASSERT_EQ(off.size(), 3u);
  EXPECT_EQ(off[2].get(), slices[2].get());  // Nothing of it is gated: shared as it is.
  EXPECT_TRUE(off[0]->devices.empty());  // Shared counters: no device, but it counts for its pool.
  EXPECT_EQ(off[0]->pool_slice_count, 1);
  const std::vector<api::Device>& devices = off[1]->devices;
  ASSERT_EQ(devices.size(), 2u);  // "part" and "waits" are left out.
  EXPECT_EQ(devices[0].name, "shared");
  EXPECT_FALSE(devices[0].allow_multiple_allocations.has_value());  // Exclusive, as any device.
  EXPECT_TRUE(slices[1]->devices[2].allow_multiple_allocations.value_or(false));
  EXPECT_EQ(devices[1].name, "tainted");
  EXPECT_TRUE(devices[1].taints.empty());
  // The input is untouched.
  EXPECT_EQ(slices[1]->devices.size(), 4u);
}

// PreBindAsync answers where the claim's write is answered (the API client's I/O thread, in
// `ksched run`); meanwhile, and after, the device stays taken, so no other pod is given it.
TEST_F(DynamicResourcesClaimsTest, PreBindAsyncAnswersOnceTheClaimIsWrittenAndTheDeviceStaysTaken) {
  AddClaim("a");
  AddClaim("b");
  CycleState sa;
  api::Pod pa = PodWith("pa", "a");
  Filter(sa, pa);
  ASSERT_TRUE(plugin_.Reserve(sa, pa, "n1").ok());
  auto& writer = handle_.recording_writer();
  writer.hold_binds = true;
  std::optional<Status> answer;
  plugin_.PreBindAsync(sa, pa, "n1", [&](Status s) { answer = std::move(s); });
  EXPECT_FALSE(answer.has_value());  // The write is on its way.
  EXPECT_FALSE(writer.claims.contains("default/a"));
  CycleState sb;
  api::Pod pb = PodWith("pb", "b");
  EXPECT_THAT(Filter(sb, pb), ::testing::ElementsAre("cannot allocate all claims", ""));

  EXPECT_EQ(writer.AnswerHeldBinds(), 1u);
  ASSERT_TRUE(answer.has_value());
  EXPECT_TRUE(answer->ok()) << answer->Message();
  ASSERT_EQ(writer.claims.at("default/a").reserved_for.size(), 1u);
  EXPECT_EQ(writer.claims.at("default/a").reserved_for[0].name, "pa");
  EXPECT_FALSE(plugin_.tracker().InFlight("a-uid"));
  CycleState sb2;
  EXPECT_THAT(Filter(sb2, pb), ::testing::ElementsAre("cannot allocate all claims", ""));
}

TEST_F(DynamicResourcesClaimsTest, UnreserveReleasesTheDevicesAndTheReservation) {
  AddClaim("a");
  AddClaim("b");
  CycleState sa;
  api::Pod pa = PodWith("pa", "a");
  Filter(sa, pa);
  ASSERT_TRUE(plugin_.Reserve(sa, pa, "n1").ok());
  EXPECT_TRUE(plugin_.tracker().InFlight("a-uid"));
  // In flight: another pod of the same claim waits for it.
  CycleState again;
  EXPECT_THAT(Filter(again, PodWith("again", "a")),
              ::testing::ElementsAre("PreFilter: resource claim default/a is in the process of "
                                     "being allocated"));
  ASSERT_TRUE(plugin_.PreBind(sa, pa, "n1").ok());
  plugin_.Unreserve(sa, pa, "n1");
  // The reservation is gone; the allocation stays (upstream leaves it to PostFilter).
  EXPECT_TRUE(handle_.recording_writer().claims.at("default/a").reserved_for.empty());
  EXPECT_FALSE(plugin_.tracker().InFlight("a-uid"));

  // A reservation failed: the device is free again for the next pod.
  CycleState sb;
  api::Pod pb = PodWith("pb", "b");
  handle_.recording_writer().claim_error = absl::UnavailableError("connection refused");
  EXPECT_THAT(Filter(sb, pb), ::testing::ElementsAre("cannot allocate all claims", ""));
  ASSERT_TRUE(plugin_.Reserve(sb, pb, "n2").ok());
  EXPECT_TRUE(
      Has(plugin_.tracker().Pending()->InPool("gpu.example.com", "n2"), "g0"));  // In flight.
  Status st = plugin_.PreBind(sb, pb, "n2");
  EXPECT_EQ(st.code(), Code::kError);
  EXPECT_EQ(st.Message(), "add allocation and reservation to claim default/b: connection refused");
  plugin_.Unreserve(sb, pb, "n2");
  EXPECT_FALSE(Has(plugin_.tracker().Pending()->InPool("gpu.example.com", "n2"), "g0"));
  EXPECT_FALSE(Has(handle_.dra().AllocatedInPool("gpu.example.com", "n2"), "g0"));
}

// A pod group's cycle reserves its pods in a trial, unreserves them, and reserves them again where
// it places them: the devices are held again, for the same node only.
TEST_F(DynamicResourcesClaimsTest, AReserveAfterUnreserveHoldsTheSameDevicesAgain) {
  AddClaim("a");
  AddClaim("b");
  CycleState sa;
  api::Pod pa = PodWith("pa", "a");
  Filter(sa, pa);
  ASSERT_TRUE(plugin_.Reserve(sa, pa, "n1").ok());
  plugin_.Unreserve(sa, pa, "n1");
  EXPECT_FALSE(plugin_.tracker().InFlight("a-uid"));
  ASSERT_TRUE(plugin_.Reserve(sa, pa, "n1").ok());
  EXPECT_TRUE(plugin_.tracker().InFlight("a-uid"));
  CycleState sb;
  api::Pod pb = PodWith("pb", "b");
  EXPECT_THAT(Filter(sb, pb), ::testing::ElementsAre("cannot allocate all claims", ""));
  CycleState so;
  api::Pod po = PodWith("po", "b");
  Filter(so, po);
  ASSERT_TRUE(plugin_.Reserve(so, po, "n2").ok());
  plugin_.Unreserve(so, po, "n2");
  EXPECT_EQ(plugin_.Reserve(so, po, "n1").Message(), "claim allocation not found for node");

  ASSERT_TRUE(plugin_.PreBind(sa, pa, "n1").ok());
  const api::ResourceClaim& written = handle_.recording_writer().claims.at("default/a");
  ASSERT_TRUE(written.allocation.has_value());
  EXPECT_EQ(written.allocation->results[0].pool, "n1");
  EXPECT_FALSE(plugin_.tracker().InFlight("a-uid"));
  plugin_.Unreserve(sa, pa, "n1");  // Holds nothing any more.
  EXPECT_TRUE(Has(handle_.dra().AllocatedInPool("gpu.example.com", "n1"), "g0"));
}

// Pods of one pod group's cycle share a claim that the first of them allocates (upstream's
// pendingAllocations): the next go where its devices are; a pod outside the cycle waits for it.
// PreBind writes the allocation once: the second pod finds it written and only reserves the claim.
TEST_F(DynamicResourcesClaimsTest, PodsOfAPodGroupCycleShareTheClaimTheFirstAllocates) {
  AddClaim("shared");
  CycleState group_cycle, s1, s2;
  internal::CycleStateAccess::SetPodGroupCycle(s1, &group_cycle);
  internal::CycleStateAccess::SetPodGroupCycle(s2, &group_cycle);
  api::Pod p1 = PodWith("p1", "shared");
  api::Pod p2 = PodWith("p2", "shared");
  p1.spec.pod_group_name = p2.spec.pod_group_name = "train";
  EXPECT_THAT(Filter(s1, p1), ::testing::ElementsAre("", ""));
  ASSERT_TRUE(plugin_.Reserve(s1, p1, "n2").ok());
  EXPECT_THAT(Filter(s2, p2),
              ::testing::ElementsAre("resourceclaim not available on the node", ""));
  ASSERT_TRUE(plugin_.Reserve(s2, p2, "n2").ok());
  CycleState alone;
  EXPECT_THAT(Filter(alone, PodWith("other", "shared")),
              ::testing::ElementsAre("PreFilter: resource claim default/shared is in the process "
                                     "of being allocated"));
  // A trial taken back and placed again: both hold it again.
  plugin_.Unreserve(s2, p2, "n2");
  EXPECT_TRUE(plugin_.tracker().InFlight("shared-uid"));
  plugin_.Unreserve(s1, p1, "n2");
  EXPECT_FALSE(plugin_.tracker().InFlight("shared-uid"));
  ASSERT_TRUE(plugin_.Reserve(s1, p1, "n2").ok());
  ASSERT_TRUE(plugin_.Reserve(s2, p2, "n2").ok());
  internal::CycleStateAccess::EndSchedulingCycle(s1);
  internal::CycleStateAccess::EndSchedulingCycle(s2);

  ASSERT_TRUE(plugin_.PreBind(s1, p1, "n2").ok());
  ASSERT_TRUE(plugin_.PreBind(s2, p2, "n2").ok());
  const api::ResourceClaim& written = handle_.recording_writer().claims.at("default/shared");
  ASSERT_TRUE(written.allocation.has_value());
  EXPECT_EQ(written.allocation->results[0].pool, "n2");
  ASSERT_EQ(written.reserved_for.size(), 2u);
  EXPECT_EQ(written.reserved_for[0].name, "p1");
  EXPECT_EQ(written.reserved_for[1].name, "p2");
  EXPECT_FALSE(plugin_.tracker().InFlight("shared-uid"));
  // The next group's pods do not share what is no longer in flight: they find it allocated.
  CycleState later;
  EXPECT_THAT(Filter(later, PodWith("later", "shared")),
              ::testing::ElementsAre("resourceclaim not available on the node", ""));
}

// A pod group that did not fit: PodGroupPostFilter frees each pod's claims as its PostFilter
// would (a claim allocated where the pod cannot go, reserved for nobody, is deallocated), in its
// own words; when no pod of the cycle got to PreFilter, it fails as upstream's CycleState does.
TEST_F(DynamicResourcesClaimsTest, PodGroupPostFilterFreesEachPodsClaims) {
  api::ResourceClaim claim = AddClaim("a");
  Allocate(&claim, {"gone"});
  Set(claim);
  CycleState group_cycle, state;
  internal::CycleStateAccess::SetPodGroupCycle(state, &group_cycle);
  api::Pod pod = PodWith("p", "a");
  pod.spec.pod_group_name = "train";
  EXPECT_THAT(Filter(state, pod), ::testing::Each("resourceclaim not available on the node"));
  api::PodGroup group;
  group.metadata = {.name = "train", .namespace_ = "default", .uid = "train-uid"};
  std::vector<const api::Pod*> pods = {&pod};
  std::vector<CycleState*> states = {&state};
  Status st = plugin_.PodGroupPostFilter(group_cycle, group, pods, states);
  EXPECT_EQ(st.code(), Code::kUnschedulable);
  EXPECT_EQ(st.Message(), "deallocation and deletion of ResourceClaims completed");
  EXPECT_FALSE(handle_.recording_writer().claims.at("default/a").allocation.has_value());
  CycleState none_tried;
  st = plugin_.PodGroupPostFilter(none_tried, group, pods, states);
  EXPECT_EQ(st.code(), Code::kError);
  EXPECT_EQ(st.Message(), "not found");
}

// DRAWorkloadResourceClaims: a PodGroup's claims, reserved for the group.
class WorkloadClaimsTest : public DynamicResourcesClaimsTest {
 protected:
  WorkloadClaimsTest() : group_plugin_(handle_, {}, {.workload_resource_claims = true}) {
    group_.metadata = {.name = "train", .namespace_ = "default", .uid = "train-uid"};
    group_.gang_min_count = 2;
    group_.resource_claims = {{.name = "gpu", .resource_claim_name = "shared"}};
    handle_.listers().pod_groups.Set(std::make_shared<const api::PodGroup>(group_));
  }
  static api::Pod Member(const std::string& name, const std::string& claim) {
    api::Pod pod = PodWith(name, claim);
    pod.spec.pod_group_name = "train";
    return pod;
  }
  api::PodGroup group_;
  DynamicResources group_plugin_;
};

// A claim the group has (the same entry: name and claim) is reserved once, for the group; the
// pods' own claims for the pods. Unreserve leaves the group's reservation.
TEST_F(WorkloadClaimsTest, TheGroupsClaimIsReservedForTheGroupOnce) {
  AddClaim("shared");
  AddClaim("own");
  CycleState group_cycle, s1, s2;
  internal::CycleStateAccess::SetPodGroupCycle(s1, &group_cycle);
  internal::CycleStateAccess::SetPodGroupCycle(s2, &group_cycle);
  api::Pod p1 = Member("p1", "shared");
  api::Pod p2 = Member("p2", "shared");
  p2.spec.resource_claims.push_back({.name = "mine", .resource_claim_name = "own"});
  EXPECT_THAT(FilterWith(group_plugin_, s1, p1), ::testing::ElementsAre("", ""));
  ASSERT_TRUE(group_plugin_.Reserve(s1, p1, "n2").ok());
  EXPECT_THAT(FilterWith(group_plugin_, s2, p2),
              ::testing::ElementsAre("resourceclaim not available on the node", ""));
  ASSERT_TRUE(group_plugin_.Reserve(s2, p2, "n2").ok());
  ASSERT_TRUE(group_plugin_.PreBind(s1, p1, "n2").ok());
  ASSERT_TRUE(group_plugin_.PreBind(s2, p2, "n2").ok());
  const auto& claims = handle_.recording_writer().claims;
  const api::ResourceClaim& shared = claims.at("default/shared");
  ASSERT_EQ(shared.reserved_for.size(), 1u);
  EXPECT_EQ(shared.reserved_for[0].api_group, "scheduling.k8s.io");
  EXPECT_EQ(shared.reserved_for[0].resource, "podgroups");
  EXPECT_EQ(shared.reserved_for[0].name, "train");
  EXPECT_EQ(shared.reserved_for[0].uid, "train-uid");
  ASSERT_EQ(claims.at("default/own").reserved_for.size(), 1u);
  EXPECT_EQ(claims.at("default/own").reserved_for[0].name, "p2");
  group_plugin_.Unreserve(s2, p2, "n2");
  EXPECT_EQ(claims.at("default/shared").reserved_for.size(), 1u);
  EXPECT_TRUE(claims.at("default/own").reserved_for.empty());

  // A pod of the group that names the claim under another entry finds it reserved for its group
  // (upstream's IsReservedForPod knows the group by name): nothing to write. Without the gate,
  // every pod reserves it for itself.
  api::Pod other = Member("other", "shared");
  other.spec.resource_claims[0].name = "gpu2";
  CycleState so;
  EXPECT_THAT(FilterWith(group_plugin_, so, other),
              ::testing::ElementsAre("resourceclaim not available on the node", ""));
  ASSERT_TRUE(group_plugin_.PreBind(so, other, "n2").ok());
  EXPECT_EQ(claims.at("default/shared").reserved_for.size(), 1u);
  CycleState sp;
  api::Pod plain = Member("plain", "shared");
  EXPECT_THAT(Filter(sp, plain),
              ::testing::ElementsAre("resourceclaim not available on the node", ""));
  ASSERT_TRUE(plugin_.PreBind(sp, plain, "n2").ok());
  EXPECT_EQ(claims.at("default/shared").reserved_for.back().name, "plain");
}

// A template's claim made for the pod's PodGroup is the pod's with the gate, in upstream's words
// otherwise; a group that is gone keeps its pods pending.
TEST_F(WorkloadClaimsTest, AClaimTheGroupOwnsIsItsPodsWithTheGate) {
  api::ResourceClaim claim = AddClaim("train-scratch-x");
  claim.metadata.owner_references = {{.api_version = "scheduling.k8s.io/v1beta1",
                                      .kind = "PodGroup",
                                      .name = "train",
                                      .uid = "train-uid",
                                      .controller = true}};
  Set(claim);
  api::Pod pod = Member("p", "unused");
  pod.spec.resource_claims = {{.name = "scratch", .resource_claim_template_name = "scratch"}};
  pod.status.resource_claim_statuses = {
      {.name = "scratch", .resource_claim_name = "train-scratch-x"}};
  EXPECT_EQ(plugin_.PreEnqueue(pod).Message(),
            "ResourceClaim default/train-scratch-x was not created for Pod default/p (Pod is not "
            "owner)");
  EXPECT_TRUE(group_plugin_.PreEnqueue(pod).ok());
  pod.spec.pod_group_name = "infer";
  EXPECT_EQ(group_plugin_.PreEnqueue(pod).Message(),
            "ResourceClaim default/train-scratch-x was not created for Pod default/p (neither Pod "
            "nor PodGroup infer is the owner)");
  CycleState state;
  EXPECT_THAT(FilterWith(group_plugin_, state, Member("q", "train-scratch-x")),
              ::testing::ElementsAre("", ""));
  api::Pod lost = PodWith("lost", "train-scratch-x");
  lost.spec.pod_group_name = "gone";
  CycleState lost_state;
  EXPECT_THAT(FilterWith(group_plugin_, lost_state, lost),
              ::testing::ElementsAre("PreFilter: pod group object not found for pod group "
                                     "podgroup/default/gone"));
}

// PodGroupPostFilter: each pod's claims as PostFilter frees them; then, with the gate and none
// of the group placed, the group's: deallocated where available nowhere and reserved for the
// group alone, else the group's reservation goes.
TEST_F(WorkloadClaimsTest, PodGroupPostFilterFreesTheGroupsClaims) {
  api::ResourceClaim claim = AddClaim("shared");
  Allocate(&claim, {"gone"});
  claim.reserved_for = {{.api_group = "scheduling.k8s.io",
                         .resource = "podgroups",
                         .name = "train",
                         .uid = "train-uid"}};
  Set(claim);
  api::Pod p1 = Member("p1", "shared");
  api::Pod p2 = Member("p2", "shared");
  auto run = [&](DynamicResources& plugin) {
    CycleState group_cycle, s1, s2;
    internal::CycleStateAccess::SetPodGroupCycle(s1, &group_cycle);
    internal::CycleStateAccess::SetPodGroupCycle(s2, &group_cycle);
    EXPECT_THAT(FilterWith(plugin, s1, p1),
                ::testing::Each("resourceclaim not available on the node"));
    FilterWith(plugin, s2, p2);
    std::vector<const api::Pod*> pods = {&p1, &p2};
    std::vector<CycleState*> states = {&s1, &s2};
    return plugin.PodGroupPostFilter(group_cycle, group_, pods, states);
  };
  // Without the gate, only the pods' own claims are looked at: the group's reservation stays.
  Status st = run(plugin_);
  EXPECT_EQ(st.code(), Code::kUnschedulable);
  EXPECT_EQ(st.Message(), "deallocation and deletion of ResourceClaims completed");
  EXPECT_FALSE(handle_.recording_writer().claims.contains("default/shared"));
  st = run(group_plugin_);
  EXPECT_EQ(st.code(), Code::kUnschedulable);
  EXPECT_EQ(st.Message(), "deallocation of PodGroup ResourceClaim completed");
  EXPECT_FALSE(handle_.recording_writer().claims.at("default/shared").allocation.has_value());

  // Available everywhere but the group does not fit: its reservation goes, the allocation stays.
  Allocate(&claim, {"n1", "n2"});
  claim.metadata.resource_version = "7";
  Set(claim);
  api::Pod big = Member("big", "shared");
  big.spec.resource_claims.push_back({.name = "more", .resource_claim_name = "more"});
  AddClaim("more", 3);
  CycleState group_cycle, sb;
  internal::CycleStateAccess::SetPodGroupCycle(sb, &group_cycle);
  EXPECT_THAT(FilterWith(group_plugin_, sb, big), ::testing::Each("cannot allocate all claims"));
  std::vector<const api::Pod*> pods = {&big};
  std::vector<CycleState*> states = {&sb};
  st = group_plugin_.PodGroupPostFilter(group_cycle, group_, pods, states);
  EXPECT_EQ(st.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(st.Message(), "ResourceClaim unreserved for PodGroup");
  const api::ResourceClaim& now = handle_.recording_writer().claims.at("default/shared");
  EXPECT_TRUE(now.allocation.has_value());
  EXPECT_TRUE(now.reserved_for.empty());
  // No pod got to PreFilter: upstream's CycleState error.
  CycleState empty;
  EXPECT_EQ(group_plugin_.PodGroupPostFilter(empty, group_, pods, states).Message(), "not found");
}

// Pods whose claims differ in turn each have searches kept for their specs (DynamicResources keeps
// a memo per list of specs): what one pod took or gave back in between is seen by the next pod of
// every spec.
TEST_F(DynamicResourcesClaimsTest, PodsOfSeveralSpecsInTurnSeeTheDevicesTakenMeanwhile) {
  AddClaim("one-a");
  AddClaim("two", 2);
  AddClaim("one-b");
  AddClaim("one-c");
  CycleState sa;
  api::Pod pa = PodWith("pa", "one-a");
  EXPECT_THAT(Filter(sa, pa), ::testing::ElementsAre("", ""));
  CycleState s2;
  EXPECT_THAT(Filter(s2, PodWith("p2", "two")),
              ::testing::ElementsAre("cannot allocate all claims", ""));
  ASSERT_TRUE(plugin_.Reserve(sa, pa, "n2").ok());  // One of n2's two GPUs.
  CycleState s2b;
  EXPECT_THAT(Filter(s2b, PodWith("p2b", "two")),
              ::testing::ElementsAre("cannot allocate all claims", "cannot allocate all claims"));
  CycleState sb;
  api::Pod pb = PodWith("pb", "one-b");
  EXPECT_THAT(Filter(sb, pb), ::testing::ElementsAre("", ""));
  ASSERT_TRUE(plugin_.Reserve(sb, pb, "n1").ok());
  CycleState sc;
  EXPECT_THAT(Filter(sc, PodWith("pc", "one-c")),
              ::testing::ElementsAre("cannot allocate all claims", ""));
  plugin_.Unreserve(sa, pa, "n2");  // n2's GPUs are both free again.
  CycleState s2c;
  EXPECT_THAT(Filter(s2c, PodWith("p2c", "two")),
              ::testing::ElementsAre("cannot allocate all claims", ""));
  CycleState sc2;
  EXPECT_THAT(Filter(sc2, PodWith("pc2", "one-c")),
              ::testing::ElementsAre("cannot allocate all claims", ""));
}

TEST_F(DynamicResourcesClaimsTest, AClaimAllocatedElsewhereIsDeallocatedByPostFilter) {
  api::ResourceClaim claim = AddClaim("a");
  Allocate(&claim, {"n1"});
  Set(claim);
  // A pod that also asks for a GPU n1 does not have: the allocated claim holds it to n1.
  api::Pod pod = PodWith("p", "a");
  pod.spec.resource_claims.push_back({.name = "more", .resource_claim_name = "more"});
  AddClaim("more");
  CycleState state;
  EXPECT_THAT(Filter(state, pod),
              ::testing::ElementsAre("cannot allocate all claims",
                                     "resourceclaim not available on the node"));
  PostFilterResult result;
  Status st = plugin_.PostFilter(state, pod, NodeToStatus{}, &result);
  EXPECT_EQ(st.code(), Code::kUnschedulable);
  EXPECT_EQ(st.Message(), "deallocation of ResourceClaim completed");
  EXPECT_FALSE(handle_.recording_writer().claims.at("default/a").allocation.has_value());

  // Reserved for another pod: it stays.
  api::ResourceClaim reserved = claim;
  reserved.metadata.resource_version = "9";
  reserved.reserved_for.push_back({.resource = "pods", .name = "x", .uid = "x-uid"});
  Set(reserved);
  CycleState again;
  Filter(again, pod);
  const Status still = plugin_.PostFilter(again, pod, NodeToStatus{}, &result);
  EXPECT_EQ(still.code(), Code::kUnschedulable);
  EXPECT_TRUE(still.reasons().empty());  // 1.36: "still not schedulable".
}

TEST_F(DynamicResourcesClaimsTest, ScoresPreferNodesWhereEarlierAlternativesFit) {
  Set(Claim(R"(
    metadata: {name: pick, namespace: default, uid: pick-uid}
    spec:
      devices:
        requests:
        - name: gpu
          firstAvailable:
          - {name: two, deviceClassName: gpu, count: 2}
          - {name: one, deviceClassName: gpu, count: 1})"));
  api::Pod pod = PodWith("p", "pick");
  CycleState state;
  EXPECT_THAT(Filter(state, pod), ::testing::ElementsAre("", ""));
  NodeScoreList scores;
  for (const NodeInfo* node : handle_.snapshot().nodes()) {
    int64_t score = -1;
    ASSERT_TRUE(plugin_.Score(state, pod, *node, &score).ok());
    scores.push_back({node, score});
  }
  // n1 can give "one" (the second alternative: 8-1), n2 "two" (8-0).
  EXPECT_EQ(scores[0].score, 7);
  EXPECT_EQ(scores[1].score, 8);
  ASSERT_TRUE(plugin_.NormalizeScore(state, pod, scores).ok());
  EXPECT_EQ(scores[0].score, 87);
  EXPECT_EQ(scores[1].score, 100);
}

TEST_F(DynamicResourcesClaimsTest, ClaimsThatCannotBeHonouredSayWhy) {
  CycleState state;
  // A class that does not exist.
  Set(Claim(R"(
    metadata: {name: noclass, namespace: default}
    spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: tpu}}]}})"));
  EXPECT_THAT(Filter(state, PodWith("p", "noclass")),
              ::testing::ElementsAre("PreFilter: request gpu: device class tpu does not exist"));
  // A field ksched does not support.
  Set(Claim(R"(
    metadata: {name: waits, namespace: default}
    spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu}}]}}
    status:
      allocation:
        devices:
          results:
          - {request: gpu, driver: gpu.example.com, pool: n1, device: g0, skipNodeOperations: [Prepare]})"));
  EXPECT_THAT(Filter(state, PodWith("p", "waits")),
              ::testing::ElementsAre("PreFilter: resource claim default/waits: "
                                     "status.allocation.devices.results[0].skipNodeOperations is "
                                     "not supported by ksched yet"));
  // Reserved for as many pods as a claim may be.
  api::ResourceClaim full = AddClaim("full");
  full.allocation.emplace();
  for (int i = 0; i < 256; ++i) full.reserved_for.push_back({.uid = std::to_string(i)});
  Set(full);
  EXPECT_THAT(Filter(state, PodWith("p", "full")),
              ::testing::ElementsAre("PreFilter: resourceclaim in use"));
}

// Without the CEL library (a ksched built without Go, or one whose library cannot be opened), a
// class that selects by the driver's name alone still allocates: ksched judges that form itself.
// A selector that needs the library keeps its pod pending, naming the library, and nothing else is
// held back.
class DynamicResourcesWithoutCelTest : public DynamicResourcesClaimsTest {
 protected:
  // Before the first selector opens the library (ctest runs each test in a process of its own).
  static void SetUpTestSuite() { setenv("KSCHED_CEL_LIBRARY", "/nonexistent/libksched_cel.so", 1); }
};

TEST_F(DynamicResourcesWithoutCelTest, TheDriverAloneNeedsNoLibraryAndOtherSelectorsNameIt) {
  Set(Class(R"(
    metadata: {name: gpu}
    spec: {selectors: [{cel: {expression: 'device.driver == "gpu.example.com"'}}]})"));
  AddClaim("gpu");
  CycleState state;
  EXPECT_THAT(Filter(state, PodWith("p", "gpu")), ::testing::ElementsAre("", ""));

  Set(Class(R"(
    metadata: {name: other-driver}
    spec: {selectors: [{cel: {expression: "device.driver == 'tpu.example.com'"}}]})"));
  Set(Claim(R"(
    metadata: {name: tpu, namespace: default}
    spec: {devices: {requests: [{name: tpu, exactly: {deviceClassName: other-driver}}]}})"));
  CycleState tpu_state;
  EXPECT_THAT(Filter(tpu_state, PodWith("q", "tpu")),
              ::testing::Each("cannot allocate all claims"));

  Set(Class(R"(
    metadata: {name: a100}
    spec: {selectors: [{cel: {expression: 'device.attributes["gpu.example.com"].model == "a100"'}}]})"));
  Set(Claim(R"(
    metadata: {name: a100, namespace: default}
    spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: a100}}]}})"));
  CycleState a100_state;
  EXPECT_THAT(Filter(a100_state, PodWith("r", "a100")),
              ::testing::Each(
                  ::testing::AllOf(::testing::StartsWith("device selectors cannot be evaluated: "),
                                   ::testing::HasSubstr("/nonexistent/libksched_cel.so"))));
}

}  // namespace
}  // namespace ksched::plugins::dynamic_resources
