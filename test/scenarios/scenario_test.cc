// Runs every test/scenarios/*.yaml through the real `ksched simulate -o json`, and the guides'
// contrib/guides/scenarios/*.yaml through `ksched-guides`, and checks the outcome of each pod. A
// scenario is data:
//
//   description: why this case matters
//   args: [--seed, "3"]            # optional extra simulate flags
//   config: {apiVersion: ..., kind: KubeSchedulerConfiguration, ...}   # optional, for --config;
//                                  # an extender with urlPrefix test-extender is the test extender
//   cluster:                       # Nodes and Pods, as manifests
//   - {apiVersion: v1, kind: Node, metadata: {name: n1}, status: {allocatable: {cpu: "2"}}}
//   - {apiVersion: v1, kind: Pod, metadata: {name: p}, spec: {containers: [...]}}
//   evicted: [default/low]         # optional: the pods preemption deleted, in order
//   expect:                        # by namespace/name; fields left out are not checked
//     default/p: {node: n1, status: Scheduled}
//     default/q: {status: Unschedulable, message: "0/1 nodes are available: 1 Insufficient cpu."}
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "nlohmann/json.hpp"
#include "src/api/yaml.h"
#include "src/testing/command.h"
#include "test/extender/test_extender.h"

namespace ksched {
namespace {

namespace fs = std::filesystem;

// A scenario file and the binary that runs it: kube-scheduler's plugins' with ksched, the guides'
// (contrib/guides/scenarios) with ksched-guides.
struct Scenario {
  fs::path path;
  std::string binary;
};

std::vector<Scenario> ScenarioFiles() {
  std::vector<Scenario> out;
  for (const auto& [dir, binary] : {std::pair{"/test/scenarios", KSCHED_BINARY},
                                    std::pair{"/contrib/guides/scenarios", GUIDES_BINARY}}) {
    for (const auto& e : fs::directory_iterator(std::string(KSCHED_SOURCE_DIR) + dir)) {
      if (e.path().extension() == ".yaml") out.push_back({e.path(), binary});
    }
  }
  std::sort(out.begin(), out.end(), [](const Scenario& a, const Scenario& b) {
    return a.path.filename() < b.path.filename();
  });
  return out;
}

std::string Slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class ScenarioTest : public ::testing::TestWithParam<Scenario> {};

TEST_P(ScenarioTest, OutcomesMatch) {
  const fs::path& path = GetParam().path;
  const std::string name = path.filename().string();
  auto docs = api::YamlToJson(Slurp(path));
  ASSERT_TRUE(docs.ok() && docs->size() == 1) << path << ": not one YAML document";
  nlohmann::json scenario = nlohmann::json::parse((*docs)[0]);
  ASSERT_TRUE(scenario.contains("cluster") && scenario.contains("expect")) << path;

  fs::path manifest = fs::temp_directory_path() / ("ksched-scenario-" + name + ".json");
  std::ofstream(manifest) << nlohmann::json{
      {"apiVersion", "v1"}, {"kind", "List"}, {"items", scenario["cluster"]}};
  std::vector<std::string> argv = {GetParam().binary, "simulate", "-o", "json"};
  for (const auto& a : scenario.value("args", nlohmann::json::array())) {
    argv.push_back(a.get<std::string>());
  }
  fs::path config = fs::temp_directory_path() / ("ksched-scenario-" + name + "-config.json");
  // A configuration that names the test extender gets one of its own.
  std::optional<testing::TestExtender> extender;
  if (testing::NamesTestExtender(scenario.value("config", nlohmann::json()))) {
    ASSERT_TRUE(extender.emplace().Start());
    scenario["config"] = testing::WithTestExtender(scenario["config"], extender->url());
  }
  if (scenario.contains("config")) {
    std::ofstream(config) << scenario["config"];  // JSON is YAML: --config reads either.
    argv.insert(argv.end(), {"--config", config.string()});
  }
  argv.push_back(manifest.string());
  testing::CommandResult run = testing::RunCommand(argv);
  fs::remove(manifest);
  fs::remove(config);
  ASSERT_EQ(run.exit_code, 0) << run.err << run.out;
  const std::string& out = run.out;
  nlohmann::json result = nlohmann::json::parse(out);

  std::map<std::string, nlohmann::json> by_name;
  for (const auto& p : result["pods"]) {
    by_name[p["namespace"].get<std::string>() + "/" + p["name"].get<std::string>()] = p;
  }
  if (scenario.contains("evicted")) {
    std::vector<std::string> evicted;
    for (const auto& e : result["evicted"]) {
      evicted.push_back(e["namespace"].get<std::string>() + "/" + e["name"].get<std::string>());
    }
    EXPECT_EQ(nlohmann::json(evicted), scenario["evicted"]) << "evicted";
  }
  for (const auto& [pod, want] : scenario["expect"].items()) {
    ASSERT_TRUE(by_name.contains(pod)) << pod << " is not in the output:\n" << out;
    const nlohmann::json& got = by_name[pod];
    for (const auto& [field, value] : want.items()) {
      EXPECT_EQ(got.value(field, nlohmann::json()), value) << pod << "." << field;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Scenarios, ScenarioTest, ::testing::ValuesIn(ScenarioFiles()),
                         [](const auto& info) {
                           std::string n = info.param.path.stem().string();
                           for (char& c : n) {
                             if (!isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return n;
                         });

}  // namespace
}  // namespace ksched
