#include "src/plugins/default_preemption/args.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "src/testing/plugin_args.h"

namespace ksched::plugins::default_preemption {
namespace {

using ksched::testing::ArgsCase;
using ksched::testing::DecodedOrError;
using nlohmann::json;

TEST(DefaultPreemptionArgsTest, Defaults) {
  for (const json& doc : {json(), json::object(), json{{"minCandidateNodesPercentage", nullptr}},
                          json{{"apiVersion", "kubescheduler.config.k8s.io/v1"},
                               {"kind", "DefaultPreemptionArgs"}}}) {
    absl::StatusOr<DefaultPreemptionArgs> args = ParseArgs(doc);
    ASSERT_TRUE(args.ok()) << doc.dump() << ": " << args.status();
    EXPECT_EQ(args->min_candidate_nodes_percentage, 10) << doc.dump();
    EXPECT_EQ(args->min_candidate_nodes_absolute, 100) << doc.dump();
  }
}

TEST(DefaultPreemptionArgsTest, DecodesAndEncodes) {
  const std::vector<ArgsCase> cases = {
      {"defaults", "null", "",
       R"({"apiVersion":"kubescheduler.config.k8s.io/v1","kind":"DefaultPreemptionArgs",)"
       R"("minCandidateNodesAbsolute":100,"minCandidateNodesPercentage":10})"},
      {"one given, the other defaulted, under a config path", R"({"minCandidateNodesAbsolute": 0})",
       "profiles[0].pluginConfig[0].args",
       R"({"apiVersion":"kubescheduler.config.k8s.io/v1","kind":"DefaultPreemptionArgs",)"
       R"("minCandidateNodesAbsolute":0,"minCandidateNodesPercentage":10})"},
      {"both at the edges", R"({"minCandidateNodesPercentage": 100,
                                 "minCandidateNodesAbsolute": 0})",
       "",
       R"({"apiVersion":"kubescheduler.config.k8s.io/v1","kind":"DefaultPreemptionArgs",)"
       R"("minCandidateNodesAbsolute":0,"minCandidateNodesPercentage":100})"},
  };
  for (const ArgsCase& c : cases)
    EXPECT_EQ(DecodedOrError(MakeArgsDecoder(ParseArgs, ArgsToJson), c), c.want) << c.name;
}

TEST(DefaultPreemptionArgsTest, Errors) {
  const std::vector<ArgsCase> cases = {
      {"percentage above 100", R"({"minCandidateNodesPercentage": 101})", "",
       "minCandidateNodesPercentage: Invalid value: 101: not in valid range [0, 100]"},
      {"negative percentage", R"({"minCandidateNodesPercentage": -1})", "",
       "minCandidateNodesPercentage: Invalid value: -1: not in valid range [0, 100]"},
      {"negative absolute", R"({"minCandidateNodesAbsolute": -1})", "",
       "minCandidateNodesAbsolute: Invalid value: -1: not in valid range [0, inf)"},
      {"both out of range, under a config path",
       R"({"minCandidateNodesPercentage": 101, "minCandidateNodesAbsolute": -1})",
       "profiles[0].pluginConfig[0].args",
       "[profiles[0].pluginConfig[0].args.minCandidateNodesPercentage: Invalid value: 101: not in "
       "valid range [0, 100], profiles[0].pluginConfig[0].args.minCandidateNodesAbsolute: Invalid "
       "value: -1: not in valid range [0, inf)]"},
      {"both zero", R"({"minCandidateNodesPercentage": 0, "minCandidateNodesAbsolute": 0})",
       "profiles[0].pluginConfig[0].args",
       "[profiles[0].pluginConfig[0].args.minCandidateNodesPercentage: Invalid value: 0: cannot be "
       "zero at the same time as minCandidateNodesAbsolute, "
       "profiles[0].pluginConfig[0].args.minCandidateNodesAbsolute: Invalid value: 0: cannot be "
       "zero at the same time as minCandidateNodesPercentage]"},
      {"unknown field", R"({"minCandidateNodes": 1})", "profiles[1].pluginConfig[2].args",
       R"(unknown field "profiles[1].pluginConfig[2].args.minCandidateNodes")"},
      {"a string for an integer", R"({"minCandidateNodesAbsolute": "x"})", "",
       R"(minCandidateNodesAbsolute: expected an integer, got "x")"},
      {"beyond int32", R"({"minCandidateNodesAbsolute": 4294967296})", "",
       "minCandidateNodesAbsolute: 4294967296 is out of range [-2147483648, 2147483647]"},
      {"args not an object", "[]", "", "args: expected an object"},
  };
  for (const ArgsCase& c : cases)
    EXPECT_EQ(DecodedOrError(MakeArgsDecoder(ParseArgs, ArgsToJson), c), c.want) << c.name;
}

}  // namespace
}  // namespace ksched::plugins::default_preemption
