#include "src/plugins/node_resources/args.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ksched/strings.h"

namespace ksched::plugins::node_resources {
namespace {

using nlohmann::json;

std::string ErrorOf(const absl::Status& s) { return std::string(AsStd(s.message())); }

bool SameResources(const std::vector<ResourceSpec>& a, const std::vector<ResourceSpec>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].name != b[i].name || a[i].weight != b[i].weight) return false;
  }
  return true;
}

TEST(FitArgsTest, Defaults) {
  for (const json& doc :
       {json(), json::object(), json{{"scoringStrategy", nullptr}},
        json{{"apiVersion", "kubescheduler.config.k8s.io/v1"}, {"kind", "NodeResourcesFitArgs"}}}) {
    absl::StatusOr<FitArgs> args = ParseFitArgs(doc);
    ASSERT_TRUE(args.ok()) << doc.dump() << ": " << args.status();
    EXPECT_EQ(args->scoring_strategy.type, ScoringStrategyType::kLeastAllocated) << doc.dump();
    EXPECT_TRUE(SameResources(args->scoring_strategy.resources, {{"cpu", 1}, {"memory", 1}}))
        << doc.dump();
    EXPECT_TRUE(args->ignored_resources.empty());
  }
}

TEST(FitArgsTest, DecodesAndDefaultsWeights) {
  absl::StatusOr<FitArgs> args = ParseFitArgs(json::parse(R"({
    "ignoredResources": ["example.com/foo"],
    "ignoredResourceGroups": ["example.org"],
    "scoringStrategy": {
      "type": "RequestedToCapacityRatio",
      "resources": [{"name": "cpu", "weight": 3}, {"name": "intel.com/gpu"},
                    {"name": "memory", "weight": 0}],
      "requestedToCapacityRatio": {"shape": [{"utilization": 0, "score": 0},
                                             {"utilization": 100, "score": 10}]}
    }})"));
  ASSERT_TRUE(args.ok()) << args.status();
  EXPECT_EQ(args->ignored_resources, std::vector<std::string>{"example.com/foo"});
  EXPECT_EQ(args->ignored_resource_groups, std::vector<std::string>{"example.org"});
  EXPECT_EQ(args->scoring_strategy.type, ScoringStrategyType::kRequestedToCapacityRatio);
  EXPECT_TRUE(SameResources(args->scoring_strategy.resources,
                            {{"cpu", 3}, {"intel.com/gpu", 1}, {"memory", 1}}));
  ASSERT_EQ(args->scoring_strategy.shape.size(), 2u);
  EXPECT_EQ(args->scoring_strategy.shape[1].utilization, 100);
  EXPECT_EQ(args->scoring_strategy.shape[1].score, 10);

  // An empty resource list gets the defaults, as a missing one.
  args = ParseFitArgs(json::parse(R"({"scoringStrategy": {"type": "MostAllocated",
                                                          "resources": []}})"));
  ASSERT_TRUE(args.ok()) << args.status();
  EXPECT_EQ(args->scoring_strategy.type, ScoringStrategyType::kMostAllocated);
  EXPECT_TRUE(SameResources(args->scoring_strategy.resources, {{"cpu", 1}, {"memory", 1}}));
}

TEST(FitArgsTest, ValidationErrors) {
  struct Case {
    std::string name;
    std::string doc;
    std::string want;
  };
  const std::vector<Case> cases = {
      {"negative weight",
       R"({"scoringStrategy": {"type": "LeastAllocated",
           "resources": [{"name": "memory", "weight": -1}, {"name": "cpu", "weight": 1}]}})",
       "scoringStrategy.resources[0].weight: Invalid value: -1: resource weight of memory not in "
       "valid range (0, 100]"},
      {"weight larger than MaxNodeScore",
       R"({"scoringStrategy": {"type": "MostAllocated",
           "resources": [{"name": "memory", "weight": 1}, {"name": "cpu", "weight": 101}]}})",
       "scoringStrategy.resources[1].weight: Invalid value: 101: resource weight of cpu not in "
       "valid range (0, 100]"},
      {"unsupported type", R"({"scoringStrategy": {"type": "Foo"}})",
       R"(scoringStrategy.type: Unsupported value: "Foo": supported values: "LeastAllocated", )"
       R"("MostAllocated", "RequestedToCapacityRatio")"},
      {"strategy without type", R"({"scoringStrategy": {"resources": [{"name": "cpu"}]}})",
       R"(scoringStrategy.type: Unsupported value: "": supported values: "LeastAllocated", )"
       R"("MostAllocated", "RequestedToCapacityRatio")"},
      {"empty shape",
       R"({"scoringStrategy": {"type": "RequestedToCapacityRatio",
           "requestedToCapacityRatio": {"shape": []}}})",
       "scoringStrategy.shape: Required value: at least one point must be specified"},
      {"missing shape", R"({"scoringStrategy": {"type": "RequestedToCapacityRatio"}})",
       "scoringStrategy.shape: Required value: at least one point must be specified"},
      {"shape not increasing, out of range",
       R"({"scoringStrategy": {"type": "RequestedToCapacityRatio",
           "requestedToCapacityRatio": {"shape": [{"utilization": 50, "score": 11},
                                                  {"utilization": 10, "score": 2},
                                                  {"utilization": 101, "score": -1}]}}})",
       "[scoringStrategy.shape[1].utilization: Invalid value: 10: values must be sorted in "
       "increasing order, scoringStrategy.shape[0].score: Invalid value: 11: not in valid range "
       "[0, 10], scoringStrategy.shape[2].utilization: Invalid value: 101: not in valid range "
       "[0, 100], scoringStrategy.shape[2].score: Invalid value: -1: not in valid range [0, 10]]"},
      {"resource group with a slash", R"({"ignoredResourceGroups": ["example.com/aaa"]})",
       R"(ignoredResourceGroups[0]: Invalid value: "example.com/aaa": resource group name can't )"
       "contain '/'"},
      {"ignored resource with two slashes", R"({"ignoredResources": ["a/b/c"]})",
       R"(ignoredResources[0]: Invalid value: "a/b/c": a qualified name must consist of )"
       "alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric "
       "character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
       "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and "
       "'/' (e.g. 'example.com/MyName')"},
      {"ignored resource with a bad name",
       R"({"ignoredResources": ["example.com/-foo"], "scoringStrategy": {"type": "Bar"}})",
       R"([ignoredResources[0]: Invalid value: "example.com/-foo": name part must consist of )"
       "alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric "
       "character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
       "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'), "
       R"(scoringStrategy.type: Unsupported value: "Bar": supported values: "LeastAllocated", )"
       R"("MostAllocated", "RequestedToCapacityRatio"])"},
      {"unknown field", R"({"scoringStrategy": {"type": "LeastAllocated", "weights": 1}})",
       R"(unknown field "scoringStrategy.weights")"},
      {"wrong type", R"({"scoringStrategy": {"resources": [{"name": "cpu", "weight": "2"}]}})",
       R"(scoringStrategy.resources[0].weight: expected an integer, got "2")"},
      {"score out of int32 range",
       R"({"scoringStrategy": {"type": "RequestedToCapacityRatio",
           "requestedToCapacityRatio": {"shape": [{"utilization": 0, "score": 4294967296}]}}})",
       "scoringStrategy.requestedToCapacityRatio.shape[0].score: 4294967296 is out of range "
       "[-2147483648, 2147483647]"},
      {"args not an object", "[]", "args: expected an object"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<FitArgs> args = ParseFitArgs(json::parse(c.doc));
    ASSERT_FALSE(args.ok()) << c.name;
    EXPECT_EQ(args.status().code(), absl::StatusCode::kInvalidArgument) << c.name;
    EXPECT_EQ(ErrorOf(args.status()), c.want) << c.name;
  }
}

TEST(BalancedAllocationArgsTest, DefaultsAndDecoding) {
  absl::StatusOr<BalancedAllocationArgs> args = ParseBalancedAllocationArgs(json::object());
  ASSERT_TRUE(args.ok()) << args.status();
  EXPECT_TRUE(SameResources(args->resources, {{"cpu", 1}, {"memory", 1}}));

  args = ParseBalancedAllocationArgs(
      json::parse(R"({"resources": [{"name": "cpu"}, {"name": "nvidia.com/gpu", "weight": 1}]})"));
  ASSERT_TRUE(args.ok()) << args.status();
  EXPECT_TRUE(SameResources(args->resources, {{"cpu", 1}, {"nvidia.com/gpu", 1}}));
}

TEST(BalancedAllocationArgsTest, ValidationErrors) {
  absl::StatusOr<BalancedAllocationArgs> args = ParseBalancedAllocationArgs(json::parse(
      R"({"resources": [{"name": "cpu", "weight": 2}, {"name": "memory"}, {"name": "cpu"}]})"));
  ASSERT_FALSE(args.ok());
  EXPECT_EQ(ErrorOf(args.status()),
            R"([resources[0].weight: Invalid value: 2: must be 1, resources[2].name: Duplicate )"
            R"(value: "cpu"])");

  args = ParseBalancedAllocationArgs(json::parse(R"({"resource": []})"));
  ASSERT_FALSE(args.ok());
  EXPECT_EQ(ErrorOf(args.status()), R"(unknown field "resource")");
}

}  // namespace
}  // namespace ksched::plugins::node_resources
