// HTTP extenders on the real control plane: `ksched run` with the test extender (in this process,
// on loopback) as its configuration names it. The extender's filter keeps pods off the nodes
// their annotations name, its scores move them, and its bind verb binds the pods whose
// example.com/vgpu it manages, through the API server, where DefaultBinder binds the others;
// NodeResourcesFit ignores that resource, as ignoredByScheduler says. An extender that fails keeps
// its pods pending with upstream's words until it answers again.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "fmt/format.h"
#include "nlohmann/json.hpp"
#include "test/extender/test_extender.h"
#include "test/integration/ksched_process_test.h"

namespace ksched::testing {
namespace {

using ::testing::HasSubstr;

class ExtenderTest : public KschedProcessTest {
 protected:
  void SetUp() override {
    KschedProcessTest::SetUp();
    ASSERT_TRUE(ext_.Start());
    // The extender binds as a real one does: a Binding to the API server.
    ext_.set_bind([this](const std::string& ns, const std::string& name, const std::string& uid,
                         const std::string& node) {
      const json binding = {{"apiVersion", "v1"},
                            {"kind", "Binding"},
                            {"metadata", {{"name", name}, {"namespace", ns}, {"uid", uid}}},
                            {"target", {{"apiVersion", "v1"}, {"kind", "Node"}, {"name", node}}}};
      CommandResult r = cluster().Kubectl(
          {"create", "--raw", fmt::format("/api/v1/namespaces/{}/pods/{}/binding", ns, name), "-f",
           "-"},
          binding.dump());
      return r.exit_code == 0 ? absl::OkStatus() : absl::UnavailableError(r.err);
    });
  }
  // ksched run with the test extender configured as `extender` says.
  void StartWithExtender(json extender) {
    extender["urlPrefix"] = ext_.url();
    const json config = {{"apiVersion", "kubescheduler.config.k8s.io/v1"},
                         {"kind", "KubeSchedulerConfiguration"},
                         {"extenders", {extender}}};
    const std::string path = cluster().dir() + "/extender-config.json";
    std::ofstream(path) << config.dump();
    StartKsched({"--config", path});
  }
  static json Annotated(json pod, const std::string& key, const std::string& value) {
    pod["metadata"]["annotations"][key] = value;
    return pod;
  }

  TestExtender ext_;
};

TEST_F(ExtenderTest, FiltersScoresAndBindsAsConfigured) {
  const std::string ns = "extenders";
  Create({{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", ns}}}});
  for (const char* n : {"ext-a", "ext-b", "ext-c"}) Create(Node(n, "4"));
  StartWithExtender(
      {{"filterVerb", "filter"},
       {"prioritizeVerb", "prioritize"},
       {"bindVerb", "bind"},
       {"weight", 10},
       {"nodeCacheCapable", true},
       {"managedResources", {{{"name", "example.com/vgpu"}, {"ignoredByScheduler", true}}}}});

  // No vgpu: the extender, which manages only that, is not asked, and DefaultBinder binds it.
  Create(Annotated(Pod(ns, "plain", "1"), "test-extender/reject", "ext-a,ext-b,ext-c"));
  EXPECT_NE(BoundNodeOf(ns, "plain"), "");
  EXPECT_EQ(ext_.calls("filter"), 0);

  // A vgpu pod: the extender filters it off ext-a, scores ext-c, and binds it there itself.
  json gpu = Pod(ns, "gpu", "1");
  gpu["spec"]["containers"][0]["resources"]["requests"]["example.com/vgpu"] = "1";
  gpu["spec"]["containers"][0]["resources"]["limits"] = {{"example.com/vgpu", "1"}};
  gpu = Annotated(Annotated(gpu, "test-extender/reject", "ext-a"), "test-extender/scores",
                  "ext-c=10");
  Create(gpu);
  EXPECT_EQ(BoundNodeOf(ns, "gpu"), "ext-c");
  EXPECT_EQ(ext_.calls("filter"), 1);
  EXPECT_EQ(ext_.calls("bind"), 1);
  EXPECT_THAT(ext_.last_body("bind"), HasSubstr(R"("PodName":"gpu","PodNamespace":"extenders")"));

  // Kept off every node: pending, with the extender's words.
  json nowhere = Pod(ns, "nowhere", "1");
  nowhere["spec"]["containers"][0]["resources"]["limits"] = {{"example.com/vgpu", "1"}};
  Create(Annotated(nowhere, "test-extender/reject", "ext-a,ext-b,ext-c"));
  const json cond = PodScheduledCondition(ns, "nowhere");
  ASSERT_TRUE(cond.is_object());
  EXPECT_THAT(cond.value("message", ""),
              HasSubstr("0/3 nodes are available: 3 rejected by the test extender."));

  // The extender fails: its pods stay pending, in upstream's words, until it answers again.
  ext_.set_fault(TestExtender::Fault::kError500);
  json down = Pod(ns, "down", "1");
  down["spec"]["containers"][0]["resources"]["limits"] = {{"example.com/vgpu", "1"}};
  Create(down);
  const std::string failed =
      fmt::format("failed filter with extender at URL {}/filter, code 500", ext_.url());
  json error;
  ASSERT_TRUE(Eventually([&] {
    error = PodScheduledCondition(ns, "down");
    return error.value("reason", "") == "SchedulerError";
  }));
  EXPECT_EQ(error.value("message", ""), failed);
  EXPECT_EQ(Get({"pod", "down", "-n", ns})["spec"].value("nodeName", ""), "");
  ext_.set_fault(TestExtender::Fault::kNone);
  EXPECT_NE(BoundNodeOf(ns, "down"), "");
  EXPECT_EQ(ext_.calls("bind"), 2);
}

}  // namespace
}  // namespace ksched::testing
