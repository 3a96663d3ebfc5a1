// Runs every test/scenarios/*.yaml through the real `ksched simulate -o json` and checks the
// outcome of each pod. A scenario is data:
//
//   description: why this case matters
//   args: [--seed, "3"]            # optional extra simulate flags
//   cluster:                       # Nodes and Pods, as manifests
//   - {apiVersion: v1, kind: Node, metadata: {name: n1}, status: {allocatable: {cpu: "2"}}}
//   - {apiVersion: v1, kind: Pod, metadata: {name: p}, spec: {containers: [...]}}
//   expect:                        # by namespace/name; fields left out are not checked
//     default/p: {node: n1, status: Scheduled}
//     default/q: {status: Unschedulable, message: "0/1 nodes are available: 1 Insufficient cpu."}
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "nlohmann/json.hpp"
#include "src/api/yaml.h"

namespace ksched {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> ScenarioFiles() {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(KSCHED_SOURCE_DIR "/test/scenarios")) {
    if (e.path().extension() == ".yaml") out.push_back(e.path().filename().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string Slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Runs the command and returns its standard output; *code gets the exit code.
std::string RunCommand(const std::string& cmd, int* code) {
  std::string out;
  FILE* pipe = popen(cmd.c_str(), "r");
  if (pipe == nullptr) return out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) out.append(buf, n);
  int status = pclose(pipe);
  *code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return out;
}

class ScenarioTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ScenarioTest, OutcomesMatch) {
  const fs::path path = fs::path(KSCHED_SOURCE_DIR "/test/scenarios") / GetParam();
  auto docs = api::YamlToJson(Slurp(path));
  ASSERT_TRUE(docs.ok() && docs->size() == 1) << path << ": not one YAML document";
  nlohmann::json scenario = nlohmann::json::parse((*docs)[0]);
  ASSERT_TRUE(scenario.contains("cluster") && scenario.contains("expect")) << path;

  fs::path manifest = fs::temp_directory_path() / ("ksched-scenario-" + GetParam() + ".json");
  std::ofstream(manifest) << nlohmann::json{{"kind", "List"}, {"items", scenario["cluster"]}};
  std::string cmd = std::string(KSCHED_BINARY) + " simulate -o json";
  for (const auto& a : scenario.value("args", nlohmann::json::array())) {
    cmd += " '" + a.get<std::string>() + "'";
  }
  cmd += " " + manifest.string() + " 2>&1";
  int code = -1;
  std::string out = RunCommand(cmd, &code);
  fs::remove(manifest);
  ASSERT_EQ(code, 0) << out;
  nlohmann::json result = nlohmann::json::parse(out);

  std::map<std::string, nlohmann::json> by_name;
  for (const auto& p : result["pods"]) {
    by_name[p["namespace"].get<std::string>() + "/" + p["name"].get<std::string>()] = p;
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
                           std::string n = info.param.substr(0, info.param.size() - 5);
                           for (char& c : n) {
                             if (!isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return n;
                         });

}  // namespace
}  // namespace ksched
