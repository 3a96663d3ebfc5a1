// The pools of devices a node sees (upstream's structured.GatherPools), shared by the slice index
// (pools.cc) and the search (allocator.cc).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ksched/api/core.h"
#include "ksched/api/resource.h"

namespace ksched::plugins::dynamic_resources {

// A pool of devices as one node sees it (upstream's Pool).
struct Pool {
  std::string driver, name;
  bool incomplete = false;
  std::string invalid;       // Why it is invalid, "" if it is not.
  bool unsupported = false;  // Invalid for a field ksched does not support (`invalid` names it).
  std::vector<const api::ResourceSlice*> slices;  // By name.
  std::string Id() const { return driver + "/" + name; }
};

// Whether a slice, or one device of a slice with per-device node selection, reaches the node
// (upstream's NodeMatches).
bool NodeMatches(const api::Node& node, const std::optional<std::string>& node_name, bool all_nodes,
                 const std::optional<api::NodeSelector>& selector);

}  // namespace ksched::plugins::dynamic_resources
