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
// written the store; the sink hears of the change if plugins do (TellObjectChange). An object that
// cannot be decoded is removed too, so that no plugin goes on with a version it no longer has (a
// pod that needs it waits, as for a missing one); the listers learn why (StorageLister::Unreadable,
// under the kind's name, until the object decodes or goes), and it is logged once for each new
// error, not at every event or relist.
template <typename T>
ReflectorHandlers<T> StoreHandlers(ClusterEventSink& s) {
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
  auto u =
      std::make_shared<Unreadable>(api::LowerCamelName(api::kKind<T>.name), s.listers().storage);
  auto told = [&s](std::shared_ptr<const T> old, std::shared_ptr<const T> now) {
    TellObjectChange<T>(s, std::move(old), std::move(now));
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
              [u, &s](const T& obj, const absl::Status& st) {
                u->Record(obj, st);
                RemoveObject(s, obj);
              }};
}

// The reflector of a watched kind (api::KindInfo::watched) other than pods and nodes: it keeps
// the kind's store of the sink's listers. A kind the table calls optional
// (api::KindInfo::optional_because) is not waited for when the server does not serve it or refuses
// it.
template <typename T>
std::unique_ptr<Reflector<T>> ListerReflector(HttpClient& http, ClusterEventSink& s) {
  return std::make_unique<Reflector<T>>(http,
                                        ReflectorOptions{
                                            .path = api::CollectionPath<T>(),
                                            .optional = !api::kKind<T>.optional_because.empty(),
                                            .handle_on_io_thread = api::kKind<T>.on_io_thread,
                                        },
                                        StoreHandlers<T>(s), &s.listers().Of<T>());
}

// The reflector of a custom resource a plugin watches (Handle::WatchCustomResource): optional, as
// its CustomResourceDefinition may not be installed (yet).
std::unique_ptr<Reflector<CustomObject>> CustomReflector(HttpClient& http, ClusterEventSink& s,
                                                         CustomObjects::Store& store) {
  const CustomResource& r = store.resource();
  auto told = [&s, &r](std::shared_ptr<const CustomObject> old,
                       std::shared_ptr<const CustomObject> now) {
    s.OnCustomObjectChange(r, std::move(old), std::move(now));
  };
  return std::make_unique<Reflector<CustomObject>>(
      http,
      ReflectorOptions{.path = fmt::format("/apis/{}/{}/{}", r.Group(), r.Version(), r.Plural()),
                       .optional = true},
      ReflectorHandlers<CustomObject>{
          .on_add = [told](std::shared_ptr<const CustomObject> o) { told(nullptr, std::move(o)); },
          .on_update =
              [told](std::shared_ptr<const CustomObject> old,
                     std::shared_ptr<const CustomObject> o) { told(std::move(old), std::move(o)); },
          .on_delete =
              [told](std::shared_ptr<const CustomObject> o) { told(std::move(o), nullptr); },
          .on_decode_error =
              [&r](const CustomObject& o, const absl::Status& st) {
                KLOG_ERROR("Unable to decode custom object", {"resource", r.resource},
                           {"object", api::KeyOf(o.metadata)},
                           {"err", std::string(AsStd(st.message()))});
              }},
      &store.objects());
}

}  // namespace

ApiSource::ApiSource(HttpClient& http, ClusterEventSink& s, ClusterWriter& writer,
                     const std::function<bool(std::string_view gate)>& gate_on)
    : sink_(s), writer_(writer) {
  api::ForEachKind([&]<typename T>() {
    if constexpr (api::kKind<T>.watched && Listers::kHasStore<T>) {
      if (!api::kKind<T>.gate.empty() && !(gate_on && gate_on(api::kKind<T>.gate))) return;
      std::get<std::unique_ptr<Reflector<T>>>(reflectors_) = ListerReflector<T>(http, s);
    }
  });
  for (CustomObjects::Store* store : s.listers().custom.All()) {
    if (store->resource().Group().empty()) {
      KLOG_ERROR("Incorrect event registration", {"gvk", store->resource().resource});
      continue;
    }
    custom_.push_back(CustomReflector(http, s, *store));
  }
  std::get<std::unique_ptr<Reflector<api::Node>>>(reflectors_) =
      std::make_unique<Reflector<api::Node>>(
          http, ReflectorOptions{.path = api::CollectionPath<api::Node>()},
          ReflectorHandlers<api::Node>{
              .on_add = [&s](const std::shared_ptr<const api::Node>& n) { s.OnNodeAdd(n); },
              .on_update = [&s](
                               const std::shared_ptr<const api::Node>& o,
                               const std::shared_ptr<const api::Node>& n) { s.OnNodeUpdate(o, n); },
              .on_delete = [&s](const std::shared_ptr<const api::Node>& n) { s.OnNodeDelete(n); },
              .on_decode_error =
                  [](const api::Node& n, const absl::Status& st) {
                    KLOG_ERROR("Unable to decode node", {"node", n.metadata.name},
                               {"err", std::string(AsStd(st.message()))});
                  }});
  std::get<std::unique_ptr<Reflector<api::Pod>>>(reflectors_) =
      std::make_unique<Reflector<api::Pod>>(
          http,
          ReflectorOptions{.path = api::CollectionPath<api::Pod>(),
                           .field_selector = std::string(kUnfinishedPods),
                           .handle_on_io_thread = api::kKind<api::Pod>.on_io_thread},
          ReflectorHandlers<api::Pod>{
              .on_add = [&s](std::shared_ptr<const api::Pod> p) { s.OnPodAdd(std::move(p)); },
              .on_update =
                  [&s](const std::shared_ptr<const api::Pod>& o,
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
                  }});
}

ApiSource::~ApiSource() = default;

bool ApiSource::ResyncPods(absl::Duration timeout) {
  return std::get<std::unique_ptr<Reflector<api::Pod>>>(reflectors_)->Resync(timeout);
}

template <typename Fn>
bool ApiSource::ForEachReflector(Fn&& fn) {
  bool all = true;
  for (auto& r : custom_) all = fn(*r) && all;
  api::ForEachKindPodsLast([&]<typename T>() {
    if constexpr (api::kKind<T>.watched) {
      if (auto& r = std::get<std::unique_ptr<Reflector<T>>>(reflectors_)) all = fn(*r) && all;
    }
  });
  return all;
}

void ApiSource::Start() {
  ForEachReflector([](auto& r) { return r.Start(), true; });
}

void ApiSource::Stop() {
  ForEachReflector([](auto& r) { return r.Stop(), true; });
}

bool ApiSource::WaitForSync(absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  // Stops at the first that does not sync in time, as the conjunction it replaces did.
  bool synced = true;
  ForEachReflector(
      [&](auto& r) { return synced = synced && r.WaitForSync(deadline - absl::Now()); });
  return synced;
}

bool ApiSource::HasSynced() {
  return ForEachReflector([](auto& r) { return r.HasSynced(); });
}

}  // namespace ksched::client
