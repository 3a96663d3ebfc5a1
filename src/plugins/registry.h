// The in-tree plugins, listed explicitly (static registration can silently fail in archives).
#pragma once

#include "ksched/registry.h"
#include "src/features/feature_gates.h"

namespace ksched::plugins {

// kube-scheduler's in-tree plugins under their upstream names (upstream's NewInTreeRegistry), as
// `gates` make them decide (upstream's plugins/feature.Features). The guides' plugins are not among
// them (contrib/guides).
Registry NewInTreeRegistry(const features::FeatureGates& gates = features::FeatureGates());

}  // namespace ksched::plugins
