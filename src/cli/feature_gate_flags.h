// --feature-gates, --emulated-version and --min-compatibility-version, as kube-scheduler has them,
// for `ksched run` and `ksched simulate` (src/features/feature_gates.h reads them).
//
//   features::Flags flags;
//   AddFeatureGateFlags(cmd, &flags);
//   absl::StatusOr<features::FeatureGates> gates = FeatureGatesFromFlags(flags);
#pragma once

#include "CLI/CLI.hpp"
#include "absl/status/statusor.h"
#include "src/features/feature_gates.h"
#include "src/metrics/metrics.h"
#include "src/plugins/features.h"

namespace ksched::cli {

void AddFeatureGateFlags(CLI::App* cmd, features::Flags* flags);
// The gates the flags give, a GA or deprecated gate's warning logged as kube-scheduler logs it;
// an error in upstream's words for a bad flag, or naming what ksched does not implement.
absl::StatusOr<features::FeatureGates> FeatureGatesFromFlags(const features::Flags& flags);
// kubernetes_feature_enabled: each gate's stage and value, as kube-scheduler records them once
// it is set up.
void RecordFeatureGates(const features::FeatureGates& gates, metrics::Registry* registry);
// The gates the in-tree plugins decide by, as `gates` set them.
plugins::Features PluginFeatures(const features::FeatureGates& gates);

}  // namespace ksched::cli
