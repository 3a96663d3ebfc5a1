#include "src/client/cluster_source.h"

#include <atomic>

#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "fmt/format.h"
#include "ksched/strings.h"
#include "src/base/log.h"

namespace ksched::client {
namespace {

// The handlers of objects the scheduler keeps for plugins: the sink's `set` on add and update,
// its `remove` on delete. An object that cannot be decoded is removed too, so that no plugin goes
// on with a version it no longer has (a pod that needs it waits, as for a missing one); the sink
// learns why (OnUnreadable, under `kind`, until the object decodes or goes), and it is logged
// with its `kind` once for each new error, not at every event or relist.
template <typename T>
ReflectorHandlers<T> StoreHandlers(std::string kind, ClusterEventSink& s,
                                   void (ClusterEventSink::*set)(std::shared_ptr<const T>),
                                   void (ClusterEventSink::*remove)(const T&)) {
  struct Unreadable {
    Unreadable(std::string k, ClusterEventSink& s) : kind(std::move(k)), sink(s) {}
    std::string kind;
    ClusterEventSink& sink;
    absl::Mutex mu;
    absl::flat_hash_map<std::string, std::string> errors ABSL_GUARDED_BY(mu);  // By key.
    std::atomic<size_t> count{0};  // errors.size(), read without the lock.

    static std::string KeyOf(const T& obj) {
      const api::ObjectMeta& m = obj.metadata;
      return m.namespace_.empty() ? m.name : m.namespace_ + "/" + m.name;
    }
    // The object decoded, or went: it is readable again.
    void Forget(const T& obj) {
      if (count.load(std::memory_order_relaxed) == 0) return;  // The usual case.
      const std::string key = KeyOf(obj);
      {
        absl::MutexLock lock(&mu);
        if (errors.erase(key) == 0) return;
        count.store(errors.size(), std::memory_order_relaxed);
      }
      sink.OnUnreadable(kind, key, "");
    }
    void Record(const T& obj, const absl::Status& st) {
      const std::string key = KeyOf(obj);
      std::string err(AsStd(st.message()));
      {
        absl::MutexLock lock(&mu);
        std::string& last = errors[key];
        count.store(errors.size(), std::memory_order_relaxed);
        if (last == err) return;
        last = err;
      }
      KLOG_ERROR(fmt::format("Unable to decode {}", kind), {kind, key}, {"err", err});
      sink.OnUnreadable(kind, key, err);
    }
  };
  auto u = std::make_shared<Unreadable>(std::move(kind), s);
  return {.on_add =
              [&s, set, u](std::shared_ptr<const T> obj) {
                u->Forget(*obj);
                (s.*set)(std::move(obj));
              },
          .on_update =
              [&s, set, u](const std::shared_ptr<const T>&, std::shared_ptr<const T> obj) {
                u->Forget(*obj);
                (s.*set)(std::move(obj));
              },
          .on_delete =
              [&s, remove, u](const std::shared_ptr<const T>& obj) {
                u->Forget(*obj);
                (s.*remove)(*obj);
              },
          .on_decode_error =
              [&s, remove, u](const T& obj, const absl::Status& st) {
                u->Record(obj, st);
                (s.*remove)(obj);
              }};
}

}  // namespace

ApiSource::ApiSource(HttpClient& http, ClusterEventSink& s, ClusterWriter& writer)
    : sink_(s),
      writer_(writer),
      nodes_(
          http, {.path = "/api/v1/nodes"},
          {.on_add = [&s](const std::shared_ptr<const api::Node>& n) { s.OnNodeAdd(n); },
           .on_update = [&s](const std::shared_ptr<const api::Node>& o,
                             const std::shared_ptr<const api::Node>& n) { s.OnNodeUpdate(o, n); },
           .on_delete = [&s](const std::shared_ptr<const api::Node>& n) { s.OnNodeDelete(n); },
           .on_decode_error =
               [](const api::Node& n, const absl::Status& st) {
                 KLOG_ERROR("Unable to decode node", {"node", n.metadata.name},
                            {"err", std::string(AsStd(st.message()))});
               }}),
      pods_(
          http,
          {.path = "/api/v1/pods",
           .field_selector = "status.phase!=Succeeded,status.phase!=Failed"},
          {.on_add = [&s](std::shared_ptr<const api::Pod> p) { s.OnPodAdd(std::move(p)); },
           .on_update = [&s](const std::shared_ptr<const api::Pod>& o,
                             std::shared_ptr<const api::Pod> p) { s.OnPodUpdate(o, std::move(p)); },
           .on_delete = [&s](const std::shared_ptr<const api::Pod>& p) { s.OnPodDelete(p); },
           .on_decode_error =
               [this](const api::Pod& p, const absl::Status& st) {
                 KLOG_ERROR("Unable to decode pod",
                            {"pod", p.metadata.namespace_ + "/" + p.metadata.name},
                            {"err", std::string(AsStd(st.message()))});
                 if (p.spec.node_name.empty() && sink_.IsResponsibleFor(p)) {
                   writer_.RecordEvent(
                       p, "Warning", "FailedScheduling", "Scheduling",
                       fmt::format("failed to decode pod: {}", AsStd(st.message())));
                 }
               }}),
      namespaces_(http, {.path = "/api/v1/namespaces"},
                  StoreHandlers<api::Namespace>("namespace", s, &ClusterEventSink::OnNamespaceSet,
                                                &ClusterEventSink::OnNamespaceDelete)),
      priority_classes_(http,
                        {.path = "/apis/scheduling.k8s.io/v1/priorityclasses", .optional = true},
                        StoreHandlers<api::PriorityClass>(
                            "priorityClass", s, &ClusterEventSink::OnPriorityClassSet,
                            &ClusterEventSink::OnPriorityClassDelete)),
      services_(http, {.path = "/api/v1/services"},
                StoreHandlers<api::Service>("service", s, &ClusterEventSink::OnServiceSet,
                                            &ClusterEventSink::OnServiceDelete)),
      replication_controllers_(
          http, {.path = "/api/v1/replicationcontrollers"},
          StoreHandlers<api::ReplicationController>(
              "replicationController", s, &ClusterEventSink::OnReplicationControllerSet,
              &ClusterEventSink::OnReplicationControllerDelete)),
      replica_sets_(
          http, {.path = "/apis/apps/v1/replicasets"},
          StoreHandlers<api::ReplicaSet>("replicaSet", s, &ClusterEventSink::OnReplicaSetSet,
                                         &ClusterEventSink::OnReplicaSetDelete)),
      stateful_sets_(
          http, {.path = "/apis/apps/v1/statefulsets"},
          StoreHandlers<api::StatefulSet>("statefulSet", s, &ClusterEventSink::OnStatefulSetSet,
                                          &ClusterEventSink::OnStatefulSetDelete)),
      pod_disruption_budgets_(
          http, {.path = "/apis/policy/v1/poddisruptionbudgets"},
          StoreHandlers<api::PodDisruptionBudget>("podDisruptionBudget", s,
                                                  &ClusterEventSink::OnPodDisruptionBudgetSet,
                                                  &ClusterEventSink::OnPodDisruptionBudgetDelete)),
      pvs_(http, {.path = "/api/v1/persistentvolumes"},
           StoreHandlers<api::PersistentVolume>("persistentVolume", s,
                                                &ClusterEventSink::OnPersistentVolumeSet,
                                                &ClusterEventSink::OnPersistentVolumeDelete)),
      pvcs_(http, {.path = "/api/v1/persistentvolumeclaims"},
            StoreHandlers<api::PersistentVolumeClaim>(
                "persistentVolumeClaim", s, &ClusterEventSink::OnPersistentVolumeClaimSet,
                &ClusterEventSink::OnPersistentVolumeClaimDelete)),
      storage_classes_(
          http, {.path = "/apis/storage.k8s.io/v1/storageclasses"},
          StoreHandlers<api::StorageClass>("storageClass", s, &ClusterEventSink::OnStorageClassSet,
                                           &ClusterEventSink::OnStorageClassDelete)),
      csi_nodes_(http, {.path = "/apis/storage.k8s.io/v1/csinodes"},
                 StoreHandlers<api::CSINode>("csiNode", s, &ClusterEventSink::OnCSINodeSet,
                                             &ClusterEventSink::OnCSINodeDelete)),
      csi_drivers_(http, {.path = "/apis/storage.k8s.io/v1/csidrivers"},
                   StoreHandlers<api::CSIDriver>("csiDriver", s, &ClusterEventSink::OnCSIDriverSet,
                                                 &ClusterEventSink::OnCSIDriverDelete)),
      csi_storage_capacities_(
          http, {.path = "/apis/storage.k8s.io/v1/csistoragecapacities"},
          StoreHandlers<api::CSIStorageCapacity>("csiStorageCapacity", s,
                                                 &ClusterEventSink::OnCSIStorageCapacitySet,
                                                 &ClusterEventSink::OnCSIStorageCapacityDelete)),
      volume_attachments_(http, {.path = "/apis/storage.k8s.io/v1/volumeattachments"},
                          StoreHandlers<api::VolumeAttachment>(
                              "volumeAttachment", s, &ClusterEventSink::OnVolumeAttachmentSet,
                              &ClusterEventSink::OnVolumeAttachmentDelete)) {}

void ApiSource::Start() {
  std::apply([](auto&... r) { (r.Start(), ...); }, Reflectors());
}

void ApiSource::Stop() {
  std::apply([](auto&... r) { (r.Stop(), ...); }, Reflectors());
}

bool ApiSource::WaitForSync(absl::Duration timeout) {
  absl::Time deadline = absl::Now() + timeout;
  return std::apply([&](auto&... r) { return (r.WaitForSync(deadline - absl::Now()) && ...); },
                    Reflectors());
}

bool ApiSource::HasSynced() {
  return std::apply([](auto&... r) { return (r.HasSynced() && ...); }, Reflectors());
}

}  // namespace ksched::client
