#include "src/sim/disruption.h"

#include <gtest/gtest.h>

#include "src/testing/builders.h"

namespace ksched::sim {
namespace {

using testing::MakePod;

api::IntOrString Int(int32_t v) { return {.int_value = v}; }
api::IntOrString Percent(std::string v) { return {.is_string = true, .str_value = std::move(v)}; }

api::PodDisruptionBudget MinAvailable(api::IntOrString v) {
  return {.metadata = {.name = "b", .namespace_ = "default"}, .min_available = std::move(v)};
}
api::PodDisruptionBudget MaxUnavailable(api::IntOrString v) {
  return {.metadata = {.name = "b", .namespace_ = "default"}, .max_unavailable = std::move(v)};
}

TEST(DisruptionsAllowedTest, MinAvailable) {
  EXPECT_EQ(DisruptionsAllowed(MinAvailable(Int(2)), 3, 3), 1);
  EXPECT_EQ(DisruptionsAllowed(MinAvailable(Int(2)), 3, 2), 0);
  EXPECT_EQ(DisruptionsAllowed(MinAvailable(Int(2)), 3, 1), 0);  // Never negative.
  EXPECT_EQ(DisruptionsAllowed(MinAvailable(Int(0)), 2, 2), 2);
  // No pod expected: nothing may be disrupted, whatever the budget says.
  EXPECT_EQ(DisruptionsAllowed(MinAvailable(Int(0)), 0, 0), 0);
  // A percentage of the expected pods, rounded up: 50% of 3 is 2.
  EXPECT_EQ(DisruptionsAllowed(MinAvailable(Percent("50%")), 3, 3), 1);
  EXPECT_EQ(DisruptionsAllowed(MinAvailable(Percent("100%")), 3, 3), 0);
  EXPECT_EQ(DisruptionsAllowed(MinAvailable(Percent("0%")), 3, 2), 2);
}

TEST(DisruptionsAllowedTest, MaxUnavailable) {
  EXPECT_EQ(DisruptionsAllowed(MaxUnavailable(Int(1)), 4, 4), 1);
  EXPECT_EQ(DisruptionsAllowed(MaxUnavailable(Int(1)), 4, 3), 0);  // One is down already.
  EXPECT_EQ(DisruptionsAllowed(MaxUnavailable(Int(0)), 4, 4), 0);
  EXPECT_EQ(DisruptionsAllowed(MaxUnavailable(Int(9)), 4, 4), 4);  // desiredHealthy stops at 0.
  // 30% of 4 rounds up to 2 unavailable: 2 must stay healthy.
  EXPECT_EQ(DisruptionsAllowed(MaxUnavailable(Percent("30%")), 4, 4), 2);
  EXPECT_EQ(DisruptionsAllowed(MaxUnavailable(Percent("30%")), 4, 2), 0);
}

TEST(DisruptionsAllowedTest, NeitherSetOrUnreadableAllowsNothing) {
  api::PodDisruptionBudget neither{.metadata = {.name = "b"}};
  EXPECT_EQ(DisruptionsAllowed(neither, 3, 3), 0);
  EXPECT_EQ(DisruptionsAllowed(MinAvailable(Percent("half")), 3, 3), 0);
  EXPECT_EQ(DisruptionsAllowed(MaxUnavailable(Percent("%")), 3, 3), 0);
}

TEST(SelectsTest, AnAbsentSelectorSelectsNothingAndAnEmptyOneTheWholeNamespace) {
  api::Pod web = MakePod().Name("w").Label("app", "web").Obj();
  api::PodDisruptionBudget pdb = MinAvailable(Int(1));
  EXPECT_FALSE(Selects(pdb, web));
  pdb.selector.emplace();
  EXPECT_TRUE(Selects(pdb, web));
  EXPECT_FALSE(Selects(pdb, MakePod().Name("w").Namespace("other").Obj()));
  pdb.selector->match_labels = {{"app", "db"}};
  EXPECT_FALSE(Selects(pdb, web));
  pdb.selector->match_labels = {{"app", "web"}};
  EXPECT_TRUE(Selects(pdb, web));
}

TEST(IsHealthyTest, BoundNotTerminatingNotFinished) {
  EXPECT_FALSE(IsHealthy(MakePod().Name("pending").Obj()));
  api::Pod pod = MakePod().Name("p").Node("n1").Obj();
  EXPECT_TRUE(IsHealthy(pod));
  pod.status.phase = "Succeeded";
  EXPECT_FALSE(IsHealthy(pod));
  pod.status.phase = "Running";
  pod.metadata.deletion_timestamp = "2026-01-01T00:00:00Z";
  EXPECT_FALSE(IsHealthy(pod));
}

}  // namespace
}  // namespace ksched::sim
