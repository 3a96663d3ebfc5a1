#include "src/plugins/volume_binding/args.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "src/testing/plugin_args.h"

namespace ksched::plugins::volume_binding {
namespace {

using ksched::testing::ArgsCase;
using ksched::testing::DecodedOrError;
using nlohmann::json;

TEST(VolumeBindingArgsTest, Defaults) {
  for (const json& doc :
       {json(), json::object(), json{{"bindTimeoutSeconds", nullptr}, {"shape", nullptr}},
        json{{"apiVersion", "kubescheduler.config.k8s.io/v1"}, {"kind", "VolumeBindingArgs"}}}) {
    absl::StatusOr<VolumeBindingArgs> args = ParseArgs(doc, "", false);
    ASSERT_TRUE(args.ok()) << doc.dump() << ": " << args.status();
    EXPECT_EQ(args->bind_timeout_seconds, 600) << doc.dump();
    EXPECT_TRUE(args->shape.empty()) << doc.dump();
    args = ParseArgs(doc, "", true);
    ASSERT_TRUE(args.ok()) << doc.dump() << ": " << args.status();
    EXPECT_EQ(ArgsToJson(*args)["shape"].dump(),
              R"([{"score":10,"utilization":0},{"score":0,"utilization":100}])");
  }
}

TEST(VolumeBindingArgsTest, DecodesAndEncodes) {
  const std::vector<ArgsCase> cases = {
      // No shape: StorageCapacityScoring is off, so upstream does not default one either.
      {"defaults", "{}", "",
       R"({"apiVersion":"kubescheduler.config.k8s.io/v1","bindTimeoutSeconds":600,)"
       R"("kind":"VolumeBindingArgs"})"},
      {"zero: no waiting", R"({"bindTimeoutSeconds": 0})", "",
       R"({"apiVersion":"kubescheduler.config.k8s.io/v1","bindTimeoutSeconds":0,)"
       R"("kind":"VolumeBindingArgs"})"},
      {"beyond int32", R"({"bindTimeoutSeconds": 4294967296})", "",
       R"({"apiVersion":"kubescheduler.config.k8s.io/v1","bindTimeoutSeconds":4294967296,)"
       R"("kind":"VolumeBindingArgs"})"},
  };
  for (const ArgsCase& c : cases)
    EXPECT_EQ(DecodedOrError(MakeDecoder(false), c), c.want) << c.name;
}

TEST(VolumeBindingArgsTest, Errors) {
  const std::vector<ArgsCase> cases = {
      {"negative timeout", R"({"bindTimeoutSeconds": -1})", "",
       "bindTimeoutSeconds: Invalid value: -1: invalid BindTimeoutSeconds, should not be a "
       "negative value"},
      {"shape without the feature gate", R"({"shape": [{"utilization": 0, "score": 0}]})", "",
       R"(shape: Invalid value: [{"Utilization":0,"Score":0}]: unexpected field `shape`, remove )"
       "it or turn on the feature gate StorageCapacityScoring"},
      {"empty shape: given all the same", R"({"shape": []})", "",
       "shape: Invalid value: []: unexpected field `shape`, remove it or turn on the feature gate "
       "StorageCapacityScoring"},
      {"both, under a config path",
       R"({"bindTimeoutSeconds": -1, "shape": [{"utilization": 0, "score": 10}, {"score": 3}]})",
       "profiles[0].pluginConfig[0].args",
       "[profiles[0].pluginConfig[0].args.bindTimeoutSeconds: Invalid value: -1: invalid "
       "BindTimeoutSeconds, should not be a negative value, "
       R"(profiles[0].pluginConfig[0].args.shape: Invalid value: [{"Utilization":0,"Score":10},)"
       R"({"Utilization":0,"Score":3}]: unexpected field `shape`, remove it or turn on the )"
       "feature gate StorageCapacityScoring]"},
      {"unknown field", R"({"bindTimeout": 5})", "profiles[0].pluginConfig[0].args",
       R"(unknown field "profiles[0].pluginConfig[0].args.bindTimeout")"},
      {"unknown field in a shape point", R"({"shape": [{"utilization": 0, "weight": 1}]})", "",
       R"(unknown field "shape[0].weight")"},
      {"a string for an integer", R"({"bindTimeoutSeconds": "10s"})", "",
       R"(bindTimeoutSeconds: expected an integer, got "10s")"},
      {"a shape point out of int32", R"({"shape": [{"score": 2147483648}]})", "",
       "shape[0].score: 2147483648 is out of range [-2147483648, 2147483647]"},
      {"shape not a list", R"({"shape": {"utilization": 0}})", "", "shape: expected a list"},
  };
  for (const ArgsCase& c : cases)
    EXPECT_EQ(DecodedOrError(MakeDecoder(false), c), c.want) << c.name;
}

// With StorageCapacityScoring on, as kube-scheduler with
// --feature-gates=StorageCapacityScoring=true defaults and validates: an empty shape is the
// default, a given one is checked point by point.
TEST(VolumeBindingArgsTest, ShapeWithTheGate) {
  const std::string defaults =
      R"({"apiVersion":"kubescheduler.config.k8s.io/v1","bindTimeoutSeconds":600,)"
      R"("kind":"VolumeBindingArgs","shape":[{"score":10,"utilization":0},)"
      R"({"score":0,"utilization":100}]})";
  const std::vector<ArgsCase> cases = {
      {"defaults", "{}", "", defaults},
      {"an empty shape is the default", R"({"shape": []})", "", defaults},
      {"a given shape", R"({"shape": [{"utilization": 50, "score": 3}]})", "",
       R"({"apiVersion":"kubescheduler.config.k8s.io/v1","bindTimeoutSeconds":600,)"
       R"("kind":"VolumeBindingArgs","shape":[{"score":3,"utilization":50}]})"},
      {"points out of order and range",
       R"({"shape": [{"utilization": 50, "score": 3}, {"utilization": 50, "score": 11}]})",
       "profiles[0].pluginConfig[0].args",
       "[profiles[0].pluginConfig[0].args.shape[1].utilization: Invalid value: 50: values must "
       "be sorted in increasing order, profiles[0].pluginConfig[0].args.shape[1].score: Invalid "
       "value: 11: not in valid range [0, 10]]"},
  };
  for (const ArgsCase& c : cases) EXPECT_EQ(DecodedOrError(MakeDecoder(true), c), c.want) << c.name;
}

}  // namespace
}  // namespace ksched::plugins::volume_binding
