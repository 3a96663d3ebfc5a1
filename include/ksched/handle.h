// Handle: what the framework gives plugins — the cycle's snapshot, the cluster writer and the pods
// waiting at Permit.
//
//   absl::StatusOr<std::unique_ptr<Plugin>> New(const PluginArgs& args, Handle& handle);
//   const NodeInfo* ni = handle.snapshot().Get(node_name);
//   if (std::shared_ptr<WaitingPod> wp = handle.GetWaitingPod(uid)) wp->Allow("Coscheduling");
//
// Thread safety: snapshot() is for the scheduling cycle's thread (and the Filter/Score workers it
// starts); writer() and the waiting pods may be used from any thread.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "ksched/api/objects.h"
#include "ksched/cluster_writer.h"
#include "ksched/custom_objects.h"
#include "ksched/cycle_state.h"
#include "ksched/dra_lister.h"
#include "ksched/metrics.h"
#include "ksched/node_info.h"
#include "ksched/pod_groups.h"
#include "ksched/snapshot.h"
#include "ksched/status.h"
#include "ksched/storage_lister.h"

namespace ksched {

class Extender;  // ksched/extender.h

// A pod held at Permit by one or more plugins. Its methods are safe from any thread, and safe to
// call after the wait ended (they then do nothing): Handle::GetWaitingPod shares ownership.
class WaitingPod {
 public:
  virtual ~WaitingPod() = default;
  virtual const api::Pod& pod() const = 0;
  // The plugins that have not allowed the pod yet.
  virtual std::vector<std::string> PendingPlugins() const = 0;
  // Allows the pod for `plugin`; once every waiting plugin allowed it, binding proceeds.
  virtual void Allow(std::string_view plugin) = 0;
  // Rejects the pod: it is unreserved and goes back to the queue with this message.
  virtual void Reject(std::string_view plugin, std::string message) = 0;
};

// The cluster's pods that are not terminal (pending, for any scheduler, or on a node), as last
// watched: upstream's pod lister. Safe from any thread.
class PodLister {
 public:
  virtual ~PodLister() = default;
  // Those of one namespace, in no particular order.
  virtual std::vector<std::shared_ptr<const api::Pod>> List(std::string_view ns) const = 0;
};

class Handle {
 public:
  virtual ~Handle() = default;
  virtual const Snapshot& snapshot() const = 0;
  virtual ClusterWriter& writer() = 0;
  // The number of parallel workers for Filter and Score (KubeSchedulerConfiguration.parallelism).
  virtual int parallelism() const = 0;
  // The pod with this UID waiting at Permit, or nullptr if none is. The caller shares ownership, so
  // the object stays valid however the wait ends meanwhile. Safe from any thread.
  virtual std::shared_ptr<WaitingPod> GetWaitingPod(std::string_view uid) = 0;
  // Calls `fn` for each pod waiting when the call began. Safe from any thread; `fn` may call
  // Allow or Reject.
  virtual void IterateOverWaitingPods(const std::function<void(WaitingPod&)>& fn) = 0;
  // The cluster's Namespace by name (for namespaceSelector), as last watched; nullptr if there
  // is none. Safe from any thread.
  virtual std::shared_ptr<const api::Namespace> GetNamespace(std::string_view name) const = 0;
  // The cluster's PriorityClass by name, as last watched; nullptr if there is none (or if ksched
  // may not list PriorityClasses). A pod's priority is already in its spec.priority: this is for
  // what else a class says (its preemptionPolicy, labels, annotations). Safe from any thread.
  virtual std::shared_ptr<const api::PriorityClass> GetPriorityClass(
      std::string_view name) const = 0;
  // The workloads that select pods, as last watched, for plugins that need a pod's workload
  // (PodTopologySpread's default constraints): the Services of a namespace, and a namespace's
  // ReplicationController, ReplicaSet or StatefulSet by name (nullptr if there is none). Safe
  // from any thread.
  virtual std::vector<std::shared_ptr<const api::Service>> ListServices(
      std::string_view ns) const = 0;
  virtual std::shared_ptr<const api::ReplicationController> GetReplicationController(
      std::string_view ns, std::string_view name) const = 0;
  virtual std::shared_ptr<const api::ReplicaSet> GetReplicaSet(std::string_view ns,
                                                               std::string_view name) const = 0;
  virtual std::shared_ptr<const api::StatefulSet> GetStatefulSet(std::string_view ns,
                                                                 std::string_view name) const = 0;
  // Every namespace's PodDisruptionBudgets, as last watched (preemption). Safe from any thread.
  virtual std::vector<std::shared_ptr<const api::PodDisruptionBudget>> ListPodDisruptionBudgets()
      const = 0;
  // A pod on a node, by UID, as the scheduler holds it (bound and watched, or assumed); nullptr
  // once its deletion has been watched, or if it is on no node. Upstream's pod lister, for pods
  // on nodes (preemption asks whether a victim is gone). Safe from any thread.
  virtual std::shared_ptr<const api::Pod> GetAssignedPod(std::string_view uid) const = 0;

  // --- For preemption's what-if evaluation (from the scheduling thread and the workers it starts).
  // Runs the profile's Filter plugins on `node`, as the scheduling cycle does: first with the pods
  // nominated to the node that are at least as important as `pod` counted on it (through the
  // PreFilter extensions' AddPod), then, if any were and the pod fit, without them (upstream's
  // RunFilterPluginsWithNominatedPods). The first rejection carries its plugin's name.
  virtual Status RunFilterPluginsWithNominatedPods(const CycleState& state, const api::Pod& pod,
                                                   const NodeInfo& node) const = 0;
  // Tells the PreFilter plugins that implement PreFilterExtensions (and did not Skip this cycle)
  // that `pod_info` was added to, or removed from, `node`.
  virtual Status RunPreFilterExtensionAddPod(CycleState& state, const api::Pod& pod,
                                             const PodInfo& pod_info,
                                             const NodeInfo& node) const = 0;
  virtual Status RunPreFilterExtensionRemovePod(CycleState& state, const api::Pod& pod,
                                                const PodInfo& pod_info,
                                                const NodeInfo& node) const = 0;
  // The pending pods nominated to `node` by preemption, in the order they were nominated. Safe
  // from any thread (DefaultPreemption reads it from a binding thread, in RunAsync).
  virtual std::vector<std::shared_ptr<const PodInfo>> NominatedPodsForNode(
      std::string_view node) const = 0;
  // The node `pod` is nominated to: the scheduler's own nomination, which the pod's status may not
  // show yet (its patch is on the way), else its status.nominatedNodeName.
  virtual std::string NominatedNodeOf(const api::Pod& pod) const = 0;

  // --- Work off the scheduling thread.
  // Runs `fn` as binding cycles run: on one of the scheduler's binding threads, or at once, before
  // RunAsync returns, where the scheduler binds inline (`ksched simulate`). For API calls a plugin
  // must not make the scheduling cycle wait for, as DefaultPreemption's evictions. Safe from any
  // thread.
  virtual void RunAsync(std::function<void()> fn) = 0;
  // Moves these pending pods, where they wait for an event or a backoff, to the active queue
  // (upstream's Handle.Activate): a plugin's way to have them tried again at once. Pods that are
  // not waiting are left alone. Safe from any thread.
  virtual void Activate(const std::vector<std::shared_ptr<const api::Pod>>& pods) = 0;

  // The cluster's storage objects, as last watched (the volume plugins). Safe from any thread.
  virtual const StorageLister& storage() const = 0;
  // The metrics a plugin records (ksched/metrics.h). Safe from any thread.
  virtual PluginMetrics& metrics() = 0;
  // The cluster's DRA objects, as last watched (DynamicResources). Safe from any thread.
  virtual const DraLister& dra() const = 0;
  // The pod groups and what the scheduler knows of their pods (GangScheduling). Safe from any
  // thread.
  virtual const PodGroupLister& pod_groups() const = 0;

  // The cluster's pods by namespace (PodLister). ksched keeps pods by namespace only once a
  // plugin asked, so call it from the factory and keep the reference. Safe from any thread.
  virtual const PodLister& pods() = 0;
  // Watches a custom resource (ksched/custom_objects.h) and returns its objects as last watched;
  // call it from the factory, before ksched starts watching, and keep the reference. Asking
  // again for the same resource returns the same lister. Safe from any thread.
  virtual const CustomObjectLister& WatchCustomResource(const CustomResource& resource) = 0;

  // The scheduler's clock: the time as `ksched simulate` plays it, the real time otherwise. For
  // plugins that remember when (a backoff, a deadline). Safe from any thread.
  virtual absl::Time Now() const { return absl::Now(); }

  // The configuration's HTTP extenders (ksched/extender.h), in the order kube-scheduler calls
  // them: the ignorable ones last. Preemption asks them about its candidates. Safe from any thread.
  virtual const std::vector<Extender*>& extenders() const {
    static const std::vector<Extender*> kNone;
    return kNone;
  }

  // Whether the scheduler is stopping (it takes no more pods, and waits for its binding cycles):
  // a plugin that waits in the binding cycle gives up, as DynamicResources does on devices'
  // binding conditions (upstream's wait ends with its context). Safe from any thread.
  virtual bool Stopping() const { return false; }
};

}  // namespace ksched
