#include "src/framework/nominator.h"

#include <gtest/gtest.h>

#include "src/testing/builders.h"

namespace ksched::framework {
namespace {

using ksched::testing::MakePod;

std::vector<std::string> Names(const std::vector<std::shared_ptr<const PodInfo>>& pods) {
  std::vector<std::string> out;
  for (const auto& p : pods) out.push_back(p->pod->metadata.name);
  return out;
}

TEST(NominatorTest, APodIsNominatedToOneNodeAtATime) {
  Nominator n;
  EXPECT_TRUE(n.empty());
  n.AddNominatedPod(PodInfo::Make(MakePod().Name("a").Ptr()), "n1");
  n.AddNominatedPod(PodInfo::Make(MakePod().Name("b").Ptr()), "n1");
  EXPECT_EQ(Names(n.NominatedPodsForNode("n1")), (std::vector<std::string>{"a", "b"}));
  n.AddNominatedPod(PodInfo::Make(MakePod().Name("a").Ptr()), "n2");
  EXPECT_EQ(Names(n.NominatedPodsForNode("n1")), (std::vector<std::string>{"b"}));
  EXPECT_EQ(Names(n.NominatedPodsForNode("n2")), (std::vector<std::string>{"a"}));
  EXPECT_NE(n.PodsForNode("n2"), nullptr);
  EXPECT_EQ(n.PodsForNode("n3"), nullptr);
  n.AddNominatedPod(PodInfo::Make(MakePod().Name("a").Ptr()), "");  // Cleared.
  n.DeleteNominatedPodIfExists("b");
  EXPECT_TRUE(n.empty());
  EXPECT_TRUE(n.NominatedPodsForNode("n1").empty());
  EXPECT_EQ(n.PodsForNode("n1"), nullptr);  // An emptied list is dropped.
}

TEST(NominatorTest, AnUpdateKeepsAnInMemoryNominationUntilTheStatusSaysOtherwise) {
  Nominator n;
  api::Pod p = MakePod().Name("p").Obj();
  n.AddNominatedPod(PodInfo::Make(std::make_shared<const api::Pod>(p)), "n1");
  // A label changed before the status patch arrived: still nominated to n1.
  api::Pod labelled = MakePod(p).Label("x", "y").Obj();
  n.UpdateNominatedPod(p, PodInfo::Make(std::make_shared<const api::Pod>(labelled)));
  ASSERT_EQ(n.NominatedPodsForNode("n1").size(), 1u);
  EXPECT_EQ(n.NominatedPodsForNode("n1")[0]->pod->metadata.labels.at("x"), "y");
  // The status names another node.
  api::Pod moved = labelled;
  moved.status.nominated_node_name = "n2";
  n.UpdateNominatedPod(labelled, PodInfo::Make(std::make_shared<const api::Pod>(moved)));
  EXPECT_TRUE(n.NominatedPodsForNode("n1").empty());
  EXPECT_EQ(n.NominatedPodsForNode("n2").size(), 1u);
  // The status cleared it.
  n.UpdateNominatedPod(moved, PodInfo::Make(std::make_shared<const api::Pod>(labelled)));
  EXPECT_TRUE(n.empty());
}

// A filter reads a node's list while nominations come and go on other threads: the list it holds
// stays as it was, and the next read sees the change.
TEST(NominatorTest, AListReadStaysAsItWasWhenNominationsChange) {
  Nominator n;
  n.AddNominatedPod(PodInfo::Make(MakePod().Name("a").Ptr()), "n1");
  std::shared_ptr<const Nominator::PodList> read = n.PodsForNode("n1");
  ASSERT_NE(read, nullptr);
  n.AddNominatedPod(PodInfo::Make(MakePod().Name("b").Ptr()), "n1");
  n.DeleteNominatedPodIfExists("a");
  EXPECT_EQ(Names(*read), std::vector<std::string>{"a"});
  EXPECT_EQ(Names(*n.PodsForNode("n1")), std::vector<std::string>{"b"});
  n.DeleteNominatedPodIfExists("b");
  EXPECT_EQ(n.PodsForNode("n1"), nullptr);
}

}  // namespace
}  // namespace ksched::framework
