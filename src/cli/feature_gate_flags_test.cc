#include "src/cli/feature_gate_flags.h"

#include <gtest/gtest.h>

namespace ksched::cli {
namespace {

// plugins::Features' defaults are kube-scheduler v1.37.2's, and the flags reach the plugins.
TEST(PluginFeaturesTest, TheDefaultsAreThePinsAndTheFlagsSetThem) {
  const plugins::Features defaults = PluginFeatures(features::FeatureGates());
  const plugins::Features plain;
  EXPECT_EQ(defaults.node_declared_features, plain.node_declared_features);
  EXPECT_EQ(defaults.storage_capacity_scoring, plain.storage_capacity_scoring);
  EXPECT_EQ(defaults.volume_limit_scaling, plain.volume_limit_scaling);
  EXPECT_EQ(defaults.device_taint_rules, plain.device_taint_rules);
  EXPECT_EQ(defaults.device_taints, plain.device_taints);
  EXPECT_EQ(defaults.partitionable_devices, plain.partitionable_devices);
  EXPECT_EQ(defaults.consumable_capacity, plain.consumable_capacity);
  EXPECT_EQ(defaults.device_binding_conditions, plain.device_binding_conditions);
  EXPECT_EQ(defaults.generic_workload, plain.generic_workload);

  // NodeDeclaredFeatures is locked on since 1.37; 1.35 has it, and the others, off.
  absl::StatusOr<features::FeatureGates> gates =
      features::FeatureGates::FromFlags({.emulated_version = {"1.35"}});
  ASSERT_TRUE(gates.ok()) << gates.status();
  plugins::Features set = PluginFeatures(*gates);
  EXPECT_FALSE(set.node_declared_features);
  EXPECT_FALSE(set.storage_capacity_scoring);
  EXPECT_FALSE(set.volume_limit_scaling);
  EXPECT_FALSE(set.device_taint_rules);
  EXPECT_FALSE(set.device_taints);
  EXPECT_FALSE(set.partitionable_devices);
  EXPECT_FALSE(set.consumable_capacity);
  EXPECT_FALSE(set.device_binding_conditions);
  gates = features::FeatureGates::FromFlags(
      {.feature_gates = {"StorageCapacityScoring=false,DRADeviceTaintRules=false"}});
  ASSERT_TRUE(gates.ok()) << gates.status();
  set = PluginFeatures(*gates);
  EXPECT_TRUE(set.node_declared_features);
  EXPECT_FALSE(set.storage_capacity_scoring);
  EXPECT_TRUE(set.volume_limit_scaling);
  EXPECT_FALSE(set.device_taint_rules);
  EXPECT_FALSE(set.generic_workload);
  gates = features::FeatureGates::FromFlags({.feature_gates = {"GenericWorkload=true"}});
  ASSERT_TRUE(gates.ok()) << gates.status();
  EXPECT_TRUE(PluginFeatures(*gates).generic_workload);
}

}  // namespace
}  // namespace ksched::cli
