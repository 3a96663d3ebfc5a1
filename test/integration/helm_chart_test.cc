// deploy/helm/ksched as users install it: with its defaults it renders the objects of the
// kustomize base (deploy/), and each way of installing it (a second scheduler, the cluster's only
// one, a profile of one's own, without RBAC) is accepted by the API server (a server-side dry
// run) and gives ksched a configuration it starts with; with coscheduling.enabled, with the image's
// Coscheduling library. helm is built by scripts/helm/build.sh.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>

#include "nlohmann/json.hpp"
#include "src/api/yaml.h"
#include "src/testing/command.h"
#include "src/testing/control_plane.h"

namespace ksched::testing {
namespace {

using nlohmann::json;

const std::string kSource = KSCHED_SOURCE_DIR;

std::string Helm() {
  CommandResult r = RunCommand({kSource + "/scripts/helm/build.sh"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  while (!r.out.empty() && r.out.back() == '\n') r.out.pop_back();
  return r.out;
}

// The chart rendered as release "ksched" in kube-system, with `args` (--set ...).
CommandResult Render(const std::vector<std::string>& args = {}) {
  std::vector<std::string> argv = {
      Helm(), "template", "ksched", kSource + "/deploy/helm/ksched", "--namespace", "kube-system"};
  argv.insert(argv.end(), args.begin(), args.end());
  return RunCommand(argv);
}

// The objects of a multi-document YAML text by "Kind namespace/name", each as JSON; a ConfigMap's
// YAML files are compared as what they hold, and the chart's checksum of its configuration (which
// restarts the pods on a change) is left out.
std::map<std::string, json> Objects(const std::string& yaml) {
  absl::StatusOr<std::vector<std::string>> docs = api::YamlToJson(yaml);
  EXPECT_TRUE(docs.ok()) << docs.status();
  std::map<std::string, json> out;
  for (const std::string& doc : docs.value_or(std::vector<std::string>{})) {
    json o = json::parse(doc);
    if (o.is_null()) continue;
    if (o["kind"] == "ConfigMap") {
      for (auto& [file, text] : o["data"].items()) {
        absl::StatusOr<std::vector<std::string>> parsed = api::YamlToJson(text.get<std::string>());
        if (parsed.ok() && parsed->size() == 1) text = json::parse((*parsed)[0]);
      }
    }
    if (o["kind"] == "Deployment") {
      json& meta = o["spec"]["template"]["metadata"];
      if (meta.contains("annotations")) {
        meta["annotations"].erase("checksum/config");
        if (meta["annotations"].empty()) meta.erase("annotations");
      }
    }
    const json& m = o["metadata"];
    out[o["kind"].get<std::string>() + " " + m.value("namespace", "") + "/" +
        m["name"].get<std::string>()] = o;
  }
  return out;
}

TEST_F(ControlPlaneTest, TheChartWithItsDefaultsRendersTheKustomizeBase) {
  CommandResult chart = Render();
  ASSERT_EQ(chart.exit_code, 0) << chart.err;
  CommandResult base = cluster().Kubectl({"kustomize", kSource + "/deploy"});
  ASSERT_EQ(base.exit_code, 0) << base.err;
  std::map<std::string, json> from_chart = Objects(chart.out), from_base = Objects(base.out);
  EXPECT_GE(from_base.size(), 13u);
  for (const auto& [key, object] : from_base) {
    auto it = from_chart.find(key);
    if (it == from_chart.end()) {
      ADD_FAILURE() << key << " is in deploy/ but not in the chart";
      continue;
    }
    EXPECT_EQ(json::diff(object, it->second), json::array())
        << key << ": the chart differs from deploy/ (a JSON patch from deploy/'s to the chart's)";
  }
  for (const auto& [key, object] : from_chart) {
    EXPECT_TRUE(from_base.contains(key)) << key << " is in the chart but not in deploy/";
  }
}

TEST_F(ControlPlaneTest, EachWayOfInstallingTheChartIsAcceptedAndItsConfigurationIsKschedsToo) {
  const std::vector<std::vector<std::string>> ways = {
      {},
      {"--set", "schedulerName=default-scheduler", "--set", "replicas=1", "--set",
       "leaderElection.enabled=false", "--set", "metrics.service.enabled=false"},
      {"--set-json",
       R"(profile={"pluginConfig":[{"name":"NodeResourcesFit","args":{"scoringStrategy":{"type":"MostAllocated"}}}]})",
       "--set", "config.percentageOfNodesToScore=50", "--set",
       "image.repository=registry.example/ksched", "--set", "image.tag=v0.1.0"},
      {"--set", "rbac.create=false", "--set", "serviceAccount.create=false", "--set",
       "serviceAccount.name=default"},
  };
  for (const std::vector<std::string>& way : ways) {
    std::string name;
    for (const std::string& a : way) name += a + " ";
    CommandResult chart = Render(way);
    ASSERT_EQ(chart.exit_code, 0) << name << chart.err;
    CommandResult applied = cluster().Kubectl({"apply", "--dry-run=server", "-f", "-"}, chart.out);
    EXPECT_EQ(applied.exit_code, 0) << name << applied.err << chart.out;
    // The configuration, as the pod reads it, starts ksched.
    std::map<std::string, json> objects = Objects(chart.out);
    ASSERT_TRUE(objects.contains("ConfigMap kube-system/ksched-config")) << name;
    const json& config = objects["ConfigMap kube-system/ksched-config"]["data"]["config.yaml"];
    const std::string file = cluster().dir() + "/chart-config.json";
    std::ofstream(file) << config.dump();
    CommandResult printed = RunCommand({KSCHED_BINARY, "config", "print", "--config", file});
    EXPECT_EQ(printed.exit_code, 0) << name << printed.err << config.dump();
    EXPECT_NE(printed.out.find("schedulerName: " +
                               config["profiles"][0]["schedulerName"].get<std::string>()),
              std::string::npos)
        << printed.out;
  }
}

// With coscheduling.enabled, the chart loads the image's Coscheduling library, puts it in the
// profile as scheduler-plugins configures it (the queue's sort too), with its args, and lets ksched
// read the PodGroups of scheduling.x-k8s.io; ksched starts with that configuration and library.
TEST_F(ControlPlaneTest, CoschedulingEnabledLoadsItsLibraryAndLetsKschedReadPodGroups) {
  CommandResult chart = Render({"--set", "coscheduling.enabled=true", "--set-json",
                                R"(coscheduling.args={"permitWaitingTimeSeconds":10})"});
  ASSERT_EQ(chart.exit_code, 0) << chart.err;
  CommandResult applied = cluster().Kubectl({"apply", "--dry-run=server", "-f", "-"}, chart.out);
  EXPECT_EQ(applied.exit_code, 0) << applied.err << chart.out;
  std::map<std::string, json> objects = Objects(chart.out);
  const json command = objects["Deployment kube-system/ksched"]["spec"]["template"]["spec"]
                              ["containers"][0]["command"];
  EXPECT_NE(std::find(command.begin(), command.end(),
                      "--plugin-library=/usr/local/lib/ksched/plugins/libksched_coscheduling.so"),
            command.end())
      << command.dump();
  const json& role = objects["ClusterRole /ksched:podgroup-reader"];
  EXPECT_EQ(role["rules"], json::parse(R"([{"apiGroups":["scheduling.x-k8s.io"],
                                           "resources":["podgroups"],
                                           "verbs":["get","list","watch"]}])"));
  EXPECT_EQ(objects["ClusterRoleBinding /ksched-podgroup-reader"]["roleRef"]["name"],
            "ksched:podgroup-reader");
  const json& config = objects["ConfigMap kube-system/ksched-config"]["data"]["config.yaml"];
  const std::string file = cluster().dir() + "/chart-coscheduling-config.json";
  std::ofstream(file) << config.dump();
  CommandResult printed = RunCommand({KSCHED_BINARY, "config", "print", "--plugin-library",
                                      COSCHEDULING_LIBRARY, "--config", file});
  ASSERT_EQ(printed.exit_code, 0) << printed.err << config.dump();
  EXPECT_NE(printed.out.find("      queueSort:\n        disabled:\n          - name: \"*\"\n"
                             "            weight: 0\n        enabled:\n          - name: "
                             "Coscheduling\n"),
            std::string::npos)
      << printed.out;
  EXPECT_NE(printed.out.find("permitWaitingTimeSeconds: 10"), std::string::npos) << printed.out;
}

}  // namespace
}  // namespace ksched::testing
