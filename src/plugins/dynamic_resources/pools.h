// The pools of devices a node sees (upstream's structured.GatherPools), shared by the slice index
// (pools.cc) and the search (allocator.cc).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ksched/api/core.h"
#include "ksched/api/resource.h"
#include "src/plugins/helper/dra_extended.h"

namespace ksched::plugins::dynamic_resources {

// A pool of devices as one node sees it (upstream's Pool).
struct Pool {
  std::string driver, name;
  bool incomplete = false;
  std::string invalid;       // Why it is invalid, "" if it is not.
  bool unsupported = false;  // Invalid for a field ksched does not support (`invalid` names it).
  std::vector<const api::ResourceSlice*>
      slices;  // Those with devices that reach the node, by name.
  // Partitionable devices: the pool's slices with devices for other nodes (their allocated devices
  // consume the pool's counters too), and its counter sets by name, from whichever slices hold
  // them.
  std::vector<const api::ResourceSlice*> other_slices;
  std::map<std::string_view, const api::CounterSet*> counter_sets;
  std::string Id() const { return driver + "/" + name; }
};

using helper::NodeMatches;

}  // namespace ksched::plugins::dynamic_resources
