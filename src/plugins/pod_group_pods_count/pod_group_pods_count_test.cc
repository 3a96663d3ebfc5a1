#include "src/plugins/pod_group_pods_count/pod_group_pods_count.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "src/testing/builders.h"
#include "src/testing/fake_handle.h"

namespace ksched::plugins::pod_group_pods_count {
namespace {

using ksched::testing::FakeHandle;
using ksched::testing::MakeNode;
using ksched::testing::MakePod;
using ::testing::ElementsAre;

api::Pod Member(const std::string& name, const std::string& node = "") {
  return MakePod().Name(name).UID(name).PodGroup("train").Node(node).Obj();
}

// Upstream's TestScorePlacement: the group's bound and assumed pods, plus the proposed ones.
TEST(PodGroupPodsCountTest, CountsThePlacedPodsAndTheProposedOnes) {
  FakeHandle handle({MakeNode().Name("n1").Obj()}, {Member("bound", "n1")});
  auto assumed = std::make_shared<const api::Pod>(Member("assumed", "n1"));
  ASSERT_TRUE(handle.cache().AssumePod(PodInfo::Make(assumed), "n1").ok());
  handle.cache().AddPodGroupMember(std::make_shared<const api::Pod>(Member("p1")));
  PodGroupPodsCount plugin(handle);
  api::PodGroup group;
  group.metadata = {.name = "train", .namespace_ = "default"};
  const api::Pod p1 = Member("p1"), p2 = Member("p2"), p3 = Member("p3");
  Placement placement{.name = "rack-1"};
  PodGroupAssignments a{.placement = &placement,
                        .proposed = {{&p1, "n1"}, {&p2, "n1"}, {&p3, "n1"}}};
  int64_t score = 0;
  ASSERT_TRUE(plugin.ScorePlacement(group, a, &score).ok());
  EXPECT_EQ(score, 5);
  a.proposed.clear();
  ASSERT_TRUE(plugin.ScorePlacement(group, a, &score).ok());
  EXPECT_EQ(score, 2);
}

// Upstream's TestNormalizePlacementScore.
TEST(PodGroupPodsCountTest, NormalizesToTheHighestCount) {
  FakeHandle handle;
  PodGroupPodsCount plugin(handle);
  auto normalized = [&](std::vector<int64_t> scores) {
    EXPECT_TRUE(plugin.NormalizePlacementScores(api::PodGroup{}, scores).ok());
    return scores;
  };
  EXPECT_THAT(normalized({10, 50, 110}), ElementsAre(9, 45, 100));
  EXPECT_THAT(normalized({50, 50}), ElementsAre(100, 100));
  EXPECT_THAT(normalized({50}), ElementsAre(100));
  EXPECT_THAT(normalized({11, 100, 101, 102}), ElementsAre(10, 98, 99, 100));
  std::vector<int64_t> zeros = {0, 0};
  Status s = plugin.NormalizePlacementScores(api::PodGroup{}, zeros);
  EXPECT_EQ(s.code(), Code::kError);
  EXPECT_EQ(s.Message(), "no pods from pod group are assigned to any of the candidate placements");
}

}  // namespace
}  // namespace ksched::plugins::pod_group_pods_count
