#include "src/sdk/snapshot_builder.h"

#include <gtest/gtest.h>

#include "src/testing/builders.h"

namespace ksched::internal {
namespace {

using ksched::testing::MakeNode;

std::shared_ptr<const NodeInfo> Info(const std::string& name, const std::string& zone) {
  auto ni = std::make_shared<NodeInfo>();
  ni->SetNode(std::make_shared<const api::Node>(MakeNode().Name(name).Label("zone", zone).Obj()));
  return ni;
}

std::vector<std::string> Names(const Snapshot& s) {
  std::vector<std::string> out;
  for (const NodeInfo* ni : s.nodes()) out.push_back(ni->name());
  return out;
}

TEST(SnapshotBuilderTest, KeepsTheOrderThePositionsAndTheLabelDomainsTrue) {
  Snapshot s;
  {
    SnapshotBuilder b(s);
    for (const char* n : {"a", "b", "c"}) b.Put(n, Info(n, "z1"));
    EXPECT_TRUE(b.membership_changed());
    b.Order({"c", "a", "b"});
    b.Finish();
  }
  EXPECT_EQ(Names(s), (std::vector<std::string>{"c", "a", "b"}));
  EXPECT_EQ(s.IndexOf(*s.Get("b")), 2);
  EXPECT_EQ(s.NodeLabelDomains("zone").values, std::vector<std::string>{"z1"});

  // A new version of a node takes the old one's place; its new label is seen.
  {
    SnapshotBuilder b(s);
    b.Put("a", Info("a", "z2"));
    EXPECT_FALSE(b.membership_changed());
    b.Finish();
  }
  EXPECT_EQ(Names(s), (std::vector<std::string>{"c", "a", "b"}));
  EXPECT_EQ(s.IndexOf(*s.Get("a")), 1);
  EXPECT_EQ(s.NodeLabelDomains("zone").values, (std::vector<std::string>{"z1", "z2"}));

  // A removed node needs a new order, without it.
  {
    SnapshotBuilder b(s);
    b.Remove("c");
    b.Remove("never-there");
    EXPECT_TRUE(b.membership_changed());
    b.Order({"a", "b"});
    b.Finish();
  }
  EXPECT_EQ(Names(s), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(s.Get("c"), nullptr);
  EXPECT_EQ(s.IndexOf(*s.Get("a")), 0);
  EXPECT_EQ(s.NodeLabelDomains("zone").domain, (std::vector<int32_t>{0, 1}));
}

}  // namespace
}  // namespace ksched::internal
