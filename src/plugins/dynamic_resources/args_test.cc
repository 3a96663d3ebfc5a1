#include "src/plugins/dynamic_resources/args.h"

#include <gtest/gtest.h>

#include <vector>

#include "src/testing/plugin_args.h"

namespace ksched::plugins::dynamic_resources {
namespace {

using ksched::testing::ArgsCase;
using ksched::testing::DecodedOrError;
using nlohmann::json;

TEST(DynamicResourcesArgsTest, Defaults) {
  for (const json& doc :
       {json(), json::object(), json{{"filterTimeout", nullptr}, {"bindingTimeout", nullptr}},
        json{{"apiVersion", "kubescheduler.config.k8s.io/v1"}, {"kind", "DynamicResourcesArgs"}}}) {
    absl::StatusOr<DynamicResourcesArgs> args = ParseArgs(doc);
    ASSERT_TRUE(args.ok()) << doc.dump() << ": " << args.status();
    EXPECT_EQ(args->filter_timeout, absl::Seconds(10)) << doc.dump();
    EXPECT_EQ(args->binding_timeout, absl::Minutes(10)) << doc.dump();
  }
}

TEST(DynamicResourcesArgsTest, DecodesAndEncodes) {
  const std::vector<ArgsCase> cases = {
      {"defaults", "{}", "",
       R"({"apiVersion":"kubescheduler.config.k8s.io/v1","bindingTimeout":"10m0s",)"
       R"("filterTimeout":"10s","kind":"DynamicResourcesArgs"})"},
      {"zero: no filter timeout", R"({"filterTimeout": "0s", "bindingTimeout": "90s"})", "",
       R"({"apiVersion":"kubescheduler.config.k8s.io/v1","bindingTimeout":"1m30s",)"
       R"("filterTimeout":"0s","kind":"DynamicResourcesArgs"})"},
  };
  for (const ArgsCase& c : cases)
    EXPECT_EQ(DecodedOrError(MakeArgsDecoder(ParseArgs, ArgsToJson), c), c.want) << c.name;
}

TEST(DynamicResourcesArgsTest, Errors) {
  const std::vector<ArgsCase> cases = {
      {"negative filter timeout", R"({"filterTimeout": "-1s"})", "",
       R"(filterTimeout: Invalid value: "-1s": must be zero or positive)"},
      {"binding timeout under a second", R"({"bindingTimeout": "500ms"})",
       "profiles[0].pluginConfig[0].args",
       R"(profiles[0].pluginConfig[0].args.bindingTimeout: Invalid value: "500ms": must be at )"
       "least 1 second"},
      {"not a duration", R"({"filterTimeout": "ten seconds"})", "",
       "filterTimeout: time: invalid duration \"ten seconds\""},
      {"a number", R"({"filterTimeout": 10})", "", "filterTimeout: expected a string"},
      {"unknown field", R"({"timeout": "1s"})", "", "unknown field \"timeout\""},
  };
  for (const ArgsCase& c : cases)
    EXPECT_EQ(DecodedOrError(MakeArgsDecoder(ParseArgs, ArgsToJson), c), c.want) << c.name;
}

}  // namespace
}  // namespace ksched::plugins::dynamic_resources
