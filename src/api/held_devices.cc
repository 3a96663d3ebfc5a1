#include <algorithm>
#include <utility>

#include "ksched/dra_lister.h"

namespace ksched {

void HeldDevices::Count(const api::AllocationResult& allocation, int delta) {
  if (!allocation.results.empty()) view_.reset();
  std::vector<std::pair<std::string_view, std::string_view>> changed;  // Driver and pool.
  for (const api::DeviceRequestAllocationResult& r : allocation.results) {
    if (r.admin_access) continue;
    Counts& counts = by_driver_[r.driver][r.pool];
    if (r.share_id) {
      auto it = counts.shares.try_emplace(r.device).first;
      it->second.count += delta;
      for (const auto& [name, value] : r.consumed_capacity) {
        api::Quantity& sum = it->second.consumed[name];
        if (delta > 0) {
          sum += value;
        } else {
          sum -= value;
        }
      }
      if (it->second.count <= 0) counts.shares.erase(it);
    } else {
      auto it = counts.whole.try_emplace(r.device, 0).first;
      if ((it->second += delta) <= 0) counts.whole.erase(it);
    }
    const std::pair<std::string_view, std::string_view> key{r.driver, r.pool};
    if (std::find(changed.begin(), changed.end(), key) == changed.end()) changed.push_back(key);
  }
  // Each changed pool gets a new snapshot, or goes when it holds nothing any more.
  for (const auto& [driver, pool_name] : changed) {
    auto d = by_driver_.find(driver);
    auto p = d->second.find(pool_name);
    Counts& counts = p->second;
    if (counts.whole.empty() && counts.shares.empty()) {
      d->second.erase(p);
      if (d->second.empty()) by_driver_.erase(d);
      continue;
    }
    auto held = std::make_shared<Pool>();
    held->names.reserve(counts.whole.size());
    for (const auto& [name, count] : counts.whole) held->names.insert(name);
    held->shares = counts.shares;
    counts.held = std::move(held);
  }
}

std::shared_ptr<const HeldDevices::Pool> HeldDevices::InPool(std::string_view driver,
                                                             std::string_view pool) const {
  if (by_driver_.empty()) return nullptr;  // Often so for the pending ones: no hashing then.
  auto d = by_driver_.find(driver);
  if (d == by_driver_.end()) return nullptr;
  auto p = d->second.find(pool);
  return p == d->second.end() ? nullptr : p->second.held;
}

std::shared_ptr<const HeldDevices::View> HeldDevices::Snapshot() {
  if (view_ == nullptr) {
    auto view = std::make_shared<View>();
    for (const auto& [driver, pools] : by_driver_) {
      auto& out = view->by_driver_[driver];
      out.reserve(pools.size());
      for (const auto& [name, counts] : pools) out.emplace(name, counts.held);
    }
    view_ = std::move(view);
  }
  return view_;
}

const std::shared_ptr<const HeldDevices::Pool>& HeldDevices::View::InPool(
    std::string_view driver, std::string_view pool) const {
  static const std::shared_ptr<const Pool> kNone;
  if (by_driver_.empty()) return kNone;
  auto d = by_driver_.find(driver);
  if (d == by_driver_.end()) return kNone;
  auto p = d->second.find(pool);
  return p == d->second.end() ? kNone : p->second;
}

}  // namespace ksched
