// Gangs on the real control plane (--feature-gates=GenericWorkload=true, as kube-apiserver serves
// scheduling.k8s.io/v1beta1 PodGroups): ksched holds a gang until minCount of its pods exist,
// places none of it while minCount do not fit, says why on each pod, and places it once its
// PodGroup's minCount is lowered to what fits; the PodGroup's condition says which, as upstream's.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "nlohmann/json.hpp"
#include "test/integration/ksched_process_test.h"

namespace ksched::testing {
namespace {

const bool kServesPodGroups =
    (SharedControlPlaneOptions().apiserver_flags =
         "--feature-gates=GenericWorkload=true --runtime-config=scheduling.k8s.io/v1beta1=true",
     true);

json Gang(const std::string& ns, const std::string& name, int min_count) {
  return {{"apiVersion", "scheduling.k8s.io/v1beta1"},
          {"kind", "PodGroup"},
          {"metadata", {{"name", name}, {"namespace", ns}}},
          {"spec", {{"schedulingPolicy", {{"gang", {{"minCount", min_count}}}}}}}};
}

json Member(const std::string& ns, const std::string& name, const std::string& group) {
  json pod = Pod(ns, name, "1");
  pod["spec"]["schedulingGroup"] = {{"podGroupName", group}};
  return pod;
}

class GangsTest : public KschedProcessTest {
 protected:
  std::string NodeOf(const std::string& ns, const std::string& pod) {
    return Get({"pod", pod, "-n", ns})["spec"].value("nodeName", "");
  }
  // The PodGroup's PodGroupInitiallyScheduled condition once its status is `status`; null if it
  // did not come to that.
  json InitiallyScheduled(const std::string& ns, const std::string& group,
                          const std::string& status) {
    json cond;
    Eventually([&] {
      for (const json& c :
           Get({"podgroup", group, "-n", ns})["status"].value("conditions", json::array())) {
        if (c["type"] == "PodGroupInitiallyScheduled" && c["status"] == status) cond = c;
      }
      return cond.is_object();
    });
    return cond;
  }
};

TEST_F(GangsTest, AGangIsPlacedWholeOrNotAtAll) {
  ASSERT_TRUE(kServesPodGroups);
  const std::string ns = "gangs";
  Create({{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", ns}}}});
  Create(Node("gangs-a", "2"));
  StartKsched({"--feature-gates=GenericWorkload=true"});
  Create(Gang(ns, "train", 3));
  Create(Member(ns, "train-0", "train"));
  Create(Member(ns, "train-1", "train"));
  // Two of three: held at PreEnqueue, with nothing said on the pods, as upstream.
  std::this_thread::sleep_for(std::chrono::seconds(2));
  EXPECT_TRUE(Events(ns).empty());
  EXPECT_EQ(NodeOf(ns, "train-0"), "");

  // The third arrives; two fit the node's 2 CPUs, the gang needs three: none is placed.
  Create(Member(ns, "train-2", "train"));
  const json fitted = PodScheduledCondition(ns, "train-0");
  ASSERT_TRUE(fitted.is_object());
  EXPECT_EQ(fitted.value("reason", ""), "Unschedulable");
  EXPECT_EQ(fitted.value("message", ""),
            "pod group is unschedulable, minCount (3) cannot be satisfied: 2 scheduled, 0 "
            "remaining, pod group preemption: No preemption victims found for incoming preemptor");
  const json left = PodScheduledCondition(ns, "train-2");
  ASSERT_TRUE(left.is_object());
  EXPECT_EQ(left.value("message", ""), "0/1 nodes are available: 1 Insufficient cpu.");
  for (const char* pod : {"train-0", "train-1", "train-2"}) EXPECT_EQ(NodeOf(ns, pod), "") << pod;
  const json unschedulable = InitiallyScheduled(ns, "train", "False");
  ASSERT_TRUE(unschedulable.is_object());
  EXPECT_EQ(unschedulable.value("reason", ""), "Unschedulable");
  EXPECT_EQ(unschedulable.value("message", ""),
            "minCount (3) cannot be satisfied: 2 scheduled, 0 remaining, pod group preemption: No "
            "preemption victims found for incoming preemptor");

  // minCount lowered to what fits: two are placed, the third still says why it is not.
  CommandResult r = cluster().Kubectl({"patch", "podgroup", "train", "-n", ns, "--type=merge", "-p",
                                       R"({"spec":{"schedulingPolicy":{"gang":{"minCount":2}}}})"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_TRUE(Eventually([&] {
    int placed = 0;
    for (const char* pod : {"train-0", "train-1", "train-2"}) placed += !NodeOf(ns, pod).empty();
    return placed == 2;
  }));
  std::this_thread::sleep_for(std::chrono::seconds(1));
  int placed = 0;
  for (const char* pod : {"train-0", "train-1", "train-2"}) placed += !NodeOf(ns, pod).empty();
  EXPECT_EQ(placed, 2);
  const json scheduled = InitiallyScheduled(ns, "train", "True");
  ASSERT_TRUE(scheduled.is_object());
  EXPECT_EQ(scheduled.value("reason", ""), "Scheduled");
}

}  // namespace
}  // namespace ksched::testing
