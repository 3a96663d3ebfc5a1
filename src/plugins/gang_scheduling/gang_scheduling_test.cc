#include "src/plugins/gang_scheduling/gang_scheduling.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "src/testing/builders.h"
#include "src/testing/fake_handle.h"

namespace ksched::plugins::gang_scheduling {
namespace {

using ksched::testing::FakeHandle;
using ksched::testing::MakePod;
using ::testing::ElementsAre;

std::shared_ptr<const api::PodGroup> Gang(std::string name, int min_count) {
  auto g = std::make_shared<api::PodGroup>();
  g->metadata = {.name = std::move(name), .namespace_ = "default"};
  g->gang_min_count = min_count;
  return g;
}

std::shared_ptr<const api::Pod> Member(std::string name, std::string group, std::string node = "") {
  return MakePod().Name(name).UID(name).PodGroup(std::move(group)).Node(std::move(node)).Ptr();
}

TEST(GangSchedulingTest, PreEnqueueHoldsAGangUntilItsGroupAndMinCountOfItsPodsAreKnown) {
  FakeHandle handle;
  GangScheduling plugin(handle);
  EXPECT_TRUE(plugin.PreEnqueue(MakePod().Name("alone").Obj()).ok());
  const api::Pod w0 = *Member("w0", "train");
  Status s = plugin.PreEnqueue(w0);
  EXPECT_EQ(s.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(s.Message(), "waiting for pods's pod group \"train\" to appear in scheduling queue");

  handle.listers().pod_groups.Set(Gang("train", 3));
  handle.cache().AddPodGroupMember(Member("w0", "train"));
  handle.cache().AddPodGroupMember(Member("w1", "train"));
  s = plugin.PreEnqueue(w0);
  EXPECT_EQ(s.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(s.Message(), "waiting for minCount pods from a gang to appear in scheduling queue");
  // A bound member counts as well.
  ASSERT_TRUE(handle.cache().AddPod(PodInfo::Make(Member("w2", "train", "n1"))).ok());
  EXPECT_TRUE(plugin.PreEnqueue(w0).ok());

  // A basic group is never held once it exists.
  auto basic = std::make_shared<api::PodGroup>();
  basic->metadata = {.name = "web", .namespace_ = "default"};
  basic->basic = true;
  handle.listers().pod_groups.Set(basic);
  EXPECT_TRUE(plugin.PreEnqueue(*Member("x", "web")).ok());
}

TEST(GangSchedulingTest, PermitWaitsForMinCountPlacedPodsAndActivatesTheRest) {
  FakeHandle handle;
  GangScheduling plugin(handle);
  handle.listers().pod_groups.Set(Gang("train", 2));
  for (const char* name : {"w0", "w1", "w2"})
    handle.cache().AddPodGroupMember(Member(name, "train"));
  ASSERT_TRUE(handle.cache().AssumePod(PodInfo::Make(Member("w0", "train", "n1")), "n1").ok());
  CycleState state;
  absl::Duration timeout;
  Status s = plugin.Permit(state, *Member("w0", "train"), "n1", &timeout);
  EXPECT_EQ(s.code(), Code::kWait);
  EXPECT_EQ(s.Message(), "waiting for minCount pods from a gang to be scheduled");
  EXPECT_EQ(timeout, absl::Minutes(5));
  EXPECT_THAT(handle.activated, ElementsAre("default/w1", "default/w2"));

  ASSERT_TRUE(handle.cache().AssumePod(PodInfo::Make(Member("w1", "train", "n1")), "n1").ok());
  EXPECT_TRUE(plugin.Permit(state, *Member("w1", "train"), "n1", &timeout).ok());
  std::optional<PodGroupState> st = handle.pod_groups().GetPodGroupState("default", "train");
  ASSERT_TRUE(st.has_value());
  EXPECT_EQ(st->all, 3u);
  EXPECT_EQ(st->scheduled, 2u);
  EXPECT_THAT(st->assumed, ElementsAre("w0", "w1"));
  // Forgotten (its bind failed): pending again.
  ASSERT_TRUE(handle.cache().ForgetPod("w1").ok());
  st = handle.pod_groups().GetPodGroupState("default", "train");
  EXPECT_EQ(st->all, 3u);
  EXPECT_EQ(st->scheduled, 1u);
  EXPECT_EQ(st->unscheduled.size(), 2u);
}

TEST(GangSchedulingTest, PlacementFeasibleSaysWhetherMinCountCanStillBeMet) {
  Status s = PlacementFeasible(3, 0, 3);
  EXPECT_EQ(s.code(), Code::kWait);
  EXPECT_EQ(s.Message(), "minCount (3) is not yet satisfied: 0 scheduled, 3 remaining");
  s = PlacementFeasible(3, 1, 1);
  EXPECT_EQ(s.code(), Code::kUnschedulable);
  EXPECT_EQ(s.Message(), "minCount (3) cannot be satisfied: 1 scheduled, 1 remaining");
  EXPECT_TRUE(PlacementFeasible(3, 3, 2).ok());
}

TEST(GangSchedulingTest, HintsQueueForTheGroupsOwnPodsAndGroupAndALowerMinCount) {
  FakeHandle handle;
  GangScheduling plugin(handle);
  const std::vector<ClusterEventWithHint> events = plugin.EventsToRegister();
  ASSERT_EQ(events.size(), 3u);
  const api::Pod waiting = *Member("w0", "train");
  const api::Pod same = *Member("w1", "train");
  const api::Pod other = *Member("x", "other");
  EXPECT_EQ(events[0].hint(waiting, {.new_pod = &same}), QueueingHint::kQueue);
  EXPECT_EQ(events[0].hint(waiting, {.new_pod = &other}), QueueingHint::kQueueSkip);
  ClusterEventData added;
  auto g3 = Gang("train", 3), g2 = Gang("train", 2), g4 = Gang("train", 4);
  added.storage.pod_group.new_obj = g3.get();
  EXPECT_EQ(events[1].hint(waiting, added), QueueingHint::kQueue);
  EXPECT_EQ(events[1].hint(other, added), QueueingHint::kQueueSkip);
  ClusterEventData lowered;
  lowered.storage.pod_group = {g3.get(), g2.get()};
  EXPECT_EQ(events[2].hint(waiting, lowered), QueueingHint::kQueue);
  ClusterEventData raised;
  raised.storage.pod_group = {g3.get(), g4.get()};
  EXPECT_EQ(events[2].hint(waiting, raised), QueueingHint::kQueueSkip);
}

}  // namespace
}  // namespace ksched::plugins::gang_scheduling
