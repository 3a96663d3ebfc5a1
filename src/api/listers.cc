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

void DraObjects::ClaimChanged(const api::ResourceClaim* old, const api::ResourceClaim* now) {
  absl::MutexLock lock(&allocated_mu_);
  if (old != nullptr && old->allocation) allocated_.Count(*old->allocation, -1);
  if (now != nullptr && now->allocation) allocated_.Count(*now->allocation, +1);
}

std::shared_ptr<const HeldDevices::Pool> DraObjects::AllocatedInPool(std::string_view driver,
                                                                     std::string_view pool) const {
  absl::ReaderMutexLock lock(&allocated_mu_);
  return allocated_.InPool(driver, pool);
}

std::shared_ptr<const HeldDevices::View> DraObjects::Allocated() const {
  absl::MutexLock lock(&allocated_mu_);
  return allocated_.Snapshot();
}

std::shared_ptr<const api::DeviceClass> DraObjects::ExtendedResourceClass(
    std::string_view resource) const {
  std::shared_ptr<const ClassesByResource> map;
  {
    absl::MutexLock lock(&extended_mu_);
    const uint64_t changes = device_classes.changes();
    if (extended_ == nullptr || extended_changes_ != changes) {
      auto made = std::make_shared<ClassesByResource>();
      for (const auto& c : device_classes.ListAll()) {  // By name.
        (*made)[std::string(kDeviceClassResourcePrefix) + c->metadata.name] = c;
        if (!c->extended_resource_name) continue;
        std::shared_ptr<const api::DeviceClass>& owner = (*made)[*c->extended_resource_name];
        // The newer class; at the same time, the one listed first. (RFC 3339 times of one form
        // compare as strings.)
        if (owner == nullptr ||
            c->metadata.creation_timestamp > owner->metadata.creation_timestamp) {
          owner = c;
        }
      }
      extended_ = std::move(made);
      extended_changes_ = changes;
    }
    map = extended_;
  }
  auto it = map->find(resource);
  return it == map->end() ? nullptr : it->second;
}

CustomObjects::Store& CustomObjects::Watch(const CustomResource& resource) {
  absl::MutexLock lock(&mu_);
  auto it = stores_.find(resource.resource);
  if (it == stores_.end()) {
    it = stores_.emplace(resource.resource, std::make_unique<Store>(resource)).first;
  } else if (it->second->resource().kind.empty() && !resource.kind.empty()) {
    // Registered by an event first: the lister's owner brings the kind and its checks. Nothing
    // watches it yet (sources start after every plugin is made), so the store can be replaced.
    it->second = std::make_unique<Store>(resource);
  }
  return *it->second;
}

CustomObjects::Store* CustomObjects::Find(std::string_view resource) const {
  absl::MutexLock lock(&mu_);
  auto it = stores_.find(resource);
  return it == stores_.end() ? nullptr : it->second.get();
}

CustomObjects::Store* CustomObjects::FindKind(std::string_view api_version,
                                              std::string_view kind) const {
  absl::MutexLock lock(&mu_);
  for (const auto& [name, store] : stores_) {
    const CustomResource& r = store->resource();
    if (r.kind == kind && r.ApiVersion() == api_version) return store.get();
  }
  return nullptr;
}

std::vector<CustomObjects::Store*> CustomObjects::All() const {
  absl::MutexLock lock(&mu_);
  std::vector<Store*> out;
  for (const auto& [name, store] : stores_) out.push_back(store.get());
  return out;
}

void PodsByNamespace::Set(std::shared_ptr<const api::Pod> pod) {
  if (!enabled()) return;
  absl::MutexLock lock(&mu_);
  auto& pods = by_namespace_[pod->metadata.namespace_];
  pods.insert_or_assign(pod->metadata.uid, std::move(pod));
}

void PodsByNamespace::Remove(const api::Pod& pod) {
  if (!enabled()) return;
  absl::MutexLock lock(&mu_);
  auto ns = by_namespace_.find(pod.metadata.namespace_);
  if (ns == by_namespace_.end()) return;
  ns->second.erase(pod.metadata.uid);
  if (ns->second.empty()) by_namespace_.erase(ns);
}

std::vector<std::shared_ptr<const api::Pod>> PodsByNamespace::List(std::string_view ns) const {
  absl::MutexLock lock(&mu_);
  std::vector<std::shared_ptr<const api::Pod>> out;
  auto it = by_namespace_.find(std::string(ns));
  if (it == by_namespace_.end()) return out;
  out.reserve(it->second.size());
  for (const auto& [uid, pod] : it->second) out.push_back(pod);
  return out;
}

}  // namespace ksched
