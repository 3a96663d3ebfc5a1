#include "src/api/listers.h"

#include <tuple>

#include "absl/hash/hash.h"
#include "fmt/format.h"

namespace ksched {

std::vector<std::shared_ptr<const api::PersistentVolume>> StorageObjects::ListPersistentVolumes(
    std::string_view storage_class) const {
  std::vector<std::shared_ptr<const api::PersistentVolume>> out = pvs.ListAll();
  std::erase_if(out, [&](const auto& pv) { return api::StorageClassOf(*pv) != storage_class; });
  return out;
}

std::string StorageObjects::Unreadable(std::string_view kind, std::string_view key) const {
  absl::MutexLock lock(&unreadable_mu_);
  auto it = unreadable_.find(fmt::format("{}/{}", kind, key));
  return it == unreadable_.end() ? "" : it->second;
}

void StorageObjects::SetUnreadable(std::string_view kind, std::string_view key,
                                   std::string_view error) {
  const std::string k = fmt::format("{}/{}", kind, key);
  absl::MutexLock lock(&unreadable_mu_);
  if (error.empty()) {
    if (unreadable_.erase(k) == 0) return;
  } else {
    unreadable_[k] = error;
  }
  unreadable_changes_.fetch_add(1, std::memory_order_relaxed);
}

DraObjects::DraObjects() {
  resource_claims.OnChange([this](const api::ResourceClaim* old, const api::ResourceClaim* now) {
    ClaimChanged(old, now);
  });
}

// The pool and the device only: a cluster's drivers are few, and every lookup pays for the hash.
size_t DraObjects::DeviceHash::operator()(const DeviceView& d) const {
  return absl::HashOf(d.pool, d.device);
}

void DraObjects::ClaimChanged(const api::ResourceClaim* old, const api::ResourceClaim* now) {
  absl::MutexLock lock(&allocated_mu_);
  CountDevices(old, -1);
  CountDevices(now, +1);
}

void DraObjects::CountDevices(const api::ResourceClaim* claim, int delta) {
  if (claim == nullptr || !claim->allocation) return;
  for (const api::DeviceRequestAllocationResult& r : claim->allocation->results) {
    if (r.admin_access) continue;  // Not counted as allocated, as upstream's tracker.
    auto it = allocated_.find(DeviceView{r.driver, r.pool, r.device});
    if (it == allocated_.end())
      it = allocated_.emplace(Device{r.driver, r.pool, r.device}, 0).first;
    if ((it->second += delta) <= 0) allocated_.erase(it);
  }
}

bool DraObjects::DeviceAllocated(std::string_view driver, std::string_view pool,
                                 std::string_view device) const {
  absl::ReaderMutexLock lock(&allocated_mu_);
  return allocated_.contains(DeviceView{driver, pool, device});
}

}  // namespace ksched
