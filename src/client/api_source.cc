#include "src/client/api_source.h"

#include <atomic>

#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "fmt/format.h"
#include "ksched/strings.h"
#include "src/api/kinds.h"
#include "src/base/log.h"
#include "src/client/list.h"

namespace ksched::client {
namespace {

// The handlers of the objects the reflectors keep in the sink's listers. The reflector has already
// written the store; `tell` (storage objects only) hands the change to the sink. An object that
// cannot be decoded is removed too, so that no plugin goes on with a version it no longer has (a
// pod that needs it waits, as for a missing one); the listers learn why (StorageLister::Unreadable,
// under `kind`, until the object decodes or goes), and it is logged with its `kind` once for each
// new error, not at every event or relist.
template <typename T>
using Tell = void (ClusterEventSink::*)(std::shared_ptr<const T>, std::shared_ptr<const T>);

template <typename T>
ReflectorHandlers<T> StoreHandlers(std::string kind, ClusterEventSink& s, ObjectStore<T>& store,
                                   Tell<T> tell = nullptr) {
  struct Unreadable {
    Unreadable(std::string k, StorageObjects& s) : kind(std::move(k)), storage(s) {}
    std::string kind;
    StorageObjects& storage;
    absl::Mutex mu;
    absl::flat_hash_map<std::string, std::string> errors ABSL_GUARDED_BY(mu);  // By key.
    std::atomic<size_t> count{0};  // errors.size(), read without the lock.

    // The object decoded, or went: it is readable again.
    void Forget(const T& obj) {
      if (count.load(std::memory_order_relaxed) == 0) return;  // The usual case.
      const std::string key = api::KeyOf(obj.metadata);
      {
        absl::MutexLock lock(&mu);
        if (errors.erase(key) == 0) return;
        count.store(errors.size(), std::memory_order_relaxed);
      }
      storage.SetUnreadable(kind, key, "");
    }
    void Record(const T& obj, const absl::Status& st) {
      const std::string key = api::KeyOf(obj.metadata);
      std::string err(AsStd(st.message()));
      {
        absl::MutexLock lock(&mu);
        std::string& last = errors[key];
        count.store(errors.size(), std::memory_order_relaxed);
        if (last == err) return;
        last = err;
      }
      KLOG_ERROR(fmt::format("Unable to decode {}", kind), {kind, key}, {"err", err});
      storage.SetUnreadable(kind, key, err);
    }
  };
  auto u = std::make_shared<Unreadable>(std::move(kind), s.listers().storage);
  auto told = [&s, tell](std::shared_ptr<const T> old, std::shared_ptr<const T> now) {
    if (tell != nullptr) (s.*tell)(std::move(old), std::move(now));
  };
  return {.on_add =
              [u, told](std::shared_ptr<const T> obj) {
                u->Forget(*obj);
                told(nullptr, std::move(obj));
              },
          .on_update =
              [u, told](std::shared_ptr<const T> old, std::shared_ptr<const T> obj) {
                u->Forget(*obj);
                told(std::move(old), std::move(obj));
              },
          .on_delete =
              [u, told](std::shared_ptr<const T> obj) {
                u->Forget(*obj);
                told(std::move(obj), nullptr);
              },
          .on_decode_error =
              [u, told, &store](const T& obj, const absl::Status& st) {
                u->Record(obj, st);
                if (std::shared_ptr<const T> old = store.Remove(obj)) told(std::move(old), nullptr);
              }};
}

// A reflector of T's collection that keeps `store`, one of the sink's listers. A kind the table
// calls optional (api::KindInfo::optional_because) is not waited for when the server does not
// serve it or refuses it.
template <typename T>
Reflector<T> ListerReflector(HttpClient& http, ClusterEventSink& s, ObjectStore<T>& store,
                             Tell<T> tell = nullptr, bool handle_on_io_thread = false) {
  return Reflector<T>(http,
                      {.path = api::CollectionPath<T>(),
                       .optional = !api::kKind<T>.optional_because.empty(),
                       .handle_on_io_thread = handle_on_io_thread},
                      StoreHandlers(api::LowerCamelName(api::kKind<T>.name), s, store, tell),
                      &store);
}

}  // namespace

ApiSource::ApiSource(HttpClient& http, ClusterEventSink& s, ClusterWriter& writer)
    : sink_(s),
      writer_(writer),
      nodes_(
          http, {.path = api::CollectionPath<api::Node>()},
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
          // The busiest watches (a pod's events, and its claims') are handled where they arrive:
          // the sink's handlers, and the PreEnqueue plugins and queueing hints they run, do not
          // block (plugin.h).
          {.path = api::CollectionPath<api::Pod>(),
           .field_selector = std::string(kUnfinishedPods),
           .handle_on_io_thread = true},
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
      namespaces_(ListerReflector(http, s, s.listers().namespaces)),
      priority_classes_(ListerReflector(http, s, s.listers().priority_classes)),
      services_(ListerReflector(http, s, s.listers().services)),
      replication_controllers_(ListerReflector(http, s, s.listers().replication_controllers)),
      replica_sets_(ListerReflector(http, s, s.listers().replica_sets)),
      stateful_sets_(ListerReflector(http, s, s.listers().stateful_sets)),
      pod_disruption_budgets_(ListerReflector(http, s, s.listers().pod_disruption_budgets)),
      pvs_(ListerReflector(http, s, s.listers().storage.pvs,
                           &ClusterEventSink::OnPersistentVolumeChange)),
      pvcs_(ListerReflector(http, s, s.listers().storage.pvcs,
                            &ClusterEventSink::OnPersistentVolumeClaimChange)),
      storage_classes_(ListerReflector(http, s, s.listers().storage.storage_classes,
                                       &ClusterEventSink::OnStorageClassChange)),
      csi_nodes_(ListerReflector(http, s, s.listers().storage.csi_nodes,
                                 &ClusterEventSink::OnCSINodeChange)),
      csi_drivers_(ListerReflector(http, s, s.listers().storage.csi_drivers,
                                   &ClusterEventSink::OnCSIDriverChange)),
      csi_storage_capacities_(ListerReflector(http, s, s.listers().storage.csi_storage_capacities,
                                              &ClusterEventSink::OnCSIStorageCapacityChange)),
      volume_attachments_(ListerReflector(http, s, s.listers().storage.volume_attachments,
                                          &ClusterEventSink::OnVolumeAttachmentChange)),
      device_classes_(ListerReflector(http, s, s.listers().dra.device_classes,
                                      &ClusterEventSink::OnDeviceClassChange)),
      resource_slices_(ListerReflector(http, s, s.listers().dra.resource_slices,
                                       &ClusterEventSink::OnResourceSliceChange)),
      resource_claims_(ListerReflector(http, s, s.listers().dra.resource_claims,
                                       &ClusterEventSink::OnResourceClaimChange,
                                       /*handle_on_io_thread=*/true)) {}

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
