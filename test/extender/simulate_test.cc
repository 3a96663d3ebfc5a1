// The real `ksched simulate --config` with the test extender (in this process, on loopback): the
// extender is sent the manifests' objects whole, as kube-scheduler sends the API server's, with
// the namespace and UID the simulated cluster gave them and the node it bound them to.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "nlohmann/json.hpp"
#include "src/testing/command.h"
#include "test/extender/test_extender.h"

namespace ksched::testing {
namespace {

using json = nlohmann::json;

class SimulateExtenderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(ext_.Start());
    char tmpl[] = "/tmp/ksched-simulate-extender-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string Write(const std::string& name, const std::string& text) {
    const std::string path = dir_ + "/" + name;
    std::ofstream(path) << text;
    return path;
  }

  TestExtender ext_;
  std::string dir_;
};

TEST_F(SimulateExtenderTest, ExtendersAreSentTheManifestsObjectsWhole) {
  const json config = {{"apiVersion", "kubescheduler.config.k8s.io/v1"},
                       {"kind", "KubeSchedulerConfiguration"},
                       {"extenders",
                        {{{"urlPrefix", ext_.url()},
                          {"filterVerb", "filter"},
                          {"preemptVerb", "preempt"},
                          {"nodeCacheCapable", false}}}}};
  const std::string cfg = Write("config.json", config.dump());
  const std::string manifests = Write("cluster.yaml", R"(
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "2", memory: 4Gi, pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: runner}
spec:
  nodeName: n1
  containers: [{name: c, image: registry.k8s.io/pause:3.10, resources: {requests: {cpu: "2"}}}]
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000
---
apiVersion: v1
kind: Pod
metadata: {name: urgent}
spec:
  priorityClassName: high
  containers: [{name: c, image: registry.k8s.io/pause:3.10, resources: {requests: {cpu: "1"}}}]
)");
  CommandResult r = RunCommand({KSCHED_BINARY, "simulate", "--config", cfg, manifests});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, ::testing::HasSubstr("default/urgent"));
  ASSERT_EQ(ext_.calls("filter"), 1);

  const json filter = json::parse(ext_.last_body("filter"));
  const json& pod = filter["Pod"];
  EXPECT_EQ(pod["metadata"]["namespace"], "default");
  EXPECT_EQ(pod["metadata"]["uid"], "default/urgent");
  EXPECT_EQ(pod["spec"]["priorityClassName"], "high");
  EXPECT_EQ(pod["spec"]["containers"][0]["resources"]["requests"]["cpu"], "1");
  // Asked once n1 was freed (while it was full, no node passed the plugins, and the extender was
  // not asked), and sent n1 whole.
  ASSERT_EQ(filter["Nodes"]["items"].size(), 1u);
  EXPECT_EQ(filter["Nodes"]["items"][0]["status"]["allocatable"]["cpu"], "2");

  // The victim, preempt's business, goes whole with its node.
  ASSERT_EQ(ext_.calls("preempt"), 1);
  const json preempt = json::parse(ext_.last_body("preempt"));
  const json& victim = preempt["NodeNameToVictims"]["n1"]["Pods"][0];
  EXPECT_EQ(victim["metadata"]["uid"], "default/runner");
  EXPECT_EQ(victim["spec"]["nodeName"], "n1");
  EXPECT_EQ(victim["spec"]["containers"][0]["resources"]["requests"]["cpu"], "2");
}

}  // namespace
}  // namespace ksched::testing
