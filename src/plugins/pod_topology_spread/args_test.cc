#include "src/plugins/pod_topology_spread/args.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "src/testing/plugin_args.h"

namespace ksched::plugins::pod_topology_spread {
namespace {

using ksched::testing::ArgsCase;
using ksched::testing::DecodedOrError;
using nlohmann::json;

TEST(PodTopologySpreadArgsTest, Defaults) {
  for (const json& doc :
       {json(), json::object(), json{{"defaultingType", ""}, {"defaultConstraints", json::array()}},
        json{{"apiVersion", "kubescheduler.config.k8s.io/v1"},
             {"kind", "PodTopologySpreadArgs"}}}) {
    absl::StatusOr<PodTopologySpreadArgs> args = ParseArgs(doc);
    ASSERT_TRUE(args.ok()) << doc.dump() << ": " << args.status();
    EXPECT_EQ(args->defaulting_type, DefaultingType::kSystem) << doc.dump();
    EXPECT_TRUE(args->default_constraints.empty()) << doc.dump();
  }
}

TEST(PodTopologySpreadArgsTest, DecodesList) {
  absl::StatusOr<PodTopologySpreadArgs> args = ParseArgs(json::parse(R"({
    "defaultingType": "List",
    "defaultConstraints": [
      {"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone",
       "whenUnsatisfiable": "DoNotSchedule", "minDomains": 2, "nodeTaintsPolicy": "Honor",
       "matchLabelKeys": ["app"]},
      {"maxSkew": 3, "topologyKey": "kubernetes.io/hostname",
       "whenUnsatisfiable": "ScheduleAnyway"}]})"));
  ASSERT_TRUE(args.ok()) << args.status();
  EXPECT_EQ(args->defaulting_type, DefaultingType::kList);
  ASSERT_EQ(args->default_constraints.size(), 2u);
  const api::TopologySpreadConstraint& zone = args->default_constraints[0];
  EXPECT_EQ(zone.max_skew, 1);
  EXPECT_EQ(zone.topology_key, "topology.kubernetes.io/zone");
  EXPECT_EQ(zone.when_unsatisfiable, "DoNotSchedule");
  EXPECT_EQ(zone.min_domains, 2);
  EXPECT_EQ(zone.node_affinity_policy, std::nullopt);
  EXPECT_EQ(zone.node_taints_policy, "Honor");
  EXPECT_EQ(zone.match_label_keys, std::vector<std::string>{"app"});
  EXPECT_EQ(args->default_constraints[1].when_unsatisfiable, "ScheduleAnyway");
}

TEST(PodTopologySpreadArgsTest, Encodes) {
  const std::vector<ArgsCase> cases = {
      {"defaults", "null", "",
       R"({"apiVersion":"kubescheduler.config.k8s.io/v1","defaultingType":"System",)"
       R"("kind":"PodTopologySpreadArgs"})"},
      {"an empty list", R"({"defaultingType": "List", "defaultConstraints": []})", "",
       R"({"apiVersion":"kubescheduler.config.k8s.io/v1","defaultingType":"List",)"
       R"("kind":"PodTopologySpreadArgs"})"},
      // As kube-scheduler 1.36.3 --write-config-to prints it: optional fields when given, an
      // explicit "" policy included, an empty matchLabelKeys left out.
      {"constraints",
       R"({"defaultingType": "List", "defaultConstraints": [
           {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule",
            "minDomains": 2, "nodeAffinityPolicy": "", "nodeTaintsPolicy": "Honor",
            "matchLabelKeys": ["app"]},
           {"maxSkew": 2, "topologyKey": "host", "whenUnsatisfiable": "ScheduleAnyway",
            "matchLabelKeys": []}]})",
       "",
       R"({"apiVersion":"kubescheduler.config.k8s.io/v1","defaultConstraints":[)"
       R"({"matchLabelKeys":["app"],"maxSkew":1,"minDomains":2,"nodeAffinityPolicy":"",)"
       R"("nodeTaintsPolicy":"Honor","topologyKey":"zone","whenUnsatisfiable":"DoNotSchedule"},)"
       R"({"maxSkew":2,"topologyKey":"host","whenUnsatisfiable":"ScheduleAnyway"}],)"
       R"("defaultingType":"List","kind":"PodTopologySpreadArgs"})"},
  };
  for (const ArgsCase& c : cases)
    EXPECT_EQ(DecodedOrError(MakeArgsDecoder(ParseArgs, ArgsToJson), c), c.want) << c.name;
}

// metav1validation.ValidateLabelName's message for "a b".
constexpr char kBadLabelName[] =
    R"(Invalid value: "a b": name part must consist of alphanumeric characters, '-', '_' or )"
    "'.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  "
    "or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

TEST(PodTopologySpreadArgsTest, Errors) {
  const std::string p = "profiles[0].pluginConfig[0].args.";
  const std::vector<ArgsCase> cases = {
      {"unsupported defaulting type", R"({"defaultingType": "Foo"})", "",
       R"(defaultingType: Unsupported value: "Foo": supported values: "System", "List")"},
      {"System with constraints",
       R"({"defaultConstraints": [{"maxSkew": 1, "topologyKey": "zone",
                                   "whenUnsatisfiable": "DoNotSchedule"}]})",
       "", R"(defaultingType: Invalid value: "System": when .defaultConstraints are not empty)"},
      {"zero maxSkew",
       R"({"defaultingType": "List", "defaultConstraints": [
           {"maxSkew": 0, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"}]})",
       "", "defaultConstraints[0].maxSkew: Invalid value: 0: not in valid range (0, inf)"},
      {"bad topologyKey",
       R"({"defaultingType": "List", "defaultConstraints": [
           {"maxSkew": 1, "topologyKey": "a b", "whenUnsatisfiable": "DoNotSchedule"}]})",
       "", std::string("defaultConstraints[0].topologyKey: ") + kBadLabelName},
      {"unsupported whenUnsatisfiable",
       R"({"defaultingType": "List", "defaultConstraints": [
           {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "Foo"}]})",
       "",
       R"(defaultConstraints[0].whenUnsatisfiable: Unsupported value: "Foo": supported values: )"
       R"("DoNotSchedule", "ScheduleAnyway")"},
      {"a selector",
       R"({"defaultingType": "List", "defaultConstraints": [
           {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule",
            "labelSelector": {"matchLabels": {"app": "web"},
                              "matchExpressions": [{"key": "tier", "operator": "Exists"}]}}]})",
       "",
       "defaultConstraints[0].labelSelector: Forbidden: constraint must not define a selector, as "
       "they deduced for each pod"},
      // kube-scheduler 1.36.3's output for the same document, in the same order.
      {"everything wrong with one constraint",
       R"({"defaultConstraints": [{"maxSkew": 0, "topologyKey": "", "whenUnsatisfiable": "Foo",
                                   "labelSelector": {}}]})",
       "profiles[0].pluginConfig[0].args",
       "[" + p + R"(defaultingType: Invalid value: "System": when .defaultConstraints are not )" +
           "empty, " + p + "defaultConstraints[0].maxSkew: Invalid value: 0: not in valid range " +
           "(0, inf), " + p + "defaultConstraints[0].topologyKey: Required value: can not be " +
           "empty, " + p +
           R"(defaultConstraints[0].whenUnsatisfiable: Unsupported value: "Foo": )" +
           R"(supported values: "DoNotSchedule", "ScheduleAnyway", )" + p +
           "defaultConstraints[0].labelSelector: Forbidden: constraint must not define a " +
           "selector, as they deduced for each pod]"},
      {"duplicates, each against the first",
       R"({"defaultingType": "List", "defaultConstraints": [
           {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"},
           {"maxSkew": 2, "topologyKey": "zone", "whenUnsatisfiable": "ScheduleAnyway"},
           {"maxSkew": 3, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"},
           {"maxSkew": 4, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"}]})",
       "profiles[0].pluginConfig[0].args",
       "[" + p + R"(defaultConstraints[2]: Duplicate value: "{zone, DoNotSchedule}", )" + p +
           R"(defaultConstraints[3]: Duplicate value: "{zone, DoNotSchedule}"])"},
      {"unsupported type stops the System check; empty fields still compared",
       R"({"defaultingType": "Foo", "defaultConstraints": [
           {"maxSkew": -1, "topologyKey": "a b"}, {"maxSkew": 1, "topologyKey": "a b"}]})",
       "",
       R"([defaultingType: Unsupported value: "Foo": supported values: "System", "List", )"
       "defaultConstraints[0].maxSkew: Invalid value: -1: not in valid range (0, inf), "
       "defaultConstraints[0].topologyKey: " +
           std::string(kBadLabelName) +
           ", defaultConstraints[0].whenUnsatisfiable: Required value: can not be empty, "
           "defaultConstraints[1].topologyKey: " +
           kBadLabelName +
           ", defaultConstraints[1].whenUnsatisfiable: Required value: can not be empty, "
           R"(defaultConstraints[1]: Duplicate value: "{a b, }"])"},
      {"unknown field", R"({"defaultConstraint": []})", "profiles[0].pluginConfig[0].args",
       R"(unknown field "profiles[0].pluginConfig[0].args.defaultConstraint")"},
      {"unknown field in a constraint",
       R"({"defaultingType": "List", "defaultConstraints": [{"maxSkew": 1, "skew": 1}]})", "",
       R"(unknown field "defaultConstraints[0].skew")"},
      {"unknown field in a selector",
       R"({"defaultingType": "List", "defaultConstraints": [{"labelSelector": {"foo": 1}}]})", "",
       R"(unknown field "defaultConstraints[0].labelSelector.foo")"},
      {"selector labels of the wrong type",
       R"({"defaultingType": "List", "defaultConstraints": [
           {"labelSelector": {"matchLabels": {"app": 5}}}]})",
       "", "defaultConstraints[0].labelSelector.matchLabels.app: expected a string"},
      {"a string for an integer",
       R"({"defaultingType": "List", "defaultConstraints": [{"maxSkew": "1"}]})", "",
       R"(defaultConstraints[0].maxSkew: expected an integer, got "1")"},
      {"a number for a string", R"({"defaultingType": 1})", "",
       "defaultingType: expected a string"},
      {"constraints not a list", R"({"defaultConstraints": {}})", "",
       "defaultConstraints: expected a list"},
  };
  for (const ArgsCase& c : cases)
    EXPECT_EQ(DecodedOrError(MakeArgsDecoder(ParseArgs, ArgsToJson), c), c.want) << c.name;
}

}  // namespace
}  // namespace ksched::plugins::pod_topology_spread
