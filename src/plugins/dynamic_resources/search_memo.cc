#include <string>

#include "src/plugins/dynamic_resources/allocator.h"
#include "src/plugins/dynamic_resources/pools.h"

namespace ksched::plugins::dynamic_resources {

namespace {

std::string PoolKey(std::string_view driver, std::string_view pool) {
  std::string key;  // A driver's name has no '/'.
  key.reserve(driver.size() + 1 + pool.size());
  return key.append(driver).append("/").append(pool);
}

}  // namespace

void SearchMemo::Begin(const std::vector<const api::ResourceClaim*>& claims,
                       const std::shared_ptr<const SliceIndex>& slices, const HeldViews& held) {
  absl::MutexLock lock(&mu_);
  if (!HoldsLocked(claims, slices.get())) {
    ClearLocked();
    slices_ = slices.get();
    for (const api::ResourceClaim* c : claims) specs_.push_back(c->spec);
    held_ = held;
    return;
  }
  // What was kept saw the last Begin's devices in use. The key is the name in the node the entry
  // holds: an older entry goes with its key.
  for (std::shared_ptr<const Entry>& entry : kept_) {
    const std::string_view name = entry->node->metadata.name;
    for (const Pool& pool : *entry->pools) by_pool_[PoolKey(pool.driver, pool.name)].emplace(name);
    Slot slot{.node = entry->node.get(), .entry = std::move(entry)};
    const Allocator::Outcome& out = slot.entry->outcome;
    if (out.node_failure.empty() && out.why.empty()) {
      slot.plain = out.fits ? Slot::Plain::kFits : Slot::Plain::kDoesNotFit;
    }
    by_node_.erase(name);
    by_node_.emplace(name, std::move(slot));
  }
  kept_.clear();
  ForgetChanged(held);
  held_ = held;
}

bool SearchMemo::Holds(const std::vector<const api::ResourceClaim*>& claims,
                       const SliceIndex* slices) {
  absl::MutexLock lock(&mu_);
  return HoldsLocked(claims, slices);
}

void SearchMemo::ForgetUnless(const SliceIndex* slices) {
  absl::MutexLock lock(&mu_);
  if (slices_ != slices) ClearLocked();
}

void SearchMemo::ClearLocked() {
  slices_ = nullptr;
  specs_.clear();
  by_node_.clear();
  by_pool_.clear();
  kept_.clear();
  held_ = {};
}

bool SearchMemo::HoldsLocked(const std::vector<const api::ResourceClaim*>& claims,
                             const SliceIndex* slices) {
  return slices_ == slices && specs_.size() == claims.size() &&
         std::equal(specs_.begin(), specs_.end(), claims.begin(),
                    [](const auto& spec, const auto* c) { return spec == c->spec; });
}

void SearchMemo::ForgetChanged(const HeldViews& now) {
  absl::flat_hash_set<std::string> changed;  // "driver/pool"
  auto compare = [&](const std::shared_ptr<const HeldDevices::View>& before,
                     const std::shared_ptr<const HeldDevices::View>& after) {
    if (before == after) return;
    // A pool in one view only, or with other names in the other.
    auto differs = [&](const std::shared_ptr<const HeldDevices::View>& other) {
      return [&](std::string_view driver, std::string_view pool,
                 const std::shared_ptr<const HeldDevices::Pool>& names) {
        if (other == nullptr || other->InPool(driver, pool) != names) {
          changed.insert(PoolKey(driver, pool));
        }
      };
    };
    if (after != nullptr) after->ForEach(differs(before));
    if (before != nullptr) before->ForEach(differs(after));
  };
  compare(held_.allocated, now.allocated);
  compare(held_.pending, now.pending);
  for (const std::string& key : changed) {
    auto it = by_pool_.find(key);
    if (it == by_pool_.end()) continue;
    for (const std::string& node : it->second) by_node_.erase(node);
    by_pool_.erase(it);
  }
}

const SearchMemo::Slot* SearchMemo::Find(std::string_view node) const {
  auto it = by_node_.find(node);
  return it == by_node_.end() ? nullptr : &it->second;
}

void SearchMemo::Keep(std::shared_ptr<const Entry> entry) {
  absl::MutexLock lock(&mu_);
  kept_.push_back(std::move(entry));
}

}  // namespace ksched::plugins::dynamic_resources
