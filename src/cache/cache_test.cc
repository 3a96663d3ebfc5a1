#include "src/cache/cache.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "src/testing/builders.h"

namespace ksched::cache {
namespace {

using testing::MakeNode;
using testing::MakePod;

std::shared_ptr<const PodInfo> Info(const testing::MakePod& p) { return PodInfo::Make(p.Ptr()); }

TEST(CacheTest, AssumedPodCountsUntilForgotten) {
  Cache cache;
  cache.AddNode(MakeNode().Name("n1").Capacity({{"cpu", "4"}}).Ptr());
  Snapshot snap;
  ASSERT_TRUE(cache.AssumePod(Info(MakePod().Name("p").Req("cpu", "1")), "n1").ok());
  EXPECT_TRUE(cache.IsAssumedPod("p"));
  cache.UpdateSnapshot(&snap);
  EXPECT_EQ(snap.Get("n1")->requested().milli_cpu, 1000);

  ASSERT_TRUE(cache.ForgetPod("p").ok());
  cache.UpdateSnapshot(&snap);
  EXPECT_EQ(snap.Get("n1")->requested().milli_cpu, 0);
  EXPECT_FALSE(cache.ForgetPod("p").ok());  // no longer assumed
}

TEST(CacheTest, AddConfirmsAssumedPodOnTheNodeItWasBoundTo) {
  Cache cache;
  cache.AddNode(MakeNode().Name("n1").Ptr());
  cache.AddNode(MakeNode().Name("n2").Ptr());
  ASSERT_TRUE(cache.AssumePod(Info(MakePod().Name("p").Req("cpu", "1")), "n1").ok());
  ASSERT_TRUE(cache.AddPod(Info(MakePod().Name("p").Req("cpu", "1").Node("n2"))).ok());
  EXPECT_FALSE(cache.IsAssumedPod("p"));
  EXPECT_EQ(cache.NodeOf("p"), "n2");
  Snapshot snap;
  cache.UpdateSnapshot(&snap);
  EXPECT_EQ(snap.Get("n1")->requested().milli_cpu, 0);
  EXPECT_EQ(snap.Get("n2")->requested().milli_cpu, 1000);
  EXPECT_FALSE(cache.AddPod(Info(MakePod().Name("p").Node("n2"))).ok());  // already added
}

TEST(CacheTest, AssumedPodExpiresAfterTtlOnceBindingFinished) {
  Cache cache(absl::Seconds(30));
  cache.AddNode(MakeNode().Name("n1").Ptr());
  ASSERT_TRUE(cache.AssumePod(Info(MakePod().Name("p")), "n1").ok());
  absl::Time t0 = absl::UnixEpoch();
  cache.CleanupExpiredAssumedPods(t0 + absl::Hours(1));
  EXPECT_TRUE(cache.IsAssumedPod("p"));  // binding not finished: never expires
  cache.FinishBinding("p", t0);
  cache.CleanupExpiredAssumedPods(t0 + absl::Seconds(10));
  EXPECT_TRUE(cache.IsAssumedPod("p"));
  cache.CleanupExpiredAssumedPods(t0 + absl::Seconds(31));
  EXPECT_FALSE(cache.IsAssumedPod("p"));
  EXPECT_EQ(cache.PodCount(), 0u);
}

TEST(CacheTest, RemovingANodeWithPodsKeepsThePodsUntilTheyGo) {
  Cache cache;
  cache.AddNode(MakeNode().Name("n1").Ptr());
  ASSERT_TRUE(cache.AddPod(Info(MakePod().Name("p").Node("n1"))).ok());
  Snapshot snap;
  cache.UpdateSnapshot(&snap);
  ASSERT_EQ(snap.nodes().size(), 1u);
  cache.RemoveNode("n1");
  cache.UpdateSnapshot(&snap);
  EXPECT_EQ(snap.nodes().size(), 0u);
  EXPECT_EQ(snap.Get("n1"), nullptr);
  EXPECT_EQ(cache.NodeCount(), 0u);
  EXPECT_EQ(cache.PodCount(), 1u);
  ASSERT_TRUE(cache.RemovePod("p").ok());
  EXPECT_EQ(cache.PodCount(), 0u);
  // The node comes back: the old pod no longer counts.
  cache.AddNode(MakeNode().Name("n1").Ptr());
  cache.UpdateSnapshot(&snap);
  EXPECT_TRUE(snap.Get("n1")->pods().empty());
}

TEST(CacheTest, SnapshotTakesAChangedNodeOnlyAtUpdateAndInItsPlace) {
  Cache cache;
  cache.AddNode(MakeNode().Name("n1").Ptr());
  cache.AddNode(MakeNode().Name("n2").Ptr());
  Snapshot snap;
  cache.UpdateSnapshot(&snap);
  const NodeInfo* n2 = snap.Get("n2");
  const int32_t place = snap.IndexOf(*snap.Get("n1"));
  int64_t gen2 = n2->generation();
  ASSERT_TRUE(cache.AddPod(Info(MakePod().Name("p").Node("n1"))).ok());
  // The cache changed its own copy: the snapshot's is as it was until the next update.
  EXPECT_TRUE(snap.Get("n1")->pods().empty());
  cache.UpdateSnapshot(&snap);
  const NodeInfo* n1 = snap.Get("n1");
  EXPECT_EQ(n1->pods().size(), 1u);
  EXPECT_EQ(snap.IndexOf(*n1), place);
  EXPECT_EQ(snap.nodes()[place], n1);
  EXPECT_EQ(snap.Get("n2"), n2);  // Unchanged, still shared.
  EXPECT_EQ(n2->generation(), gen2);
  // Changed again while the snapshot shares it, and back: the snapshot follows each update.
  ASSERT_TRUE(cache.RemovePod("p").ok());
  EXPECT_EQ(snap.Get("n1")->pods().size(), 1u);
  cache.UpdateSnapshot(&snap);
  EXPECT_TRUE(snap.Get("n1")->pods().empty());
  EXPECT_EQ(snap.nodes()[place], snap.Get("n1"));
}

TEST(CacheTest, NodeOrderInterleavesZones) {
  Cache cache;
  for (auto [name, zone] : std::vector<std::pair<std::string, std::string>>{
           {"a1", "a"}, {"a2", "a"}, {"a3", "a"}, {"b1", "b"}, {"c1", "c"}, {"b2", "b"}}) {
    cache.AddNode(MakeNode().Name(name).Label("topology.kubernetes.io/zone", zone).Ptr());
  }
  Snapshot snap;
  cache.UpdateSnapshot(&snap);
  std::vector<std::string> order;
  for (const NodeInfo* ni : snap.nodes()) order.push_back(ni->name());
  EXPECT_EQ(order, (std::vector<std::string>{"a1", "b1", "c1", "a2", "b2", "a3"}));
}

TEST(CacheTest, ANodeKeepsItsPlaceInTheOrderUnlessItsZoneChanges) {
  constexpr char kZone[] = "topology.kubernetes.io/zone";
  Cache cache;
  for (const char* name : {"a1", "a2", "a3"}) {
    cache.AddNode(MakeNode().Name(name).Label(kZone, "a").Ptr());
  }
  Snapshot snap;
  auto order = [&] {
    cache.UpdateSnapshot(&snap);
    std::vector<std::string> out;
    for (const NodeInfo* ni : snap.nodes()) out.push_back(ni->name());
    return out;
  };
  EXPECT_EQ(order(), (std::vector<std::string>{"a1", "a2", "a3"}));
  // A status update (here: capacity) is not a move.
  cache.UpdateNode(MakeNode().Name("a1").Label(kZone, "a").Capacity({{"cpu", "2"}}).Ptr());
  EXPECT_EQ(order(), (std::vector<std::string>{"a1", "a2", "a3"}));
  EXPECT_EQ(snap.Get("a1")->allocatable().milli_cpu, 2000);
  // A new zone is: the node goes to the end of it.
  cache.UpdateNode(MakeNode().Name("a1").Label(kZone, "b").Ptr());
  EXPECT_EQ(order(), (std::vector<std::string>{"a2", "a1", "a3"}));
}

TEST(CacheTest, ImageCountsAcrossNodes) {
  Cache cache;
  cache.AddNode(MakeNode().Name("n1").Image("nginx:1", 100).Ptr());
  cache.AddNode(MakeNode().Name("n2").Image("nginx:1", 100).Ptr());
  Snapshot snap;
  cache.UpdateSnapshot(&snap);
  EXPECT_EQ(snap.NumNodesWithImage("nginx:1"), 2);
  cache.RemoveNode("n2");
  cache.UpdateSnapshot(&snap);
  EXPECT_EQ(snap.NumNodesWithImage("nginx:1"), 1);
  EXPECT_EQ(snap.NumNodesWithImage("redis:7"), 0);
}

TEST(CacheTest, NodeLabelDomainsFollowTheNodesAndTheirLabels) {
  constexpr char kZone[] = "topology.kubernetes.io/zone";
  Cache cache;
  cache.AddNode(MakeNode().Name("a1").Label(kZone, "a").Ptr());
  cache.AddNode(MakeNode().Name("b1").Label(kZone, "b").Ptr());
  cache.AddNode(MakeNode().Name("a2").Label(kZone, "a").Ptr());
  cache.AddNode(MakeNode().Name("bare").Ptr());
  Snapshot snap;
  cache.UpdateSnapshot(&snap);
  // Each node of nodes() by name, with its zone's value ("-" for none).
  auto zones = [&] {
    std::map<std::string, std::string> out;
    const LabelDomains& d = snap.NodeLabelDomains(kZone);
    for (size_t i = 0; i < d.domain.size(); ++i) {
      out[snap.nodes()[i]->name()] =
          d.domain[i] == LabelDomains::kNoValue ? "-" : d.values[d.domain[i]];
    }
    return out;
  };
  EXPECT_EQ(zones(), (std::map<std::string, std::string>{
                         {"a1", "a"}, {"a2", "a"}, {"b1", "b"}, {"bare", "-"}}));
  EXPECT_EQ(snap.NodeLabelDomains(kZone).values.size(), 2u);

  // Pods come and go, a node's status changes, a node gets a new label.
  ASSERT_TRUE(cache.AddPod(Info(MakePod().Name("p").Node("b1"))).ok());
  cache.UpdateNode(MakeNode().Name("b1").Label(kZone, "b").Capacity({{"cpu", "2"}}).Ptr());
  cache.UpdateSnapshot(&snap);
  EXPECT_EQ(zones(), (std::map<std::string, std::string>{
                         {"a1", "a"}, {"a2", "a"}, {"b1", "b"}, {"bare", "-"}}));
  EXPECT_TRUE(snap.NodeLabelDomains("rack").values.empty());
  cache.UpdateNode(MakeNode().Name("bare").Label("rack", "r1").Ptr());
  cache.UpdateSnapshot(&snap);
  EXPECT_EQ(snap.NodeLabelDomains("rack").values, (std::vector<std::string>{"r1"}));
  cache.RemoveNode("a2");
  cache.UpdateSnapshot(&snap);
  EXPECT_EQ(snap.NodeLabelDomains(kZone).domain.size(), 3u);
}

TEST(CacheTest, IndexOfGivesEachSnapshotNodeItsPlace) {
  constexpr char kZone[] = "topology.kubernetes.io/zone";
  Cache cache;
  for (const char* name : {"a1", "b1", "a2"}) {
    cache.AddNode(MakeNode().Name(name).Label(kZone, std::string(1, name[0])).Ptr());
  }
  Snapshot snap;
  cache.UpdateSnapshot(&snap);
  auto check = [&] {
    const LabelDomains& zones = snap.NodeLabelDomains(kZone);
    for (size_t i = 0; i < snap.nodes().size(); ++i) {
      const NodeInfo& ni = *snap.nodes()[i];
      ASSERT_EQ(snap.IndexOf(ni), static_cast<int32_t>(i)) << ni.name();
      ASSERT_NE(zones.ValueAt(i), nullptr);
      EXPECT_EQ(*zones.ValueAt(i), ni.node()->metadata.labels.at(kZone)) << ni.name();
    }
  };
  check();
  // A copy of a snapshot node is not the snapshot's own.
  EXPECT_EQ(snap.IndexOf(*snap.nodes()[0]->Clone()), -1);
  // The places follow nodes that come and go.
  cache.RemoveNode("b1");
  cache.AddNode(MakeNode().Name("c1").Label(kZone, "c").Ptr());
  cache.UpdateSnapshot(&snap);
  ASSERT_EQ(snap.nodes().size(), 3u);
  EXPECT_NE(snap.Get("c1"), nullptr);
  check();
}

}  // namespace
}  // namespace ksched::cache
