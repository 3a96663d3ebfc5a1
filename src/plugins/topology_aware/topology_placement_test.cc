#include "src/plugins/topology_aware/topology_placement.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "src/testing/builders.h"
#include "src/testing/fake_handle.h"

namespace ksched::plugins::topology_aware {
namespace {

using ksched::testing::FakeHandle;
using ksched::testing::MakeNode;
using ksched::testing::MakePod;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::Pair;

api::PodGroup Group(std::string key) {
  api::PodGroup g;
  g.metadata = {.name = "train", .namespace_ = "default"};
  g.gang_min_count = 2;
  if (!key.empty()) g.scheduling_constraints = {{.topology_keys = {std::move(key)}}};
  return g;
}

api::Node Node(const std::string& name, const std::string& rack = "") {
  MakeNode b;
  b.Name(name);
  if (!rack.empty()) b.Label("rack", rack);
  return b.Obj();
}

api::Pod Member(const std::string& name, const std::string& node = "") {
  return MakePod().Name(name).UID(name).PodGroup("train").Node(node).Obj();
}

// The placements by name, each with its nodes' names.
std::map<std::string, std::vector<std::string>> Named(const std::vector<Placement>& placements) {
  std::map<std::string, std::vector<std::string>> out;
  for (const Placement& p : placements) {
    for (const NodeInfo* n : p.nodes) out[p.name].push_back(n->name());
  }
  return out;
}

// The parent placement: the snapshot's nodes named in `names`.
Placement Parent(const FakeHandle& handle, const std::vector<std::string>& names) {
  Placement parent{.name = "parent"};
  for (const NodeInfo* n : handle.snapshot().nodes()) {
    if (std::find(names.begin(), names.end(), n->name()) != names.end()) parent.nodes.push_back(n);
  }
  return parent;
}

struct Generated {
  Status status;
  std::map<std::string, std::vector<std::string>> placements;
};

Generated Generate(const std::vector<api::Node>& nodes, const std::vector<std::string>& parent,
                   const std::vector<api::Pod>& placed, const std::string& key = "rack") {
  FakeHandle handle(nodes, placed);
  handle.cache().AddPodGroupMember(std::make_shared<const api::Pod>(Member("pending")));
  TopologyPlacementGenerator plugin(handle);
  std::vector<Placement> out;
  Generated run;
  run.status = plugin.GeneratePlacements(Group(key), Parent(handle, parent), &out);
  run.placements = Named(out);
  return run;
}

// Upstream's TestGeneratePlacements, case by case.
TEST(TopologyPlacementGeneratorTest, WithoutAConstraintTheParentIsThePlacement) {
  Generated r =
      Generate({Node("node1"), Node("node2", "r1"), Node("node3")}, {"node1", "node2"}, {}, "");
  ASSERT_TRUE(r.status.ok()) << r.status.Message();
  EXPECT_THAT(r.placements, ElementsAre(Pair("parent", ElementsAre("node1", "node2"))));
}

TEST(TopologyPlacementGeneratorTest, OnePlacementPerDomainOfTheKey) {
  const std::vector<api::Node> nodes = {Node("node0"),       Node("node1"),
                                        Node("node2", "d1"), Node("node3", "d2"),
                                        Node("node4", "d1"), Node("node5", "d3")};
  Generated r = Generate(nodes, {"node0", "node1", "node2", "node3", "node4", "node5"}, {});
  ASSERT_TRUE(r.status.ok()) << r.status.Message();
  EXPECT_THAT(r.placements,
              ElementsAre(Pair("d1", ElementsAre("node2", "node4")),
                          Pair("d2", ElementsAre("node3")), Pair("d3", ElementsAre("node5"))));
  // No node with the label: no placement, and no error (the framework says why).
  r = Generate(nodes, {"node0", "node1"}, {});
  ASSERT_TRUE(r.status.ok()) << r.status.Message();
  EXPECT_THAT(r.placements, IsEmpty());
}

TEST(TopologyPlacementGeneratorTest, PlacedPodsPinTheGroupToTheirDomain) {
  const std::vector<api::Node> nodes = {Node("node0", "d2"), Node("node1", "d1"),
                                        Node("node2", "d1"), Node("node3", "d1")};
  // The placed pods' nodes need not be in the parent.
  Generated r = Generate(nodes, {"node0", "node1"}, {Member("a", "node2"), Member("b", "node3")});
  ASSERT_TRUE(r.status.ok()) << r.status.Message();
  EXPECT_THAT(r.placements, ElementsAre(Pair("d1", ElementsAre("node1"))));
  // Their domain has no node in the parent: no placement.
  r = Generate(nodes, {"node0"}, {Member("a", "node2")});
  ASSERT_TRUE(r.status.ok()) << r.status.Message();
  EXPECT_THAT(r.placements, IsEmpty());
}

TEST(TopologyPlacementGeneratorTest, PlacedPodsOutsideOneDomainAreAnError) {
  const std::vector<api::Node> nodes = {Node("node0", "d0"), Node("node1", "d1"), Node("node2")};
  Generated r = Generate(nodes, {"node0", "node1"}, {Member("a", "node0"), Member("b", "node1")});
  EXPECT_EQ(r.status.code(), Code::kError);
  EXPECT_EQ(r.status.Message(),
            "cannot determine domain for already scheduled pods: more than 1 domain found for pod "
            "group: d0, d1");
  r = Generate(nodes, {"node0"}, {Member("a", "node2")});
  EXPECT_EQ(r.status.Message(),
            "cannot determine domain for already scheduled pods: no topology domain found for pod "
            "default/a");
  r = Generate(nodes, {"node0"}, {Member("a", "node4")});
  EXPECT_EQ(r.status.Message(),
            "cannot determine domain for already scheduled pods: getting node for pod default/a: "
            "nodeinfo not found for node name \"node4\"");
}

}  // namespace
}  // namespace ksched::plugins::topology_aware
