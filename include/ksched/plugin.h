// The Scheduling Framework's plugin interfaces: one per extension point, as kube-scheduler's
// framework/interface.go. A plugin implements Plugin plus the extension points it serves; the
// framework finds them with dynamic_cast, as Go finds them with type assertions (PluginAs below).
//
//   class TeamAware : public FilterPlugin, public ScorePlugin {
//    public:
//     std::string_view Name() const override { return "TeamAware"; }
//     Status Filter(const CycleState&, const api::Pod& pod, const NodeInfo& node) override;
//     Status Score(const CycleState&, const api::Pod& pod, const NodeInfo& node,
//                  int64_t* score) override;
//   };
//
// Contracts, for every interface below (each method then says its own thread and references):
// - The framework owns the plugin; it lives as long as its profile. Its factory runs once, on
//   the thread that builds the scheduler, before any pod is scheduled.
// - Threads. One plugin object serves every pod of its profile, from four kinds of thread:
//   - the queue's callers (informers, the scheduling loop, the queue's flushes): one call at a
//     time, under the queue's lock, so they must not block. In `ksched run` the pods' and
//     ResourceClaims' events are handled on the API client's I/O thread, as they arrive: there a
//     call that waited for an API answer (or for a lock held across one) would wait for good;
//   - the scheduling thread: one pod at a time, in the order of the extension points;
//   - the scheduling thread's workers (Filter, Score), with the scheduling thread among them:
//     concurrently, for different nodes of the one pod being scheduled (one thread alone when
//     the nodes are few); they must only read shared state (the CycleState, the snapshot, the
//     plugin's own members);
//   - binding threads: concurrently for different pods (up to 64 at once in `ksched run`), and
//     at the same time as the scheduling thread serves the next pods (`ksched simulate` runs
//     each binding cycle inline, on the scheduling thread). A plugin that keeps state across
//     pods guards it with a lock.
//   A pod's own calls happen in order: its binding cycle starts after its Permit returned.
// - References. An argument passed by reference or view is valid until the method returns,
//   unless the method says otherwise; to keep anything longer, copy it (api::Pod and the other
//   objects are values), or write it into the CycleState. The CycleState itself lives until the
//   pod's binding cycle ends (cycle_state.h, StateScope).
// - Exceptions. No exception may leave a plugin: failures are Status values. Neither the
//   framework nor ksched catches one (a plugin that threw may be half-way through changing its
//   state): it leaves the cycle, and the process ends through std::terminate, as a plugin's
//   panic ends kube-scheduler.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <typeinfo>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/time/time.h"
#include "ksched/api/objects.h"
#include "ksched/cycle_state.h"
#include "ksched/events.h"
#include "ksched/node_info.h"
#include "ksched/status.h"

namespace ksched {

inline constexpr int64_t kMaxNodeScore = 100;
inline constexpr int64_t kMinNodeScore = 0;

class Plugin {
 public:
  virtual ~Plugin() = default;
  virtual std::string_view Name() const = 0;
  // Whether the plugin serves `interface` (FilterPlugin, ScoreExtensions, ...), one of those it
  // derives from. Only a plugin that derives from interfaces in order to forward them answers no:
  // an adapter of a plugin from another ABI (ksched/stable.h), a wrapper that traces. Every other
  // plugin keeps this default.
  virtual bool Serves(const std::type_info& interface) const {
    (void)interface;
    return true;
  }
};

// `plugin` as the interface T when it serves T, else nullptr: how the framework finds a plugin's
// extension points.
template <typename T>
T* PluginAs(Plugin* plugin) {
  T* as = dynamic_cast<T*>(plugin);
  return as != nullptr && plugin->Serves(typeid(T)) ? as : nullptr;
}

// A pod as the scheduling queue holds it.
struct QueuedPodInfo {
  std::shared_ptr<const PodInfo> pod_info;
  absl::Time timestamp;                  // When it was last added to the queue.
  absl::Time initial_attempt_timestamp;  // When it was first popped; InfinitePast until then.
  int attempts = 0;
  int unschedulable_count = 0;
  int consecutive_errors_count = 0;
  std::set<std::string, std::less<>> unschedulable_plugins;  // Rejectors of the last attempt.
  std::set<std::string, std::less<>> pending_plugins;
  std::string gating_plugin;  // The PreEnqueue plugin that holds the pod back, if any.

  const api::Pod& pod() const { return *pod_info->pod; }
};

// --- Queueing ---------------------------------------------------------------------------------

class PreEnqueuePlugin : public virtual Plugin {
 public:
  // Success lets the pod into the active queue; anything else keeps it out (gated).
  // Thread: the queue's callers, under its lock; it must not block.
  virtual Status PreEnqueue(const api::Pod& pod) = 0;
};

class QueueSortPlugin : public virtual Plugin {
 public:
  // Whether `a` should be scheduled before `b`. Must be a strict weak order.
  // Thread: the queue's callers, under its lock; it must not block.
  virtual bool Less(const QueuedPodInfo& a, const QueuedPodInfo& b) const = 0;
};

// The cluster events that may make a pod this plugin rejected schedulable. A plugin that
// rejects pods and does not implement this is requeued on every event.
class EnqueueExtensions : public virtual Plugin {
 public:
  // Thread: once, when the profile is built. The hints it returns are kept for the profile's
  // life and called from the queue's callers, under its lock: they must not block, and their
  // arguments are valid only during the call.
  virtual std::vector<ClusterEventWithHint> EventsToRegister() const = 0;
};

// --- Filtering --------------------------------------------------------------------------------

// PreFilter may narrow the nodes to evaluate; several results are intersected.
struct PreFilterResult {
  std::optional<std::set<std::string, std::less<>>> node_names;  // nullopt: all nodes.
  bool AllNodes() const { return !node_names.has_value(); }
};

// Incremental updates of a plugin's PreFilter state, for preemption's what-if evaluation
// (upstream's PreFilterExtensions). A PreFilterPlugin that also implements this interface gets
// the calls: there is nothing else to declare, and so nothing to forget.
class PreFilterExtensions {
 public:
  virtual ~PreFilterExtensions() = default;
  virtual Status AddPod(CycleState& state, const api::Pod& pod_to_schedule,
                        const PodInfo& pod_to_add, const NodeInfo& node) = 0;
  virtual Status RemovePod(CycleState& state, const api::Pod& pod_to_schedule,
                           const PodInfo& pod_to_remove, const NodeInfo& node) = 0;
};

class PreFilterPlugin : public virtual Plugin {
 public:
  // Runs once per cycle before Filter. Skip: this plugin's Filter is not run for the pod.
  // A rejection fails the pod on every node with this status.
  // Thread: the scheduling thread. `nodes` and the NodeInfos in it are the snapshot's: valid,
  // and unchanged, until the next cycle begins.
  virtual Status PreFilter(CycleState& state, const api::Pod& pod,
                           const std::vector<const NodeInfo*>& nodes, PreFilterResult* result) = 0;
};

class FilterPlugin : public virtual Plugin {
 public:
  // Whether the pod fits the node.
  // Thread: the workers, concurrently for different nodes; also the scheduling thread alone, for
  // preemption's what-if evaluation, on a clone of the CycleState and a copy of the node.
  virtual Status Filter(const CycleState& state, const api::Pod& pod, const NodeInfo& node) = 0;
};

// Every node's filter status, for PostFilter and for messages. Nodes without an entry have
// `absent` (upstream's NodeToStatus).
struct NodeToStatus {
  absl::flat_hash_map<std::string, Status> statuses;
  Status absent = Status(Code::kUnschedulableAndUnresolvable);
  const Status& Get(const std::string& node) const {
    auto it = statuses.find(node);
    return it == statuses.end() ? absent : it->second;
  }
};

struct PostFilterResult {
  // The node to nominate the pod to (upstream's NominatingInfo): nullopt leaves the pod's
  // nomination as it is, "" clears it.
  std::optional<std::string> nominated_node_name;
  // The pods evicted to make room there (namespace/name), for `ksched explain`.
  std::vector<std::string> victims;
};

class PostFilterPlugin : public virtual Plugin {
 public:
  // Runs when no node fits (preemption). Success with a nominated node makes the pod retry there.
  // Thread: the scheduling thread; work that must not hold it (evictions) goes to
  // Handle::RunAsync, with copies of what it needs.
  virtual Status PostFilter(CycleState& state, const api::Pod& pod, const NodeToStatus& filtered,
                            PostFilterResult* result) = 0;
};

// --- Scoring ----------------------------------------------------------------------------------

struct NodeScore {
  const NodeInfo* node;
  int64_t score;
};
using NodeScoreList = std::vector<NodeScore>;

class PreScorePlugin : public virtual Plugin {
 public:
  // Runs once per cycle before Score, on the feasible nodes. Skip: this plugin's Score is not run.
  // Thread: the scheduling thread. `feasible` is valid until the method returns; its NodeInfos
  // until the next cycle begins.
  virtual Status PreScore(CycleState& state, const api::Pod& pod,
                          const std::vector<const NodeInfo*>& feasible) = 0;
};

class ScorePlugin : public virtual Plugin {
 public:
  // Ranks a feasible node, into *score.
  // Thread: the workers, concurrently for different nodes.
  virtual Status Score(const CycleState& state, const api::Pod& pod, const NodeInfo& node,
                       int64_t* score) = 0;
  // Scores a run of nodes: sets scores[i].score for the node scores[i].node. The framework calls
  // this, not Score, so that a plugin may read its cycle state once per run and keep its loop
  // tight; the default calls Score for each node.
  // Thread: the workers, concurrently for disjoint runs.
  virtual Status ScoreNodes(const CycleState& state, const api::Pod& pod,
                            std::span<NodeScore> scores) {
    for (NodeScore& s : scores) {
      if (Status st = Score(state, pod, *s.node, &s.score); !st.ok()) return st;
    }
    return Status();
  }
};

// NormalizeScore (upstream's ScoreExtensions): a ScorePlugin that also implements this interface
// is normalized after every node was scored, and before its weight applies; one that does not,
// is not. As with PreFilterExtensions, implementing it is all there is to do.
//
//   class NodePrice : public ScorePlugin, public ScoreExtensions { ... };
class ScoreExtensions {
 public:
  virtual ~ScoreExtensions() = default;
  // Rescales the scores of all feasible nodes into [kMinNodeScore, kMaxNodeScore].
  // Thread: the scheduling thread, once per cycle.
  virtual Status NormalizeScore(const CycleState& state, const api::Pod& pod,
                                NodeScoreList& scores) = 0;
};

// --- Signing pods (OpportunisticBatching) ------------------------------------------------------

// One part of a pod's scheduling signature (upstream's fwk.SignFragment): under `key`, the part of
// the pod that a plugin reads, written so that equal values mean equal answers. Plugins that read
// the same part (the tolerations, the volumes) write it under the same key, with the same value.
struct SignFragment {
  std::string key;
  std::string value;
};

// A plugin that can say what of a pod its PreFilter, Filter, PreScore and Score depend on
// (upstream's SignPlugin). With OpportunisticBatching, a pod whose signature equals the previous
// pod's may go straight to the next node of that pod's scoring, once the node chosen then no
// longer fits, without being scored again. A profile signs pods only if each of its PreFilter,
// Filter, PreScore and Score plugins is a SignPlugin: a plugin that is not turns batching off for
// its profile, as upstream's do.
//
//   Status SignPod(const api::Pod& pod, std::vector<SignFragment>* out) const override {
//     out->push_back({"example.com/team", pod.metadata.labels.count("team") ? ... : ""});
//     return Status();
//   }
class SignPlugin : public virtual Plugin {
 public:
  // Success, with the fragments appended to *fragments (none is fine: the plugin reads nothing of
  // the pod); Unschedulable: this pod cannot be signed, and is scheduled alone.
  // Thread: the scheduling thread.
  virtual Status SignPod(const api::Pod& pod, std::vector<SignFragment>* fragments) const = 0;
};

// --- Reserving, permitting and binding ---------------------------------------------------------

class ReservePlugin : public virtual Plugin {
 public:
  // Claims what the pod will use on `node` (in the plugin's own books) before it is bound, so
  // that the next pods see it taken. Thread: the scheduling thread.
  virtual Status Reserve(CycleState& state, const api::Pod& pod, std::string_view node) = 0;
  // Undoes Reserve when a later step fails. Must be idempotent and must not fail. As upstream's
  // RunReservePluginsUnreserve, it runs on every Reserve plugin of the profile, in reverse order,
  // once any Reserve, Permit, PreBind or Bind failed: also on the plugin whose Reserve failed and
  // on those whose Reserve never ran for this pod. Thread: the scheduling thread when Reserve or
  // Permit failed; a binding thread when a later step failed, or when a pod waiting at Permit
  // was rejected or timed out.
  virtual void Unreserve(CycleState& state, const api::Pod& pod, std::string_view node) = 0;
};

class PermitPlugin : public virtual Plugin {
 public:
  // Success allows binding; Wait holds the pod for up to *timeout, at most 15 minutes (upstream's
  // cap), until it is allowed or rejected through Handle::GetWaitingPod; a rejection, or the end
  // of the wait, sends the pod back to the queue. Thread: the scheduling thread; `timeout` is
  // written, if at all, before the method returns.
  virtual Status Permit(CycleState& state, const api::Pod& pod, std::string_view node,
                        absl::Duration* timeout) = 0;
};

// The pod group cycle's check (upstream's PlacementFeasible, which only GangScheduling has): after
// each pod it tries, whether `group` can still be placed with `scheduled` of its pods placed and
// `remaining` left to try. Success: it can be now; Wait: not yet; Unschedulable: it cannot be.
// Thread: the scheduling thread.
class PlacementFeasiblePlugin : public virtual Plugin {
 public:
  virtual Status PlacementFeasible(const api::PodGroup& group, int scheduled, int remaining) = 0;
};

// What a PostFilter plugin does for a pod group that did not fit (upstream's PodGroupPostFilter),
// once the group's cycle tried its pods and before preemption: it may make room for the next
// attempt (DynamicResources frees the claims allocated where the group cannot go). `pods` are the
// group's pods of the cycle, none placed, each with the state of its try in `states` (one not
// tried has no plugin's data); `group_cycle` is the cycle's shared state. Unschedulable with a
// message says what it did (the pods' messages add it); UnschedulableAndUnresolvable stops the
// next plugins; Error fails the cycle. Thread: the scheduling thread.
class PodGroupPostFilterPlugin : public virtual Plugin {
 public:
  virtual Status PodGroupPostFilter(CycleState& group_cycle, const api::PodGroup& group,
                                    std::span<const api::Pod* const> pods,
                                    std::span<CycleState* const> states) = 0;
};

// --- Placements of a pod group (the TopologyAwareWorkloadScheduling gate) ---------------------
//
// With the gate on, a pod group's cycle asks the profile's PlacementGenerate plugin (at most one)
// for placements, sets of nodes to try the group on (upstream's fwk.Placement); tries the group on
// each in turn, as if its nodes were the cluster's only ones (plugins still see every node in
// the snapshot: a spread counts pods anywhere); and, of those where the group fits, takes the one
// the PlacementScore plugins score highest (weighted as Score plugins are; a tie is broken at
// random). The nodes are valid until the method returns.

// A set of nodes: `name` is "" for the whole cluster, else what the generator calls it (a
// topology domain, say). Nodes are in the snapshot's order.
struct Placement {
  std::string name;
  std::vector<const NodeInfo*> nodes;
};

class PlacementGeneratePlugin : public virtual Plugin {
 public:
  // The placements to try `group` on, out of `parent` (every node, for now); none means the group
  // cannot be placed, and its pods say "no feasible placements found". Thread: the scheduling
  // thread.
  virtual Status GeneratePlacements(const api::PodGroup& group, const Placement& parent,
                                    std::vector<Placement>* placements) = 0;
};

// Where one placement's trial put the group's pods that fit (upstream's PodGroupAssignments).
struct PodGroupAssignments {
  struct Proposed {
    const api::Pod* pod;
    std::string_view node;
  };
  const Placement* placement;
  std::vector<Proposed> proposed;
};

class PlacementScorePlugin : public virtual Plugin {
 public:
  // A score for the group's trial in one placement (the nodes hold none of the trial's pods any
  // more). Thread: the scheduling thread.
  virtual Status ScorePlacement(const api::PodGroup& group, const PodGroupAssignments& assignments,
                                int64_t* score) = 0;
  // Brings every placement's score into [0, kMaxNodeScore], as NormalizeScore does for nodes (an
  // out-of-range score fails the group's cycle); the default leaves them as they are.
  virtual Status NormalizePlacementScores(const api::PodGroup& group, std::span<int64_t> scores) {
    (void)group, (void)scores;
    return Status();
  }
};

class PreBindPlugin : public virtual Plugin {
 public:
  // Work that must be done before the pod is bound (volumes bound and provisioned). It may
  // wait. Thread: a binding thread.
  virtual Status PreBind(CycleState& state, const api::Pod& pod, std::string_view node) = 0;
  // Whether PreBind has work to do for this pod (upstream's PreBindPreFlight): Skip says it has
  // none, so its PreBind is not called for the pod (as upstream), which may then be bound without
  // a binding thread; Success (the default) says it has; an Error fails the binding. Called after
  // Reserve and Permit, on the scheduling thread.
  virtual Status PreBindPreFlight(CycleState& state, const api::Pod& pod, std::string_view node) {
    (void)state, (void)pod, (void)node;
    return Status();
  }
};

class BindPlugin : public virtual Plugin {
 public:
  // Binds the pod to `node`; Skip passes the pod to the next bind plugin.
  // Thread: a binding thread.
  virtual Status Bind(CycleState& state, const api::Pod& pod, std::string_view node) = 0;
};

class PostBindPlugin : public virtual Plugin {
 public:
  // Informational, once the pod is bound. Thread: a binding thread.
  virtual void PostBind(CycleState& state, const api::Pod& pod, std::string_view node) = 0;
};

}  // namespace ksched
