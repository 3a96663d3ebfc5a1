#include "src/plugins/inter_pod_affinity/args.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "src/testing/plugin_args.h"

namespace ksched::plugins::inter_pod_affinity {
namespace {

using ksched::testing::ArgsCase;
using ksched::testing::DecodedOrError;
using nlohmann::json;

TEST(InterPodAffinityArgsTest, Defaults) {
  for (const json& doc :
       {json(), json::object(), json{{"hardPodAffinityWeight", nullptr}},
        json{{"apiVersion", "kubescheduler.config.k8s.io/v1"}, {"kind", "InterPodAffinityArgs"}}}) {
    absl::StatusOr<InterPodAffinityArgs> args = ParseArgs(doc);
    ASSERT_TRUE(args.ok()) << doc.dump() << ": " << args.status();
    EXPECT_EQ(args->hard_pod_affinity_weight, 1) << doc.dump();
    EXPECT_FALSE(args->ignore_preferred_terms_of_existing_pods) << doc.dump();
  }
}

TEST(InterPodAffinityArgsTest, DecodesAndEncodes) {
  const std::vector<ArgsCase> cases = {
      // ignorePreferredTermsOfExistingPods has no omitempty upstream: false is printed.
      {"defaults", "{}", "",
       R"({"apiVersion":"kubescheduler.config.k8s.io/v1","hardPodAffinityWeight":1,)"
       R"("ignorePreferredTermsOfExistingPods":false,"kind":"InterPodAffinityArgs"})"},
      {"zero weight stays zero",
       R"({"hardPodAffinityWeight": 0, "ignorePreferredTermsOfExistingPods": true})", "",
       R"({"apiVersion":"kubescheduler.config.k8s.io/v1","hardPodAffinityWeight":0,)"
       R"("ignorePreferredTermsOfExistingPods":true,"kind":"InterPodAffinityArgs"})"},
      {"largest weight", R"({"hardPodAffinityWeight": 100})", "",
       R"({"apiVersion":"kubescheduler.config.k8s.io/v1","hardPodAffinityWeight":100,)"
       R"("ignorePreferredTermsOfExistingPods":false,"kind":"InterPodAffinityArgs"})"},
  };
  for (const ArgsCase& c : cases)
    EXPECT_EQ(DecodedOrError(MakeArgsDecoder(ParseArgs, ArgsToJson), c), c.want) << c.name;
}

TEST(InterPodAffinityArgsTest, Errors) {
  const std::vector<ArgsCase> cases = {
      {"weight above 100", R"({"hardPodAffinityWeight": 101})", "",
       "hardPodAffinityWeight: Invalid value: 101: not in valid range [0, 100]"},
      {"negative weight, under a config path", R"({"hardPodAffinityWeight": -1})",
       "profiles[0].pluginConfig[0].args",
       "profiles[0].pluginConfig[0].args.hardPodAffinityWeight: Invalid value: -1: not in valid "
       "range [0, 100]"},
      {"unknown field", R"({"foo": 1})", "profiles[0].pluginConfig[0].args",
       R"(unknown field "profiles[0].pluginConfig[0].args.foo")"},
      {"a string for an integer", R"({"hardPodAffinityWeight": "x"})", "",
       R"(hardPodAffinityWeight: expected an integer, got "x")"},
      {"a string for a boolean", R"({"ignorePreferredTermsOfExistingPods": "yes"})", "",
       R"(ignorePreferredTermsOfExistingPods: expected a boolean, got "yes")"},
  };
  for (const ArgsCase& c : cases)
    EXPECT_EQ(DecodedOrError(MakeArgsDecoder(ParseArgs, ArgsToJson), c), c.want) << c.name;
}

}  // namespace
}  // namespace ksched::plugins::inter_pod_affinity
