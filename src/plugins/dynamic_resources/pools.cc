#include "src/plugins/dynamic_resources/pools.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "fmt/format.h"
#include "ksched/api/selectors.h"
#include "src/plugins/dynamic_resources/allocator.h"

namespace ksched::plugins::dynamic_resources {
namespace {

std::string Unsupported(std::string_view what, const std::vector<std::string>& paths) {
  return fmt::format("{}: {} is not supported by ksched yet", what, paths.front());
}

// Upstream's buildPool for a pool whose slices of one generation are all there: the node's
// (`slices`) and those that do not reach it (`rest`). The slices with counter sets give the
// pool's counters, wherever they are; the devices of the node's other slices are searched, and
// those of the rest only count for the counters they consume.
void BuildPool(std::vector<const api::ResourceSlice*> slices,
               const std::vector<const api::ResourceSlice*>& rest, Pool* pool) {
  std::sort(slices.begin(), slices.end(),
            [](const auto* a, const auto* b) { return a->metadata.name < b->metadata.name; });
  std::vector<const api::ResourceSlice*> counter_slices;
  for (const api::ResourceSlice* s : slices) {
    (s->shared_counters.empty() ? pool->slices : counter_slices).push_back(s);
  }
  for (const api::ResourceSlice* s : rest) {
    (s->shared_counters.empty() ? pool->other_slices : counter_slices).push_back(s);
  }
  std::set<std::string_view> names;
  for (const api::ResourceSlice* s : pool->slices) {
    if (pool->invalid.empty() && !s->unsupported.empty()) {
      pool->invalid = Unsupported("ResourceSlice " + s->metadata.name, s->unsupported);
      pool->unsupported = true;
    }
    for (const api::Device& d : s->devices) {
      if (pool->invalid.empty() && !d.unsupported.empty()) {
        pool->invalid = Unsupported(
            fmt::format("ResourceSlice {}, device {}", s->metadata.name, d.name), d.unsupported);
        pool->unsupported = true;
      }
      if (!names.insert(d.name).second && pool->invalid.empty()) {
        pool->invalid = fmt::format("duplicate device name {}", d.name);
      }
    }
  }
  if (!pool->invalid.empty()) return;
  for (const api::ResourceSlice* s : counter_slices) {
    for (const api::CounterSet& set : s->shared_counters) {
      if (!pool->counter_sets.emplace(set.name, &set).second) {
        pool->invalid = fmt::format("duplicate counter set name {}", set.name);
        return;
      }
    }
  }
  for (const auto* list : {&pool->slices, &pool->other_slices}) {
    for (const api::ResourceSlice* s : *list) {
      for (const api::Device& d : s->devices) {
        for (const api::DeviceCounterConsumption& c : d.consumes_counters) {
          auto set = pool->counter_sets.find(c.counter_set);
          if (set == pool->counter_sets.end()) {
            pool->invalid = fmt::format("counter set {} not found", c.counter_set);
            return;
          }
          for (const auto& [counter, quantity] : c.counters) {
            if (!set->second->counters.contains(counter)) {
              pool->invalid =
                  fmt::format("counter {} not found in counter set {}", counter, c.counter_set);
              return;
            }
          }
        }
      }
    }
  }
}

// The pools of the slices `for_node` that reach `node`, each of its newest generation among
// `all`.
std::vector<Pool> GatherPools(const std::vector<const api::ResourceSlice*>& for_node,
                              const api::Node& node,
                              const std::vector<std::shared_ptr<const api::ResourceSlice>>& all) {
  std::map<std::pair<std::string_view, std::string_view>, std::vector<const api::ResourceSlice*>>
      by_pool;
  for (const api::ResourceSlice* slice : for_node) {
    bool relevant = false;
    if ((slice->node_name && !slice->node_name->empty()) || slice->all_nodes ||
        slice->node_selector) {
      relevant = NodeMatches(node, slice->node_name, slice->all_nodes, slice->node_selector);
    } else if (slice->per_device_node_selection) {
      relevant = std::any_of(slice->devices.begin(), slice->devices.end(), [&](const auto& d) {
        return NodeMatches(node, d.node_name, d.all_nodes.value_or(false), d.node_selector);
      });
    }
    if (!relevant) continue;
    auto& pool = by_pool[{slice->driver, slice->pool}];
    if (!pool.empty() && slice->pool_generation < pool.front()->pool_generation) continue;
    if (!pool.empty() && slice->pool_generation > pool.front()->pool_generation) pool.clear();
    pool.push_back(slice);
  }
  std::vector<Pool> pools;
  for (auto& [id, slices] : by_pool) {
    Pool pool{.driver = std::string(id.first), .name = std::string(id.second)};
    const int64_t generation = slices.front()->pool_generation;
    const int64_t count = slices.front()->pool_slice_count;
    std::vector<const api::ResourceSlice*> rest;  // Of its generation, not reaching the node.
    if (static_cast<int64_t>(slices.size()) != count) {
      // Incomplete here; complete if the rest of its generation reaches other nodes.
      int64_t of_generation = 0;
      bool obsolete = false;
      for (const auto& s : all) {
        if (s->driver != pool.driver || s->pool != pool.name) continue;
        if (s->pool_generation > generation) obsolete = true;
        if (s->pool_generation != generation) continue;
        ++of_generation;
        if (std::find(slices.begin(), slices.end(), s.get()) == slices.end()) {
          rest.push_back(s.get());
        }
      }
      if (obsolete) continue;
      if (of_generation != count) {
        pool.incomplete = true;
        pools.push_back(std::move(pool));
        continue;
      }
    }
    BuildPool(std::move(slices), rest, &pool);
    pools.push_back(std::move(pool));
  }
  // By driver and name (the map kept them so), those with devices that have binding conditions
  // last: the search takes a device that needs no attaching first.
  std::stable_partition(pools.begin(), pools.end(), [](const Pool& pool) {
    return std::none_of(pool.slices.begin(), pool.slices.end(), [](const api::ResourceSlice* s) {
      return std::any_of(s->devices.begin(), s->devices.end(),
                         [](const api::Device& d) { return !d.binding_conditions.empty(); });
    });
  });
  return pools;
}

}  // namespace

SliceIndex::SliceIndex(std::vector<std::shared_ptr<const api::ResourceSlice>> slices)
    : slices_(std::move(slices)) {
  for (const auto& s : slices_) {
    if (s->node_name && !s->node_name->empty()) {
      on_node_[*s->node_name].push_back(s.get());
    } else {
      shared_.push_back(s.get());
    }
  }
}

SliceIndex::~SliceIndex() = default;

std::shared_ptr<const std::vector<Pool>> SliceIndex::PoolsFor(const api::Node& node) const {
  {
    absl::MutexLock lock(&mu_);
    auto it = by_node_.find(node.metadata.name);
    if (it != by_node_.end() && it->second.labels == node.metadata.labels) return it->second.pools;
  }
  std::vector<const api::ResourceSlice*> for_node = shared_;
  if (auto it = on_node_.find(node.metadata.name); it != on_node_.end()) {
    for_node.insert(for_node.begin(), it->second.begin(), it->second.end());
  }
  auto pools = std::make_shared<const std::vector<Pool>>(GatherPools(for_node, node, slices_));
  absl::MutexLock lock(&mu_);
  by_node_[node.metadata.name] = {.labels = node.metadata.labels, .pools = pools};
  return pools;
}

}  // namespace ksched::plugins::dynamic_resources
