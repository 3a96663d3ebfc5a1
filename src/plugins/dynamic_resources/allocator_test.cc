#include "src/plugins/dynamic_resources/allocator.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>

#include "absl/container/flat_hash_set.h"
#include "fmt/format.h"
#include "src/api/listers.h"
#include "src/plugins/dynamic_resources/pools.h"
#include "src/plugins/dynamic_resources/test_objects.h"
#include "src/testing/builders.h"

namespace ksched::plugins::dynamic_resources {
namespace {

using testing::Claim;
using testing::Class;
using testing::Slice;

// A cluster's DRA objects, and an allocator over them.
class AllocatorTest : public ::testing::Test {
 protected:
#ifdef KSCHED_CEL_LIBRARY
  static void SetUpTestSuite() { setenv("KSCHED_CEL_LIBRARY", KSCHED_CEL_LIBRARY, 1); }
#endif
  void Add(const api::ResourceSlice& s) {
    dra_.resource_slices.Set(std::make_shared<const api::ResourceSlice>(s));
  }
  void Add(const api::DeviceClass& c) {
    dra_.device_classes.Set(std::make_shared<const api::DeviceClass>(c));
  }
  // An allocation in flight holds a device.
  void Hold(std::string driver, std::string pool, std::string device) {
    api::AllocationResult a;
    a.results.push_back({.request = "r",
                         .driver = std::move(driver),
                         .pool = std::move(pool),
                         .device = std::move(device)});
    pending_.Count(a, +1);
  }
  // An allocation in flight holds a share of a device, consuming `consumed`.
  void HoldShare(std::string driver, std::string pool, std::string device, Amounts consumed) {
    api::AllocationResult a;
    a.results.push_back({.request = "r",
                         .driver = std::move(driver),
                         .pool = std::move(pool),
                         .device = std::move(device),
                         .share_id = "0b9d4c1e-2f3a-4b5c-8d6e-7f8091a2b3c4",
                         .consumed_capacity = std::move(consumed)});
    pending_.Count(a, +1);
  }
  // The devices in use now, as a pod's PreFilter takes them.
  HeldViews Held() { return {.allocated = dra_.Allocated(), .pending = pending_.Snapshot()}; }
  // What Allocate found, with the allocations made of its choice.
  struct Found {
    bool fits = false;
    std::string node_failure, why;
    std::vector<api::AllocationResult> allocations;
  };
  // Allocates `claims` for the node `node` (labels `labels`).
  absl::StatusOr<Found> Allocate(const std::vector<api::ResourceClaim>& claims,
                                 std::string node = "n1", api::StringMap labels = {},
                                 bool explain = false) {
    Allocator allocator(dra_, std::make_shared<SliceIndex>(dra_.ListResourceSlices()), Held(),
                        selectors_);
    auto n = std::make_shared<api::Node>(ksched::testing::MakeNode().Name(node).Obj());
    n->metadata.labels = std::move(labels);
    std::vector<const api::ResourceClaim*> ptrs;
    for (const auto& c : claims) ptrs.push_back(&c);
    absl::StatusOr<Allocator::Outcome> out = allocator.Allocate(n, ptrs, explain);
    if (!out.ok()) return out.status();
    Found found{.fits = out->fits, .node_failure = out->node_failure, .why = out->why};
    if (out->choice) found.allocations = Allocator::Results(*out->choice, ptrs, node);
    return found;
  }
  // The devices given, as "request: driver/pool/device".
  static std::vector<std::string> Devices(const Found& out) {
    std::vector<std::string> devices;
    for (const api::AllocationResult& a : out.allocations) {
      for (const auto& r : a.results) {
        devices.push_back(r.request + ": " + r.driver + "/" + r.pool + "/" + r.device);
      }
    }
    return devices;
  }
  static bool CelAvailable() {
    return cel::Selector::Compile("true").status().code() != absl::StatusCode::kFailedPrecondition;
  }

  DraObjects dra_;
  HeldDevices pending_;  // In flight, say.
  SelectorCache selectors_;
};

api::ResourceClaim GpuClaim(int count) {
  return Claim(fmt::format(R"(
    metadata: {{name: c, namespace: default}}
    spec: {{devices: {{requests: [{{name: gpu, exactly: {{deviceClassName: gpu, count: {}}}}}]}}}})",
                           count));
}

TEST_F(AllocatorTest, ExactCountTakesFreeDevicesInUpstreamsOrder) {
  Add(Class("metadata: {name: gpu}"));
  // Pools go by driver, then name; slices by name; devices as listed.
  Add(Slice(R"(
    metadata: {name: z-b}
    spec: {driver: b.example.com, nodeName: n1, pool: {name: n1, resourceSliceCount: 1},
           devices: [{name: b0}]})"));
  Add(Slice(R"(
    metadata: {name: y-a2}
    spec: {driver: a.example.com, nodeName: n1, pool: {name: n1, resourceSliceCount: 2},
           devices: [{name: a2}]})"));
  Add(Slice(R"(
    metadata: {name: x-a1}
    spec: {driver: a.example.com, nodeName: n1, pool: {name: n1, resourceSliceCount: 2},
           devices: [{name: a0}, {name: a1}]})"));
  Hold("a.example.com", "n1", "a0");

  absl::StatusOr<Found> out = Allocate({GpuClaim(3)});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_TRUE(out->fits);
  EXPECT_THAT(Devices(*out),
              ::testing::ElementsAre("gpu: a.example.com/n1/a1", "gpu: a.example.com/n1/a2",
                                     "gpu: b.example.com/n1/b0"));
  // Devices of one node: the claim can only be used there.
  ASSERT_TRUE(out->allocations[0].node_selector.has_value());
  const auto& term = out->allocations[0].node_selector->node_selector_terms.at(0);
  EXPECT_EQ(term.match_fields.at(0).key, "metadata.name");
  EXPECT_THAT(term.match_fields.at(0).values, ::testing::ElementsAre("n1"));

  // One more than there is, and another node's devices do not count.
  out = Allocate({GpuClaim(4)});
  ASSERT_TRUE(out.ok());
  EXPECT_FALSE(out->fits);
  EXPECT_EQ(out->node_failure, "");
  out = Allocate({GpuClaim(1)}, "n2");
  ASSERT_TRUE(out.ok());
  EXPECT_FALSE(out->fits);
}

// With a memo, the next pod's claims of the same spec get what the last search found on a node
// whose devices in use are as they were; any change there, or claims of another spec, and the node
// is searched again.
TEST_F(AllocatorTest, ANodeIsSearchedAgainOnlyWhenItsDevicesInUseOrTheClaimsSpecsChanged) {
  Add(Class("metadata: {name: gpu}"));
  Add(Slice(R"(
    metadata: {name: s}
    spec: {driver: gpu.example.com, nodeName: n1, pool: {name: n1, resourceSliceCount: 1},
           devices: [{name: g0}, {name: g1}]})"));
  SearchMemo memo;
  auto slices = std::make_shared<const SliceIndex>(dra_.ListResourceSlices());
  const auto n = std::make_shared<const api::Node>(ksched::testing::MakeNode().Name("n1").Obj());
  // One pod's cycle: Begin, then an allocator with the devices in use now.
  // A memoized outcome's choice comes from Kept, as Reserve gets it.
  auto with_choice = [&](const Allocator& allocator,
                         const std::vector<const api::ResourceClaim*>& claims,
                         bool explain = false) {
    absl::StatusOr<Allocator::Outcome> out = allocator.Allocate(n, claims, explain);
    if (out.ok() && out->memoized && out->fits) {
      EXPECT_EQ(out->choice, nullptr);
      out->choice = allocator.Kept("n1");
    }
    return out;
  };
  auto allocate = [&](const std::vector<const api::ResourceClaim*>& claims, bool explain = false) {
    const HeldViews held = Held();
    memo.Begin(claims, slices, held);
    return with_choice(Allocator(dra_, slices, held, selectors_, &memo), claims, explain);
  };
  auto devices = [&](const Allocator::Outcome& out, const api::ResourceClaim& claim) {
    std::vector<std::string> names;
    for (const auto& a : Allocator::Results(*out.choice, {&claim}, "n1")) {
      for (const auto& r : a.results) names.push_back(r.device);
    }
    return names;
  };
  api::ResourceClaim first = GpuClaim(1);
  absl::StatusOr<Allocator::Outcome> out = allocate({&first});
  ASSERT_TRUE(out.ok() && out->fits);
  EXPECT_FALSE(out->memoized);
  const std::shared_ptr<const Choice> kept = out->choice;
  EXPECT_THAT(devices(*out, first), ::testing::ElementsAre("g0"));

  api::ResourceClaim next = GpuClaim(1);
  next.metadata.name = "next";
  out = allocate({&next});
  ASSERT_TRUE(out.ok() && out->fits);
  EXPECT_TRUE(out->memoized);
  EXPECT_EQ(out->choice, kept);  // Not searched again.
  EXPECT_THAT(devices(*out, next), ::testing::ElementsAre("g0"));

  const HeldViews before = Held();
  Hold("gpu.example.com", "n1", "g0");  // The first pod's, in flight.
  // An allocator made before sees the devices in use as they were.
  out = with_choice(Allocator(dra_, slices, before, selectors_, &memo), {&next});
  ASSERT_TRUE(out.ok() && out->fits);
  EXPECT_THAT(devices(*out, next), ::testing::ElementsAre("g0"));
  out = allocate({&next});
  ASSERT_TRUE(out.ok() && out->fits);
  EXPECT_FALSE(out->memoized);
  EXPECT_THAT(devices(*out, next), ::testing::ElementsAre("g1"));

  api::ResourceClaim holder = GpuClaim(1);
  holder.metadata.name = "holder";
  holder.allocation.emplace().results.push_back(
      {.request = "gpu", .driver = "gpu.example.com", .pool = "n1", .device = "g1"});
  dra_.resource_claims.Set(std::make_shared<const api::ResourceClaim>(holder));
  out = allocate({&next});
  ASSERT_TRUE(out.ok());
  EXPECT_FALSE(out->fits);

  // Explaining searches again, and says why.
  out = allocate({&next}, /*explain=*/true);
  ASSERT_TRUE(out.ok());
  EXPECT_THAT(out->why, ::testing::HasSubstr("0 of the node's 2 devices match and are free"));

  // Another spec: what was kept goes.
  api::ResourceClaim pair = GpuClaim(2);
  pending_ = HeldDevices();
  dra_.resource_claims.Remove("default", "holder");
  out = allocate({&pair});
  ASSERT_TRUE(out.ok() && out->fits);
  EXPECT_THAT(devices(*out, pair), ::testing::ElementsAre("g0", "g1"));
}

// Devices taken on one node are searched for again there only: the other nodes' memos stay, and
// a pod's allocator sees the devices in use as they were at its Begin.
TEST_F(AllocatorTest, DevicesTakenOnOneNodeLeaveTheOtherNodesMemosAsTheyWere) {
  Add(Class("metadata: {name: gpu}"));
  for (const char* node : {"n1", "n2"}) {
    Add(Slice(fmt::format(R"(
      metadata: {{name: {0}}}
      spec: {{driver: gpu.example.com, nodeName: {0}, pool: {{name: {0}, resourceSliceCount: 1}},
             devices: [{{name: g0}}, {{name: g1}}]}})",
                          node)));
  }
  SearchMemo memo;
  auto slices = std::make_shared<const SliceIndex>(dra_.ListResourceSlices());
  std::map<std::string, std::shared_ptr<const api::Node>> nodes;
  for (const char* name : {"n1", "n2"}) {
    nodes[name] = std::make_shared<const api::Node>(ksched::testing::MakeNode().Name(name).Obj());
  }
  api::ResourceClaim claim = GpuClaim(1);
  // One pod's cycle over both nodes: whether each was memoized, and whether it fits.
  auto cycle = [&] {
    const HeldViews held = Held();
    memo.Begin({&claim}, slices, held);
    Allocator allocator(dra_, slices, held, selectors_, &memo);
    std::vector<std::string> seen;
    for (const auto& [name, node] : nodes) {
      absl::StatusOr<Allocator::Outcome> out = allocator.Allocate(node, {&claim});
      EXPECT_TRUE(out.ok()) << out.status();
      seen.push_back(fmt::format("{} {} {}", name, out->memoized ? "kept" : "searched",
                                 out->fits ? "fits" : "full"));
    }
    return seen;
  };
  EXPECT_THAT(cycle(), ::testing::ElementsAre("n1 searched fits", "n2 searched fits"));
  EXPECT_THAT(cycle(), ::testing::ElementsAre("n1 kept fits", "n2 kept fits"));
  Hold("gpu.example.com", "n1", "g0");
  EXPECT_THAT(cycle(), ::testing::ElementsAre("n1 searched fits", "n2 kept fits"));
  Hold("gpu.example.com", "n1", "g1");
  EXPECT_THAT(cycle(), ::testing::ElementsAre("n1 searched full", "n2 kept fits"));
  EXPECT_THAT(cycle(), ::testing::ElementsAre("n1 kept full", "n2 kept fits"));
  pending_ = HeldDevices();  // Freed.
  EXPECT_THAT(cycle(), ::testing::ElementsAre("n1 searched fits", "n2 kept fits"));
  // A node object updated (its labels, say): searched again.
  nodes["n2"] = std::make_shared<const api::Node>(ksched::testing::MakeNode().Name("n2").Obj());
  EXPECT_THAT(cycle(), ::testing::ElementsAre("n1 kept fits", "n2 searched fits"));
}

TEST_F(AllocatorTest, TwoClaimsNeverShareADevice) {
  Add(Class("metadata: {name: gpu}"));
  Add(Slice(R"(
    metadata: {name: s}
    spec: {driver: gpu.example.com, nodeName: n1, pool: {name: n1, resourceSliceCount: 1},
           devices: [{name: g0}, {name: g1}]})"));
  absl::StatusOr<Found> out = Allocate({GpuClaim(1), GpuClaim(1)});
  ASSERT_TRUE(out.ok());
  EXPECT_THAT(Devices(*out),
              ::testing::ElementsAre("gpu: gpu.example.com/n1/g0", "gpu: gpu.example.com/n1/g1"));
  out = Allocate({GpuClaim(1), GpuClaim(2)});
  ASSERT_TRUE(out.ok());
  EXPECT_FALSE(out->fits);
}

TEST_F(AllocatorTest, AllTakesEveryDeviceAndWaitsForIncompletePools) {
  Add(Class("metadata: {name: gpu}"));
  Add(Slice(R"(
    metadata: {name: s1}
    spec: {driver: gpu.example.com, allNodes: true, pool: {name: shared, resourceSliceCount: 1},
           devices: [{name: g0}, {name: g1}]})"));
  api::ResourceClaim all = Claim(R"(
    metadata: {name: all, namespace: default}
    spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu, allocationMode: All}}]}})");
  absl::StatusOr<Found> out = Allocate({all});
  ASSERT_TRUE(out.ok());
  EXPECT_THAT(Devices(*out), ::testing::ElementsAre("gpu: gpu.example.com/shared/g0",
                                                    "gpu: gpu.example.com/shared/g1"));
  // Devices of every node: no node selector.
  EXPECT_FALSE(out->allocations[0].node_selector.has_value());

  // A device in use: "all" cannot be had.
  Hold("gpu.example.com", "shared", "g1");
  out = Allocate({all});
  ASSERT_TRUE(out.ok());
  EXPECT_FALSE(out->fits);

  // A pool whose slices are not all there yet: upstream's error.
  Add(Slice(R"(
    metadata: {name: p1}
    spec: {driver: gpu.example.com, allNodes: true, pool: {name: partial, resourceSliceCount: 2},
           devices: [{name: p0}]})"));
  out = Allocate({all});
  EXPECT_EQ(out.status().message(),
            "claim default/all, request gpu: asks for all devices, but resource pool "
            "gpu.example.com/partial is currently being updated");
}

TEST_F(AllocatorTest, FirstAvailableTakesTheFirstAlternativeThatFits) {
  Add(Class("metadata: {name: gpu}"));
  Add(Slice(R"(
    metadata: {name: s}
    spec: {driver: gpu.example.com, nodeName: n1, pool: {name: n1, resourceSliceCount: 1},
           devices: [{name: g0}, {name: g1}]})"));
  api::ResourceClaim claim = Claim(R"(
    metadata: {name: c, namespace: default}
    spec:
      devices:
        requests:
        - name: gpu
          firstAvailable:
          - {name: four, deviceClassName: gpu, count: 4}
          - {name: two, deviceClassName: gpu, count: 2}
          - {name: one, deviceClassName: gpu, count: 1}
        config:
        - requests: [gpu/two]
          opaque: {driver: gpu.example.com, parameters: {mode: pair}})");
  absl::StatusOr<Found> out = Allocate({claim});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Devices(*out), ::testing::ElementsAre("gpu/two: gpu.example.com/n1/g0",
                                                    "gpu/two: gpu.example.com/n1/g1"));
  // The claim's config for the alternative taken.
  ASSERT_EQ(out->allocations[0].config.size(), 1u);
  EXPECT_EQ(out->allocations[0].config[0].source, "FromClaim");
  EXPECT_EQ(out->allocations[0].config[0].configuration.parameters, R"({"mode":"pair"})");
}

TEST_F(AllocatorTest, MatchAttributeKeepsDevicesTogether) {
  Add(Class("metadata: {name: gpu}"));
  Add(Slice(R"(
    metadata: {name: s}
    spec:
      driver: gpu.example.com
      nodeName: n1
      pool: {name: n1, resourceSliceCount: 1}
      devices:
      - {name: g0, attributes: {numa: {int: 0}}}
      - {name: g1, attributes: {numa: {int: 1}}}
      - {name: g2, attributes: {numa: {int: 1}}}
      - {name: g3})"));
  api::ResourceClaim claim = Claim(R"(
    metadata: {name: c, namespace: default}
    spec:
      devices:
        requests: [{name: gpu, exactly: {deviceClassName: gpu, count: 2}}]
        constraints: [{matchAttribute: gpu.example.com/numa}])");
  absl::StatusOr<Found> out = Allocate({claim});
  ASSERT_TRUE(out.ok());
  EXPECT_THAT(Devices(*out),
              ::testing::ElementsAre("gpu: gpu.example.com/n1/g1", "gpu: gpu.example.com/n1/g2"));
  Hold("gpu.example.com", "n1", "g2");
  out = Allocate({claim});
  ASSERT_TRUE(out.ok());
  EXPECT_FALSE(out->fits);  // g3 has no numa attribute.
}

TEST_F(AllocatorTest, ExplainingSaysPerRequestWhichDevicesAreFreeAndWhatKeepsTheOthers) {
  Add(Class("metadata: {name: gpu}"));
  Add(Slice(R"(
    metadata: {name: s}
    spec:
      driver: gpu.example.com
      nodeName: n1
      pool: {name: n1, resourceSliceCount: 1}
      devices:
      - {name: g0, attributes: {numa: {int: 0}}}
      - {name: g1, attributes: {numa: {int: 1}}}
      - {name: g2, attributes: {numa: {int: 1}}}
      - {name: g3, taints: [{key: broken, effect: NoSchedule}]})"));
  Hold("gpu.example.com", "n1", "g2");
  absl::StatusOr<Found> out = Allocate({GpuClaim(3)}, "n1", {}, /*explain=*/true);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_FALSE(out->fits);
  EXPECT_EQ(out->why,
            "claim default/c, request gpu: 3 wanted, 2 of the node's 4 devices match and are free "
            "(1 in use, 1 tainted)");
  // Not asked: not computed.
  out = Allocate({GpuClaim(3)});
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->why, "");
  // Enough free devices, but not on one NUMA node.
  api::ResourceClaim pair = Claim(R"(
    metadata: {name: pair, namespace: default}
    spec:
      devices:
        requests: [{name: gpu, exactly: {deviceClassName: gpu, count: 2}}]
        constraints: [{matchAttribute: gpu.example.com/numa}])");
  out = Allocate({pair}, "n1", {}, /*explain=*/true);
  ASSERT_TRUE(out.ok());
  EXPECT_FALSE(out->fits);
  EXPECT_EQ(out->why,
            "claim default/pair, request gpu: 2 wanted, 2 of the node's 4 devices match and are "
            "free (1 in use, 1 tainted); no choice of those devices serves all requests at once "
            "(constraints, or requests that want the same devices)");
  // A node without devices.
  out = Allocate({GpuClaim(1)}, "n2", {}, /*explain=*/true);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->why, "claim default/c, request gpu: 1 wanted, the node has no devices");
}

// The args' filterTimeout: a search that goes on past its deadline stops, and says so.
TEST_F(AllocatorTest, ASearchPastItsDeadlineStops) {
  Add(Class("metadata: {name: gpu}"));
  std::string devices;
  for (int i = 0; i < 100; ++i) {
    devices +=
        fmt::format("{}{{name: g{}, attributes: {{numa: {{int: {}}}}}}}", i ? ", " : "", i, i);
  }
  Add(Slice(fmt::format(R"(
    metadata: {{name: s}}
    spec: {{driver: gpu.example.com, nodeName: n1, pool: {{name: n1, resourceSliceCount: 1}},
           devices: [{}]}})",
                        devices)));
  // Two on one NUMA node: no two devices share one, so the search tries every pair.
  api::ResourceClaim pair = Claim(R"(
    metadata: {name: pair, namespace: default}
    spec:
      devices:
        requests: [{name: gpu, exactly: {deviceClassName: gpu, count: 2}}]
        constraints: [{matchAttribute: gpu.example.com/numa}])");
  Allocator allocator(dra_, std::make_shared<SliceIndex>(dra_.ListResourceSlices()), Held(),
                      selectors_);
  const auto n = std::make_shared<const api::Node>(ksched::testing::MakeNode().Name("n1").Obj());
  absl::StatusOr<Allocator::Outcome> out =
      allocator.Allocate(n, {&pair}, /*explain=*/false, absl::ZeroDuration());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_EQ(out.status().message(), "timed out trying to allocate devices");
  out = allocator.Allocate(n, {&pair});  // No deadline: the whole search, and no pair.
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_FALSE(out->fits);
}

TEST_F(AllocatorTest, TaintedDevicesNeedATolerationAndAdminAccessSharesDevices) {
  Add(Class("metadata: {name: gpu}"));
  Add(Slice(R"(
    metadata: {name: s}
    spec:
      driver: gpu.example.com
      nodeName: n1
      pool: {name: n1, resourceSliceCount: 1}
      devices:
      - {name: g0, taints: [{key: broken, effect: NoSchedule}]}
      - {name: g1, taints: [{key: info, effect: None}]})"));
  absl::StatusOr<Found> out = Allocate({GpuClaim(1)});
  ASSERT_TRUE(out.ok());
  EXPECT_THAT(Devices(*out), ::testing::ElementsAre("gpu: gpu.example.com/n1/g1"));
  api::ResourceClaim tolerating = Claim(R"(
    metadata: {name: c, namespace: default}
    spec:
      devices:
        requests:
        - name: gpu
          exactly:
            deviceClassName: gpu
            count: 2
            tolerations: [{key: broken, operator: Exists}])");
  out = Allocate({tolerating});
  ASSERT_TRUE(out.ok());
  EXPECT_THAT(Devices(*out),
              ::testing::ElementsAre("gpu: gpu.example.com/n1/g0", "gpu: gpu.example.com/n1/g1"));
  EXPECT_EQ(out->allocations[0].results[0].tolerations.at(0).key, "broken");

  // Admin access: devices in use are still given, and are marked so.
  Hold("gpu.example.com", "n1", "g1");
  api::ResourceClaim admin = Claim(R"(
    metadata: {name: c, namespace: default}
    spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu, adminAccess: true}}]}})");
  out = Allocate({admin});
  ASSERT_TRUE(out.ok());
  EXPECT_THAT(Devices(*out), ::testing::ElementsAre("gpu: gpu.example.com/n1/g1"));
  EXPECT_TRUE(out->allocations[0].results[0].admin_access);
}

TEST_F(AllocatorTest, PoolsWithUnsupportedFieldsAreNotUsedAndSaySo) {
  Add(Class("metadata: {name: gpu}"));
  Add(Slice(R"(
    metadata: {name: s}
    spec:
      driver: gpu.example.com
      nodeName: n1
      pool: {name: n1, resourceSliceCount: 1}
      devices: [{name: g0, nodeAllocatableResources: {cpu: {capacityKey: cores}}}])"));
  absl::StatusOr<Found> out = Allocate({GpuClaim(1)});
  ASSERT_TRUE(out.ok());
  EXPECT_FALSE(out->fits);
  EXPECT_EQ(out->node_failure,
            "ResourceSlice s, device g0: spec.devices[0].nodeAllocatableResources is not supported "
            "by ksched yet");
}

// A MIG-style GPU: the whole device and its halves consume the counters of one counter set, which
// a slice of its own publishes; what is allocated of one leaves the others only what remains.
class PartitionableTest : public AllocatorTest {
 protected:
  void SetUp() override {
    Add(Class("metadata: {name: gpu}"));
    Add(Slice(R"(
      metadata: {name: n1-counters}
      spec:
        driver: gpu.example.com
        nodeName: n1
        pool: {name: n1, resourceSliceCount: 2}
        sharedCounters: [{name: gpu-0, counters: {memory: {value: 40Gi}, slices: {value: "2"}}}])"));
    Add(Slice(R"(
      metadata: {name: n1-devices}
      spec:
        driver: gpu.example.com
        nodeName: n1
        pool: {name: n1, resourceSliceCount: 2}
        devices:
        - {name: whole, consumesCounters: [{counterSet: gpu-0, counters: {memory: {value: 40Gi}, slices: {value: "2"}}}]}
        - {name: half-0, consumesCounters: [{counterSet: gpu-0, counters: {memory: {value: 20Gi}, slices: {value: "1"}}}]}
        - {name: half-1, consumesCounters: [{counterSet: gpu-0, counters: {memory: {value: 20Gi}, slices: {value: "1"}}}]})"));
  }
};

TEST_F(PartitionableTest, PartitionsShareTheCountersOfTheirDevice) {
  // The whole GPU, first listed, fits alone; two devices do not fit with it, so a claim for two
  // gets the halves.
  absl::StatusOr<Found> out = Allocate({GpuClaim(1)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Devices(*out), ::testing::ElementsAre("gpu: gpu.example.com/n1/whole"));
  out = Allocate({GpuClaim(2)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Devices(*out), ::testing::ElementsAre("gpu: gpu.example.com/n1/half-0",
                                                    "gpu: gpu.example.com/n1/half-1"));
  out = Allocate({GpuClaim(3)}, "n1", {}, /*explain=*/true);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_FALSE(out->fits);

  // A half in use leaves the other half, and not the whole GPU.
  Hold("gpu.example.com", "n1", "half-1");
  out = Allocate({GpuClaim(1)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Devices(*out), ::testing::ElementsAre("gpu: gpu.example.com/n1/half-0"));
  out = Allocate({GpuClaim(2)}, "n1", {}, /*explain=*/true);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_FALSE(out->fits);
  EXPECT_EQ(out->why,
            "claim default/c, request gpu: 2 wanted, 1 of the node's 3 devices matches and is free "
            "(1 in use, 1 short of counter gpu-0/memory)");
  Hold("gpu.example.com", "n1", "half-0");
  out = Allocate({GpuClaim(1)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_FALSE(out->fits);
}

// Consumable capacity: a NIC whose bandwidth several claims share, each taking what it asks
// rounded up to the policy's steps, with a share ID and its consumption in the result; a NIC
// that allows one allocation serves one, if it has the capacity asked.
class SharedDevicesTest : public AllocatorTest {
 protected:
  void SetUp() override {
    Add(Class("metadata: {name: nic}"));
    Add(Slice(R"(
      metadata: {name: s}
      spec:
        driver: nic.example.com
        nodeName: n1
        pool: {name: n1, resourceSliceCount: 1}
        devices:
        - name: eth0
          allowMultipleAllocations: true
          attributes: {port: {int: 0}}
          capacity:
            bandwidth: {value: 10G, requestPolicy: {default: 1G, validRange: {min: 1G, step: 1G}}}
        - name: eth1
          attributes: {port: {int: 1}}
          capacity: {bandwidth: {value: 10G}})"));
  }
  static api::ResourceClaim Bandwidth(const std::string& name, const std::string& bandwidth,
                                      int requests = 1, bool distinct = false) {
    std::string yaml = fmt::format(R"(
      metadata: {{name: {}, namespace: default}}
      spec:
        devices:
          requests:)",
                                   name);
    for (int r = 0; r < requests; ++r) {
      yaml += fmt::format(R"(
          - {{name: r{}, exactly: {{deviceClassName: nic, capacity: {{requests: {{bandwidth: {}}}}}}}}})",
                          r, bandwidth);
    }
    if (distinct) yaml += "\n          constraints: [{distinctAttribute: nic.example.com/port}]";
    return Claim(yaml);
  }
};

TEST_F(SharedDevicesTest, SharesTakeTheirCapacityUntilTheDeviceHasNoMore) {
  absl::StatusOr<Found> out = Allocate({Bandwidth("a", "2500M"), Bandwidth("b", "3G")});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Devices(*out),
              ::testing::ElementsAre("r0: nic.example.com/n1/eth0", "r0: nic.example.com/n1/eth0"));
  const api::DeviceRequestAllocationResult& a = out->allocations[0].results[0];
  const api::DeviceRequestAllocationResult& b = out->allocations[1].results[0];
  EXPECT_EQ(a.consumed_capacity.at("bandwidth").String(), "3G");  // Rounded up to a step.
  ASSERT_TRUE(a.share_id && b.share_id);
  EXPECT_NE(*a.share_id, *b.share_id);
  EXPECT_THAT(*a.share_id,
              ::testing::MatchesRegex(
                  "[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"));

  // 8G of eth0's 10G are taken: 3G more go to eth1, whole, with no share.
  HoldShare("nic.example.com", "n1", "eth0", {{"bandwidth", *api::Quantity::Parse("8G")}});
  out = Allocate({Bandwidth("c", "3G")}, "n1", {}, /*explain=*/true);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Devices(*out), ::testing::ElementsAre("r0: nic.example.com/n1/eth1"));
  EXPECT_FALSE(out->allocations[0].results[0].share_id.has_value());
  EXPECT_TRUE(out->allocations[0].results[0].consumed_capacity.empty());
  // More than either NIC has left.
  out = Allocate({Bandwidth("d", "11G")}, "n1", {}, /*explain=*/true);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_FALSE(out->fits);
  EXPECT_EQ(out->why,
            "claim default/d, request r0: 1 wanted, 0 of the node's 2 devices match and are free "
            "(2 without the capacity asked)");
}

TEST_F(SharedDevicesTest, SelectorsSeeWhetherADeviceAllowsMultipleAllocations) {
  if (!CelAvailable()) GTEST_SKIP() << "libksched_cel.so is not built (no Go)";
  Add(Class(R"(
    metadata: {name: exclusive}
    spec: {selectors: [{cel: {expression: '!device.allowMultipleAllocations'}}]})"));
  absl::StatusOr<Found> out = Allocate({Claim(R"(
    metadata: {name: c, namespace: default}
    spec: {devices: {requests: [{name: nic, exactly: {deviceClassName: exclusive}}]}})")});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Devices(*out), ::testing::ElementsAre("nic: nic.example.com/n1/eth1"));
}

TEST_F(SharedDevicesTest, ADistinctAttributeKeepsTwoRequestsOffOneDevice) {
  absl::StatusOr<Found> out = Allocate({Bandwidth("a", "1G", 2)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Devices(*out),
              ::testing::ElementsAre("r0: nic.example.com/n1/eth0", "r1: nic.example.com/n1/eth0"));
  out = Allocate({Bandwidth("a", "1G", 2, /*distinct=*/true)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Devices(*out),
              ::testing::ElementsAre("r0: nic.example.com/n1/eth0", "r1: nic.example.com/n1/eth1"));
}

// A device that allows multiple allocations takes its counters once, with its first share, in a
// search or held: its further shares need none, and the other devices of its counter set get only
// what remains.
TEST_F(AllocatorTest, ASharedDeviceTakesItsCountersOnce) {
  Add(Class("metadata: {name: gpu}"));
  Add(Slice(R"(
    metadata: {name: counters}
    spec:
      driver: gpu.example.com
      nodeName: n1
      pool: {name: n1, resourceSliceCount: 2}
      sharedCounters: [{name: gpu-0, counters: {memory: {value: 40Gi}}}])"));
  Add(Slice(R"(
    metadata: {name: devices}
    spec:
      driver: gpu.example.com
      nodeName: n1
      pool: {name: n1, resourceSliceCount: 2}
      devices:
      - name: shared
        allowMultipleAllocations: true
        capacity: {sm: {value: "10"}}
        consumesCounters: [{counterSet: gpu-0, counters: {memory: {value: 30Gi}}}]
      - {name: small, consumesCounters: [{counterSet: gpu-0, counters: {memory: {value: 20Gi}}}]})"));
  api::ResourceClaim two = Claim(R"(
    metadata: {name: c, namespace: default}
    spec:
      devices:
        requests:
        - {name: a, exactly: {deviceClassName: gpu, capacity: {requests: {sm: "2"}}}}
        - {name: b, exactly: {deviceClassName: gpu, capacity: {requests: {sm: "2"}}}})");
  absl::StatusOr<Found> out = Allocate({two});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Devices(*out), ::testing::ElementsAre("a: gpu.example.com/n1/shared",
                                                    "b: gpu.example.com/n1/shared"));
  // A share held: 10Gi of the counter set are left, too few for the small device.
  HoldShare("gpu.example.com", "n1", "shared", {{"sm", *api::Quantity::Parse("2")}});
  out = Allocate({GpuClaim(1)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_FALSE(out->fits);
}

// The counter sets may be published for another node than the devices (one slice per pool for a
// whole rack, say): the pool is whole when all its slices are there, and the devices in use on
// the other nodes consume its counters too.
TEST_F(AllocatorTest, CountersOfAPoolSpanItsSlicesOnEveryNode) {
  Add(Class("metadata: {name: gpu}"));
  Add(Slice(R"(
    metadata: {name: counters}
    spec:
      driver: gpu.example.com
      nodeName: n0
      pool: {name: rack, resourceSliceCount: 3}
      sharedCounters: [{name: power, counters: {watts: {value: "500"}}}])"));
  for (const char* node : {"n1", "n2"}) {
    Add(Slice(fmt::format(R"(
      metadata: {{name: {0}}}
      spec:
        driver: gpu.example.com
        nodeName: {0}
        pool: {{name: rack, resourceSliceCount: 3}}
        devices:
        - {{name: {0}-a, consumesCounters: [{{counterSet: power, counters: {{watts: {{value: "300"}}}}}}]}}
        - {{name: {0}-b, consumesCounters: [{{counterSet: power, counters: {{watts: {{value: "200"}}}}}}]}})",
                          node)));
  }
  absl::StatusOr<Found> out = Allocate({GpuClaim(2)}, "n1");
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Devices(*out), ::testing::ElementsAre("gpu: gpu.example.com/rack/n1-a",
                                                    "gpu: gpu.example.com/rack/n1-b"));
  Hold("gpu.example.com", "rack", "n2-a");  // 300 of the rack's 500 watts, on another node.
  out = Allocate({GpuClaim(1)}, "n1");
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Devices(*out), ::testing::ElementsAre("gpu: gpu.example.com/rack/n1-b"));
  out = Allocate({GpuClaim(2)}, "n1");
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_FALSE(out->fits);
}

// A pool whose devices name a counter set or a counter it does not have is invalid, in upstream's
// words, and its devices are not given.
TEST_F(AllocatorTest, CountersThatDoNotExistMakeThePoolInvalid) {
  Add(Class("metadata: {name: gpu}"));
  Add(Slice(R"(
    metadata: {name: counters}
    spec:
      driver: gpu.example.com
      nodeName: n1
      pool: {name: n1, resourceSliceCount: 2}
      sharedCounters: [{name: gpu-0, counters: {memory: {value: 40Gi}}}])"));
  Add(Slice(R"(
    metadata: {name: devices}
    spec:
      driver: gpu.example.com
      nodeName: n1
      pool: {name: n1, resourceSliceCount: 2}
      devices:
      - {name: g0, consumesCounters: [{counterSet: gpu-1, counters: {memory: {value: 1Gi}}}]})"));
  absl::StatusOr<Found> out = Allocate({GpuClaim(1)}, "n1", {}, /*explain=*/true);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_FALSE(out->fits);
  EXPECT_EQ(out->node_failure, "invalid resource pools were encountered");
  EXPECT_THAT(out->why, ::testing::EndsWith("; resource pool gpu.example.com/n1 is invalid: "
                                            "counter set gpu-1 not found"));
  api::ResourceClaim all = Claim(R"(
    metadata: {name: c, namespace: default}
    spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu, allocationMode: All}}]}})");
  out = Allocate({all});
  EXPECT_EQ(out.status().message(),
            "claim default/c, request gpu: asks for all devices, but resource pool "
            "gpu.example.com/n1 is currently invalid");

  Add(Slice(R"(
    metadata: {name: devices}
    spec:
      driver: gpu.example.com
      nodeName: n1
      pool: {name: n1, resourceSliceCount: 2}
      devices:
      - {name: g0, consumesCounters: [{counterSet: gpu-0, counters: {cores: {value: "1"}}}]})"));
  SliceIndex index(dra_.ListResourceSlices());
  auto node = ksched::testing::MakeNode().Name("n1").Obj();
  std::shared_ptr<const std::vector<Pool>> pools = index.PoolsFor(node);
  ASSERT_EQ(pools->size(), 1u);
  EXPECT_EQ(pools->at(0).invalid, "counter cores not found in counter set gpu-0");
}

TEST_F(AllocatorTest, NodeSelectorSlicesServeTheNodesTheySelect) {
  Add(Class(R"(
    metadata: {name: gpu}
    spec: {config: [{opaque: {driver: gpu.example.com, parameters: {a: 1}}}]})"));
  Add(Slice(R"(
    metadata: {name: s}
    spec:
      driver: net.example.com
      nodeSelector: {nodeSelectorTerms: [{matchExpressions: [{key: rack, operator: In, values: [r1]}]}]}
      pool: {name: rack-1, resourceSliceCount: 1}
      devices: [{name: nic0}])"));
  absl::StatusOr<Found> out = Allocate({GpuClaim(1)}, "n1", {{"rack", "r2"}});
  ASSERT_TRUE(out.ok());
  EXPECT_FALSE(out->fits);
  out = Allocate({GpuClaim(1)}, "n1", {{"rack", "r1"}});
  ASSERT_TRUE(out.ok());
  ASSERT_TRUE(out->fits);
  const api::AllocationResult& a = out->allocations[0];
  ASSERT_TRUE(a.node_selector.has_value());
  EXPECT_EQ(a.node_selector->node_selector_terms.at(0).match_expressions.at(0).key, "rack");
  // The class's config, naming the request.
  ASSERT_EQ(a.config.size(), 1u);
  EXPECT_EQ(a.config[0].source, "FromClass");
  // It names every request of the claim: since 1.37 the list is empty, which means all.
  EXPECT_TRUE(a.config[0].configuration.requests.empty());
}

TEST_F(AllocatorTest, BrokenClaimsAreUpstreamsErrors) {
  absl::StatusOr<Found> out = Allocate({GpuClaim(1)});
  EXPECT_EQ(out.status().message(),
            "claim default/c, request gpu: could not retrieve device class gpu: "
            "deviceclass.resource.k8s.io \"gpu\" not found");
  Add(Class("metadata: {name: gpu}"));
  out = Allocate({GpuClaim(33)});
  EXPECT_EQ(out.status().message(),
            "claim default/c, request gpu: adding 33 devices exceeds the claim limit of 32, with 0 "
            "already accounted for");
}

TEST_F(AllocatorTest, SelectorsAreEvaluatedByUpstreamsCel) {
  if (!CelAvailable()) GTEST_SKIP() << "libksched_cel.so is not built (no Go)";
  Add(Class(R"(
    metadata: {name: a100}
    spec: {selectors: [{cel: {expression: 'device.attributes["gpu.example.com"].model == "a100"'}}]})"));
  Add(Slice(R"(
    metadata: {name: s}
    spec:
      driver: gpu.example.com
      nodeName: n1
      pool: {name: n1, resourceSliceCount: 1}
      devices:
      - {name: g0, attributes: {model: {string: t4}}}
      - {name: g1, attributes: {model: {string: a100}}, capacity: {memory: {value: 40Gi}}}
      - {name: g2, attributes: {model: {string: a100}}, capacity: {memory: {value: 80Gi}}})"));
  api::ResourceClaim claim = Claim(R"(
    metadata: {name: c, namespace: default}
    spec:
      devices:
        requests:
        - name: gpu
          exactly:
            deviceClassName: a100
            selectors: [{cel: {expression: 'device.capacity["gpu.example.com"].memory.compareTo(quantity("64Gi")) >= 0'}}])");
  absl::StatusOr<Found> out = Allocate({claim});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Devices(*out), ::testing::ElementsAre("gpu: gpu.example.com/n1/g2"));

  // A runtime error on a device the search reaches ends the attempt, with upstream's words.
  api::ResourceClaim typo = Claim(R"(
    metadata: {name: typo, namespace: default}
    spec:
      devices:
        requests:
        - name: gpu
          exactly:
            deviceClassName: a100
            selectors: [{cel: {expression: 'device.attributes["gpu.example.com"].modell == "x"'}}])");
  out = Allocate({typo});
  EXPECT_THAT(std::string(out.status().message()),
              ::testing::StartsWith("claim default/typo: selector #0 on device "));
  // An expression that does not compile.
  Add(Class(R"(
    metadata: {name: broken}
    spec: {selectors: [{cel: {expression: 'device.driver =='}}]})"));
  api::ResourceClaim broken = Claim(R"(
    metadata: {name: b, namespace: default}
    spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: broken}}]}})");
  out = Allocate({broken});
  EXPECT_THAT(std::string(out.status().message()),
              ::testing::StartsWith("class broken: selector #0: CEL compile error: "));
}

// Drivers replace their slices under new names: the verdicts on slices that went are dropped
// when the slices are listed again, so the cache holds no more than the cluster's slices.
TEST_F(AllocatorTest, TheSelectorCacheForgetsSlicesThatWent) {
  auto slice = [](std::string_view name, std::string_view uid) {
    return std::make_shared<const api::ResourceSlice>(Slice(fmt::format(R"(
      metadata: {{name: {}, uid: {}}}
      spec: {{driver: gpu.example.com, nodeName: n1, pool: {{name: n1, resourceSliceCount: 1}},
             devices: [{{name: g0}}]}})",
                                                                        name, uid)));
  };
  const auto a = slice("a", "ua"), b = slice("b", "ub");
  SelectorCache cache;
  for (const auto& s : {a, b}) {
    absl::StatusOr<std::shared_ptr<const std::vector<cel::Match>>> verdicts =
        cache.Evaluate("device.driver == 'gpu.example.com'", *s);
    ASSERT_TRUE(verdicts.ok()) << verdicts.status();
    ASSERT_EQ((*verdicts)->size(), 1u);
    EXPECT_TRUE((**verdicts)[0].matches);
  }
  EXPECT_EQ(cache.slices(), 2u);
  cache.Retain({a});
  EXPECT_EQ(cache.slices(), 1u);
  cache.Retain({slice("a", "another")});  // Deleted and made again under the same name.
  EXPECT_EQ(cache.slices(), 0u);
}

}  // namespace
}  // namespace ksched::plugins::dynamic_resources
