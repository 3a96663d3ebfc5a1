#include "ksched/api/boxed.h"

#include <gtest/gtest.h>

#include "ksched/api/objects.h"

namespace ksched::api {
namespace {

TEST(BoxedTest, APodWithoutAffinityOrPodResourcesCostsTwoPointersForThem) {
  Pod pod;
  EXPECT_FALSE(pod.spec.affinity);
  EXPECT_FALSE(pod.spec.resources.has_value());
  EXPECT_EQ(sizeof(pod.spec.affinity), sizeof(void*));
  EXPECT_EQ(sizeof(pod.spec.resources), sizeof(void*));
  EXPECT_THROW((void)pod.spec.affinity.value(), std::bad_optional_access);
}

TEST(BoxedTest, ACopyIsDeepAsAnOptionalsIs) {
  Pod a;
  a.spec.affinity.emplace().node_affinity.emplace();
  Pod b = a;
  ASSERT_TRUE(b.spec.affinity);
  EXPECT_NE(&*a.spec.affinity, &*b.spec.affinity);
  b.spec.affinity->pod_affinity.emplace();
  EXPECT_FALSE(a.spec.affinity->pod_affinity);
  b.spec.affinity = std::nullopt;
  EXPECT_FALSE(b.spec.affinity);
  EXPECT_TRUE(a.spec.affinity);
}

TEST(BoxedTest, EqualWhenBothAreAbsentOrHoldEqualValues) {
  Boxed<std::string> a = std::string("x");
  Boxed<std::string> b;
  EXPECT_FALSE(a == b);
  b.emplace("x");
  EXPECT_TRUE(a == b);
  b.reset();
  a.reset();
  EXPECT_TRUE(a == b);
}

TEST(BoxedTest, AssignsFromAValueAndMovesWithoutCopying) {
  Boxed<ResourceRequirements> r =
      ResourceRequirements{.requests = {{"cpu", Quantity::Parse("1").value()}}};
  const ResourceRequirements* held = &*r;
  Boxed<ResourceRequirements> moved = std::move(r);
  EXPECT_EQ(&*moved, held);
  EXPECT_EQ(moved->requests.at("cpu").MilliValue(), 1000);
}

}  // namespace
}  // namespace ksched::api
