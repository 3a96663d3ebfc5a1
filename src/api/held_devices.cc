#include <algorithm>
#include <utility>

#include "ksched/dra_lister.h"

namespace ksched {

void HeldDevices::Count(const api::AllocationResult& allocation, int delta) {
  std::vector<std::pair<std::string_view, std::string_view>> changed;  // Driver and pool.
  for (const api::DeviceRequestAllocationResult& r : allocation.results) {
    if (r.admin_access) continue;
    auto& counts = by_driver_[r.driver][r.pool].counts;
    auto it = counts.try_emplace(r.device, 0).first;
    if ((it->second += delta) <= 0) counts.erase(it);
    const std::pair<std::string_view, std::string_view> key{r.driver, r.pool};
    if (std::find(changed.begin(), changed.end(), key) == changed.end()) changed.push_back(key);
  }
  // Each changed pool gets a new snapshot, or goes when it holds nothing any more.
  for (const auto& [driver, pool_name] : changed) {
    auto d = by_driver_.find(driver);
    auto p = d->second.find(pool_name);
    Pool& pool = p->second;
    if (pool.counts.empty()) {
      d->second.erase(p);
      if (d->second.empty()) by_driver_.erase(d);
      continue;
    }
    auto names = std::make_shared<Names>();
    names->reserve(pool.counts.size());
    for (const auto& [name, count] : pool.counts) names->insert(name);
    pool.names = std::move(names);
  }
}

std::shared_ptr<const HeldDevices::Names> HeldDevices::InPool(std::string_view driver,
                                                              std::string_view pool) const {
  if (by_driver_.empty()) return nullptr;  // Often so for the pending ones: no hashing then.
  auto d = by_driver_.find(driver);
  if (d == by_driver_.end()) return nullptr;
  auto p = d->second.find(pool);
  return p == d->second.end() ? nullptr : p->second.names;
}

}  // namespace ksched
