// Coscheduling on the real control plane, loaded from libksched_coscheduling.so with the config of
// examples/coscheduling: scheduler-plugins' PodGroup CRD applied with kubectl, ksched watches its
// PodGroups as a custom resource, holds a group's pods until their PodGroup exists, binds a group
// whole once minMember fit, and binds none of a group that does not fit, saying why.
#include "contrib/coscheduling/coscheduling.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "fmt/format.h"
#include "nlohmann/json.hpp"
#include "test/integration/coscheduling_fixture.h"

namespace ksched::testing {
namespace {

using ::testing::HasSubstr;

json PodGroup(const std::string& ns, const std::string& name, int min_member) {
  return {{"apiVersion", "scheduling.x-k8s.io/v1alpha1"},
          {"kind", "PodGroup"},
          {"metadata", {{"name", name}, {"namespace", ns}}},
          {"spec", {{"minMember", min_member}}}};
}

json Member(const std::string& ns, const std::string& name, const std::string& group,
            const std::string& cpu) {
  json pod = Pod(ns, name, cpu, kCoschedulingScheduler);
  pod["metadata"]["labels"][coscheduling::kPodGroupLabel] = group;
  return pod;
}

class CoschedulingTest : public CoschedulingFixture {
 protected:
  void Start() {
    Process* ksched = StartKsched(
        {"--config", std::string(KSCHED_SOURCE_DIR) + "/examples/coscheduling/config.yaml",
         "--plugin-library", COSCHEDULING_LIBRARY});
    ASSERT_TRUE(Eventually([&] {
      return ksched->Log().find("Loaded plugin library") != std::string::npos;
    })) << ksched->Log();
  }
  std::string NodeOf(const std::string& ns, const std::string& pod) {
    return Get({"pod", pod, "-n", ns})["spec"].value("nodeName", "");
  }
  int Placed(const std::string& ns, const std::vector<std::string>& pods) {
    int n = 0;
    for (const std::string& p : pods) n += !NodeOf(ns, p).empty();
    return n;
  }
};

// The API server checks a PodGroup against the CRD's schema, as ksched simulate's check of the
// kind does (coscheduling::PodGroupResource().validate).
TEST_F(CoschedulingTest, TheCrdRefusesWhatThePluginsCheckRefuses) {
  json no_member = PodGroup("default", "bad", 0);
  json bad_quantity = PodGroup("default", "bad", 1);
  bad_quantity["spec"]["minResources"] = {{"cpu", "two"}};
  for (const json& bad : {no_member, bad_quantity}) {
    CommandResult r = cluster().Kubectl({"create", "-f", "-"}, bad.dump());
    ASSERT_NE(r.exit_code, 0);
    absl::Status ours = coscheduling::PodGroupResource().validate(bad);
    ASSERT_FALSE(ours.ok());
    EXPECT_THAT(r.err, HasSubstr(std::string(ours.message()))) << r.err;
  }
}

// kubectl refuses a field the CRD's schema lacks (strict field validation), in the words of
// ksched simulate's check.
TEST_F(CoschedulingTest, AMisspelledFieldIsRefusedAsSimulateRefusesIt) {
  json misspelled = PodGroup("default", "typo", 2);
  misspelled["spec"]["minMembr"] = 3;
  CommandResult r = cluster().Kubectl({"create", "-f", "-"}, misspelled.dump());
  ASSERT_NE(r.exit_code, 0);
  EXPECT_THAT(r.err, HasSubstr("strict decoding error: unknown field \"spec.minMembr\""));
  const std::string path = ::testing::TempDir() + "/typo_podgroup.json";
  std::ofstream(path) << misspelled.dump();
  CommandResult ours =
      RunCommand({binary_, "simulate", "--config",
                  std::string(KSCHED_SOURCE_DIR) + "/examples/coscheduling/config.yaml",
                  "--plugin-library", COSCHEDULING_LIBRARY, path});
  EXPECT_EQ(ours.exit_code, 2);
  EXPECT_THAT(ours.err, HasSubstr("strict decoding error: unknown field \"spec.minMembr\""));
}

// simulate --kubeconfig reads the cluster's PodGroups: the group with its minMember pods is
// placed whole; the one short of a pod waits, saying why, as the scheduler would.
TEST_F(CoschedulingTest, SimulateOfTheLiveClusterReadsItsPodGroups) {
  const std::string ns = "cosim";
  Create({{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", ns}}}});
  Create(Node("cosim-a", "4"));
  Create(PodGroup(ns, "full", 2));
  Create(PodGroup(ns, "short", 3));
  for (const char* p : {"full-0", "full-1"}) Create(Member(ns, p, "full", "1"));
  for (const char* p : {"short-0", "short-1"}) Create(Member(ns, p, "short", "1"));
  CommandResult r =
      RunCommand({binary_, "simulate", "--kubeconfig", cluster().kubeconfig(), "--config",
                  std::string(KSCHED_SOURCE_DIR) + "/examples/coscheduling/config.yaml",
                  "--plugin-library", COSCHEDULING_LIBRARY, "-o", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json predicted = json::parse(r.out, nullptr, false);
  ASSERT_TRUE(predicted.is_object()) << r.out;
  std::map<std::string, json> pods;
  for (const json& p : predicted["pods"]) pods[p.value("name", "")] = p;
  for (const char* p : {"full-0", "full-1"}) {
    EXPECT_EQ(pods[p].value("node", json()), "cosim-a") << pods[p];
  }
  for (const char* p : {"short-0", "short-1"}) {
    EXPECT_TRUE(pods[p]["node"].is_null()) << pods[p];
    EXPECT_THAT(pods[p].value("message", ""),
                HasSubstr(fmt::format("pre-filter pod {} cannot find enough sibling pods, current "
                                      "pods number: 2, minMember of group: 3",
                                      p)));
  }
  EXPECT_EQ(Placed(ns, {"full-0", "full-1", "short-0", "short-1"}), 0);  // Nothing changed.
  // Gone before the next test's ksched, which would place them.
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"delete", "pods", "--all", "-n", ns, "--grace-period=0"},
        std::vector<std::string>{"delete", "node", "cosim-a"}}) {
    CommandResult deleted = cluster().Kubectl(args);
    EXPECT_EQ(deleted.exit_code, 0) << deleted.err;
  }
}

TEST_F(CoschedulingTest, AGroupBindsWholeOnceItsPodGroupExistsAndAGroupThatDoesNotFitBindsNone) {
  const std::string ns = "cosched";
  Create({{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", ns}}}});
  Create(Node("cosched-a", "3"));
  Start();

  // Pods that name a PodGroup not yet there: Permit turns them away.
  const std::vector<std::string> a = {"a-0", "a-1", "a-2"};
  for (const std::string& p : a) Create(Member(ns, p, "a", "1"));
  const json waiting = PodScheduledCondition(ns, "a-0");
  ASSERT_TRUE(waiting.is_object());
  EXPECT_EQ(waiting.value("reason", ""), "Unschedulable");
  // As upstream words a Permit rejection: a FitError of the one node chosen.
  EXPECT_EQ(waiting.value("message", ""), "0/1 nodes are available: 1 PodGroup not found.");
  EXPECT_EQ(Placed(ns, a), 0);

  // Its PodGroup arrives (a watched custom resource's Add): the group binds whole.
  Create(PodGroup(ns, "a", 3));
  ASSERT_TRUE(Eventually([&] { return Placed(ns, a) == 3; }));

  // Two of three fit the one CPU left... none of them binds: the third's failure rejects the
  // two waiting at Permit, and none is ever bound.
  Create(Node("cosched-b", "2"));
  Create(PodGroup(ns, "b", 3));
  const std::vector<std::string> b = {"b-0", "b-1", "b-2"};
  for (const std::string& p : b) Create(Member(ns, p, "b", "1"));
  const json rejected = PodScheduledCondition(ns, "b-2");
  ASSERT_TRUE(rejected.is_object());
  for (int i = 0; i < 15; ++i) {
    EXPECT_EQ(Placed(ns, b), 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  // Why, in the pods' FailedScheduling events: the pod that did not fit, and the waiting ones it
  // had rejected.
  std::string notes;
  for (const json& e : Events(ns)) {
    if (e["reason"] == "FailedScheduling") notes += e.value("note", "") + "\n";
  }
  EXPECT_THAT(notes, HasSubstr("0/2 nodes are available: 2 Insufficient cpu. preemption: "))
      << notes;
  EXPECT_THAT(notes, HasSubstr("PodGroup cosched/b gets rejected due to Pod b-")) << notes;
  EXPECT_THAT(notes, HasSubstr("0/1 nodes are available: 1 optimistic rejection in PostFilter."))
      << notes;
}

}  // namespace
}  // namespace ksched::testing
