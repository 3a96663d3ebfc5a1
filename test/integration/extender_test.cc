// HTTP extenders on the real control plane: `ksched run` with the test extender (in this process,
// on loopback) as its configuration names it. The extender's filter keeps pods off the nodes
// their annotations name, its scores move them, and its bind verb binds the pods whose
// example.com/vgpu it manages, through the API server, where DefaultBinder binds the others;
// NodeResourcesFit ignores that resource, as ignoredByScheduler says. An extender that fails keeps
// its pods pending with upstream's words until it answers again.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <string>

#include "fmt/format.h"
#include "nlohmann/json.hpp"
#include "src/testing/metrics_text.h"
#include "test/extender/test_extender.h"
#include "test/integration/ksched_process_test.h"
#include "test/integration/serve.h"

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
  // ksched run with the test extender configured as `extender` says, and `flags`.
  void StartWithExtender(json extender, std::vector<std::string> flags = {}) {
    extender["urlPrefix"] = ext_.url();
    const json config = {{"apiVersion", "kubescheduler.config.k8s.io/v1"},
                         {"kind", "KubeSchedulerConfiguration"},
                         {"extenders", {extender}}};
    const std::string path = cluster().dir() + "/extender-config.json";
    std::ofstream(path) << config.dump();
    flags.insert(flags.begin(), {"--config", path});
    StartKsched(flags);
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

// A slow extender holds the cycle of the pod it is asked about, as kube-scheduler's, but not the
// watches: a pod created meanwhile reaches the queue while the call is still unanswered.
TEST_F(ExtenderTest, ASlowExtenderHoldsItsPodsCycleButNotTheWatches) {
  const std::string ns = "slow-extender";
  Create({{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", ns}}}});
  Create(Node("slow-a", "4"));
  // The pods the first test left pending would be asked about too.
  cluster().Kubectl({"delete", "pods", "--all", "-n", "extenders", "--wait=false"});
  StartWithExtender({{"filterVerb", "filter"}, {"nodeCacheCapable", true}, {"httpTimeout", "30s"}},
                    {"--authorization-always-allow-paths=/metrics"});
  auto added = [&] {
    httplib::Result m = ServeHttps(secure_port_, "/metrics");
    // The series appears with the first pod added.
    return m ? std::max(0.0, Sample(m->body, R"(scheduler_queue_incoming_pods_total{)"
                                             R"(event="UnscheduledPodAdd",queue="active"})"))
             : -1.0;
  };
  ASSERT_TRUE(Eventually([&] { return added() >= 0; }));
  ext_.set_slow(absl::Seconds(10));
  ext_.set_fault(TestExtender::Fault::kSlow);
  const int calls = ext_.calls("filter");
  Create(Pod(ns, "first", "1"));
  ASSERT_TRUE(Eventually([&] { return ext_.calls("filter") == calls + 1; }));
  const double before = added();
  Create(Pod(ns, "second", "1"));
  ASSERT_TRUE(Eventually([&] { return added() == before + 1; }));
  EXPECT_EQ(ext_.calls("filter"), calls + 1);  // The first pod's call is still unanswered.
  ext_.set_fault(TestExtender::Fault::kNone);
  EXPECT_NE(BoundNodeOf(ns, "first"), "");
  EXPECT_NE(BoundNodeOf(ns, "second"), "");
}

}  // namespace
}  // namespace ksched::testing
