// The in-tree plugins, listed explicitly (static registration can silently fail in archives).
#pragma once

#include "ksched/registry.h"

namespace ksched::plugins {

// kube-scheduler's in-tree plugins under their upstream names (upstream's NewInTreeRegistry). The
// guides' plugins are not among them (contrib/guides).
Registry NewInTreeRegistry();

}  // namespace ksched::plugins
