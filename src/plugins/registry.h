// The in-tree plugins, listed explicitly (static registration can silently fail in archives).
#pragma once

#include "ksched/registry.h"

namespace ksched::plugins {

// Every in-tree plugin under its upstream name (upstream's NewInTreeRegistry).
Registry NewInTreeRegistry();

}  // namespace ksched::plugins
