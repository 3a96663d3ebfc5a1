// Scheduler: the event handlers that feed the cache and the queue, and ScheduleOne, which takes one
// pod through the scheduling cycle and hands it to the binding cycle (upstream's schedule_one.go).
//
//   auto s = Scheduler::Create(options, registry);
//   s->OnNodeAdd(node);  s->OnPodAdd(pod);          // as a ClusterEventSink
//   while ((*s)->ScheduleOne()) {}                   // until no pod is ready
//
// The scheduler never knows whether it talks to a real cluster or to the embedded one: it reads
// through the handlers and writes through ClusterWriter.
//
// Thread safety: the handlers may be called from any thread; ScheduleOne from one thread only.
// Binding cycles run on the scheduler's BindingExecutor, with options.binding_threads threads
// (inline when 0). A pod that Permit did not make wait, in a profile without PreBind plugins whose
// first Bind plugin is DefaultBinder, holds no thread while its bind is on the way: the scheduling
// thread sends it through ClusterWriter::BindAsync, and the answer finishes the cycle on the
// writer's thread (a failure, or PostBind plugins, on a binding thread).
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "ksched/cluster_writer.h"
#include "ksched/fit_error.h"
#include "ksched/registry.h"
#include "src/api/event_sink.h"
#include "src/base/clock.h"
#include "src/cache/cache.h"
#include "src/config/config.h"
#include "src/extender/http_extender.h"
#include "src/framework/framework.h"
#include "src/framework/parallel_cutoff.h"
#include "src/framework/simulator_trace.h"
#include "src/metrics/scheduler_metrics.h"
#include "src/queue/scheduling_queue.h"
#include "src/scheduler/attempt.h"
#include "src/scheduler/binding_executor.h"

namespace ksched::scheduler {

class SnapshotOverlay;  // snapshot_overlay.h

struct SchedulerOptions {
  config::Configuration config = config::DefaultConfiguration();
  ClusterWriter* writer = nullptr;  // Required.
  const Clock* clock = nullptr;     // nullptr: the real clock.
  uint64_t seed = 0;                // Tie-breaks among equal scores.
  // How many binding cycles may run at once, each on a thread of its own (BindingExecutor); 0
  // runs each inline, at the end of its scheduling cycle (the embedded cluster does).
  size_t binding_threads = 0;
  // What reads each attempt (attempt.h says when): `ksched explain`'s records, simulate's
  // explanations. Each must outlive the scheduler.
  std::vector<AttemptObserver*> observers;
  // Plugins explain the nodes they reject (CycleState::explain; costs time): `simulate --explain`.
  bool explain_rejections = false;
  // Where the scheduler's metrics go (for /metrics); nullptr: a registry of its own. A registry
  // given here must not be scraped once the scheduler is gone: it reads the queue and the cache.
  metrics::Registry* metrics_registry = nullptr;
  // Write kube-scheduler-simulator's result annotations onto each pod after each attempt (its
  // outcome: bound, or failed), as the simulator's own scheduler does, for its web UI.
  bool simulator_annotations = false;
  // The NominatedNodeNameForExpectation gate (beta, on since 1.35): a pod that waits in Permit or
  // whose PreBind has work gets its node as nominatedNodeName meanwhile.
  bool nominated_node_name_for_expectation = true;
  // The OpportunisticBatching gate (beta, on since 1.35): a pod identical to the one scheduled
  // just before may go to the next node of that pod's scoring (framework/batch.h).
  bool opportunistic_batching = true;
  // Called before each scheduling cycle, on the scheduling thread; may wait. `ksched run` waits
  // there while its API client has many requests outstanding (its binds, claims and status
  // patches), so that a scheduler faster than the API server does not hold thousands of pods'
  // writes, with their cycles' state, in memory at once. The order of the pods, and so every
  // decision, is the same; only when each cycle starts changes.
  std::function<void()> throttle;
  // The GenericWorkload gate (beta, off by default): the pods of a PodGroup are scheduled
  // together, in a pod group cycle (schedule_one_podgroup.cc).
  bool generic_workload = false;
  // The TopologyAwareWorkloadScheduling gate (alpha, off; needs generic_workload): a pod group's
  // cycle tries the group on each placement its PlacementGenerate plugin gives (one topology
  // domain each), and takes the best scored of those where it fits.
  bool topology_aware_workload_scheduling = false;
  // Whether an extender with a bind verb binds the pods it manages. `ksched simulate` says no: it
  // asks extenders to filter, score and choose victims, but binds in its embedded cluster, never
  // through an extender that may bind in a real one.
  bool extenders_bind = true;
  // The PodGroupPreemptionPolicy gate (alpha, off; needs generic_workload): a PodGroup's
  // spec.preemptionPolicy is the group's, which its pods must share, and says whether it preempts.
  bool pod_group_preemption_policy = false;
};

class Scheduler : public ClusterEventSink {
 public:
  static absl::StatusOr<std::unique_ptr<Scheduler>> Create(SchedulerOptions options,
                                                           const Registry& registry);
  ~Scheduler() override;

  // --- ClusterEventSink (the informers' side). Terminal pods (Succeeded/Failed) are ignored. ---
  void OnPodAdd(std::shared_ptr<const api::Pod> pod) override;
  void OnPodUpdate(const std::shared_ptr<const api::Pod>& old_pod,
                   std::shared_ptr<const api::Pod> pod) override;
  void OnPodDelete(const std::shared_ptr<const api::Pod>& pod) override;
  void OnNodeAdd(const std::shared_ptr<const api::Node>& node) override;
  void OnNodeUpdate(const std::shared_ptr<const api::Node>& old_node,
                    const std::shared_ptr<const api::Node>& node) override;
  void OnNodeDelete(const std::shared_ptr<const api::Node>& node) override;
  // The stores plugins read (Handle::GetNamespace, ListServices, ..., storage).
  Listers& listers() override { return listers_; }
  // A storage or DRA object changed: moves the pods whose plugins registered for it.
  void OnObjectChange(AnyStoredChange change) override;
  void OnCustomObjectChange(const CustomResource& resource, std::shared_ptr<const CustomObject> old,
                            std::shared_ptr<const CustomObject> now) override;
  // Whether a profile serves this schedulerName.
  bool IsResponsibleFor(const api::Pod& pod) const override;

  // Runs one scheduling cycle if a pod is ready, waiting up to `wait` for one; false if none came
  // (or the queue was closed).
  bool ScheduleOne(absl::Duration wait = absl::ZeroDuration());
  // Blocks until every binding cycle handed over so far has finished (bound or rolled back).
  void WaitForBindings() { binding_.Wait(); }
  // Without binding threads (`ksched simulate`), a binding cycle whose pod waits at Permit is set
  // aside rather than run inline, where it would wait forever on the scheduling thread: this runs
  // those whose wait is decided (allowed, rejected, or past its deadline on the clock). ScheduleOne
  // calls it before and after each cycle.
  void RunDecidedBindingCycles();
  // The first deadline of the waits set aside; InfiniteFuture if there is none.
  absl::Time NextPermitDeadline() const;

  const framework::Framework* FrameworkFor(std::string_view scheduler_name) const;
  queue::SchedulingQueue& queue() { return *queue_; }
  cache::Cache& cache() { return cache_; }
  const Clock& clock() const { return *clock_; }
  metrics::Registry& metrics_registry() { return metrics_->registry; }

 private:
  struct ScheduleResult {
    std::string node;
    int evaluated = 0;
    int feasible = 0;
    bool scored = false;        // score_table_ holds this pod's scores.
    std::string batched_after;  // Attempt::batched_after.
  };
  // What the scheduling cycle found, for its Attempt: the filters' diagnosis, the feasible nodes
  // (feasible_) and the scores; and the victims of its preemption.
  // A placement's nodes by name, in the snapshot's order: a pod group's trials change the
  // snapshot's NodeInfos.
  struct PlacementScope {
    std::vector<std::string> names;
    absl::flat_hash_set<std::string> set;
  };
  struct Found {
    const Diagnosis* filtered = nullptr;
    const framework::ScoreTable* scores = nullptr;
    std::vector<std::string> victims;
    std::string pod_group, group_reason, group_message;  // Attempt's.
    std::string placement;
    const absl::flat_hash_set<std::string>* placement_nodes = nullptr;
  };

  using SteadyTime = std::chrono::steady_clock::time_point;

  explicit Scheduler(SchedulerOptions options);
  // The configuration's extenders (extenders_), and the resources they manage that the scheduler
  // ignores in each profile's NodeResourcesFit args; an error names what cannot be built.
  absl::Status BuildExtenders();
  // scheduler_schedule_attempts_total and scheduler_scheduling_attempt_duration_seconds.
  void RecordAttempt(const api::Pod& pod, std::string_view result, SteadyTime start);
  // The queue's observers, feeding scheduler_queue_incoming_pods_total and
  // scheduler_unschedulable_pods.
  queue::QueueOptions QueueObservers(queue::QueueOptions options);
  // The binding cycle of one pod, as the scheduling cycle hands it over (upstream's
  // assumedPodInfo and ScheduleResult). Copyable, for std::function.
  struct BindingCycle {
    framework::Framework* fw = nullptr;
    std::shared_ptr<CycleState> state;
    QueuedPodInfo info;
    std::shared_ptr<const api::Pod> assumed;  // With spec.nodeName set to `node`.
    std::string node;
    SteadyTime start;
    // PreBind's first request (or the bind) is sent from the scheduling thread and the cycle goes
    // on where each answer arrives (fw->CanBindAsync, and Permit did not wait); otherwise the
    // whole cycle runs on a binding thread.
    bool async = false;
    // The PreBind plugins with work for the pod: those the binding cycle runs.
    framework::Framework::PreBindWork pre_bind_work;
    // The pod's nominatedNodeName was set to `node` for the cycle; a failure clears it.
    bool nominated = false;
  };

  // --- The scheduling cycle (upstream's schedulingCycle and what it calls), on the scheduling
  // thread.
  // The node for the pod, then Assume, Reserve, Permit and PreBind's pre-flight. Returns the
  // binding cycle to start, or nullopt once a failure is handled (the pod requeued, its event and
  // condition written).
  std::optional<BindingCycle> SchedulingCycle(framework::Framework& fw, QueuedPodInfo info,
                                              SteadyTime start);
  // Assume on `node`, Reserve, Permit and PreBind's pre-flight (upstream's
  // prepareForBindingCycle): the binding cycle to start, or nullopt once a failure is handled.
  // `found`, `diagnosis` and `batched_after` are what the scheduling cycle found, for the
  // attempt's observers.
  std::optional<BindingCycle> Place(framework::Framework& fw, QueuedPodInfo info,
                                    std::shared_ptr<CycleState> state, std::string node,
                                    SteadyTime start, const Found* found,
                                    const Diagnosis* diagnosis, const std::string& batched_after);
  // --- The pod group cycle (schedule_one_podgroup.cc), with generic_workload: the queued pods of
  // `first`'s PodGroup, placed together if at least its minCount fit, or not at all.
  void SchedulePodGroup(framework::Framework& fw, QueuedPodInfo first, SteadyTime start);
  // The PodGroup's PodGroupInitiallyScheduled condition after a cycle that ended with `status`
  // (upstream's updatePodGroupCondition): never back from True, not written when unchanged.
  void SetInitiallyScheduled(const api::PodGroup& group, const Status& status);
  // One pod's try in a run of the group algorithm.
  struct GroupTry {
    std::shared_ptr<CycleState> state = std::make_shared<CycleState>();
    FitError fit_error;
    Status status;  // Success: `node` chosen.
    std::string node;
    bool tried = false;
    std::shared_ptr<const PodInfo> placed;  // The pod on `node`, when it fitted.
    // For the attempt's observers: the feasible nodes and the scores. The snapshot moves on as
    // the group's later pods are tried, so the nodes are kept by name.
    std::vector<std::string> feasible;
    std::optional<framework::ScoreTable> scores;
    std::vector<std::string> scored;
  };
  struct GroupRun {
    std::vector<GroupTry> tried;  // Per pod, in the group's order.
    Status status;                // The group's, before PodGroupPostFilter.
    // The state the pods share in the cycle (CycleState::pod_group_cycle), which
    // PodGroupPostFilter reads.
    std::shared_ptr<CycleState> group_cycle = std::make_shared<CycleState>();
    // With topology_aware_workload_scheduling: the placement of the run ("" for every node),
    // and its nodes (nullopt for every node).
    std::string placement;
    std::optional<PlacementScope> scope;
  };
  // Upstream's podGroupSchedulingDefaultAlgorithm: each pod on the snapshot, the ones before it
  // placed and reserved, until GangScheduling's PlacementFeasible says minCount cannot be met;
  // then everything placed is taken back (Unreserve, forgotten, nominations restored). Placed in
  // the cache, or with `overlay` only in the snapshot (preemption's what-if, which also records
  // nothing for the observers).
  GroupRun RunGroupAlgorithm(framework::Framework& fw, const api::PodGroup& group,
                             const std::vector<QueuedPodInfo>& pods, SnapshotOverlay* overlay);
  // Upstream's podGroupSchedulingAlgorithm: RunGroupAlgorithm; with
  // topology_aware_workload_scheduling, once on each placement the profile's PlacementGenerate
  // plugin gives, confined to its nodes, and the run of the best scored placement where the group
  // fits (a tie broken at random), or, where it fits on none, the first placement's run, with
  //   pod group is unschedulable, 0/3 placements are available, first placement status: ...
  GroupRun RunGroupPlacements(framework::Framework& fw, const api::PodGroup& group,
                              const std::vector<QueuedPodInfo>& pods, SnapshotOverlay* overlay);
  // What upstream's PodGroupPostFilter plugins say of a group that does not fit, after the cycle
  // `run`: the PostFilter plugins that are PodGroupPostFilterPlugins (DynamicResources), and
  // DefaultPreemption's (PreemptForPodGroup), in the profile's order. `nominated` gets the nodes
  // a preemption nominates the pods to.
  Status PodGroupPostFilter(framework::Framework& fw, const api::PodGroup& group,
                            const std::vector<QueuedPodInfo>& pods, const GroupRun& run,
                            std::map<std::string, std::string>* nominated);
  // DefaultPreemption's PodGroupPostFilter, without its "pod group preemption: " (upstream's
  // PodGroupEvaluator, podgroup_preemption.cc): the lower-priority pods whose removal lets the
  // group be placed, fewest first, evicted through DefaultPreemption; `nominated` gets each
  // placed pod's node.
  Status PreemptForPodGroup(framework::Framework& fw, const api::PodGroup& group,
                            const std::vector<QueuedPodInfo>& pods,
                            std::map<std::string, std::string>* nominated);
  // Filters, scores and picks a node (upstream's schedulePod).
  // The feasible nodes go to feasible_, the rejections to fit_error->diagnosis.
  Status SchedulePod(framework::Framework& fw, CycleState& state, const api::Pod& pod,
                     ScheduleResult* result, FitError* fit_error);
  // PreFilter, then the nominated node or OpportunisticBatching's hint (into *hint, with the
  // pod's signature), then the others (upstream's findNodesThatFitPod).
  // `all` is CandidateNodes().
  Status FindNodesThatFitPod(framework::Framework& fw, CycleState& state, const api::Pod& pod,
                             const std::vector<const NodeInfo*>& all,
                             const std::optional<std::string>& signature, std::string* hint,
                             std::vector<const NodeInfo*>* feasible, Diagnosis* diagnosis);
  // The nodes a pod may go to: the snapshot's, or those of the placement a pod group's trial is
  // confined to (placement_), as they are in the snapshot now.
  const std::vector<const NodeInfo*>& CandidateNodes();
  // The snapshot's nodes of `scope` now, in its order, into *nodes.
  void NodesIn(const PlacementScope& scope, std::vector<const NodeInfo*>* nodes) const;
  // Whether the node preemption nominated the pod to fits it (or, without one, the hint); that
  // node is likely the only one that does, so it is tried first (upstream's
  // evaluateNominatedNode).
  bool EvaluateNominatedNode(framework::Framework& fw, CycleState& state, const api::Pod& pod,
                             std::string_view hint, std::vector<const NodeInfo*>* feasible,
                             Diagnosis* diagnosis);
  // The extenders' filters on the feasible nodes, in turn (upstream's findNodesThatPassExtenders):
  // their rejections go to the diagnosis; an error of one that is not ignorable is the cycle's.
  Status FindNodesThatPassExtenders(const api::Pod& pod, std::vector<const NodeInfo*>* feasible,
                                    Diagnosis* diagnosis);
  // Whether any extender filters or scores: then as many nodes are filtered as when plugins score.
  bool ExtendersFilterOrScore() const;
  // The prioritizing extenders' scores, scaled by weight * 10, as columns of score_table_ named by
  // each extender (upstream's prioritizeNodes); an extender's error leaves its column out.
  void AddExtenderScores(const framework::Framework& fw, const api::Pod& pod,
                         const std::vector<const NodeInfo*>& feasible);
  // Filters `nodes` from the round-robin start until enough fit, in parallel waves (upstream's
  // findNodesThatPassFilters); the start moves on modulo `all_nodes`, the candidates' count.
  Status FindNodesThatPassFilters(framework::Framework& fw, CycleState& state, const api::Pod& pod,
                                  const std::vector<const NodeInfo*>& nodes, size_t all_nodes,
                                  std::vector<const NodeInfo*>* feasible, Diagnosis* diagnosis);
  // PreScore and Score into score_table_ (upstream's prioritizeNodes).
  Status PrioritizeNodes(framework::Framework& fw, CycleState& state, const api::Pod& pod,
                         const std::vector<const NodeInfo*>& feasible);
  // The place in `scores` of the node the pod goes to.
  size_t SelectHost(const framework::ScoreTable& scores);
  // The attempt failed: the pod goes back to the queue, with its event and condition, and the
  // attempt to the observers. `found` is what its scheduling cycle found; nullptr from the
  // binding cycle. `state` is the attempt's, for the simulator's annotations.
  void HandleFailure(QueuedPodInfo info, const Status& status, const Diagnosis* diagnosis,
                     const std::optional<std::string>& nominated_node, const Found* found,
                     const CycleState& state, SteadyTime start);
  // A failure after `node` was chosen (Reserve, Permit, binding): rejections become a one-node
  // FitError, anything else an error; the pod's nomination is cleared, as upstream's
  // clearNominatedNode.
  void HandleFailureOnNode(QueuedPodInfo info, const Status& status, const std::string& node,
                           const Found* found, const CycleState& state, SteadyTime start);
  // The attempt's SimulatorTrace; nullptr without options_.simulator_annotations, so that a cycle
  // without one does not search its state for it.
  const framework::SimulatorTrace* Trace(const CycleState& state) const;
  // With options_.simulator_annotations: the attempt's SimulatorTrace as the simulator's
  // annotations on the pod, and the pod's result-history with one more entry.
  void WriteSimulatorAnnotations(const CycleState& state, const api::Pod& pod);
  // Hands the attempt to options_.observers, with what `found` holds and what the rejecting
  // plugins wait for. From a binding thread too, with `found` nullptr.
  void Observe(Attempt attempt, const QueuedPodInfo& info, const Found* found);
  // --- The binding cycle (upstream's bindingCycle): Permit's wait, PreBind and Bind, then
  // FinishBindingCycle. Where it runs is its strategy (BindingCycle::async): on a binding thread;
  // or sent from the calling thread and finished where the answer arrives, or on a binding thread
  // when what is left may block (a failure's Unreserve, PostBind plugins).
  void StartBindingCycle(BindingCycle cycle);
  // What follows the bind, given its outcome `s`: the pod is bound (event, PostBind) or forgotten
  // and requeued.
  void FinishBindingCycle(BindingCycle cycle, Status s);
  void MoveAll(ClusterEvent event, std::shared_ptr<const api::Pod> old_pod,
               std::shared_ptr<const api::Pod> pod, std::shared_ptr<const api::Node> old_node,
               std::shared_ptr<const api::Node> node);

  SchedulerOptions options_;
  std::unique_ptr<metrics::Registry> own_registry_;  // When options_ gives none.
  std::unique_ptr<metrics::SchedulerMetrics> metrics_;
  // The configuration's HTTP extenders, before the frameworks that call them.
  std::unique_ptr<extender::ExtenderMetrics> extender_metrics_;
  extender::Extenders extenders_;
  // The NodeInfos of nodes extenders sent back whole in this scheduling cycle.
  std::vector<std::shared_ptr<const NodeInfo>> extender_nodes_;
  // scheduler_goroutines{operation="binding"}: the binding cycles under way, each begun and ended
  // once per pod, so its series is found once.
  metrics::Gauge* binding_goroutines_ = nullptr;
  // scheduler_goroutines{operation="prioritizing_extender"}: the prioritizers' calls under way,
  // when an extender prioritizes.
  metrics::Gauge* prioritizing_goroutines_ = nullptr;
  RealClock real_clock_;
  const Clock* clock_;
  std::map<std::string, std::unique_ptr<framework::Framework>, std::less<>> frameworks_;
  Listers listers_;                    // Before the frameworks, whose plugins read them.
  PodsByNamespace pods_by_namespace_;  // Handle::pods(), kept once a plugin asked.
  // The binding cycles waiting at Permit, set aside when there are no binding threads.
  std::vector<BindingCycle> parked_;
  cache::Cache cache_;
  framework::Nominator nominator_;  // Pods that preemption nominated to a node.
  std::unique_ptr<queue::SchedulingQueue> queue_;
  Snapshot snapshot_;
  size_t next_start_node_index_ = 0;
  // The placement a pod group's trial is confined to (TopologyAwareWorkloadScheduling;
  // upstream's AssumePlacement); nullopt: every node.
  std::optional<PlacementScope> placement_;
  std::vector<const NodeInfo*> placement_nodes_;  // CandidateNodes' list.
  int64_t cycle_ = 0;  // Pods popped so far (upstream's scheduling cycle count).
  // HandleFailure is handling a pod group's pod: it goes back after a backoff.
  bool group_failure_ = false;
  std::vector<uint8_t> verdict_scratch_;
  std::vector<Status> status_scratch_;
  std::vector<const NodeInfo*> feasible_;    // The scheduling cycle's feasible nodes.
  framework::ParallelCutoff filter_cutoff_;  // Whether Filter runs on the workers.
  framework::ScoreTable score_table_;
  std::mt19937_64 rng_;
  std::minstd_rand sample_rng_;  // Which cycles time their plugins; apart from rng_, so that
                                 // sampling never changes a placement.
  // Last, so that it is destroyed first: its cycles use everything above.
  BindingExecutor binding_;
};

}  // namespace ksched::scheduler
