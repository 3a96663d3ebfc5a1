#include "src/cli/feature_gate_flags.h"

#include <gtest/gtest.h>

namespace ksched::cli {
namespace {

// plugins::Features' defaults are kube-scheduler v1.36.3's, and the flags reach the plugins.
TEST(PluginFeaturesTest, TheDefaultsAreThePinsAndTheFlagsSetThem) {
  const plugins::Features defaults = PluginFeatures(features::FeatureGates());
  const plugins::Features plain;
  EXPECT_EQ(defaults.node_declared_features, plain.node_declared_features);
  EXPECT_EQ(defaults.storage_capacity_scoring, plain.storage_capacity_scoring);
  EXPECT_EQ(defaults.volume_limit_scaling, plain.volume_limit_scaling);

  // NodeDeclaredFeatures off needs its dependents off, InPlacePodLevelResourcesVerticalScaling
  // among them, which ksched does not implement yet: the gates are read without that check.
  absl::StatusOr<features::FeatureGates> gates = features::FeatureGates::FromFlags(
      {.feature_gates = {"StorageCapacityScoring=true,VolumeLimitScaling=true",
                         "NodeDeclaredFeatures=false,ExtendWebSocketsToKubelet=false,"
                         "InPlacePodLevelResourcesVerticalScaling=false,"
                         "InPlacePodVerticalScalingInitContainers=false,"
                         "RestartAllContainersOnContainerExits=false"}});
  ASSERT_TRUE(gates.ok()) << gates.status();
  const plugins::Features set = PluginFeatures(*gates);
  EXPECT_FALSE(set.node_declared_features);
  EXPECT_TRUE(set.storage_capacity_scoring);
  EXPECT_TRUE(set.volume_limit_scaling);
}

}  // namespace
}  // namespace ksched::cli
