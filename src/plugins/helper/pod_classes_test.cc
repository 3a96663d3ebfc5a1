#include "src/plugins/helper/pod_classes.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "src/testing/builders.h"
#include "src/testing/fake_handle.h"

namespace ksched::plugins::helper {
namespace {

using testing::MakeNode;
using testing::MakePod;
using ::testing::UnorderedElementsAre;

std::shared_ptr<const PodInfo> Info(const MakePod& p) {
  return PodInfo::Make(std::make_shared<const api::Pod>(p.Obj()));
}

NodeInfo Node(const std::string& name) {
  NodeInfo n;
  n.SetNode(std::make_shared<const api::Node>(MakeNode().Name(name).Obj()));
  return n;
}

// The node's classes as (a pod's name, how many) pairs.
std::vector<std::pair<std::string, int32_t>> Named(PodClasses& classes, const NodeInfo& node) {
  std::vector<std::pair<std::string, int32_t>> out;
  for (const PodClasses::Count& c : classes.Of(node)) {
    out.emplace_back(classes.Pod(c.id).metadata.name, c.pods);
  }
  return out;
}

TEST(PodClassesTest, PodsThatAffinityAndSpreadingCannotTellApartShareAClass) {
  NodeInfo node = Node("n1");
  node.AddPod(Info(MakePod().Name("web-1").Label("app", "web")));
  node.AddPod(Info(MakePod().Name("web-2").Label("app", "web")));
  node.AddPod(Info(MakePod().Name("db").Label("app", "db")));
  node.AddPod(Info(MakePod().Name("web-other-ns").Namespace("other").Label("app", "web")));
  node.AddPod(Info(MakePod()
                       .Name("web-anti")
                       .Label("app", "web")
                       .RequiredAntiAffinity("app", "web", "kubernetes.io/hostname")));
  api::Pod terminating = MakePod().Name("web-going").Label("app", "web").Obj();
  terminating.metadata.deletion_timestamp = "2026-11-24T00:00:00Z";
  node.AddPod(PodInfo::Make(std::make_shared<const api::Pod>(terminating)));

  PodClasses classes;
  EXPECT_THAT(Named(classes, node),
              UnorderedElementsAre(std::pair<std::string, int32_t>{"web-1", 2},
                                   std::pair<std::string, int32_t>{"db", 1},
                                   std::pair<std::string, int32_t>{"web-other-ns", 1},
                                   std::pair<std::string, int32_t>{"web-anti", 1},
                                   std::pair<std::string, int32_t>{"web-going", 1}));
}

TEST(PodClassesTest, ANodeIsRecountedWhenItChangesAndAClassWithNoPodsLeftIsFreed) {
  testing::FakeHandle h({MakeNode().Name("n1").Obj(), MakeNode().Name("n2").Obj()},
                        {MakePod().Name("a-1").Label("app", "a").Node("n1").Obj(),
                         MakePod().Name("a-2").Label("app", "a").Node("n2").Obj(),
                         MakePod().Name("b-1").Label("app", "b").Node("n2").Obj()});
  auto node = [&](const char* name) -> const NodeInfo& { return *h.snapshot().Get(name); };
  PodClasses classes;
  classes.Refresh(h.snapshot());
  const PodClasses::Id a = classes.Of(node("n1"))[0].id;
  EXPECT_EQ(classes.Of(node("n2")).size(), 2u);
  EXPECT_EQ(classes.size(), 2u);

  ASSERT_TRUE(h.cache().AddPod(Info(MakePod().Name("a-3").Label("app", "a").Node("n1"))).ok());
  ASSERT_TRUE(h.cache().RemovePod("b-1").ok());
  h.Refresh();
  classes.Refresh(h.snapshot());
  EXPECT_THAT(Named(classes, node("n1")),
              UnorderedElementsAre(std::pair<std::string, int32_t>{"a-1", 2}));
  EXPECT_EQ(classes.Of(node("n1"))[0].id, a);
  EXPECT_THAT(Named(classes, node("n2")),
              UnorderedElementsAre(std::pair<std::string, int32_t>{"a-1", 1}));

  // b's last pod went: at the next cycle its id is free, and a new class takes it.
  ASSERT_TRUE(h.cache().AddPod(Info(MakePod().Name("c-1").Label("app", "c").Node("n2"))).ok());
  h.Refresh();
  classes.Refresh(h.snapshot());
  EXPECT_THAT(Named(classes, node("n2")),
              UnorderedElementsAre(std::pair<std::string, int32_t>{"a-1", 1},
                                   std::pair<std::string, int32_t>{"c-1", 1}));
  EXPECT_EQ(classes.size(), 2u);
}

TEST(PodClassesTest, RefreshForgetsTheNodesTheSnapshotNoLongerHas) {
  testing::FakeHandle h({MakeNode().Name("n1").Obj(), MakeNode().Name("n2").Obj()},
                        {MakePod().Name("x-1").Label("app", "x").Node("n1").Obj(),
                         MakePod().Name("y-1").Label("app", "y").Node("n2").Obj()});
  PodClasses classes;
  classes.Refresh(h.snapshot());
  classes.Of(*h.snapshot().Get("n1"));
  classes.Of(*h.snapshot().Get("n2"));
  EXPECT_EQ(classes.size(), 2u);
  h.cache().RemoveNode("n1");
  ASSERT_TRUE(h.cache().RemovePod("x-1").ok());
  h.Refresh();
  classes.Refresh(h.snapshot());
  // x's class was freed with its node: a new class takes its id, and the table does not grow.
  ASSERT_TRUE(h.cache().AddPod(Info(MakePod().Name("z-1").Label("app", "z").Node("n2"))).ok());
  h.Refresh();
  EXPECT_THAT(Named(classes, *h.snapshot().Get("n2")),
              UnorderedElementsAre(std::pair<std::string, int32_t>{"y-1", 1},
                                   std::pair<std::string, int32_t>{"z-1", 1}));
  EXPECT_EQ(classes.size(), 2u);
}

}  // namespace
}  // namespace ksched::plugins::helper
