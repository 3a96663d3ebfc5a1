#include "src/cli/feature_gate_flags.h"

#include "absl/strings/str_join.h"
#include "fmt/format.h"
#include "ksched/log.h"

namespace ksched::cli {

void AddFeatureGateFlags(CLI::App* cmd, features::Flags* flags) {
  // The versions a version flag takes, and its default: "kube=1.33..1.36(default:1.36)".
  const features::FeatureGates defaults;
  auto range = [](features::Version default_version) {
    return fmt::format("kube={}..{}(default:{})", features::FeatureGates::Floor().String(),
                       features::FeatureGates::BinaryVersion().String(), default_version.String());
  };
  // Upstream's help, word for word (its missing space before "Options are" included).
  cmd->add_option(
         "--feature-gates", flags->feature_gates,
         "Comma-separated list of component:key=value pairs that describe feature gates for "
         "alpha/experimental features of different components.\nIf the component is not specified, "
         "defaults to \"kube\". This flag can be repeatedly invoked. For example: --feature-gates "
         "'wardle:featureA=true,wardle:featureB=false' --feature-gates 'kube:featureC=true'Options "
         "are:\n" +
             absl::StrJoin(features::FeatureGates::KnownFeatures(), "\n"))
      ->allow_extra_args(false);
  cmd->add_option("--emulated-version", flags->emulated_version,
                  "The versions different components emulate their capabilities (APIs, features, "
                  "...) of.\nIf set, the component will emulate the behavior of this version "
                  "instead of the underlying binary version.\nVersion format could only be "
                  "major.minor, for example: '--emulated-version=wardle=1.2,kube=1.31'.\nOptions "
                  "are: " +
                      range(defaults.emulation_version()) +
                      "\nIf the component is not specified, defaults to \"kube\"")
      ->allow_extra_args(false);
  cmd->add_option(
         "--min-compatibility-version", flags->min_compatibility_version,
         "The min version of control plane components the server should be compatible with.\nMust "
         "be less or equal to the emulated-version. Version format could only be major.minor, for "
         "example: '--min-compatibility-version=wardle=1.2,kube=1.31'.\nOptions are: " +
             range(defaults.min_compatibility_version()) +
             "\nIf the component is not specified, defaults to \"kube\"")
      ->allow_extra_args(false);
}

absl::StatusOr<features::FeatureGates> FeatureGatesFromFlags(const features::Flags& flags) {
  std::vector<features::Warning> warnings;
  absl::StatusOr<features::FeatureGates> gates =
      features::FeatureGates::FromFlags(flags, &warnings);
  for (const features::Warning& w : warnings) {
    KLOG(0, w.Message(), {"featureGate", w.gate}, {"value", w.value});
  }
  if (!gates.ok()) return gates.status();
  if (absl::Status s = gates->CheckImplemented(); !s.ok()) return s;
  return gates;
}

void RecordFeatureGates(const features::FeatureGates& gates, metrics::Registry* registry) {
  metrics::GaugeFamily& family = registry->AddGauge(
      "kubernetes_feature_enabled",
      "This metric records the data about the stage and enablement of a k8s feature.",
      metrics::Stability::kBeta, {"name", "stage"});
  for (const features::FeatureGates::Series& s : gates.MetricSeries()) {
    family.With({s.name, s.stage})->Set(s.enabled ? 1 : 0);
  }
}

plugins::Features PluginFeatures(const features::FeatureGates& gates) {
  return {.node_declared_features = gates.Enabled("NodeDeclaredFeatures"),
          .storage_capacity_scoring = gates.Enabled("StorageCapacityScoring"),
          .volume_limit_scaling = gates.Enabled("VolumeLimitScaling"),
          .device_taint_rules = gates.Enabled("DRADeviceTaintRules"),
          .device_taints = gates.Enabled("DRADeviceTaints"),
          .partitionable_devices = gates.Enabled("DRAPartitionableDevices"),
          .consumable_capacity = gates.Enabled("DRAConsumableCapacity"),
          .fractional_capacity_range = gates.Enabled("DRAFractionalCapacityRange"),
          .device_binding_conditions = gates.Enabled("DRADeviceBindingConditions") &&
                                       gates.Enabled("DRAResourceClaimDeviceStatus"),
          .dra_extended_resource = gates.Enabled("DRAExtendedResource"),
          .dra_workload_resource_claims = gates.Enabled("DRAWorkloadResourceClaims"),
          .generic_workload = gates.Enabled("GenericWorkload"),
          .topology_aware_workload_scheduling = gates.Enabled("TopologyAwareWorkloadScheduling")};
}

}  // namespace ksched::cli
