#include "src/plugins/helper/node_filters.h"

#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "src/testing/builders.h"
#include "src/testing/fake_handle.h"

namespace ksched::plugins::helper {
namespace {

using testing::MakeNode;

// A snapshot node and a copy of it (preemption's) read their labels at the node's place; a node
// the snapshot does not hold, even one of the same name, reads its own.
TEST(PlaceForLabelsTest, ASnapshotNodeAndItsCopiesHaveItsPlaceOthersNone) {
  testing::FakeHandle h({MakeNode().Name("a").Label("zone", "z1").Obj(),
                         MakeNode().Name("b").Label("zone", "z2").Obj()});
  const Snapshot& snapshot = h.snapshot();
  for (const char* name : {"a", "b"}) {
    const NodeInfo& own = *snapshot.Get(name);
    const int32_t place = snapshot.IndexOf(own);
    ASSERT_GE(place, 0) << name;
    EXPECT_EQ(PlaceForLabels(snapshot, own), place) << name;
    EXPECT_EQ(PlaceForLabels(snapshot, *own.Clone()), place) << name;
    NodeInfo relabelled;  // The same name, another Node: its labels may differ.
    relabelled.SetNode(std::make_shared<const api::Node>(*own.node()));
    EXPECT_EQ(PlaceForLabels(snapshot, relabelled), -1) << name;
  }
  NodeInfo stranger;
  stranger.SetNode(std::make_shared<const api::Node>(MakeNode().Name("c").Obj()));
  EXPECT_EQ(PlaceForLabels(snapshot, stranger), -1);
  EXPECT_EQ(PlaceForLabels(snapshot, NodeInfo()), -1);
}

// A node's place from its index in a list: the index itself in the snapshot's own list, the
// node's place in any other list of its nodes (feasible nodes, say), -1 for a stranger.
TEST(PlaceInSnapshotTest, TheIndexInTheSnapshotsListOtherwiseThePlaceLookedUp) {
  testing::FakeHandle h({MakeNode().Name("a").Obj(), MakeNode().Name("b").Obj()});
  const Snapshot& snapshot = h.snapshot();
  const std::vector<const NodeInfo*>& all = snapshot.nodes();
  for (size_t i = 0; i < all.size(); ++i) {
    EXPECT_EQ(PlaceInSnapshot(snapshot, all, i), static_cast<int32_t>(i));
  }
  NodeInfo stranger;
  stranger.SetNode(std::make_shared<const api::Node>(MakeNode().Name("c").Obj()));
  const std::vector<const NodeInfo*> given = {all[1], &stranger, all[0]};
  EXPECT_EQ(PlaceInSnapshot(snapshot, given, 0), 1);
  EXPECT_EQ(PlaceInSnapshot(snapshot, given, 1), -1);
  EXPECT_EQ(PlaceInSnapshot(snapshot, given, 2), 0);
}

}  // namespace
}  // namespace ksched::plugins::helper
