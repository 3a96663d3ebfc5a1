#include "src/plugins/dynamic_resources/extended.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fmt/format.h"
#include "src/plugins/dynamic_resources/dynamic_resources.h"
#include "src/plugins/dynamic_resources/test_objects.h"
#include "src/plugins/node_resources/balanced_allocation.h"
#include "src/plugins/node_resources/fit.h"
#include "src/testing/builders.h"
#include "src/testing/fake_handle.h"

namespace ksched::plugins::dynamic_resources {
namespace {

using ksched::testing::FakeHandle;
using ksched::testing::MakeNode;
using ksched::testing::MakePod;
using testing::Class;
using testing::Slice;

// "request class count" per request, and "container resource request" per mapping.
std::vector<std::string> Requests(const ExtendedRequests& r) {
  std::vector<std::string> out;
  for (const api::DeviceRequest& d : r.requests) {
    out.push_back(fmt::format("{} {} {}", d.name, d.exactly->device_class_name, d.exactly->count));
  }
  return out;
}
std::vector<std::string> Mappings(const ExtendedRequests& r) {
  std::vector<std::string> out;
  for (const auto& m : r.mappings) {
    out.push_back(fmt::format("{} {} {}", m.container_name, m.resource_name, m.request_name));
  }
  return out;
}

TEST(ExtendedRequestsTest, OneRequestPerContainerNamedByItsIndexAndTheResourcesIndex) {
  DraObjects dra;
  dra.device_classes.Set(std::make_shared<const api::DeviceClass>(
      Class("metadata: {name: gpu}\nspec: {extendedResourceName: example.com/gpu}")));
  dra.device_classes.Set(std::make_shared<const api::DeviceClass>(Class("metadata: {name: fpga}")));
  // init0 (not a sidecar) reuses what the containers after it ask for; init1 is a sidecar.
  const api::Pod pod = MakePod()
                           .InitContainer({{"example.com/gpu", "3"}})
                           .InitContainer({{"cpu", "1"}, {"example.com/gpu", "1"}}, true)
                           .Container({{"cpu", "1"}, {"example.com/gpu", "1"}})
                           .Container({{"deviceclass.resource.kubernetes.io/fpga", "1"}})
                           .Obj();
  const ExtendedRequests r =
      ExtendedRequestsFor(pod, {"example.com/gpu", "deviceclass.resource.kubernetes.io/fpga"}, dra);
  // Resources by name ("deviceclass..." first); a resource's index among the container's
  // requests by name (cpu first). init0 needs one more than the sidecar's and c0's two.
  EXPECT_THAT(Requests(r), ::testing::ElementsAre(
                               "container-0-request-0 gpu 1", "container-1-request-1 gpu 1",
                               "container-2-request-1 gpu 1", "container-3-request-0 fpga 1"));
  EXPECT_THAT(Mappings(r), ::testing::ElementsAre(
                               "c1 deviceclass.resource.kubernetes.io/fpga container-3-request-0",
                               "init1 example.com/gpu container-1-request-1",
                               "c0 example.com/gpu container-2-request-1",
                               "init0 example.com/gpu container-1-request-1",
                               "init0 example.com/gpu container-2-request-1",
                               "init0 example.com/gpu container-0-request-0"));
  // Only the node's share: here the fpga is a device plugin's.
  EXPECT_THAT(Requests(ExtendedRequestsFor(pod, {"example.com/gpu"}, dra)), ::testing::SizeIs(3));
}

TEST(ExtendedResourceClassTest, TheNewestClassNamingTheResourceAndEveryClassByItsOwnName) {
  DraObjects dra;
  auto set = [&](const std::string& yaml) {
    dra.device_classes.Set(std::make_shared<const api::DeviceClass>(Class(yaml)));
  };
  set("metadata: {name: old, creationTimestamp: '2026-01-01T00:00:00Z'}\n"
      "spec: {extendedResourceName: example.com/gpu}");
  set("metadata: {name: new, creationTimestamp: '2026-02-01T00:00:00Z'}\n"
      "spec: {extendedResourceName: example.com/gpu}");
  set("metadata: {name: also-new, creationTimestamp: '2026-02-01T00:00:00Z'}\n"
      "spec: {extendedResourceName: example.com/gpu}");
  EXPECT_EQ(dra.ExtendedResourceClass("example.com/gpu")->metadata.name, "also-new");
  EXPECT_EQ(dra.ExtendedResourceClass("deviceclass.resource.kubernetes.io/old")->metadata.name,
            "old");
  EXPECT_EQ(dra.ExtendedResourceClass("example.com/fpga"), nullptr);
  dra.device_classes.Remove("also-new");
  EXPECT_EQ(dra.ExtendedResourceClass("example.com/gpu")->metadata.name, "new");
}

// n1 has two GPUs of a class that backs example.com/gpu, and no device plugin for it; n2 has a
// device plugin's example.com/gpu: 1.
class ExtendedResourcesTest : public ::testing::Test {
 protected:
  ExtendedResourcesTest()
      : handle_(
            {MakeNode()
                 .Name("n1")
                 .Capacity({{"cpu", "8"}, {"memory", "16Gi"}, {"pods", "110"}})
                 .Obj(),
             MakeNode()
                 .Name("n2")
                 .Capacity(
                     {{"cpu", "8"}, {"memory", "16Gi"}, {"pods", "110"}, {"example.com/gpu", "1"}})
                 .Obj()}),
        plugin_(handle_, {}),
        fit_({}, &handle_.dra()) {
    DraObjects& dra = handle_.listers().dra;
    testing::Store(dra,
                   Class("metadata: {name: gpu}\nspec: {extendedResourceName: example.com/gpu}"));
    testing::Store(dra, Slice(R"(
      metadata: {name: n1-gpu}
      spec: {driver: gpu.example.com, nodeName: n1, pool: {name: n1, resourceSliceCount: 1},
             devices: [{name: g0}, {name: g1}]})"));
  }
  static api::Pod Pod(const std::string& name, const std::string& gpus) {
    api::Pod pod = MakePod().Name(name).Req("cpu", "1").Req("example.com/gpu", gpus).Obj();
    pod.metadata.uid = name + "-uid";
    return pod;
  }
  // Fit's and DynamicResources' Filter on each node: "" or their messages.
  std::vector<std::string> Filter(CycleState& state, const api::Pod& pod) {
    PreFilterResult pre;
    std::vector<std::string> out;
    EXPECT_TRUE(fit_.PreFilter(state, pod, handle_.snapshot().nodes(), &pre).ok());
    Status st = plugin_.PreFilter(state, pod, handle_.snapshot().nodes(), &pre);
    if (!st.ok()) return {"PreFilter: " + st.Message()};
    for (const NodeInfo* node : handle_.snapshot().nodes()) {
      Status fit = fit_.Filter(state, pod, *node);
      out.push_back(fit.ok() ? plugin_.Filter(state, pod, *node).Message() : fit.Message());
    }
    return out;
  }

  FakeHandle handle_;
  DynamicResources plugin_;
  node_resources::Fit fit_;
};

TEST_F(ExtendedResourcesTest, DevicesServeTheResourceWhereNoDevicePluginDoes) {
  CycleState state;
  const api::Pod pod = Pod("p", "2");
  // n1: the devices; n2: its device plugin has one.
  EXPECT_THAT(Filter(state, pod), ::testing::ElementsAre("", "Insufficient example.com/gpu"));
  ASSERT_TRUE(plugin_.Reserve(state, pod, "n1").ok());
  ASSERT_TRUE(plugin_.PreBindPreFlight(state, pod, "n1").ok());
  ASSERT_TRUE(plugin_.PreBind(state, pod, "n1").ok());
  auto& writer = handle_.recording_writer();
  ASSERT_EQ(writer.claims.size(), 1u);
  const api::ResourceClaim& claim = writer.claims.begin()->second;
  EXPECT_EQ(claim.metadata.name, "p-extended-resources-1");
  EXPECT_EQ(claim.metadata.annotations.at(kExtendedClaimAnnotation), "true");
  ASSERT_EQ(claim.metadata.owner_references.size(), 1u);
  EXPECT_EQ(claim.metadata.owner_references[0].uid, "p-uid");
  EXPECT_TRUE(claim.metadata.owner_references[0].controller);
  ASSERT_EQ(claim.spec.requests.size(), 1u);
  EXPECT_EQ(claim.spec.requests[0].name, "container-0-request-1");
  EXPECT_EQ(claim.spec.requests[0].exactly->count, 2);
  ASSERT_TRUE(claim.allocation.has_value());
  EXPECT_EQ(claim.allocation->results.size(), 2u);
  ASSERT_EQ(claim.reserved_for.size(), 1u);
  EXPECT_EQ(claim.reserved_for[0].uid, "p-uid");
  const api::PodExtendedResourceClaimStatus& status = writer.extended_statuses.at("default/p");
  EXPECT_EQ(status.resource_claim_name, "p-extended-resources-1");
  ASSERT_EQ(status.request_mappings.size(), 1u);
  EXPECT_EQ(status.request_mappings[0].container_name, "c0");
  EXPECT_EQ(status.request_mappings[0].resource_name, "example.com/gpu");
  EXPECT_EQ(status.request_mappings[0].request_name, "container-0-request-1");

  // The devices are taken: the next pod fits only where the device plugin serves it.
  CycleState next;
  EXPECT_THAT(Filter(next, Pod("q", "1")),
              ::testing::ElementsAre("cannot allocate all claims", ""));
  // A failed bind deletes the claim.
  plugin_.Unreserve(state, pod, "n1");
  EXPECT_THAT(writer.deleted_claims, ::testing::ElementsAre("default/p-extended-resources-1"));
}

// The claim an earlier attempt made (its bind failed before Unreserve could delete it): every node
// is refused, and PostFilter deletes it.
TEST_F(ExtendedResourcesTest, AClaimLeftByAnEarlierAttemptIsDeleted) {
  const api::Pod pod = Pod("p", "1");
  api::ResourceClaim left = NewExtendedClaim(pod);
  left.metadata.name = "p-extended-resources-x";
  left.metadata.uid = "left-uid";
  handle_.listers().dra.resource_claims.Set(std::make_shared<const api::ResourceClaim>(left));
  CycleState state;
  EXPECT_THAT(Filter(state, pod),
              ::testing::ElementsAre("cannot schedule extended resource claim",
                                     "cannot schedule extended resource claim"));
  PostFilterResult result;
  EXPECT_EQ(plugin_.PostFilter(state, pod, NodeToStatus{}, &result).Message(),
            "deletion of ResourceClaim completed");
  EXPECT_THAT(handle_.recording_writer().deleted_claims,
              ::testing::ElementsAre("default/p-extended-resources-x"));
}

// With DRAExtendedResource off (before 1.36), Fit checks the resource as any other.
TEST_F(ExtendedResourcesTest, WithTheGateOffNoDevicesServeIt) {
  node_resources::Fit fit({}, nullptr);
  DynamicResources plugin(handle_, {}, {.extended_resource = false});
  const api::Pod pod = Pod("p", "1");
  CycleState state;
  PreFilterResult pre;
  ASSERT_TRUE(fit.PreFilter(state, pod, handle_.snapshot().nodes(), &pre).ok());
  EXPECT_TRUE(plugin.PreFilter(state, pod, handle_.snapshot().nodes(), &pre).IsSkip());
  EXPECT_EQ(fit.Filter(state, pod, *handle_.snapshot().nodes()[0]).Message(),
            "Insufficient example.com/gpu");
  EXPECT_TRUE(fit.Filter(state, pod, *handle_.snapshot().nodes()[1]).ok());
}

// An extended resource that no class backs and NodeResourcesFit ignores (ignoredResources, as for
// a resource an extender manages): with a DRA-backed one beside it, a node must still advertise
// it (upstream's "cannot fit resource"); alone, nothing checks it.
TEST_F(ExtendedResourcesTest, AResourceFitIgnoresMustStillBeOnTheNodeBesideTheDevicesOnes) {
  fit_ = node_resources::Fit({.ignored_resources = {"example.com/nic"}}, &handle_.dra());
  api::Pod pod = Pod("p", "1");
  pod.spec.containers[0].resources.requests["example.com/nic"] = api::Quantity::FromValue(1);
  CycleState state;
  EXPECT_THAT(Filter(state, pod),
              ::testing::ElementsAre("cannot fit resource", "cannot fit resource"));
  EXPECT_EQ(plugin_.Filter(state, pod, *handle_.snapshot().nodes()[0]).code(),
            Code::kUnschedulableAndUnresolvable);
  api::Pod alone = MakePod().Name("q").Req("cpu", "1").Req("example.com/nic", "1").Obj();
  CycleState other;
  PreFilterResult pre;
  ASSERT_TRUE(fit_.PreFilter(other, alone, handle_.snapshot().nodes(), &pre).ok());
  EXPECT_TRUE(plugin_.PreFilter(other, alone, handle_.snapshot().nodes(), &pre).IsSkip());
  EXPECT_TRUE(fit_.Filter(other, alone, *handle_.snapshot().nodes()[0]).ok());
}

// A DRA-backed resource named in the scorers' resources counts, on a node without a device plugin
// for it, the class's devices there and those in use, in flight included (upstream's
// calculateDRAResourceTotals); left out, n1 would score as if it had none.
TEST_F(ExtendedResourcesTest, TheScorersCountTheClassesDevicesWhereNoDevicePluginServesIt) {
  fit_ = node_resources::Fit({.scoring_strategy = {.resources = {{"example.com/gpu", 1}}}},
                             &handle_.dra());
  node_resources::BalancedAllocation balanced({.resources = {{"cpu", 1}, {"example.com/gpu", 1}}},
                                              &handle_.dra());
  // Each node's score from Fit (LeastAllocated over the GPUs) and BalancedAllocation.
  auto scores = [&](CycleState& state, const api::Pod& pod) {
    EXPECT_THAT(Filter(state, pod), ::testing::Each(""));
    std::vector<std::string> out;
    EXPECT_TRUE(fit_.PreScore(state, pod, handle_.snapshot().nodes()).ok());
    EXPECT_TRUE(balanced.PreScore(state, pod, handle_.snapshot().nodes()).ok());
    for (const NodeInfo* node : handle_.snapshot().nodes()) {
      int64_t fit = -1, balance = -1;
      EXPECT_TRUE(fit_.Score(state, pod, *node, &fit).ok());
      EXPECT_TRUE(balanced.Score(state, pod, *node, &balance).ok());
      out.push_back(fmt::format("{} {}", fit, balance));
    }
    return out;
  };
  // n1: 1 of 2 GPUs after the pod, (2 - 1) * 100 / 2; cpu 1/8 and GPUs 1/2 unbalance it, 50 +
  // (50 + 81 - 100) / 2. n2: its device plugin's one GPU, (1 - 1) * 100 / 1; 50 + (50 + 56 -
  // 100) / 2.
  CycleState state;
  const api::Pod pod = Pod("p", "1");
  EXPECT_THAT(scores(state, pod), ::testing::ElementsAre("50 65", "0 53"));
  ASSERT_TRUE(plugin_.Reserve(state, pod, "n1").ok());
  // p's GPU is in flight: on n1, q would have both in use, (2 - 2) * 100 / 2; 50 + (50 + 56 -
  // 75) / 2.
  CycleState next;
  EXPECT_THAT(scores(next, Pod("q", "1")), ::testing::ElementsAre("0 65", "0 53"));
  // Without the gate, the devices are not counted.
  node_resources::Fit off({.scoring_strategy = {.resources = {{"example.com/gpu", 1}}}}, nullptr);
  CycleState third;
  ASSERT_TRUE(off.PreScore(third, pod, handle_.snapshot().nodes()).ok());
  int64_t score = -1;
  ASSERT_TRUE(off.Score(third, pod, *handle_.snapshot().nodes()[0], &score).ok());
  EXPECT_EQ(score, 0);
}

}  // namespace
}  // namespace ksched::plugins::dynamic_resources
