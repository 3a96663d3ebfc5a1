// The in-tree plugins, listed explicitly (static registration can silently fail in archives).
#pragma once

#include "ksched/registry.h"

namespace ksched::plugins {

// kube-scheduler's in-tree plugins under their upstream names (upstream's NewInTreeRegistry).
Registry NewUpstreamRegistry();

// ksched's in-tree plugins: kube-scheduler's and the guides' (guides.h).
Registry NewInTreeRegistry();

}  // namespace ksched::plugins
