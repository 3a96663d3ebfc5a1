#include "src/sim/claims.h"

#include <gtest/gtest.h>

namespace ksched::sim {
namespace {

api::Pod PodNamed(std::string name) {
  api::Pod pod;
  pod.metadata = {.name = std::move(name), .namespace_ = "ml", .uid = "ml/pod"};
  return pod;
}

api::ResourceClaimTemplate Template() {
  api::ResourceClaimTemplate t;
  t.metadata = {.name = "one-gpu", .namespace_ = "ml"};
  t.claim_labels = {{"app", "train"}};
  t.claim_annotations = {{"team", "a"}};
  t.spec.requests.push_back(
      {.name = "gpu", .exactly = api::DeviceSubRequest{.device_class_name = "gpu"}});
  return t;
}

// As the resourceclaim controller makes it: named after the pod and its claim, owned by the pod,
// with the template's labels, annotations and spec, and the pod's claim name.
TEST(ClaimFromTemplateTest, IsWhatTheControllerMakes) {
  api::Pod pod = PodNamed("train");
  api::PodResourceClaim pc{.name = "gpu", .resource_claim_template_name = "one-gpu"};
  api::ResourceClaim claim = ClaimFromTemplate(pod, pc, Template());
  ASSERT_EQ(claim.metadata.name.size(), std::string("train-gpu-").size() + 5);
  EXPECT_EQ(claim.metadata.name.rfind("train-gpu-", 0), 0u);
  EXPECT_EQ(claim.metadata.name.find_first_not_of("bcdfghjklmnpqrstvwxz2456789", 10),
            std::string::npos);
  EXPECT_EQ(claim.metadata.namespace_, "ml");
  EXPECT_EQ(claim.metadata.uid, "ml/" + claim.metadata.name);
  ASSERT_EQ(claim.metadata.owner_references.size(), 1u);
  EXPECT_EQ(claim.metadata.owner_references[0].kind, "Pod");
  EXPECT_EQ(claim.metadata.owner_references[0].uid, "ml/pod");
  EXPECT_TRUE(claim.metadata.owner_references[0].controller);
  EXPECT_EQ(claim.metadata.labels.at("app"), "train");
  EXPECT_EQ(claim.metadata.annotations.at("team"), "a");
  EXPECT_EQ(claim.metadata.annotations.at(kPodClaimNameAnnotation), "gpu");
  EXPECT_EQ(claim.spec.requests[0].exactly->device_class_name, "gpu");
  // Repeatable: the same pod and claim get the same name.
  EXPECT_EQ(ClaimFromTemplate(pod, pc, Template()).metadata.name, claim.metadata.name);
}

// Long names are cut in proportion, to at most 57 characters before the suffix.
TEST(ClaimFromTemplateTest, LongNamesAreCutInProportion) {
  api::Pod pod = PodNamed(std::string(60, 'p'));
  api::PodResourceClaim pc{.name = std::string(30, 'c'), .resource_claim_template_name = "t"};
  const std::string name = ClaimFromTemplate(pod, pc, Template()).metadata.name;
  // 92 characters with the hyphens: the pod's 60 become 60*57/92 = 37, the claim's 30 become 18,
  // joined by a hyphen and with none after, as upstream cuts them.
  EXPECT_EQ(name.substr(0, 56), std::string(37, 'p') + "-" + std::string(18, 'c'));
  EXPECT_EQ(name.size(), 61u);
}

}  // namespace
}  // namespace ksched::sim
