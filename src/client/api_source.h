// ApiSource: feeds a ClusterEventSink (the scheduler) from a real cluster, as kube-scheduler's
// informers do for its event handlers. Terminal pods are not
// watched at all (field selector status.phase!=Succeeded,status.phase!=Failed, as upstream).
// Namespaces, PriorityClasses, Services, ReplicationControllers, ReplicaSets, StatefulSets,
// PodDisruptionBudgets and the storage objects are kept for plugins (Handle::GetNamespace,
// ListServices, storage, ...), as kube-scheduler's informers keep them for PodTopologySpread,
// preemption and the volume plugins: their reflectors' copies are the sink's listers. The DRA
// objects kube-scheduler watches (DeviceClasses, ResourceSlices, ResourceClaims; not templates,
// whose claims the resourceclaim controller makes) are kept too. Like kube-scheduler
// (WaitForCacheSync on every informer it started), ksched is not ready until all have synced,
// but for the kinds the table calls optional (src/api/kinds.h, with why: PriorityClasses, which
// system:kube-scheduler may not list, and the DRA kinds, which a cluster may not serve): a 403 or
// 404 is logged once and ksched goes on without them, trying again with backoff. The custom
// resources the plugins watch (Listers::custom, a CRD's objects) are optional alike: the CRD may
// not be installed yet.
//
//   ApiSource source(http, sink, writer);
//   source.Start();
//   if (!source.WaitForSync(absl::Minutes(1))) ...   // /readyz stays false until then
//
// A pod that cannot be decoded is left out and, if it waits for one of our profiles, gets a
// Warning FailedScheduling event that says why; the scheduler goes on.
//
// Thread safety: Start/Stop/WaitForSync/HasSynced from any thread. The sink is called from the
// reflectors' threads.
#pragma once

#include <functional>
#include <memory>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <variant>
#include <vector>

#include "ksched/cluster_writer.h"
#include "src/api/event_sink.h"
#include "src/api/kinds.h"
#include "src/client/reflector.h"

namespace ksched::client {

class ApiSource {
 public:
  // `gate_on` says whether a feature gate is on: a kind behind a gate (api::KindInfo::gate) is
  // watched only when it is, as kube-scheduler starts its informer.
  ApiSource(HttpClient& http, ClusterEventSink& sink, ClusterWriter& writer,
            const std::function<bool(std::string_view gate)>& gate_on = {});
  ~ApiSource();

  void Start();
  void Stop();
  bool WaitForSync(absl::Duration timeout);
  bool HasSynced();
  // Pods listed afresh, with a consistent read (Reflector::Resync); false after `timeout`. A
  // replica that has just become leader calls it before it schedules.
  bool ResyncPods(absl::Duration timeout);

 private:
  // One reflector per watched kind of the table (api::KindInfo::watched), none for the others
  // (nullptr for a kind whose gate is off).
  template <typename T>
  using ReflectorOf =
      std::conditional_t<api::kKind<T>.watched, std::unique_ptr<Reflector<T>>, std::monostate>;
  template <typename V>
  struct ReflectorsOf;
  template <typename... T>
  struct ReflectorsOf<std::variant<T...>> {
    using type = std::tuple<ReflectorOf<T>...>;
  };
  // Calls fn on each reflector, in the order they start (api::ForEachKindPodsLast: what plugins
  // look up first, then nodes, then pods); whether every call returned true.
  template <typename Fn>
  bool ForEachReflector(Fn&& fn);

  ClusterEventSink& sink_;
  ClusterWriter& writer_;
  ReflectorsOf<api::Object>::type reflectors_;
  // One per custom resource the plugins watch (Listers::custom), made with the others.
  std::vector<std::unique_ptr<Reflector<CustomObject>>> custom_;
};

}  // namespace ksched::client
