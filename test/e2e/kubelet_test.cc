#include "test/e2e/kubelet.h"

#include <gtest/gtest.h>

namespace ksched::e2e {
namespace {

using nlohmann::json;

json Node(json capacity, json allocatable) {
  return {{"metadata", {{"name", "n"}}},
          {"status", {{"capacity", capacity}, {"allocatable", allocatable}}}};
}

TEST(KubeletStandInTest, AnExtendedResourceOfTheCapacityBecomesAllocatable) {
  json patch = ExtendedResourcesPatch(
      Node({{"cpu", "4"}, {"example.com/beardsecond", "1k"}}, {{"cpu", "3500m"}}));
  EXPECT_EQ(patch, json({{"status", {{"allocatable", {{"example.com/beardsecond", "1k"}}}}}}));
}

TEST(KubeletStandInTest, AnExtendedResourceGoneFromTheCapacityLeavesAllocatable) {
  json patch = ExtendedResourcesPatch(
      Node({{"cpu", "4"}}, {{"cpu", "4"}, {"example.com/beardsecond", "1k"}}));
  EXPECT_EQ(patch, json({{"status", {{"allocatable", {{"example.com/beardsecond", nullptr}}}}}}));
}

TEST(KubeletStandInTest, NativeResourcesAndANodeInStepAreLeftAlone) {
  // A kubelet reserves some cpu and memory; hugepages and kubernetes.io names are native.
  EXPECT_TRUE(ExtendedResourcesPatch(Node({{"cpu", "4"},
                                           {"hugepages-2Mi", "1Gi"},
                                           {"attachable-volumes-csi-x", "3"},
                                           {"example.kubernetes.io/thing", "1"},
                                           {"example.com/gpu", "2"}},
                                          {{"cpu", "3"}, {"example.com/gpu", "2"}}))
                  .is_null());
  EXPECT_TRUE(ExtendedResourcesPatch(json::object()).is_null());
}

json Terminating(int64_t grace, std::vector<int64_t> sleeps) {
  json pod = {{"metadata", {{"name", "p"}, {"deletionGracePeriodSeconds", grace}}},
              {"spec", {{"containers", json::array()}}}};
  for (int64_t s : sleeps) {
    json c = {{"name", "c"}};
    if (s >= 0) c["lifecycle"]["preStop"]["sleep"]["seconds"] = s;
    pod["spec"]["containers"].push_back(c);
  }
  return pod;
}

TEST(KubeletStandInTest, APreStopSleepHookDelaysTheDeletionWithinTheGracePeriod) {
  EXPECT_EQ(PreStopWait(Terminating(80, {-1, 79, 5})), absl::Seconds(79));
  EXPECT_EQ(PreStopWait(Terminating(30, {79})), absl::Seconds(30));     // Cut at the grace period.
  EXPECT_EQ(PreStopWait(Terminating(30, {-1})), absl::ZeroDuration());  // No hook.
  EXPECT_EQ(PreStopWait(Terminating(0, {79})), absl::ZeroDuration());   // Deleted by force.
  json exec = Terminating(30, {-1});
  exec["spec"]["containers"][0]["lifecycle"]["preStop"]["exec"]["command"] = {"sleep", "9"};
  EXPECT_EQ(PreStopWait(exec), absl::ZeroDuration());  // Needs a container runtime.
}

TEST(KubeletStandInTest, KwokRunsWithoutItsPodDeleteStage) {
  const std::string stages =
      "apiVersion: kwok.x-k8s.io/v1alpha1\nkind: Stage\nmetadata:\n  name: pod-ready\nspec: {}\n"
      "---\n"
      "apiVersion: kwok.x-k8s.io/v1alpha1\nkind: Stage\nmetadata:\n  name: pod-delete\nspec: {}\n"
      "---\n"
      "apiVersion: kwok.x-k8s.io/v1alpha1\nkind: Stage\nmetadata:\n  name: pod-complete\nspec: {}\n"
      "---\n";
  EXPECT_EQ(
      WithoutPodDeleteStage(stages),
      "apiVersion: kwok.x-k8s.io/v1alpha1\nkind: Stage\nmetadata:\n  name: pod-ready\nspec: {}"
      "\n---\n"
      "apiVersion: kwok.x-k8s.io/v1alpha1\nkind: Stage\nmetadata:\n  name: pod-complete\nspec: {}"
      "\n");
}

}  // namespace
}  // namespace ksched::e2e
