#include "src/api/api_fields.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace ksched::api {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

std::vector<std::string> Unknown(const char* json, std::string_view kind) {
  simdjson::dom::parser parser;
  simdjson::dom::element e = parser.parse(json, std::strlen(json));
  return UnknownFields(e, kind);
}

TEST(ApiFieldsTest, EveryKindIsServedAtItsVersion) {
  EXPECT_EQ(ServedApiVersion("Pod"), "v1");
  EXPECT_EQ(ServedApiVersion("StatefulSet"), "apps/v1");
  EXPECT_EQ(ServedApiVersion("PodDisruptionBudget"), "policy/v1");
  EXPECT_EQ(ServedApiVersion("PriorityClass"), "scheduling.k8s.io/v1");
  EXPECT_EQ(ServedApiVersion("CSIStorageCapacity"), "storage.k8s.io/v1");
  EXPECT_EQ(ServedApiVersion("ResourceClaimTemplate"), "resource.k8s.io/v1");
  EXPECT_EQ(ServedApiVersion("Deployment"), "");
}

TEST(ApiFieldsTest, FindsTyposAtAnyDepthInDocumentOrder) {
  EXPECT_THAT(
      Unknown(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"w","labels":{"a":"b"}},
      "spec":{"containers":[{"name":"c","image":"x","resources":{"requests":{"cpu":"1"}}},
                            {"name":"d","resources":{"request":{"cpu":"1"}}}],
              "nodeSelecter":{"a":"b"},
              "affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":
                {"nodeSelectorTerms":[{"matchExpressions":[{"key":"z","operater":"In"}]}]}}}},
      "status":{"phase":"Pending"}})",
              "Pod"),
      ElementsAre("spec.containers[1].resources.request", "spec.nodeSelecter",
                  "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"
                  ".nodeSelectorTerms[0].matchExpressions[0].operater"));
  EXPECT_THAT(Unknown(R"({"metadata":{"name":"n","Labels":{}},"status":{"allocatable":{"cpu":"1"}},
                         "spec":{"taints":[{"key":"a","efect":"NoSchedule"}]}})",
                      "Node"),
              ElementsAre("metadata.Labels", "spec.taints[0].efect"));
  EXPECT_THAT(
      Unknown(R"({"value":10,"globalDefault":true,"description":"x","preemptionPolicy":"Never"})",
              "PriorityClass"),
      IsEmpty());
}

TEST(ApiFieldsTest, AnyJsonIsAllowedWhereTheTypeHoldsAnyJson) {
  // A DRA driver's opaque parameters are a RawExtension; a map's keys are data, not fields.
  EXPECT_THAT(Unknown(R"({"spec":{"config":[{"opaque":{"driver":"gpu.example.com",
                                  "parameters":{"anything":{"goes":[1]}}}}],
                                "selectors":[{"cel":{"expression":"true"}}]},
                         "metadata":{"annotations":{"any/key":"v"}}})",
                      "DeviceClass"),
              IsEmpty());
  EXPECT_THAT(Unknown(R"({"spec":{"config":[{"opaque":{"drivers":"x"}}]}})", "DeviceClass"),
              ElementsAre("spec.config[0].opaque.drivers"));
}

TEST(ApiFieldsTest, WrongTypesAreLeftToTheDecoder) {
  EXPECT_THAT(Unknown(R"({"spec":{"containers":{"name":"c"},"nodeSelector":"x"}})", "Pod"),
              IsEmpty());
}

}  // namespace
}  // namespace ksched::api
