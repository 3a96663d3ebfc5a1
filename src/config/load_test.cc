// Golden tests of the effective configuration (testdata/<name>.yaml → <name>.golden.yaml), a table
// of invalid configurations with their messages, and the defaults' link to the scheduler.
//
// To regenerate the golden files after an intended change, run the test with
// KSCHED_UPDATE_GOLDEN=1 and review the diff.
#include "src/config/load.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "ksched/strings.h"
#include "src/api/yaml.h"
#include "src/plugins/registry.h"
#include "src/testing/files.h"

namespace ksched::config {
namespace {

// The in-tree plugins, and the out-of-tree ones the documentation's examples name.
Registry TestRegistry() {
  Registry r = plugins::NewInTreeRegistry();
  PluginFactory unused = [](const PluginArgs&, Handle&) -> absl::StatusOr<std::unique_ptr<Plugin>> {
    return absl::UnimplementedError("not built by config tests");
  };
  for (const char* name :
       {"MyCustomPluginA", "MyCustomPluginB", "CustomQueueSort", "CustomPlugin1", "CustomPlugin2",
        "DefaultPlugin2", "MyPlugin", "NetworkOverhead", "PodState"}) {
    EXPECT_TRUE(r.Register(name, unused).ok());
  }
  return r;
}

class GoldenTest : public ::testing::TestWithParam<std::string> {};

TEST_P(GoldenTest, EffectiveConfiguration) {
  const std::string base = "src/config/testdata/" + GetParam();
  const std::string input = ksched::testing::ReadSourceFile(base + ".yaml");
  ASSERT_FALSE(input.empty()) << base;
  absl::StatusOr<Configuration> cfg = DecodeConfiguration(input, TestRegistry());
  ASSERT_TRUE(cfg.ok()) << cfg.status();
  const std::string got = api::JsonToYaml(EncodeConfiguration(*cfg));
  if (std::getenv("KSCHED_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(ksched::testing::SourcePath(base + ".golden.yaml")) << got;
  }
  EXPECT_EQ(got, ksched::testing::ReadSourceFile(base + ".golden.yaml"));
  // Printing is stable: the printed configuration reads back to itself.
  absl::StatusOr<Configuration> again = DecodeConfiguration(got, TestRegistry());
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(api::JsonToYaml(EncodeConfiguration(*again)), got);
}

INSTANTIATE_TEST_SUITE_P(Docs, GoldenTest,
                         ::testing::Values("defaults", "multiple_profiles", "disable_plugins",
                                           "multipoint", "multipoint_replace_all", "most_allocated",
                                           "requested_to_capacity_ratio", "network_overhead",
                                           "multipoint_prefilter"),
                         [](const auto& info) { return info.param; });

TEST(LoadTest, NoFileGivesTheDefaultsFile) {
  absl::StatusOr<Configuration> none = DefaultEffectiveConfiguration(TestRegistry());
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_EQ(api::JsonToYaml(EncodeConfiguration(*none)),
            ksched::testing::ReadSourceFile("src/config/testdata/defaults.golden.yaml"));
}

TEST(LoadTest, FileErrorsNameTheFile) {
  absl::StatusOr<Configuration> missing = LoadConfigFile("/nonexistent/sched.yaml", TestRegistry());
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(std::string(AsStd(missing.status().message())),
              ::testing::StartsWith("open /nonexistent/sched.yaml"));
  const std::string path = ksched::testing::SourcePath("src/config/testdata/invalid_weight.yaml");
  absl::StatusOr<Configuration> bad = LoadConfigFile(path, TestRegistry());
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(std::string(AsStd(bad.status().message())),
            path +
                ": profiles[0].plugins.score.enabled[1].weight: Invalid value: 101: must be in "
                "range [1, 100]");
}

struct InvalidCase {
  std::string name;
  std::string yaml;  // After the apiVersion and kind lines unless it starts with "!".
  std::string want;
};

TEST(LoadTest, InvalidConfigurations) {
  const std::vector<InvalidCase> cases = {
      {"not yaml", "!profiles: [a", "the config is not valid YAML: "},
      {"v1beta3",
       "!apiVersion: kubescheduler.config.k8s.io/v1beta3\nkind: KubeSchedulerConfiguration\n",
       R"(no kind "KubeSchedulerConfiguration" is registered for version "kubescheduler.config.k8s.io/v1beta3" in scheme "pkg/runtime/scheme.go:111")"},
      {"wrong kind", "!apiVersion: kubescheduler.config.k8s.io/v1\nkind: Pod\n",
       R"(no kind "Pod" is registered for version "kubescheduler.config.k8s.io/v1" in scheme "pkg/runtime/scheme.go:111")"},
      {"unknown top-level field", "parallelizm: 4\n",
       R"(strict decoding error: unknown field "parallelizm")"},
      {"unknown nested field", "profiles:\n- plugins:\n    scor: {}\n",
       R"(strict decoding error: unknown field "profiles[0].plugins.scor")"},
      {"parallelism", "parallelism: 0\n",
       "parallelism: Invalid value: 0: should be an integer value greater than zero"},
      {"percentage", "percentageOfNodesToScore: 101\n",
       "percentageOfNodesToScore: Invalid value: 101: not in valid range [0-100]"},
      {"backoff", "podInitialBackoffSeconds: 5\npodMaxBackoffSeconds: 2\n",
       "podMaxBackoffSeconds: Invalid value: 2: must be greater than or equal to "
       "PodInitialBackoffSeconds"},
      {"unknown plugin", "profiles:\n- plugins:\n    filter:\n      enabled: [{name: Nope}]\n",
       R"(initializing profiles: creating profile for scheduler name default-scheduler: FilterPlugin "Nope" does not exist)"},
      {"weight",
       "profiles:\n- plugins:\n    score:\n      enabled: [{name: ImageLocality, weight: 101}]\n",
       "profiles[0].plugins.score.enabled[0].weight: Invalid value: 101: must be in range [1, "
       "100]"},
      {"duplicate scheduler name", "profiles:\n- schedulerName: a\n- schedulerName: a\n",
       R"(profiles[1].schedulerName: Duplicate value: "a")"},
      {"missing scheduler name", "profiles:\n- schedulerName: a\n- {}\n",
       "profiles[1].schedulerName: Required value"},
      {"queue sort differs",
       "profiles:\n- schedulerName: a\n- schedulerName: b\n  plugins:\n    queueSort:\n"
       "      disabled: [{name: '*'}]\n      enabled: [{name: CustomQueueSort}]\n",
       R"(profiles[1].plugins.queueSort: Invalid value: {"Enabled":[{"Name":"CustomQueueSort","Weight":0}],"Disabled":[{"Name":"*","Weight":0}]}: must be the same for all profiles)"},
      {"args of a plugin not enabled",
       "profiles:\n- plugins:\n    multiPoint:\n      disabled: [{name: NodeResourcesFit}]\n"
       "  pluginConfig:\n  - name: NodeResourcesFit\n    args: {}\n",
       R"(profiles[0].pluginConfig[0].name: Invalid value: "NodeResourcesFit": pluginConfig for a plugin that the profile does not enable)"},
      {"duplicate pluginConfig",
       "profiles:\n- pluginConfig:\n  - name: NodeAffinity\n  - name: NodeAffinity\n",
       R"(profiles[0].pluginConfig[1]: Duplicate value: "NodeAffinity")"},
      {"invalid args",
       "profiles:\n- pluginConfig:\n  - name: NodeResourcesFit\n    args:\n      scoringStrategy:\n"
       "        type: Packed\n",
       R"(profiles[0].pluginConfig[0].args.scoringStrategy.type: Unsupported value: "Packed": supported values: "LeastAllocated", "MostAllocated", "RequestedToCapacityRatio")"},
      {"unknown args field",
       "profiles:\n- pluginConfig:\n  - name: NodeResourcesBalancedAllocation\n    args: "
       "{resource: []}\n",
       R"(strict decoding error: decoding .profiles[0].pluginConfig[0]: strict decoding error: decoding args for plugin NodeResourcesBalancedAllocation: strict decoding error: unknown field "resource")"},
      {"removed plugin", "profiles:\n- plugins:\n    filter:\n      enabled: [{name: EBSLimits}]\n",
       R"(profiles[0].plugins.filter.enabled[0]: Invalid value: "EBSLimits": was invalid in version "v1" (KubeSchedulerConfiguration is version "kubescheduler.config.k8s.io/v1"))"},
      {"unknown multiPoint plugin",
       "profiles:\n- schedulerName: my-custom-scheduler\n  plugins:\n    multiPoint:\n"
       "      enabled: [{name: NetworkAwareness}]\n",
       R"(initializing profiles: creating profile for scheduler name my-custom-scheduler: PreFilterPlugin "NetworkAwareness" does not exist)"},
      {"duplicate key", "parallelism: 4\nparallelism: 8\n",
       R"(the config is not valid YAML: line 4, column 1: key "parallelism" already set in map)"},
      {"args of another kind",
       "profiles:\n- pluginConfig:\n  - name: NodeResourcesFit\n    args: {kind: "
       "NodeAffinityArgs}\n",
       "decoding .profiles[0].pluginConfig[0]: args for plugin NodeResourcesFit were not of type "
       "NodeResourcesFitArgs.kubescheduler.config.k8s.io, got "
       "NodeAffinityArgs.kubescheduler.config.k8s.io"},
      {"leader election",
       "leaderElection: {leaseDuration: 5s, resourceLock: endpoints}\nclientConnection: {burst: "
       "-1}\n",
       "[clientConnection.burst: Invalid value: -1: must be non-negative, "
       "leaderElection.leaseDuration: Invalid value: \"10s\": must be greater than "
       "`RenewDeadline`, "
       "leaderElection.resourceLock: Invalid value: \"endpoints\": resourceLock value must be "
       "\"leases\"]"},
      {"two queue sorts",
       "profiles:\n- plugins:\n    queueSort:\n      enabled: [{name: CustomQueueSort}, {name: "
       "PrioritySort}]\n",
       "profiles[0].plugins.queueSort.Enabled: Invalid value: 2: only one queue sort plugin can be "
       "enabled"},
      {"extenders",
       "extenders:\n- {urlPrefix: http://a, prioritizeVerb: p, bindVerb: b}\n- {urlPrefix: "
       "http://b, "
       "bindVerb: b}\n",
       "[extenders[0].weight: Invalid value: 0: must have a positive weight applied to it, "
       "extenders: Invalid value: \"found 2 extenders implementing bind\": only one extender can "
       "implement bind]"},
      {"extenders' managed resources",
       "extenders:\n- {urlPrefix: http://a, managedResources: [{name: cpu}, {name: "
       "example.com/gpu}]}\n- {urlPrefix: http://b, managedResources: [{name: example.com/gpu}]}\n",
       "[extenders[0].managedResources[0].name: Invalid value: \"cpu\": is an invalid extended "
       "resource name, extenders[1].managedResources[0].name: Invalid value: \"example.com/gpu\": "
       "duplicate extender managed resource name]"},
      {"no apiVersion or kind", "!parallelism: 4\n",
       "Object 'Kind' is missing in 'parallelism: 4\n'"},
      {"two errors", "parallelism: -1\npercentageOfNodesToScore: -1\n",
       "[parallelism: Invalid value: -1: should be an integer value greater than zero, "
       "percentageOfNodesToScore: Invalid value: -1: not in valid range [0-100]]"},
      {"bad duration", "leaderElection: {leaseDuration: soon}\n",
       R"(leaderElection.leaseDuration: time: invalid duration "soon")"},
  };
  for (const InvalidCase& c : cases) {
    std::string text = c.yaml.starts_with("!") ? c.yaml.substr(1)
                                               : "apiVersion: kubescheduler.config.k8s.io/v1\n"
                                                 "kind: KubeSchedulerConfiguration\n" +
                                                     c.yaml;
    absl::StatusOr<Configuration> cfg = DecodeConfiguration(text, TestRegistry());
    ASSERT_FALSE(cfg.ok()) << c.name;
    EXPECT_THAT(std::string(AsStd(cfg.status().message())), ::testing::StartsWith(c.want))
        << c.name;
  }
}

}  // namespace
}  // namespace ksched::config
