#include "src/plugins/helper/signers.h"

#include "gtest/gtest.h"

namespace ksched::plugins::helper {
namespace {

api::Pod PodWithTolerations(std::vector<api::Toleration> tolerations) {
  api::Pod pod;
  pod.spec.tolerations = std::move(tolerations);
  return pod;
}

TEST(SignersTest, TolerationsInAnotherOrderSignTheSame) {
  api::Toleration a{.key = "a", .op = "Exists", .effect = "NoSchedule"};
  api::Toleration b{.key = "b", .op = "Equal", .value = "x"};
  EXPECT_EQ(SignTolerations(PodWithTolerations({a, b})),
            SignTolerations(PodWithTolerations({b, a})));
  api::Toleration c = b;
  c.toleration_seconds = 30;
  EXPECT_NE(SignTolerations(PodWithTolerations({a, b})),
            SignTolerations(PodWithTolerations({a, c})));
}

TEST(SignersTest, NodeAffinityIgnoresTheOrderOfTermsRequirementsAndValues) {
  api::NodeSelectorRequirement zone{.key = "zone", .op = "In", .values = {"b", "a"}};
  api::NodeSelectorRequirement disk{.key = "disk", .op = "Exists"};
  api::Pod one, two, none;
  one.spec.affinity.emplace()
      .node_affinity.emplace()
      .required_during_scheduling_ignored_during_execution.emplace()
      .node_selector_terms = {{.match_expressions = {zone, disk}}};
  std::swap(zone.values[0], zone.values[1]);
  two.spec.affinity.emplace()
      .node_affinity.emplace()
      .required_during_scheduling_ignored_during_execution.emplace()
      .node_selector_terms = {{.match_expressions = {disk, zone}}};
  EXPECT_EQ(SignNodeAffinity(one), SignNodeAffinity(two));
  EXPECT_EQ(SignNodeAffinity(none), "null");
  two.spec.affinity->node_affinity->preferred_during_scheduling_ignored_during_execution = {
      {.weight = 5, .preference = {.match_expressions = {disk}}}};
  EXPECT_NE(SignNodeAffinity(one), SignNodeAffinity(two));
}

TEST(SignersTest, HostPortsOnceEachAndSorted) {
  api::Pod pod;
  pod.spec.containers = {{.name = "a",
                          .ports = {{.container_port = 80, .host_port = 8080},
                                    {.container_port = 81, .host_port = 0}}}};
  pod.spec.init_containers = {{.name = "b",
                               .ports = {{.container_port = 1, .host_port = 53},
                                         {.container_port = 2, .host_port = 8080}}}};
  EXPECT_EQ(SignHostPorts(pod), "{53, 8080}");
}

TEST(SignersTest, VolumesBySourceNotNameAndWithoutConfigMapsAndSecrets) {
  api::Pod a, b;
  a.spec.volumes = {{.name = "data", .source = "hostPath", .source_digest = 7},
                    {.name = "cfg", .source = "configMap", .source_digest = 1}};
  b.spec.volumes = {{.name = "other", .source = "hostPath", .source_digest = 7},
                    {.name = "token", .source = "secret", .source_digest = 2}};
  EXPECT_EQ(SignVolumes(a), SignVolumes(b));
  b.spec.volumes[0].source_digest = 8;  // Another path, say.
  EXPECT_NE(SignVolumes(a), SignVolumes(b));
}

TEST(SignersTest, LabelsAreQuotedSoThatNoTwoMapsReadTheSame) {
  EXPECT_NE(SignLabels({{"a", "b,\"c\":\"d"}}), SignLabels({{"a", "b"}, {"c", "d"}}));
}

}  // namespace
}  // namespace ksched::plugins::helper
