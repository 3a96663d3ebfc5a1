// The Scheduling Framework's plugin interfaces: one per extension point, as kube-scheduler's
// framework/interface.go. A plugin implements Plugin plus the extension points it serves; the
// framework finds them with dynamic_cast, as Go finds them with type assertions.
//
//   class TeamAware : public FilterPlugin, public ScorePlugin {
//    public:
//     std::string_view Name() const override { return "TeamAware"; }
//     Status Filter(const CycleState&, const api::Pod& pod, const NodeInfo& node) override;
//     Status Score(const CycleState&, const api::Pod& pod, const NodeInfo& node,
//                  int64_t* score) override;
//   };
//
// Contracts, for every interface below:
// - The framework owns the plugin; it lives as long as its profile.
// - Threads. One plugin object serves every pod of its profile, from these threads:
//   - PreEnqueue, QueueSort's Less and the queueing hints of EventsToRegister: from the threads
//     that feed the queue (informers, the scheduling loop, the queue's flushes), one call at a
//     time, under the queue's lock. They must not block.
//   - PreFilter, PostFilter, PreScore, NormalizeScore, Reserve and Permit: from the scheduling
//     thread, one pod at a time.
//   - Filter and Score (ScoreNodes): concurrently, on worker threads, for different nodes of the
//     one pod being scheduled; they must only read shared state (the CycleState, the snapshot,
//     the plugin's own members).
//   - PreBind, Bind and PostBind: on binding threads, concurrently for different pods (up to 64
//     at once in `ksched run`), and at the same time as the scheduling thread serves the
//     next pods. Unreserve runs there too when binding fails, or on the scheduling thread when
//     Reserve or Permit failed. A plugin that keeps state across pods guards it with a lock.
//   - A pod's own calls happen in order: its binding cycle starts after its Permit returned.
// - No exception may leave a plugin; failures are Status values.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
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
};

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
  virtual Status PreEnqueue(const api::Pod& pod) = 0;
};

class QueueSortPlugin : public virtual Plugin {
 public:
  // Whether `a` should be scheduled before `b`. Must be a strict weak order.
  virtual bool Less(const QueuedPodInfo& a, const QueuedPodInfo& b) const = 0;
};

// The cluster events that may make a pod this plugin rejected schedulable. A plugin that
// rejects pods and does not implement this is requeued on every event.
class EnqueueExtensions : public virtual Plugin {
 public:
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
  virtual Status PreFilter(CycleState& state, const api::Pod& pod,
                           const std::vector<const NodeInfo*>& nodes, PreFilterResult* result) = 0;
};

class FilterPlugin : public virtual Plugin {
 public:
  // Whether the pod fits the node. Called concurrently for different nodes.
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
};

class PostFilterPlugin : public virtual Plugin {
 public:
  // Runs when no node fits (preemption). Success with a nominated node makes the pod retry there.
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
  virtual Status PreScore(CycleState& state, const api::Pod& pod,
                          const std::vector<const NodeInfo*>& feasible) = 0;
};

class ScorePlugin : public virtual Plugin {
 public:
  // Ranks a feasible node. Called concurrently for different nodes.
  virtual Status Score(const CycleState& state, const api::Pod& pod, const NodeInfo& node,
                       int64_t* score) = 0;
  // Scores a run of nodes: sets scores[i].score for the node scores[i].node. The framework calls
  // this, not Score, so that a plugin may read its cycle state once per run and keep its loop
  // tight; the default calls Score for each node. Called concurrently for disjoint runs.
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
  // Rescales the scores of all feasible nodes into [kMinNodeScore, kMaxNodeScore]. Called once
  // per cycle, from the scheduling thread.
  virtual Status NormalizeScore(const CycleState& state, const api::Pod& pod,
                                NodeScoreList& scores) = 0;
};

// --- Reserving, permitting and binding ---------------------------------------------------------

class ReservePlugin : public virtual Plugin {
 public:
  virtual Status Reserve(CycleState& state, const api::Pod& pod, std::string_view node) = 0;
  // Undoes Reserve when a later step fails. Must be idempotent and must not fail. As upstream's
  // RunReservePluginsUnreserve, it runs on every Reserve plugin of the profile, in reverse order,
  // once any Reserve, Permit, PreBind or Bind failed: also on the plugin whose Reserve failed and
  // on those whose Reserve never ran for this pod.
  virtual void Unreserve(CycleState& state, const api::Pod& pod, std::string_view node) = 0;
};

class PermitPlugin : public virtual Plugin {
 public:
  // Success allows binding; Wait holds the pod for up to *timeout, at most 15 minutes (upstream's
  // cap), until it is allowed or rejected through Handle::GetWaitingPod; a rejection, or the end
  // of the wait, sends the pod back to the queue.
  virtual Status Permit(CycleState& state, const api::Pod& pod, std::string_view node,
                        absl::Duration* timeout) = 0;
};

class PreBindPlugin : public virtual Plugin {
 public:
  virtual Status PreBind(CycleState& state, const api::Pod& pod, std::string_view node) = 0;
  // Whether PreBind has work to do for this pod (upstream's PreBindPreFlight): Skip says it has
  // none, so the pod may be bound without waiting for it (and without a binding thread); Success
  // (the default) says it has; an Error fails the binding. Called after Reserve and Permit, on
  // the scheduling thread.
  virtual Status PreBindPreFlight(CycleState& state, const api::Pod& pod, std::string_view node) {
    (void)state, (void)pod, (void)node;
    return Status();
  }
};

class BindPlugin : public virtual Plugin {
 public:
  // Skip passes the pod to the next bind plugin.
  virtual Status Bind(CycleState& state, const api::Pod& pod, std::string_view node) = 0;
};

class PostBindPlugin : public virtual Plugin {
 public:
  virtual void PostBind(CycleState& state, const api::Pod& pod, std::string_view node) = 0;
};

}  // namespace ksched
