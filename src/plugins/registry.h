// The in-tree plugins, listed explicitly (static registration can silently fail in archives).
#pragma once

#include "ksched/registry.h"
#include "src/plugins/features.h"

namespace ksched::plugins {

// kube-scheduler's in-tree plugins under their upstream names (upstream's NewInTreeRegistry), as
// the feature gates make them decide. The guides' plugins are not among them (contrib/guides).
Registry NewInTreeRegistry(const Features& features = Features());

}  // namespace ksched::plugins
