// ClusterEventSink: where the cluster's changes go, as kube-scheduler's informers hand them to
// its event handlers. Both sources feed it: the informers of a real cluster (src/client,
// ApiSource) and the embedded cluster of `ksched simulate` (src/sim, Cluster). The scheduler
// implements it (src/scheduler), so a source knows only the API objects and the scheduler knows
// only this interface. Pods and nodes are handed over; every other object the source writes into
// the sink's listers(), the one copy the scheduler keeps of them.
//
//   client::ApiSource informers(http, scheduler, writer);  // scheduler is a ClusterEventSink
//   informers.Start();                                     // OnNodeAdd, OnPodAdd, ... follow
//
// Objects are handed over as shared, immutable values; a sink may keep them.
// Thread safety: implementations accept calls from several threads at once (one reflector thread
// per kind), and calls for one object arrive in the order of its changes.
#pragma once

#include <memory>
#include <type_traits>
#include <variant>

#include "ksched/api/objects.h"
#include "src/api/kinds.h"
#include "src/api/listers.h"

namespace ksched {

// A change of an object of kind T: before (nullptr: added) and after (nullptr: deleted).
template <typename T>
struct StoredChange {
  std::shared_ptr<const T> old;
  std::shared_ptr<const T> now;
};

// A change of an object of any kind of the table (src/api/kinds.h).
template <typename V>
struct StoredChangeOf;
template <typename... T>
struct StoredChangeOf<std::variant<T...>> {
  using type = std::variant<StoredChange<T>...>;
};
using AnyStoredChange = StoredChangeOf<api::Object>::type;

class ClusterEventSink {
 public:
  virtual ~ClusterEventSink() = default;

  virtual void OnPodAdd(std::shared_ptr<const api::Pod> pod) = 0;
  virtual void OnPodUpdate(const std::shared_ptr<const api::Pod>& old_pod,
                           std::shared_ptr<const api::Pod> pod) = 0;
  virtual void OnPodDelete(const std::shared_ptr<const api::Pod>& pod) = 0;
  virtual void OnNodeAdd(const std::shared_ptr<const api::Node>& node) = 0;
  virtual void OnNodeUpdate(const std::shared_ptr<const api::Node>& old_node,
                            const std::shared_ptr<const api::Node>& node) = 0;
  virtual void OnNodeDelete(const std::shared_ptr<const api::Node>& node) = 0;
  // The stores of every other object the scheduler's plugins read (Handle::GetNamespace,
  // ListServices, ..., storage): the sink owns them, the source keeps them in step with the
  // cluster. The sink must outlive the source's writes.
  virtual Listers& listers() = 0;
  // A change the source made to a store of listers() (SetObject, RemoveObject), of a kind plugins
  // register events for (api::KindInfo::event): the object before (nullptr: it was added) and
  // after (nullptr: it was deleted). Each may move pending pods the plugins rejected. The other
  // stores change with no call.
  virtual void OnObjectChange(AnyStoredChange change) = 0;
  // A change the source made to a custom resource's store (listers().custom): as OnObjectChange.
  virtual void OnCustomObjectChange(const CustomResource& /*resource*/,
                                    std::shared_ptr<const CustomObject> /*old*/,
                                    std::shared_ptr<const CustomObject> /*now*/) {}

  // Whether the sink schedules this pod (its schedulerName is one of the sink's profiles). A
  // source tells only those pods' owners about a pod it could not decode.
  virtual bool IsResponsibleFor(const api::Pod& pod) const = 0;
};

// Tells the sink of a change of one of its listers' stores, if plugins hear of the kind.
template <typename T>
void TellObjectChange(ClusterEventSink& sink, std::shared_ptr<const T> old,
                      std::shared_ptr<const T> now) {
  if constexpr (api::kKind<T>.event.has_value()) {
    sink.OnObjectChange(StoredChange<T>{std::move(old), std::move(now)});
  }
}

// How a source changes a store of sink.listers(): sets `obj`, or removes it, then tells the sink.
template <typename T>
void SetObject(ClusterEventSink& sink, std::shared_ptr<T> obj) {
  using U = std::remove_const_t<T>;
  std::shared_ptr<const U> now = std::move(obj);
  std::shared_ptr<const U> old = sink.listers().Of<U>().Set(now);
  TellObjectChange<U>(sink, std::move(old), std::move(now));
}
template <typename T>
void RemoveObject(ClusterEventSink& sink, const T& obj) {
  if (std::shared_ptr<const T> old = sink.listers().Of<T>().Remove(obj)) {
    TellObjectChange<T>(sink, std::move(old), nullptr);
  }
}

}  // namespace ksched
