#include "src/sim/validation.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace ksched::sim {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

api::Pod ValidPod() {
  api::Pod pod;
  pod.metadata = {.name = "web", .namespace_ = "default"};
  pod.spec.containers.push_back({.name = "c", .image = "registry.k8s.io/pause:3.10"});
  return pod;
}

TEST(ValidateObjectTest, AValidPodHasNoErrors) {
  api::Pod pod = ValidPod();
  pod.metadata.labels = {{"app.kubernetes.io/name", "web"}, {"tier", ""}};
  pod.spec.node_selector = {{"topology.kubernetes.io/zone", "eu-1a"}};
  pod.spec.tolerations.push_back({.op = "Exists"});  // Tolerates everything.
  pod.spec.containers[0].resources.requests["cpu"] = *api::Quantity::Parse("500m");
  pod.spec.containers[0].resources.limits["cpu"] = *api::Quantity::Parse("1");
  EXPECT_THAT(ValidateObject(pod), IsEmpty());
}

TEST(ValidateObjectTest, LabelKeysAreQualifiedNamesAsUpstreamChecksThem) {
  api::Pod pod = ValidPod();
  pod.metadata.labels = {{"/x", "v"}, {"Bad_Prefix.com/x", "v"}, {std::string(64, 'k'), "v"}};
  const std::string kNamePart = "name part must consist of alphanumeric characters";
  std::vector<std::string> errors = ValidateObject(pod);
  ASSERT_EQ(errors.size(), 3u);
  EXPECT_EQ(errors[0], "metadata.labels: Invalid value: \"/x\": prefix part must be non-empty");
  EXPECT_THAT(errors[1], ::testing::StartsWith("metadata.labels: Invalid value: "
                                               "\"Bad_Prefix.com/x\": prefix part a lowercase "
                                               "RFC 1123 subdomain must consist of"));
  EXPECT_EQ(errors[2], "metadata.labels: Invalid value: \"" + std::string(64, 'k') +
                           "\": name part must be no more than 63 characters");
}

TEST(ValidateObjectTest, SeveralErrorsAreListedAsKubectlPrintsThem) {
  api::Pod pod = ValidPod();
  pod.spec.containers[0].name = "";
  pod.spec.topology_spread_constraints.push_back({.max_skew = 1,
                                                  .topology_key = "zone",
                                                  .when_unsatisfiable = "ScheduleAnyway",
                                                  .min_domains = 2});
  std::vector<std::string> errors = ValidateObject(pod);
  EXPECT_THAT(errors,
              ElementsAre("spec.containers[0].name: Required value",
                          "spec.topologySpreadConstraints[0].minDomains: Invalid value: 2: can "
                          "only use minDomains if whenUnsatisfiable=DoNotSchedule, not "
                          "ScheduleAnyway"));
  EXPECT_EQ(InvalidObjectMessage(pod, errors),
            "Pod \"web\" is invalid: \n* spec.containers[0].name: Required value\n"
            "* spec.topologySpreadConstraints[0].minDomains: Invalid value: 2: can only use "
            "minDomains if whenUnsatisfiable=DoNotSchedule, not ScheduleAnyway");
  EXPECT_EQ(InvalidObjectMessage(pod, {errors[0]}),
            "Pod \"web\" is invalid: spec.containers[0].name: Required value");
}

TEST(ValidateObjectTest, SystemPriorityClassesMayBeAboveTheUserMaximum) {
  api::PriorityClass pc{.metadata = {.name = "system-node-critical"}, .value = 2000001000};
  EXPECT_THAT(ValidateObject(pc), IsEmpty());
  pc.metadata.name = "urgent";
  EXPECT_THAT(ValidateObject(pc),
              ElementsAre("value: Forbidden: maximum allowed value of a user defined priority is "
                          "1000000000"));
}

TEST(ValidateObjectTest, PodGroupsAreCheckedAsTheApiServersDeclarativeValidation) {
  api::PodGroup group;
  group.metadata = {.name = "train", .namespace_ = "default"};
  EXPECT_THAT(ValidateObject(group),
              ElementsAre("spec.schedulingPolicy: Invalid value: \"\": must specify one of: "
                          "`basic`, `gang`"));
  group.basic = true;
  group.gang_min_count = 0;
  group.gated_fields = {"spec.parentCompositePodGroupName"};
  EXPECT_THAT(
      ValidateObject(group),
      ElementsAre("spec.schedulingPolicy: Invalid value: \"{basic, gang}\": must specify exactly "
                  "one of: `basic`, `gang`",
                  "spec.schedulingPolicy.gang.minCount: Required value",
                  "spec.parentCompositePodGroupName: Forbidden: needs the CompositePodGroup "
                  "feature gate, which ksched does not implement yet"));
  // Left out (0) is missing; below 0 is too small (kube-apiserver v1.37.2's words, both).
  group.basic = false;
  group.gated_fields.clear();
  group.gang_min_count = -1;
  EXPECT_THAT(ValidateObject(group),
              ElementsAre("spec.schedulingPolicy.gang.minCount: Invalid value: -1: must be "
                          "greater than or equal to 1"));
  group.gang_min_count = 2;
  group.gated_fields.clear();
  EXPECT_THAT(ValidateObject(group), IsEmpty());
  // schedulingConstraints (TopologyAwareWorkloadScheduling): one topology key, a label key.
  group.scheduling_constraints.emplace();
  EXPECT_THAT(ValidateObject(group), IsEmpty());
  group.scheduling_constraints->topology_keys = {"", "Rack!"};
  EXPECT_THAT(
      ValidateObject(group),
      ElementsAre("spec.schedulingConstraints.topology: Too many: 2: must have at most 1 item"));
  group.scheduling_constraints->topology_keys = {""};
  EXPECT_THAT(ValidateObject(group),
              ElementsAre("spec.schedulingConstraints.topology[0].key: Required value"));
  group.scheduling_constraints->topology_keys = {"Rack!"};
  EXPECT_THAT(ValidateObject(group),
              ElementsAre(::testing::StartsWith("spec.schedulingConstraints.topology[0].key: "
                                                "Invalid value: \"Rack!\": name part must "
                                                "consist of")));
  group.scheduling_constraints->topology_keys = {"topology.kubernetes.io/rack"};
  EXPECT_THAT(ValidateObject(group), IsEmpty());
}

// spec.resourceClaims (DRAWorkloadResourceClaims), in kube-apiserver v1.37.2's words and order
// (kubectl apply --dry-run=server): duplicates first, then each item; too many, and no item is
// checked.
TEST(ValidateObjectTest, PodGroupClaimsAreCheckedAsTheApiServersDeclarativeValidation) {
  api::PodGroup group;
  group.metadata = {.name = "train", .namespace_ = "default"};
  group.gang_min_count = 2;
  group.resource_claims = {{.name = "gpu", .resource_claim_name = "c"},
                           {.name = "scratch", .resource_claim_template_name = "t"}};
  EXPECT_THAT(ValidateObject(group), IsEmpty());
  group.resource_claims = {{.name = "Dup", .resource_claim_name = "c"},
                           {.name = "Dup", .resource_claim_name = ""},
                           {.name = "", .resource_claim_name = "c"},
                           {.name = "none"}};
  EXPECT_THAT(
      ValidateObject(group),
      ElementsAre(
          "spec.resourceClaims[1]: Duplicate value: {\"name\":\"Dup\",\"resourceClaimName\":"
          "\"\"}",
          ::testing::StartsWith("spec.resourceClaims[0].name: Invalid value: \"Dup\": a "
                                "lowercase RFC 1123 label must consist of"),
          ::testing::StartsWith("spec.resourceClaims[1].name: Invalid value: \"Dup\": a "
                                "lowercase RFC 1123 label must consist of"),
          ::testing::StartsWith("spec.resourceClaims[1].resourceClaimName: Invalid value: "
                                "\"\": a lowercase RFC 1123 subdomain must consist of"),
          "spec.resourceClaims[2].name: Required value",
          "spec.resourceClaims[3]: Invalid value: \"\": must specify one of: "
          "`resourceClaimName`, `resourceClaimTemplateName`"));
  group.resource_claims = {
      {.name = "both", .resource_claim_name = "a", .resource_claim_template_name = "b"}};
  EXPECT_THAT(ValidateObject(group),
              ElementsAre("spec.resourceClaims[0]: Invalid value: \"{resourceClaimName, "
                          "resourceClaimTemplateName}\": must specify exactly one of: "
                          "`resourceClaimName`, `resourceClaimTemplateName`"));
  group.resource_claims.assign(5, {.name = "x/y"});
  EXPECT_THAT(ValidateObject(group),
              ElementsAre("spec.resourceClaims: Too many: 5: must have at most 4 items"));
}

}  // namespace
}  // namespace ksched::sim
