#include "src/plugins/dynamic_resources/binding.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <future>

#include "absl/time/clock.h"
#include "fmt/format.h"
#include "ksched/api/field.h"
#include "src/plugins/dynamic_resources/dynamic_resources.h"
#include "src/plugins/dynamic_resources/test_objects.h"
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

// A claim allocated a device that waits for "attached" and fails on "failed", with this status
// of the device (YAML, or "" for none) and this allocation time.
api::ResourceClaim Waiting(const std::string& devices, absl::Time allocated = absl::Now()) {
  return Claim(fmt::format(R"(
    metadata: {{name: c, namespace: default}}
    spec: {{devices: {{requests: [{{name: gpu, exactly: {{deviceClassName: gpu}}}}]}}}}
    status:
      allocation:
        allocationTimestamp: "{}"
        devices:
          results:
          - {{request: gpu, driver: gpu.example.com, pool: n1, device: g0,
              bindingConditions: [attached], bindingFailureConditions: [failed]}}
          - {{request: gpu, driver: gpu.example.com, pool: n1, device: plain}}
      {})",
                           api::field::MetaTime(allocated), devices));
}

TEST(BindingOfTest, ReadyOnceEveryConditionIsTrueFailedOnAFailureConditionTimedOutAfterTimeout) {
  const absl::Time now = absl::Now();
  const absl::Duration timeout = absl::Minutes(10);
  EXPECT_EQ(BindingOf(Waiting(""), timeout, now).state, Binding::kWaiting);
  // Another device's status says nothing of g0.
  EXPECT_EQ(BindingOf(Waiting(R"(devices:
      - {driver: gpu.example.com, pool: n1, device: plain, conditions: [{type: attached, status: "True"}]})"),
                      timeout, now)
                .state,
            Binding::kWaiting);
  EXPECT_EQ(BindingOf(Waiting(R"(devices:
      - {driver: gpu.example.com, pool: n1, device: g0, conditions: [{type: attached, status: "False"}]})"),
                      timeout, now)
                .state,
            Binding::kWaiting);
  EXPECT_EQ(BindingOf(Waiting(R"(devices:
      - {driver: gpu.example.com, pool: n1, device: g0, conditions: [{type: attached, status: "True"}]})"),
                      timeout, now)
                .state,
            Binding::kReady);
  const BindingState failed = BindingOf(Waiting(R"(devices:
      - driver: gpu.example.com
        pool: n1
        device: g0
        conditions:
        - {type: attached, status: "True"}
        - {type: failed, status: "True", reason: LinkDown, message: "no \"link\""})"),
                                        timeout, now);
  EXPECT_EQ(failed.state, Binding::kFailed);
  EXPECT_EQ(failed.error,
            "device binding failed: claim=c, reason=LinkDown, message=\"no \\\"link\\\"\"");
  const BindingState late = BindingOf(Waiting("", now - absl::Minutes(11)), timeout, now);
  EXPECT_EQ(late.state, Binding::kTimedOut);
  EXPECT_EQ(late.error, "device binding timeout: claim=c");
  // Attached in time: ready, however late it is now.
  EXPECT_EQ(BindingOf(Waiting(R"(devices:
      - {driver: gpu.example.com, pool: n1, device: g0, conditions: [{type: attached, status: "True"}]})",
                              now - absl::Minutes(11)),
                      timeout, now)
                .state,
            Binding::kReady);
  EXPECT_FALSE(HasBindingConditions(Claim("metadata: {name: c}")));
  EXPECT_TRUE(HasBindingConditions(Waiting("")));
}

// n1 has a GPU that its driver attaches before the pod binds, and binds to n1 (bindsToNode).
class BindingConditionsTest : public ::testing::Test {
 protected:
  BindingConditionsTest() : handle_({MakeNode().Name("n1").Obj(), MakeNode().Name("n2").Obj()}) {
    Set(Class("metadata: {name: gpu}"));
    Set(Slice(R"(
      metadata: {name: n1-gpu}
      spec: {driver: gpu.example.com, nodeName: n1, pool: {name: n1, resourceSliceCount: 1},
             devices: [{name: g0, bindsToNode: true, bindingConditions: [attached],
                        bindingFailureConditions: [failed]}]})"));
    Set(Claim(R"(
      metadata: {name: a, namespace: default, uid: a-uid, resourceVersion: "1"}
      spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu}}]}})"));
    pod_ = MakePod().Name("pa").Obj();
    pod_.metadata.uid = "pa-uid";
    pod_.spec.resource_claims.push_back({.name = "gpu", .resource_claim_name = "a"});
  }
  template <typename T>
  void Set(const T& obj) {
    testing::Store(handle_.listers().dra, obj);
  }
  // Filter's verdict on each node: "" or the message.
  std::vector<std::string> Filter(DynamicResources& plugin, CycleState& state) {
    PreFilterResult pre;
    Status st = plugin.PreFilter(state, pod_, handle_.snapshot().nodes(), &pre);
    if (!st.ok()) return {"PreFilter: " + st.Message()};
    std::vector<std::string> out;
    for (const NodeInfo* node : handle_.snapshot().nodes()) {
      out.push_back(plugin.Filter(state, pod_, *node).Message());
    }
    return out;
  }
  // Schedules the pod to n1 and starts PreBind; the future gets its answer.
  std::future<Status> StartPreBind(DynamicResources& plugin, CycleState& state) {
    EXPECT_THAT(Filter(plugin, state), ::testing::ElementsAre("", "cannot allocate all claims"));
    EXPECT_TRUE(plugin.Reserve(state, pod_, "n1").ok());
    auto answer = std::make_shared<std::promise<Status>>();
    std::future<Status> answered = answer->get_future();
    plugin.PreBindAsync(state, pod_, "n1", [answer](Status s) { answer->set_value(std::move(s)); });
    return answered;
  }
  // The claim's device status, as its driver writes it: conditions type=status.
  void Report(const std::vector<std::pair<std::string, std::string>>& conditions) {
    api::ResourceClaim claim = *handle_.dra().GetResourceClaim("default", "a");
    api::AllocatedDeviceStatus status{.driver = "gpu.example.com", .pool = "n1", .device = "g0"};
    for (const auto& [type, value] : conditions) {
      status.conditions.push_back(
          {.type = type, .status = value, .reason = "Test", .message = "the driver says " + value});
    }
    claim.devices = {status};
    claim.metadata.resource_version =
        std::to_string(std::stoi(claim.metadata.resource_version) + 1);
    Set(claim);
  }

  FakeHandle handle_;
  api::Pod pod_;
};

TEST_F(BindingConditionsTest, PreBindWaitsUntilTheDriverAttachesTheDevice) {
  DynamicResources plugin(handle_, {});
  CycleState state;
  std::future<Status> answered = StartPreBind(plugin, state);
  // The claim is written, with the device's conditions and n1 alone as where it can be used.
  const api::ResourceClaim written = *handle_.dra().GetResourceClaim("default", "a");
  ASSERT_TRUE(written.allocation.has_value());
  ASSERT_EQ(written.allocation->results.size(), 1u);
  EXPECT_THAT(written.allocation->results[0].binding_conditions,
              ::testing::ElementsAre("attached"));
  EXPECT_THAT(written.allocation->results[0].binding_failure_conditions,
              ::testing::ElementsAre("failed"));
  ASSERT_TRUE(written.allocation->node_selector.has_value());
  ASSERT_EQ(written.allocation->node_selector->node_selector_terms.size(), 1u);
  const auto& fields = written.allocation->node_selector->node_selector_terms[0].match_fields;
  ASSERT_EQ(fields.size(), 1u);
  EXPECT_EQ(fields[0].key, "metadata.name");
  EXPECT_THAT(fields[0].values, ::testing::ElementsAre("n1"));
  ASSERT_EQ(handle_.recording_writer().events.size(), 1u);
  EXPECT_EQ(handle_.recording_writer().events[0].reason, "BindingConditionsPending");
  EXPECT_EQ(handle_.recording_writer().events[0].action, "Scheduling");
  EXPECT_EQ(handle_.recording_writer().events[0].message,
            "waiting for binding conditions for device on node n1");
  // Not attached yet: PreBind waits.
  EXPECT_EQ(answered.wait_for(std::chrono::milliseconds(1200)), std::future_status::timeout);
  Report({{"attached", "False"}});
  EXPECT_EQ(answered.wait_for(std::chrono::milliseconds(1200)), std::future_status::timeout);
  Report({{"attached", "True"}});
  ASSERT_EQ(answered.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  EXPECT_TRUE(answered.get().ok());
  EXPECT_THAT(handle_.counting_metrics().binding_allocations(),
              ::testing::ElementsAre("gpu.example.com/success"));
  EXPECT_THAT(handle_.counting_metrics().binding_waits(),
              ::testing::ElementsAre("gpu.example.com/success"));
}

// The driver could not attach the device: PreBind fails; the next attempt finds the claim
// available nowhere, and PostFilter deallocates it so that the one after may try again.
TEST_F(BindingConditionsTest, AFailedDeviceSendsThePodBackAndItsClaimIsDeallocated) {
  DynamicResources plugin(handle_, {});
  CycleState state;
  std::future<Status> answered = StartPreBind(plugin, state);
  Report({{"failed", "True"}});
  ASSERT_EQ(answered.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  Status st = answered.get();
  EXPECT_EQ(st.code(), Code::kError);
  EXPECT_EQ(st.Message(),
            "device binding failed: claim=a, reason=Test, message=\"the driver says True\"");
  EXPECT_THAT(handle_.counting_metrics().binding_allocations(),
              ::testing::ElementsAre("gpu.example.com/failure"));
  plugin.Unreserve(state, pod_, "n1");
  EXPECT_TRUE(handle_.dra().GetResourceClaim("default", "a")->reserved_for.empty());

  CycleState again;
  EXPECT_THAT(Filter(plugin, again),
              ::testing::ElementsAre("resourceclaim not available on the node",
                                     "resourceclaim not available on the node"));
  PostFilterResult result;
  EXPECT_EQ(plugin.PostFilter(again, pod_, NodeToStatus{}, &result).Message(),
            "deallocation of ResourceClaim completed");
  const auto claim = handle_.dra().GetResourceClaim("default", "a");
  EXPECT_FALSE(claim->allocation.has_value());
  EXPECT_TRUE(claim->devices.empty());
  CycleState third;
  EXPECT_THAT(Filter(plugin, third), ::testing::ElementsAre("", "cannot allocate all claims"));
}

TEST_F(BindingConditionsTest, ADeviceNotAttachedWithinTheBindingTimeoutSendsThePodBack) {
  DynamicResources plugin(handle_, {.binding_timeout = absl::Seconds(1)});
  CycleState state;
  std::future<Status> answered = StartPreBind(plugin, state);
  ASSERT_EQ(answered.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  Status st = answered.get();
  EXPECT_EQ(st.code(), Code::kError);
  EXPECT_THAT(st.Message(), ::testing::StartsWith("device binding timeout: "));
  EXPECT_THAT(handle_.counting_metrics().binding_allocations(),
              ::testing::ElementsAre("gpu.example.com/timeout"));
  plugin.Unreserve(state, pod_, "n1");
  // Its allocation is older than the timeout by now: the claim is available nowhere.
  absl::SleepFor(absl::Seconds(1));
  CycleState again;
  EXPECT_THAT(Filter(plugin, again),
              ::testing::ElementsAre("resourceclaim not available on the node",
                                     "resourceclaim not available on the node"));
}

TEST_F(BindingConditionsTest, TheWaitEndsWhenTheSchedulerStops) {
  DynamicResources plugin(handle_, {});
  CycleState state;
  std::future<Status> answered = StartPreBind(plugin, state);
  handle_.stopping = true;
  ASSERT_EQ(answered.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  EXPECT_EQ(answered.get().Message(), "context canceled");
  EXPECT_THAT(handle_.counting_metrics().binding_allocations(),
              ::testing::ElementsAre("gpu.example.com/error"));
}

// A device that needs no attaching is taken before one that does, whatever the pools' names.
TEST_F(BindingConditionsTest, DevicesThatNeedNoAttachingComeFirst) {
  Set(Slice(R"(
    metadata: {name: n1-z}
    spec: {driver: gpu.example.com, nodeName: n1, pool: {name: z-plain, resourceSliceCount: 1},
           devices: [{name: g9}]})"));
  DynamicResources plugin(handle_, {});
  CycleState state;
  ASSERT_THAT(Filter(plugin, state), ::testing::ElementsAre("", "cannot allocate all claims"));
  ASSERT_TRUE(plugin.Reserve(state, pod_, "n1").ok());
  ASSERT_TRUE(plugin.PreBind(state, pod_, "n1").ok());  // Nothing to wait for.
  const auto claim = handle_.dra().GetResourceClaim("default", "a");
  ASSERT_EQ(claim->allocation->results.size(), 1u);
  EXPECT_EQ(claim->allocation->results[0].device, "g9");
  EXPECT_TRUE(claim->allocation->results[0].binding_conditions.empty());
  EXPECT_TRUE(handle_.recording_writer().events.empty());
  EXPECT_TRUE(handle_.counting_metrics().binding_waits().empty());
}

}  // namespace
}  // namespace ksched::plugins::dynamic_resources
