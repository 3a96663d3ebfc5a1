// Framework: one scheduling profile's plugins, wired per extension point, and the code that runs
// them (upstream's framework/runtime/framework.go).
//
//   auto fw = Framework::Create(profile, registry, deps);
//   Status s = (*fw)->RunFilterPlugins(state, pod, node_info);
//
// Plugins are built once, from the profile's merged plugin sets (config::MergeDefaultPlugins) and
// the multiPoint expansion with upstream's precedence: a specific extension point wins over an
// explicit multiPoint entry, which wins over the defaults.
//
// Thread safety: the Run* methods of the scheduling cycle are called from the scheduling thread
// (Filter and Score fan out to worker threads internally); the binding-cycle Run* methods from a
// binding thread, or, after RunBindingPluginsAsync, from the thread an answer arrives on. Waiting
// pods are guarded by their own lock.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "ksched/async_bind_plugin.h"
#include "ksched/handle.h"
#include "ksched/plugin.h"
#include "ksched/preemption.h"
#include "ksched/registry.h"
#include "oneapi/tbb/blocked_range.h"
#include "oneapi/tbb/parallel_for.h"
#include "oneapi/tbb/task_arena.h"
#include "src/api/listers.h"
#include "src/base/clock.h"
#include "src/cache/cache.h"
#include "src/config/config.h"
#include "src/framework/batch.h"
#include "src/framework/nominator.h"
#include "src/framework/parallel_cutoff.h"
#include "src/framework/waiting_pods.h"
#include "src/metrics/scheduler_metrics.h"

namespace ksched::framework {

// The scores of one cycle: each plugin's normalized score times its weight, per feasible node.
// Reused across cycles by the caller, so that scoring allocates nothing in the steady state.
struct ScoreTable {
  std::vector<std::string_view> plugins;  // The plugins that scored (not skipped at PreScore).
  std::vector<const NodeInfo*> nodes;     // The feasible nodes, in filter order.
  std::vector<int64_t> raw;               // raw[p * nodes.size() + n]: Score's, not normalized.
  std::vector<int64_t> weighted;          // weighted[p * nodes.size() + n]
  std::vector<int64_t> totals;            // Per node: the sum over plugins.

  int64_t Weighted(size_t plugin, size_t node) const {
    return weighted[plugin * nodes.size() + node];
  }
};

// Where a requeue puts a pod after an event (upstream's queueingStrategy).
enum class QueueingStrategy { kSkip, kAfterBackoff, kImmediately };

class Framework : public Handle {
 public:
  struct Deps {
    ClusterWriter* writer = nullptr;
    int parallelism = 16;
    int32_t global_percentage_of_nodes_to_score = 0;
    metrics::SchedulerMetrics* metrics = nullptr;  // nullptr: nothing is recorded.
    const cache::Cache* cache = nullptr;           // For GetAssignedPod.
    const Listers* listers = nullptr;              // For GetNamespace, ..., storage.
    // For WatchCustomResource and pods(); nullptr: none is watched, and no pod listed.
    CustomObjects* custom = nullptr;
    PodsByNamespace* pods = nullptr;
    const Clock* clock = nullptr;          // Times Permit waits; nullptr: the real clock.
    const Nominator* nominator = nullptr;  // nullptr: no pod is ever nominated.
    // RunAsync and Activate; nullptr: RunAsync runs at once, Activate does nothing.
    std::function<void(std::function<void()>)> run_async;
    std::function<void(const std::vector<std::shared_ptr<const api::Pod>>&)> activate;
    // Stopping; nullptr: never.
    std::function<bool()> stopping;
    // Each plugin is wrapped (TracePlugin) so that its outcomes go to the cycle's
    // SimulatorTrace, when it has one (kSimulatorTraceKey).
    bool simulator_trace = false;
    // The HTTP extenders, in the order they are called (Handle::extenders); nullptr: none. A pod
    // they rejected nodes for is requeued on every event (upstream's "Extender").
    const std::vector<Extender*>* extenders = nullptr;
    // Whether a binding extender binds the pods it is interested in, instead of the Bind plugins.
    bool extenders_bind = true;
  };

  static absl::StatusOr<std::unique_ptr<Framework>> Create(const config::Profile& profile,
                                                           const Registry& registry,
                                                           const Deps& deps);
  ~Framework() override;

  const std::string& profile_name() const { return profile_name_; }
  // The profile's percentageOfNodesToScore, or the global one.
  int32_t percentage_of_nodes_to_score() const { return percentage_; }
  bool HasScorePlugins() const { return !score_.empty(); }
  bool HasFilterPlugins() const { return !filter_.empty(); }
  bool HasPostFilterPlugins() const { return !post_filter_.empty(); }
  // The PostFilter plugin of this name as a PodGroupPostFilterPlugin, or nullptr.
  PodGroupPostFilterPlugin* PodGroupPostFilterPluginNamed(std::string_view name) const;
  // The plugin names per extension point, in run order (for /configz, explain and tests).
  std::map<std::string, std::vector<std::string>> PluginsByExtensionPoint() const;
  int64_t ScoreWeight(std::string_view plugin) const;

  // --- Queueing ---
  // Success, or the first rejecting plugin's status with its name set.
  Status RunPreEnqueuePlugins(const api::Pod& pod) const;
  bool Less(const QueuedPodInfo& a, const QueuedPodInfo& b) const;
  // Upstream's isPodWorthRequeuing: asks the hints of the plugins that rejected the pod.
  QueueingStrategy IsPodWorthRequeuing(const QueuedPodInfo& pod,
                                       const ClusterEventData& event) const;
  // Whether any plugin registered an event that matches (upstream skips work otherwise).
  bool AnyPluginInterestedIn(const ClusterEvent& event) const;
  // The events `plugin` registered, as labels: "NodeAdd", or the resource and its actions
  // ("Node/Add|UpdateNodeTaint") where the plugin gave none.
  std::vector<std::string> RegisteredEvents(std::string_view plugin) const;

  // --- Scheduling cycle ---
  // The pod's signature for OpportunisticBatching (upstream's SignPod): the profile's name and
  // the fragments of its SignPlugins. nullopt when the profile does not sign (one of its
  // PreFilter, Filter, PreScore or Score plugins is not a SignPlugin) or a plugin cannot sign
  // this pod.
  std::optional<std::string> SignPod(const api::Pod& pod) const;
  // What the profile keeps of its last cycle for OpportunisticBatching.
  OpportunisticBatch& batch() { return *batch_; }
  // Runs PreFilter plugins; the intersection of their results goes into *result. A rejection
  // carries the plugin name; `rejectors` gets the plugins that rejected or narrowed the nodes.
  Status RunPreFilterPlugins(CycleState& state, const api::Pod& pod,
                             const std::vector<const NodeInfo*>& nodes, PreFilterResult* result,
                             std::set<std::string, std::less<>>* rejectors);
  // Runs Filter plugins in order on one node; the first failure wins and carries the plugin's
  // name. Over many nodes, FilterRun (below) does the same and counts the evaluations.
  Status RunFilterPlugins(const CycleState& state, const api::Pod& pod, const NodeInfo& node) const;
  Status RunPostFilterPlugins(CycleState& state, const api::Pod& pod, const NodeToStatus& filtered,
                              PostFilterResult* result);
  Status RunPreScorePlugins(CycleState& state, const api::Pod& pod,
                            const std::vector<const NodeInfo*>& feasible);
  // Score (in parallel over nodes), NormalizeScore and weights, into *out.
  Status RunScorePlugins(const CycleState& state, const api::Pod& pod,
                         const std::vector<const NodeInfo*>& feasible, ScoreTable* out);
  // Score alone, on one node: the Score plugins that run this cycle (those PreScore did not
  // skip) into *plugins, and their raw scores into *raw.
  Status RunRawScorePlugins(const CycleState& state, const api::Pod& pod, const NodeInfo& node,
                            std::vector<std::string_view>* plugins, std::vector<int64_t>* raw);
  // NormalizeScore and the weights of table->plugins over table->raw, into table->weighted and
  // table->totals.
  Status NormalizeScores(const CycleState& state, const api::Pod& pod, ScoreTable* table);
  Status RunReservePluginsReserve(CycleState& state, const api::Pod& pod, std::string_view node);
  void RunReservePluginsUnreserve(CycleState& state, const api::Pod& pod, std::string_view node);
  // Success, Wait (the pod is now a waiting pod), or a rejection.
  Status RunPermitPlugins(CycleState& state, const api::Pod& pod, std::string_view node);
  // GangScheduling's PlacementFeasible, as upstream wires it (by name): Success without it; its
  // Unschedulable and Wait with its name; an error as "running PlacementFeasible plugin: ...".
  Status RunPlacementFeasible(const api::PodGroup& group, int scheduled, int remaining);
  // The placements to try a pod group on (upstream's RunPlacementGeneratePlugins): `all` alone
  // without a PlacementGenerate plugin; the plugin's, or "no feasible placements found"
  // (Unschedulable) when it gives none; its failure, with its name.
  Status RunPlacementGeneratePlugins(const api::PodGroup& group, Placement all,
                                     std::vector<Placement>* placements);
  // Each placement's total score (upstream's RunPlacementScorePlugins): the plugins' scores,
  // normalized, checked to be in [0, 100], weighted and summed; *totals is indexed as
  // `assignments`.
  Status RunPlacementScorePlugins(const api::PodGroup& group,
                                  std::span<const PodGroupAssignments> assignments,
                                  std::vector<int64_t>* totals);
  // DefaultPreemption, which evicts for a pod group (upstream's PodGroupEvaluator's executor);
  // nullptr without it.
  preemption::PodGroupPreemptionPlugin* pod_group_preemption() const {
    return pod_group_preemption_;
  }

  // --- Binding cycle ---
  // Blocks until a waiting pod is allowed, rejected or times out on Deps::clock; Success if it was
  // not waiting.
  Status WaitOnPermit(const api::Pod& pod);
  // The PreBind plugins with work for a pod (their places in the profile's PreBind list), as
  // RunPreBindPreFlights found them.
  using PreBindWork = absl::InlinedVector<uint16_t, 2>;
  // Skip if no PreBind plugin has work to do for the pod (each PreBindPreFlight skips), Success
  // if one has, the first error otherwise. `work`, when given, gets the plugins that have.
  Status RunPreBindPreFlights(CycleState& state, const api::Pod& pod, std::string_view node,
                              PreBindWork* work = nullptr);
  // The binding cycle's plugins, after WaitOnPermit: PreBind's, only those in `work` (as upstream
  // runs only those), then Bind's, until one binds. The outcome: PreBind's first failure, or
  // Bind's (Success; Skip when every Bind plugin skipped; or the first failure). One chain, run
  // two ways: each plugin is called through its asynchronous form where it has one
  // (AsyncPreBindPlugin, AsyncBindPlugin), and answers at once otherwise.
  //
  // Waiting: the calling thread (a binding thread) waits for each answer that comes later, so that
  // every plugin runs on it; the synchronous cycle is this waiting adapter over the chain.
  Status RunBindingPlugins(CycleState& state, const api::Pod& pod, std::string_view node,
                           PreBindWork work);
  // Answered: each plugin starts where the answer before it arrived, and `done` is called there.
  // Only when no plugin of the chain blocks (CanBindAsync), so that no answering thread does.
  // `state` and `pod` must live until `done` runs.
  void RunBindingPluginsAsync(CycleState& state, const api::Pod& pod, std::string_view node,
                              PreBindWork work, std::function<void(Status)> done);
  // Whether a pod that Permit did not make wait can be bound by RunBindingPluginsAsync, without a
  // binding thread: the profile's first Bind plugin binds asynchronously (AsyncBindPlugin, which
  // never skips), and `pre_flight` and `work`, from RunPreBindPreFlights, say that PreBind has
  // nothing to do, or only for AsyncPreBindPlugins.
  bool CanBindAsync(const Status& pre_flight, const PreBindWork& work) const {
    if (async_bind_.front() == nullptr || !(pre_flight.ok() || pre_flight.IsSkip())) return false;
    return std::all_of(work.begin(), work.end(),
                       [this](uint16_t i) { return async_pre_bind_[i] != nullptr; });
  }
  bool HasPostBindPlugins() const { return !post_bind_.empty(); }
  void RunPostBindPlugins(CycleState& state, const api::Pod& pod, std::string_view node);

  // --- Handle ---
  const Snapshot& snapshot() const override { return *snapshot_; }
  void set_snapshot(const Snapshot* snapshot) { snapshot_ = snapshot; }
  ClusterWriter& writer() override { return *deps_.writer; }
  int parallelism() const override { return deps_.parallelism; }
  // Runs `body` over [begin, end), in ranges of at least `grain`, on at most parallelism()
  // threads at once (upstream's Parallelizer and its `parallelism` workers); the calling thread
  // is one of them.
  template <typename Body>
  void ParallelFor(size_t begin, size_t end, size_t grain, const Body& body) const {
    arena_.execute([&] {
      tbb::parallel_for(tbb::blocked_range<size_t>(begin, end, grain),
                        [&](const tbb::blocked_range<size_t>& r) { body(r.begin(), r.end()); });
    });
  }
  // How many threads ParallelFor can use: parallelism(), or fewer on a machine with fewer cores.
  int concurrency() const { return arena_.max_concurrency(); }
  std::shared_ptr<WaitingPod> GetWaitingPod(std::string_view uid) override;
  // The same, with what the scheduler asks of a wait (WaitingPodImpl::Decided, Deadline).
  std::shared_ptr<WaitingPodImpl> WaitingPodOf(std::string_view uid) const {
    return waiting_.Get(uid);
  }
  void IterateOverWaitingPods(const std::function<void(WaitingPod&)>& fn) override;
  std::shared_ptr<const api::Namespace> GetNamespace(std::string_view name) const override {
    return deps_.listers ? deps_.listers->namespaces.Get(name) : nullptr;
  }
  std::shared_ptr<const api::PriorityClass> GetPriorityClass(std::string_view name) const override {
    return deps_.listers ? deps_.listers->priority_classes.Get(name) : nullptr;
  }
  std::vector<std::shared_ptr<const api::Service>> ListServices(
      std::string_view ns) const override {
    if (!deps_.listers) return {};
    return deps_.listers->services.List(ns);
  }
  std::shared_ptr<const api::ReplicationController> GetReplicationController(
      std::string_view ns, std::string_view name) const override {
    return deps_.listers ? deps_.listers->replication_controllers.Get(ns, name) : nullptr;
  }
  std::shared_ptr<const api::ReplicaSet> GetReplicaSet(std::string_view ns,
                                                       std::string_view name) const override {
    return deps_.listers ? deps_.listers->replica_sets.Get(ns, name) : nullptr;
  }
  std::shared_ptr<const api::StatefulSet> GetStatefulSet(std::string_view ns,
                                                         std::string_view name) const override {
    return deps_.listers ? deps_.listers->stateful_sets.Get(ns, name) : nullptr;
  }
  std::shared_ptr<const api::Pod> GetAssignedPod(std::string_view uid) const override {
    return deps_.cache ? deps_.cache->GetPod(uid) : nullptr;
  }
  Status RunFilterPluginsWithNominatedPods(const CycleState& state, const api::Pod& pod,
                                           const NodeInfo& node) const override;
  // The same, given the pods nominated to `node` (PodsNominatedTo's list).
  Status RunFilterPluginsWithNominatedPods(const CycleState& state, const api::Pod& pod,
                                           const NodeInfo& node,
                                           const Nominator::PodList& nominated) const;
  Status RunPreFilterExtensionAddPod(CycleState& state, const api::Pod& pod,
                                     const PodInfo& pod_info, const NodeInfo& node) const override;
  Status RunPreFilterExtensionRemovePod(CycleState& state, const api::Pod& pod,
                                        const PodInfo& pod_info,
                                        const NodeInfo& node) const override;
  std::vector<std::shared_ptr<const PodInfo>> NominatedPodsForNode(
      std::string_view node) const override {
    return deps_.nominator ? deps_.nominator->NominatedPodsForNode(node)
                           : std::vector<std::shared_ptr<const PodInfo>>{};
  }
  std::string NominatedNodeOf(const api::Pod& pod) const override {
    std::string node = deps_.nominator ? deps_.nominator->NodeOf(pod.metadata.uid) : "";
    return node.empty() ? pod.status.nominated_node_name : node;
  }
  void RunAsync(std::function<void()> fn) override {
    if (deps_.run_async) {
      deps_.run_async(std::move(fn));
    } else {
      fn();
    }
  }
  void Activate(const std::vector<std::shared_ptr<const api::Pod>>& pods) override {
    if (deps_.activate) deps_.activate(pods);
  }
  bool Stopping() const override { return deps_.stopping && deps_.stopping(); }
  const std::vector<Extender*>& extenders() const override {
    return deps_.extenders != nullptr ? *deps_.extenders : Handle::extenders();
  }
  absl::Time Now() const override { return deps_.clock ? deps_.clock->Now() : absl::Now(); }

  // The pods nominated to `node`, shared; nullptr when none is (the scheduling cycle's fast path).
  std::shared_ptr<const Nominator::PodList> PodsNominatedTo(std::string_view node) const {
    return deps_.nominator ? deps_.nominator->PodsForNode(node) : nullptr;
  }
  std::vector<std::shared_ptr<const api::PodDisruptionBudget>> ListPodDisruptionBudgets()
      const override {
    if (!deps_.listers) return {};
    return deps_.listers->pod_disruption_budgets.ListAll();
  }
  const StorageLister& storage() const override {
    static const StorageObjects kNone;
    return deps_.listers ? deps_.listers->storage : kNone;
  }
  PluginMetrics& metrics() override { return plugin_metrics_; }
  const DraLister& dra() const override {
    static const DraObjects kNone;
    return deps_.listers ? deps_.listers->dra : kNone;
  }
  const PodGroupLister& pod_groups() const override { return pod_groups_; }
  const PodLister& pods() override;
  const CustomObjectLister& WatchCustomResource(const CustomResource& resource) override;

 private:
  friend class FilterRun;
  friend class OpportunisticBatch;  // Its metrics.
  struct BindingRun;                // RunBindingPlugins' chain.
  Framework(std::string profile_name, const Deps& deps);
  absl::Status Build(const config::Profile& profile, const Registry& registry);
  // The Filter plugins to run this cycle: those whose PreFilter did not return Skip. Inline:
  // preemption's what-if asks for them once per pod it moves.
  using FilterList = absl::InlinedVector<FilterPlugin*, 16>;
  FilterList FiltersToRun(const CycleState& state) const;
  // RunFilterPlugins over `filters`; *stopped_at is the index of the filter that failed
  // (filters.size() when all passed).
  Status RunFilterPlugins(absl::Span<FilterPlugin* const> filters, const CycleState& state,
                          const api::Pod& pod, const NodeInfo& node, size_t* stopped_at) const;
  Status RunPreFilterExtension(CycleState& state, const api::Pod& pod, const PodInfo& pod_info,
                               const NodeInfo& node, bool add) const;
  // The bodies of the extension points that Timed wraps.
  Status PreFilterLoop(CycleState& state, const api::Pod& pod,
                       const std::vector<const NodeInfo*>& nodes, PreFilterResult* result,
                       std::set<std::string, std::less<>>* rejectors);
  Status ScoreLoop(const CycleState& state, const api::Pod& pod,
                   const std::vector<const NodeInfo*>& feasible, ScoreTable* out);
  // The Score plugins PreScore did not skip this cycle.
  std::vector<ScorePlugin*> ActiveScorePlugins(const CycleState& state) const;
  // NormalizeScore over lists[j] (the raw scores of active[j]), then the weights, into out.
  Status NormalizeAndWeigh(const CycleState& state, const api::Pod& pod,
                           const std::vector<ScorePlugin*>& active,
                           std::vector<NodeScoreList>& lists, size_t n, ScoreTable* out);
  Status PermitLoop(CycleState& state, const api::Pod& pod, std::string_view node);
  // Runs an extension point, recording its duration and status code.
  template <typename F>
  Status Timed(metrics::Point point, F&& run) const;
  // Runs one plugin at a point, timing it when the cycle is sampled for plugin metrics.
  template <typename F>
  Status TimedPlugin(const CycleState& state, std::string_view plugin, metrics::Point point,
                     F&& run) const;
  // Records a plugin's answer at a point, as TimedPlugin does: its duration since `start` when
  // the cycle is sampled for plugin metrics.
  void PluginAnswered(const CycleState& state, std::string_view plugin, metrics::Point point,
                      const Status& s, std::chrono::steady_clock::time_point start) const;

  std::string profile_name_;
  Deps deps_;
  std::unique_ptr<metrics::FrameworkMetrics> metrics_;  // nullptr without Deps::metrics.
  metrics::PluginMetricsRecorder plugin_metrics_{deps_.metrics, profile_name_};
  cache::PodGroupView pod_groups_{deps_.listers ? &deps_.listers->pod_groups : nullptr,
                                  deps_.cache};
  int32_t percentage_ = 0;
  const Snapshot* snapshot_ = nullptr;
  std::map<std::string, std::unique_ptr<Plugin>, std::less<>> plugins_;

  std::vector<PreEnqueuePlugin*> pre_enqueue_;
  std::vector<QueueSortPlugin*> queue_sort_;
  std::vector<PreFilterPlugin*> pre_filter_;
  // The PreFilter plugins that have PreFilterExtensions, in pre_filter_'s order: preemption calls
  // them for every pod it moves, too often to find them with dynamic_cast each time.
  std::vector<std::pair<PreFilterPlugin*, PreFilterExtensions*>> pre_filter_extensions_;
  std::vector<FilterPlugin*> filter_;
  std::vector<PostFilterPlugin*> post_filter_;
  std::vector<PreScorePlugin*> pre_score_;
  std::vector<ScorePlugin*> score_;
  std::vector<ReservePlugin*> reserve_;
  std::vector<PermitPlugin*> permit_;
  PlacementFeasiblePlugin* placement_feasible_ = nullptr;
  preemption::PodGroupPreemptionPlugin* pod_group_preemption_ = nullptr;
  std::vector<PlacementGeneratePlugin*> placement_generate_;  // At most one.
  std::vector<PlacementScorePlugin*> placement_score_;
  std::map<std::string, int64_t, std::less<>> placement_score_weights_;
  std::vector<PreBindPlugin*> pre_bind_;
  std::vector<AsyncPreBindPlugin*> async_pre_bind_;  // pre_bind_'s, or nullptr where one is not.
  std::vector<BindPlugin*> bind_;
  std::vector<AsyncBindPlugin*> async_bind_;  // bind_'s, or nullptr where one is not.
  std::vector<PostBindPlugin*> post_bind_;
  std::map<std::string, int64_t, std::less<>> score_weights_;
  // The PreFilter, Filter, PreScore and Score plugins, each once, when all of them are
  // SignPlugins; empty when one is not (the profile does not sign pods).
  std::vector<const SignPlugin*> signers_;
  bool signs_ = false;
  mutable size_t first_signer_ = 0;  // The signer SignPod asks first (the scheduling thread's).
  std::unique_ptr<OpportunisticBatch> batch_;
  // The workers of ParallelFor; execute() may be called from several threads.
  mutable tbb::task_arena arena_;
  ParallelCutoff score_cutoff_;  // Whether Score runs on the workers; the scheduling thread's.
  std::vector<NodeScoreList> score_scratch_;  // Only the scheduling thread scores.
  // Plugin name → the events it registered (plugins without EnqueueExtensions: every event).
  absl::flat_hash_map<std::string, std::vector<ClusterEventWithHint>> events_;

  WaitingPods waiting_;
};

// One scheduling cycle's Filter runs over many nodes, from several worker threads: the filters to
// run are chosen once, and scheduler_plugin_evaluation_total counts, per filter, the nodes that
// reached it. Each worker keeps a Tally of where its nodes stopped and merges it once per chunk,
// so that counting shares nothing per node; the counts are recorded when the run ends.
//
//   FilterRun run(fw, state);
//   FilterRun::Tally tally;                          // one per worker
//   Status st = run.Filter(pod, node, tally);        // for each of the worker's nodes
//   run.Merge(tally);                                // once per chunk
class FilterRun {
 public:
  // Filters past this many are run but not counted.
  static constexpr size_t kCounted = 32;
  struct Tally {
    std::array<uint32_t, kCounted + 1> stopped{};  // stopped[i]: nodes stopped at filter i.
  };

  FilterRun(const Framework& fw, const CycleState& state);
  ~FilterRun();
  FilterRun(const FilterRun&) = delete;
  FilterRun& operator=(const FilterRun&) = delete;

  // Framework::RunFilterPlugins over this cycle's filters, noting in `tally` where it stopped.
  Status Filter(const api::Pod& pod, const NodeInfo& node, Tally& tally) const;
  // Thread-safe.
  void Merge(const Tally& tally);

 private:
  const Framework& fw_;
  const CycleState& state_;
  const Framework::FilterList filters_;
  std::array<std::atomic<uint64_t>, kCounted + 1> stopped_{};
};

}  // namespace ksched::framework
