// The stores of the objects plugins read besides nodes and pods, as the informers last saw them:
// by name (ObjectsByName), by namespace and name (ObjectsByNamespace), and the storage objects
// the volume plugins list (StorageObjects, the SDK's StorageLister).
//
//   ObjectsByNamespace<api::Service> services;
//   services.Set(std::make_shared<const api::Service>(svc));
//   for (const auto& s : services.List("default")) ...
//
// Thread safety: every method of every store may be called concurrently.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "ksched/api/objects.h"
#include "ksched/storage_lister.h"

namespace ksched::cache {

// Objects of one kind by name (Namespaces), as the informers last saw them.
// Thread safety: all methods may be called concurrently.
template <typename T>
class ObjectsByName {
 public:
  void Set(std::shared_ptr<const T> obj) {
    absl::MutexLock lock(&mu_);
    objects_[obj->metadata.name] = std::move(obj);
    changes_.fetch_add(1, std::memory_order_release);
  }
  void Remove(std::string_view name) {
    absl::MutexLock lock(&mu_);
    if (auto it = objects_.find(name); it != objects_.end()) objects_.erase(it);
    changes_.fetch_add(1, std::memory_order_release);
  }
  std::shared_ptr<const T> Get(std::string_view name) const {
    absl::ReaderMutexLock lock(&mu_);
    auto it = objects_.find(name);
    return it == objects_.end() ? nullptr : it->second;
  }
  std::shared_ptr<const T> GetLike(const T& obj) const { return Get(obj.metadata.name); }
  void Remove(const T& obj) { Remove(obj.metadata.name); }
  // Every object, by name.
  std::vector<std::shared_ptr<const T>> ListAll() const {
    absl::ReaderMutexLock lock(&mu_);
    std::vector<std::shared_ptr<const T>> out;
    out.reserve(objects_.size());
    for (const auto& [name, obj] : objects_) out.push_back(obj);
    return out;
  }
  // How many Sets and Removes there have been.
  uint64_t changes() const { return changes_.load(std::memory_order_acquire); }

 private:
  mutable absl::Mutex mu_;
  std::map<std::string, std::shared_ptr<const T>, std::less<>> objects_ ABSL_GUARDED_BY(mu_);
  std::atomic<uint64_t> changes_{0};
};

// Namespaced objects of one kind (Services, ReplicaSets, ...) by namespace and name, as the
// informers last saw them. Thread safety: all methods may be called concurrently.
template <typename T>
class ObjectsByNamespace {
 public:
  void Set(std::shared_ptr<const T> obj) {
    absl::MutexLock lock(&mu_);
    objects_[{obj->metadata.namespace_, obj->metadata.name}] = std::move(obj);
    changes_.fetch_add(1, std::memory_order_release);
  }
  void Remove(const std::string& ns, const std::string& name) {
    absl::MutexLock lock(&mu_);
    objects_.erase({ns, name});
    changes_.fetch_add(1, std::memory_order_release);
  }
  void Remove(const T& obj) { Remove(obj.metadata.namespace_, obj.metadata.name); }
  std::shared_ptr<const T> Get(std::string_view ns, std::string_view name) const {
    absl::ReaderMutexLock lock(&mu_);
    auto it = objects_.find(std::pair(ns, name));  // No key strings made: the order is transparent.
    return it == objects_.end() ? nullptr : it->second;
  }
  // How many Sets and Removes there have been.
  uint64_t changes() const { return changes_.load(std::memory_order_acquire); }
  std::shared_ptr<const T> GetLike(const T& obj) const {
    return Get(obj.metadata.namespace_, obj.metadata.name);
  }
  // The objects of one namespace, by name.
  std::vector<std::shared_ptr<const T>> List(std::string_view ns) const {
    absl::MutexLock lock(&mu_);
    std::vector<std::shared_ptr<const T>> out;
    for (auto it = objects_.lower_bound({std::string(ns), ""});
         it != objects_.end() && it->first.first == ns; ++it) {
      out.push_back(it->second);
    }
    return out;
  }
  // Every namespace's objects, by namespace and name.
  std::vector<std::shared_ptr<const T>> ListAll() const {
    absl::ReaderMutexLock lock(&mu_);
    std::vector<std::shared_ptr<const T>> out;
    out.reserve(objects_.size());
    for (const auto& [key, obj] : objects_) out.push_back(obj);
    return out;
  }

 private:
  // (namespace, name) pairs of strings or string_views, compared as pairs of string_views.
  struct KeyLess {
    using is_transparent = void;
    template <typename A, typename B>
    bool operator()(const A& a, const B& b) const {
      return std::pair<std::string_view, std::string_view>(a.first, a.second) <
             std::pair<std::string_view, std::string_view>(b.first, b.second);
    }
  };
  mutable absl::Mutex mu_;
  std::map<std::pair<std::string, std::string>, std::shared_ptr<const T>, KeyLess> objects_
      ABSL_GUARDED_BY(mu_);
  std::atomic<uint64_t> changes_{0};
};

// The storage objects, as the informers last saw them (StorageLister for the volume plugins).
// Thread safety: all methods may be called concurrently.
class StorageObjects final : public StorageLister {
 public:
  std::shared_ptr<const api::PersistentVolume> GetPersistentVolume(
      std::string_view name) const override {
    return pvs.Get(name);
  }
  std::shared_ptr<const api::PersistentVolumeClaim> GetPersistentVolumeClaim(
      std::string_view ns, std::string_view name) const override {
    return pvcs.Get(ns, name);
  }
  std::shared_ptr<const api::StorageClass> GetStorageClass(std::string_view name) const override {
    return storage_classes.Get(name);
  }
  std::shared_ptr<const api::CSINode> GetCSINode(std::string_view name) const override {
    return csi_nodes.Get(name);
  }
  std::shared_ptr<const api::CSIDriver> GetCSIDriver(std::string_view name) const override {
    return csi_drivers.Get(name);
  }
  std::vector<std::shared_ptr<const api::PersistentVolume>> ListPersistentVolumes(
      std::string_view storage_class) const override;
  std::vector<std::shared_ptr<const api::CSIStorageCapacity>> ListCSIStorageCapacities()
      const override {
    return csi_storage_capacities.ListAll();
  }
  std::vector<std::shared_ptr<const api::VolumeAttachment>> ListVolumeAttachments() const override {
    return volume_attachments.ListAll();
  }
  uint64_t Generation() const override {
    return pvs.changes() + pvcs.changes() + storage_classes.changes() + csi_nodes.changes() +
           csi_drivers.changes() + csi_storage_capacities.changes() + volume_attachments.changes() +
           unreadable_changes_.load(std::memory_order_relaxed);
  }
  std::string Unreadable(std::string_view kind, std::string_view key) const override;
  // Records why an object could not be decoded ("" forgets it).
  void SetUnreadable(std::string_view kind, std::string_view key, std::string_view error);

  ObjectsByName<api::PersistentVolume> pvs;
  ObjectsByNamespace<api::PersistentVolumeClaim> pvcs;
  ObjectsByName<api::StorageClass> storage_classes;
  ObjectsByName<api::CSINode> csi_nodes;
  ObjectsByName<api::CSIDriver> csi_drivers;
  ObjectsByNamespace<api::CSIStorageCapacity> csi_storage_capacities;
  ObjectsByName<api::VolumeAttachment> volume_attachments;

 private:
  mutable absl::Mutex unreadable_mu_;
  absl::flat_hash_map<std::string, std::string> unreadable_  // By "<kind>/<key>".
      ABSL_GUARDED_BY(unreadable_mu_);
  std::atomic<uint64_t> unreadable_changes_{0};
};

}  // namespace ksched::cache
