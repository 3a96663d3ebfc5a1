// The informers' stores, which are also the listers plugins read through the Handle: one copy of
// every watched object besides pods and nodes, as client-go's informer store is both the
// reflector's copy and the lister's. A source keeps them in step with the cluster (the real
// cluster's reflectors write them, src/client; the embedded cluster of `ksched simulate` does,
// src/sim); the scheduler owns them and reads them (Handle::GetNamespace, ListServices, storage,
// dra).
//
//   Listers listers;
//   std::shared_ptr<const api::Service> old = listers.services.Set(svc);  // what it replaced
//   for (const auto& s : listers.services.List("default")) ...
//   listers.storage.GetPersistentVolumeClaim("default", "data");           // a StorageLister
//
// Thread safety: every method of every store may be called concurrently.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/container/btree_map.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "absl/types/compare.h"
#include "ksched/api/objects.h"
#include "ksched/custom_objects.h"
#include "ksched/dra_lister.h"
#include "ksched/handle.h"
#include "ksched/storage_lister.h"

namespace ksched {

// The objects of one kind, by namespace and name (namespace "" for cluster-scoped kinds).
// Thread safety: all methods may be called concurrently.
template <typename T>
class ObjectStore {
 public:
  // Sets `obj` under its namespace and name; returns the object it replaced, or nullptr.
  std::shared_ptr<const T> Set(std::shared_ptr<const T> obj) {
    absl::MutexLock lock(&mu_);
    changes_.fetch_add(1, std::memory_order_release);
    const T* now = obj.get();
    const api::ObjectMeta& m = obj->metadata;
    std::shared_ptr<const T> old;
    if (auto it =
            objects_.find(std::pair<std::string_view, std::string_view>(m.namespace_, m.name));
        it != objects_.end()) {
      old = std::exchange(it->second, std::move(obj));
    } else {
      objects_.emplace(std::pair(m.namespace_, m.name), std::move(obj));
    }
    if (on_change_) on_change_(old.get(), now);
    return old;
  }
  // Removes the object of this namespace and name; returns it, or nullptr if there was none.
  std::shared_ptr<const T> Remove(std::string_view ns, std::string_view name) {
    absl::MutexLock lock(&mu_);
    changes_.fetch_add(1, std::memory_order_release);
    auto it = objects_.find(std::pair(ns, name));
    if (it == objects_.end()) return nullptr;
    std::shared_ptr<const T> old = std::move(it->second);
    objects_.erase(it);
    if (on_change_) on_change_(old.get(), nullptr);
    return old;
  }
  // Called under the store's lock on every Set and Remove with the object before and after
  // (nullptr: none), so that an index kept by the owner is always in step with the store. Set
  // before the first write.
  void OnChange(std::function<void(const T* old, const T* now)> fn) { on_change_ = std::move(fn); }
  // A cluster-scoped object, by name.
  std::shared_ptr<const T> Remove(std::string_view name) { return Remove("", name); }
  std::shared_ptr<const T> Remove(const T& obj) {
    return Remove(obj.metadata.namespace_, obj.metadata.name);
  }
  // nullptr where there is no such object.
  std::shared_ptr<const T> Get(std::string_view ns, std::string_view name) const {
    absl::ReaderMutexLock lock(&mu_);
    auto it = objects_.find(std::pair(ns, name));  // No key strings made: the order is transparent.
    return it == objects_.end() ? nullptr : it->second;
  }
  // A cluster-scoped object, by name.
  std::shared_ptr<const T> Get(std::string_view name) const { return Get("", name); }
  std::shared_ptr<const T> GetLike(const T& obj) const {
    return Get(obj.metadata.namespace_, obj.metadata.name);
  }
  // The objects of one namespace ("": of a cluster-scoped kind), by name.
  std::vector<std::shared_ptr<const T>> List(std::string_view ns) const {
    absl::ReaderMutexLock lock(&mu_);
    std::vector<std::shared_ptr<const T>> out;
    for (auto it = objects_.lower_bound(std::pair(ns, std::string_view()));
         it != objects_.end() && it->first.first == ns; ++it) {
      out.push_back(it->second);
    }
    return out;
  }
  // Every object, by namespace and name.
  std::vector<std::shared_ptr<const T>> ListAll() const {
    absl::ReaderMutexLock lock(&mu_);
    std::vector<std::shared_ptr<const T>> out;
    out.reserve(objects_.size());
    for (const auto& [key, obj] : objects_) out.push_back(obj);
    return out;
  }
  size_t size() const {
    absl::ReaderMutexLock lock(&mu_);
    return objects_.size();
  }
  // How many Sets and Removes there have been.
  uint64_t changes() const { return changes_.load(std::memory_order_acquire); }

 private:
  // (namespace, name) pairs of strings or string_views, compared as pairs of string_views, each
  // string once: a three-way answer lets the B-tree's search use each comparison once, where a
  // "less" compares the namespace both ways and then each key a second time.
  struct KeyLess {
    using is_transparent = void;
    template <typename A, typename B>
    absl::weak_ordering operator()(const A& a, const B& b) const {
      int c = std::string_view(a.first).compare(std::string_view(b.first));
      if (c == 0) c = std::string_view(a.second).compare(std::string_view(b.second));
      return c < 0    ? absl::weak_ordering::less
             : c == 0 ? absl::weak_ordering::equivalent
                      : absl::weak_ordering::greater;
    }
  };
  mutable absl::Mutex mu_;
  std::function<void(const T*, const T*)> on_change_;
  // A B-tree: its entries sit in arrays, with no allocation of their own.
  absl::btree_map<std::pair<std::string, std::string>, std::shared_ptr<const T>, KeyLess> objects_
      ABSL_GUARDED_BY(mu_);
  std::atomic<uint64_t> changes_{0};
};

// The storage objects (the SDK's StorageLister, for the volume plugins).
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

  ObjectStore<api::PersistentVolume> pvs;
  ObjectStore<api::PersistentVolumeClaim> pvcs;
  ObjectStore<api::StorageClass> storage_classes;
  ObjectStore<api::CSINode> csi_nodes;
  ObjectStore<api::CSIDriver> csi_drivers;
  ObjectStore<api::CSIStorageCapacity> csi_storage_capacities;
  ObjectStore<api::VolumeAttachment> volume_attachments;

 private:
  mutable absl::Mutex unreadable_mu_;
  absl::flat_hash_map<std::string, std::string> unreadable_  // By "<kind>/<key>".
      ABSL_GUARDED_BY(unreadable_mu_);
  std::atomic<uint64_t> unreadable_changes_{0};
};

// The DRA objects (the SDK's DraLister, for DynamicResources). Templates are kept by `ksched
// simulate` only, as kube-scheduler does not watch them.
// Thread safety: all methods may be called concurrently.
class DraObjects final : public DraLister {
 public:
  DraObjects();
  std::shared_ptr<const api::ResourceClaim> GetResourceClaim(std::string_view ns,
                                                             std::string_view name) const override {
    return resource_claims.Get(ns, name);
  }
  std::shared_ptr<const api::DeviceClass> GetDeviceClass(std::string_view name) const override {
    return device_classes.Get(name);
  }
  std::vector<std::shared_ptr<const api::ResourceClaim>> ListResourceClaims() const override {
    return resource_claims.ListAll();
  }
  std::vector<std::shared_ptr<const api::ResourceSlice>> ListResourceSlices() const override {
    return resource_slices.ListAll();
  }
  std::vector<std::shared_ptr<const api::DeviceTaintRule>> ListDeviceTaintRules() const override {
    return device_taint_rules.ListAll();
  }
  uint64_t ClaimsGeneration() const override { return resource_claims.changes(); }
  std::shared_ptr<const HeldDevices::Pool> AllocatedInPool(std::string_view driver,
                                                           std::string_view pool) const override;
  std::shared_ptr<const HeldDevices::View> Allocated() const override;
  uint64_t DevicesGeneration() const override {
    return resource_slices.changes() + device_classes.changes() + device_taint_rules.changes();
  }
  std::shared_ptr<const api::DeviceClass> ExtendedResourceClass(
      std::string_view resource) const override;

  ObjectStore<api::DeviceClass> device_classes;
  ObjectStore<api::ResourceSlice> resource_slices;
  ObjectStore<api::ResourceClaim> resource_claims;
  ObjectStore<api::ResourceClaimTemplate> resource_claim_templates;
  ObjectStore<api::DeviceTaintRule> device_taint_rules;

 private:
  // The claims' allocated devices, kept in step with resource_claims.
  void ClaimChanged(const api::ResourceClaim* old, const api::ResourceClaim* now);
  mutable absl::Mutex allocated_mu_;
  mutable HeldDevices allocated_ ABSL_GUARDED_BY(allocated_mu_);  // Its view made when asked.
  // ExtendedResourceClass's map, made again when the classes changed.
  using ClassesByResource =
      std::map<std::string, std::shared_ptr<const api::DeviceClass>, std::less<>>;
  mutable absl::Mutex extended_mu_;
  mutable std::shared_ptr<const ClassesByResource> extended_ ABSL_GUARDED_BY(extended_mu_);
  mutable uint64_t extended_changes_ ABSL_GUARDED_BY(extended_mu_) = 0;
};

// The custom resources plugins watch (Handle::WatchCustomResource, or events registered for
// one), each with its store.
class CustomObjects {
 public:
  class Store final : public CustomObjectLister {
   public:
    explicit Store(CustomResource resource) : resource_(std::move(resource)) {}
    const CustomResource& resource() const { return resource_; }
    ObjectStore<CustomObject>& objects() { return objects_; }
    std::shared_ptr<const CustomObject> Get(std::string_view ns,
                                            std::string_view name) const override {
      return objects_.Get(ns, name);
    }
    std::vector<std::shared_ptr<const CustomObject>> List(std::string_view ns) const override {
      return ns.empty() ? objects_.ListAll() : objects_.List(ns);
    }

   private:
    const CustomResource resource_;
    ObjectStore<CustomObject> objects_;
  };

  // The store of `resource.resource`, made on the first call; one made for an event registration
  // alone (no kind) is made again by the first call that gives the kind, before any source fills
  // it.
  Store& Watch(const CustomResource& resource);
  // nullptr where no plugin watches it.
  Store* Find(std::string_view resource) const;
  // The store whose resource has this apiVersion and kind (a manifest's), or nullptr.
  Store* FindKind(std::string_view api_version, std::string_view kind) const;
  // Every store, by resource.
  std::vector<Store*> All() const;

 private:
  mutable absl::Mutex mu_;
  std::map<std::string, std::unique_ptr<Store>, std::less<>> stores_ ABSL_GUARDED_BY(mu_);
};

// The cluster's pods that are not terminal, by namespace (Handle::pods): kept by the scheduler
// from the pod events, once a plugin asked for them (Enable).
class PodsByNamespace final : public PodLister {
 public:
  void Enable() { enabled_.store(true, std::memory_order_release); }
  bool enabled() const { return enabled_.load(std::memory_order_acquire); }
  // A pod added or updated (the later object replaces the earlier by UID), or removed.
  void Set(std::shared_ptr<const api::Pod> pod);
  void Remove(const api::Pod& pod);
  std::vector<std::shared_ptr<const api::Pod>> List(std::string_view ns) const override;

 private:
  std::atomic<bool> enabled_{false};
  mutable absl::Mutex mu_;
  absl::flat_hash_map<std::string,
                      absl::flat_hash_map<std::string, std::shared_ptr<const api::Pod>>>
      by_namespace_ ABSL_GUARDED_BY(mu_);
};

// Every store a source keeps for the scheduler's plugins.
struct Listers {
  // The store of T's objects; a kind without one (pods and nodes: the scheduler's cache keeps
  // them) does not compile.
  template <typename T>
  ObjectStore<T>& Of() {
    return std::get<ObjectStore<T>&>(std::tie(
        namespaces, priority_classes, services, replication_controllers, replica_sets,
        stateful_sets, pod_disruption_budgets, storage.pvs, storage.pvcs, storage.storage_classes,
        storage.csi_nodes, storage.csi_drivers, storage.csi_storage_capacities,
        storage.volume_attachments, dra.device_classes, dra.resource_slices, dra.resource_claims,
        dra.resource_claim_templates, dra.device_taint_rules, pod_groups));
  }
  template <typename T>
  static constexpr bool kHasStore = !std::is_same_v<T, api::Pod> && !std::is_same_v<T, api::Node>;

  ObjectStore<api::Namespace> namespaces;
  ObjectStore<api::PriorityClass> priority_classes;
  ObjectStore<api::Service> services;
  ObjectStore<api::ReplicationController> replication_controllers;
  ObjectStore<api::ReplicaSet> replica_sets;
  ObjectStore<api::StatefulSet> stateful_sets;
  ObjectStore<api::PodDisruptionBudget> pod_disruption_budgets;
  StorageObjects storage;
  DraObjects dra;
  ObjectStore<api::PodGroup> pod_groups;  // With GenericWorkload on.
  CustomObjects custom;
};

}  // namespace ksched
