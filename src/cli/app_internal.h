// The app API (ksched/app.h) on another set of in-tree plugins, for tests: a ksched without the
// guides' plugins loads them from libksched_guides.so.
#pragma once

#include <vector>

#include "ksched/app.h"
#include "ksched/registry.h"

namespace ksched::app {

// Run, with `in_tree` in place of plugins::NewInTreeRegistry().
int RunWithInTree(Registry in_tree, int argc, char** argv, const std::vector<Option>& options);

}  // namespace ksched::app
