#include "src/framework/traced_plugin.h"

#include <string>
#include <typeinfo>
#include <utility>
#include <vector>

#include "ksched/async_bind_plugin.h"
#include "ksched/preemption.h"
#include "src/framework/simulator_trace.h"

namespace ksched::framework {
namespace {

using metrics::Point;

class TracedPlugin final : public PreEnqueuePlugin,
                           public QueueSortPlugin,
                           public EnqueueExtensions,
                           public PreFilterPlugin,
                           public PreFilterExtensions,
                           public FilterPlugin,
                           public PostFilterPlugin,
                           public PreScorePlugin,
                           public ScorePlugin,
                           public ScoreExtensions,
                           public ReservePlugin,
                           public PermitPlugin,
                           public PlacementFeasiblePlugin,
                           public preemption::PodGroupPreemptionPlugin,
                           public PreBindPlugin,
                           public AsyncPreBindPlugin,
                           public BindPlugin,
                           public AsyncBindPlugin,
                           public PostBindPlugin,
                           public SignPlugin {
 public:
  explicit TracedPlugin(std::unique_ptr<Plugin> p)
      : p_(std::move(p)),
        pre_enqueue_(PluginAs<PreEnqueuePlugin>(p_.get())),
        queue_sort_(PluginAs<QueueSortPlugin>(p_.get())),
        enqueue_extensions_(PluginAs<EnqueueExtensions>(p_.get())),
        pre_filter_(PluginAs<PreFilterPlugin>(p_.get())),
        pre_filter_extensions_(PluginAs<PreFilterExtensions>(p_.get())),
        filter_(PluginAs<FilterPlugin>(p_.get())),
        post_filter_(PluginAs<PostFilterPlugin>(p_.get())),
        pre_score_(PluginAs<PreScorePlugin>(p_.get())),
        score_(PluginAs<ScorePlugin>(p_.get())),
        score_extensions_(PluginAs<ScoreExtensions>(p_.get())),
        reserve_(PluginAs<ReservePlugin>(p_.get())),
        permit_(PluginAs<PermitPlugin>(p_.get())),
        placement_feasible_(PluginAs<PlacementFeasiblePlugin>(p_.get())),
        pod_group_preemption_(PluginAs<preemption::PodGroupPreemptionPlugin>(p_.get())),
        pre_bind_(PluginAs<PreBindPlugin>(p_.get())),
        async_pre_bind_(PluginAs<AsyncPreBindPlugin>(p_.get())),
        bind_(PluginAs<BindPlugin>(p_.get())),
        async_bind_(PluginAs<AsyncBindPlugin>(p_.get())),
        post_bind_(PluginAs<PostBindPlugin>(p_.get())),
        sign_(PluginAs<SignPlugin>(p_.get())) {}

  std::string_view Name() const override { return p_->Name(); }

  bool Serves(const std::type_info& i) const override {
    const void* const served[] = {pre_enqueue_,
                                  queue_sort_,
                                  enqueue_extensions_,
                                  pre_filter_,
                                  pre_filter_extensions_,
                                  filter_,
                                  post_filter_,
                                  pre_score_,
                                  score_,
                                  score_extensions_,
                                  reserve_,
                                  permit_,
                                  placement_feasible_,
                                  pod_group_preemption_,
                                  pre_bind_,
                                  async_pre_bind_,
                                  bind_,
                                  async_bind_,
                                  post_bind_,
                                  sign_};
    const std::type_info* const interfaces[] = {&typeid(PreEnqueuePlugin),
                                                &typeid(QueueSortPlugin),
                                                &typeid(EnqueueExtensions),
                                                &typeid(PreFilterPlugin),
                                                &typeid(PreFilterExtensions),
                                                &typeid(FilterPlugin),
                                                &typeid(PostFilterPlugin),
                                                &typeid(PreScorePlugin),
                                                &typeid(ScorePlugin),
                                                &typeid(ScoreExtensions),
                                                &typeid(ReservePlugin),
                                                &typeid(PermitPlugin),
                                                &typeid(PlacementFeasiblePlugin),
                                                &typeid(preemption::PodGroupPreemptionPlugin),
                                                &typeid(PreBindPlugin),
                                                &typeid(AsyncPreBindPlugin),
                                                &typeid(BindPlugin),
                                                &typeid(AsyncBindPlugin),
                                                &typeid(PostBindPlugin),
                                                &typeid(SignPlugin)};
    for (size_t k = 0; k < std::size(interfaces); ++k) {
      if (*interfaces[k] == i) return served[k] != nullptr;
    }
    return false;
  }

  // --- Not recorded: the queue's points, PreFilter's extensions, Unreserve and PostBind.
  Status PreEnqueue(const api::Pod& pod) override { return pre_enqueue_->PreEnqueue(pod); }
  bool Less(const QueuedPodInfo& a, const QueuedPodInfo& b) const override {
    return queue_sort_->Less(a, b);
  }
  std::vector<ClusterEventWithHint> EventsToRegister() const override {
    return enqueue_extensions_->EventsToRegister();
  }
  Status AddPod(CycleState& state, const api::Pod& pod_to_schedule, const PodInfo& pod_to_add,
                const NodeInfo& node) override {
    return pre_filter_extensions_->AddPod(state, pod_to_schedule, pod_to_add, node);
  }
  Status RemovePod(CycleState& state, const api::Pod& pod_to_schedule, const PodInfo& pod_to_remove,
                   const NodeInfo& node) override {
    return pre_filter_extensions_->RemovePod(state, pod_to_schedule, pod_to_remove, node);
  }
  Status NormalizeScore(const CycleState& state, const api::Pod& pod,
                        NodeScoreList& scores) override {
    return score_extensions_->NormalizeScore(state, pod, scores);
  }
  void Unreserve(CycleState& state, const api::Pod& pod, std::string_view node) override {
    reserve_->Unreserve(state, pod, node);
  }
  Status PreBindPreFlight(CycleState& state, const api::Pod& pod, std::string_view node) override {
    return pre_bind_->PreBindPreFlight(state, pod, node);
  }
  void PostBind(CycleState& state, const api::Pod& pod, std::string_view node) override {
    post_bind_->PostBind(state, pod, node);
  }
  Status SignPod(const api::Pod& pod, std::vector<SignFragment>* fragments) const override {
    return sign_->SignPod(pod, fragments);
  }

  // --- Recorded.
  Status PreFilter(CycleState& state, const api::Pod& pod,
                   const std::vector<const NodeInfo*>& nodes, PreFilterResult* result) override {
    Status s = pre_filter_->PreFilter(state, pod, nodes, result);
    if (const SimulatorTrace* trace = state.Read(kSimulatorTraceKey)) {
      trace->Plugin(Point::kPreFilter, Name(), s);
      if (!result->AllNodes()) {
        trace->PreFilterResult(Name(), {result->node_names->begin(), result->node_names->end()});
      }
    }
    return s;
  }

  Status Filter(const CycleState& state, const api::Pod& pod, const NodeInfo& node) override {
    Status s = filter_->Filter(state, pod, node);
    if (const SimulatorTrace* trace = state.Read(kSimulatorTraceKey)) {
      trace->Filter(node.name(), Name(), s);
    }
    return s;
  }

  Status PostFilter(CycleState& state, const api::Pod& pod, const NodeToStatus& filtered,
                    PostFilterResult* result) override {
    Status s = post_filter_->PostFilter(state, pod, filtered, result);
    if (const SimulatorTrace* trace = state.Read(kSimulatorTraceKey)) {
      std::vector<std::string> nodes;
      for (const auto& [node, status] : filtered.statuses) nodes.push_back(node);
      trace->PostFilter(
          Name(), nodes,
          s.ok() && result->nominated_node_name ? *result->nominated_node_name : std::string());
    }
    return s;
  }

  Status PreScore(CycleState& state, const api::Pod& pod,
                  const std::vector<const NodeInfo*>& feasible) override {
    return Recorded(state, Point::kPreScore, pre_score_->PreScore(state, pod, feasible));
  }

  Status Score(const CycleState& state, const api::Pod& pod, const NodeInfo& node,
               int64_t* score) override {
    Status s = score_->Score(state, pod, node, score);
    if (const SimulatorTrace* trace = state.Read(kSimulatorTraceKey); trace != nullptr && s.ok()) {
      trace->Score(node.name(), Name(), *score);
    }
    return s;
  }

  Status ScoreNodes(const CycleState& state, const api::Pod& pod,
                    std::span<NodeScore> scores) override {
    Status s = score_->ScoreNodes(state, pod, scores);
    if (const SimulatorTrace* trace = state.Read(kSimulatorTraceKey); trace != nullptr && s.ok()) {
      for (const NodeScore& ns : scores) trace->Score(ns.node->name(), Name(), ns.score);
    }
    return s;
  }

  Status Reserve(CycleState& state, const api::Pod& pod, std::string_view node) override {
    return Recorded(state, Point::kReserve, reserve_->Reserve(state, pod, node));
  }

  Status Permit(CycleState& state, const api::Pod& pod, std::string_view node,
                absl::Duration* timeout) override {
    Status s = permit_->Permit(state, pod, node, timeout);
    if (const SimulatorTrace* trace = state.Read(kSimulatorTraceKey)) {
      trace->Plugin(Point::kPermit, Name(), s);
      trace->PermitTimeout(Name(), *timeout);
    }
    return s;
  }

  // Not recorded: the pod group cycle's own check.
  Status PlacementFeasible(const api::PodGroup& group, int scheduled, int remaining) override {
    return placement_feasible_->PlacementFeasible(group, scheduled, remaining);
  }

  // Not recorded: the pod group cycle's own eviction.
  void PreemptForPodGroup(const api::PodGroup& group,
                          std::vector<std::shared_ptr<const api::Pod>> pods,
                          const preemption::Victims& victims) override {
    pod_group_preemption_->PreemptForPodGroup(group, std::move(pods), victims);
  }

  Status PreBind(CycleState& state, const api::Pod& pod, std::string_view node) override {
    return Recorded(state, Point::kPreBind, pre_bind_->PreBind(state, pod, node));
  }

  void PreBindAsync(CycleState& state, const api::Pod& pod, std::string_view node,
                    std::function<void(Status)> done) override {
    async_pre_bind_->PreBindAsync(state, pod, node, RecordedThen(state, Point::kPreBind, done));
  }

  Status Bind(CycleState& state, const api::Pod& pod, std::string_view node) override {
    return Recorded(state, Point::kBind, bind_->Bind(state, pod, node));
  }

  void BindAsync(CycleState& state, const api::Pod& pod, std::string_view node,
                 std::function<void(Status)> done) override {
    async_bind_->BindAsync(state, pod, node, RecordedThen(state, Point::kBind, done));
  }

 private:
  Status Recorded(const CycleState& state, Point point, Status s) const {
    if (const SimulatorTrace* trace = state.Read(kSimulatorTraceKey)) {
      trace->Plugin(point, Name(), s);
    }
    return s;
  }
  // `done`, after the answer is recorded. The state outlives the binding cycle's answers.
  std::function<void(Status)> RecordedThen(const CycleState& state, Point point,
                                           std::function<void(Status)> done) const {
    return [this, &state, point, done = std::move(done)](Status s) {
      done(Recorded(state, point, std::move(s)));
    };
  }

  const std::unique_ptr<Plugin> p_;
  PreEnqueuePlugin* const pre_enqueue_;
  QueueSortPlugin* const queue_sort_;
  EnqueueExtensions* const enqueue_extensions_;
  PreFilterPlugin* const pre_filter_;
  PreFilterExtensions* const pre_filter_extensions_;
  FilterPlugin* const filter_;
  PostFilterPlugin* const post_filter_;
  PreScorePlugin* const pre_score_;
  ScorePlugin* const score_;
  ScoreExtensions* const score_extensions_;
  ReservePlugin* const reserve_;
  PermitPlugin* const permit_;
  PlacementFeasiblePlugin* const placement_feasible_;
  preemption::PodGroupPreemptionPlugin* const pod_group_preemption_;
  PreBindPlugin* const pre_bind_;
  AsyncPreBindPlugin* const async_pre_bind_;
  BindPlugin* const bind_;
  AsyncBindPlugin* const async_bind_;
  PostBindPlugin* const post_bind_;
  SignPlugin* const sign_;
};

}  // namespace

std::unique_ptr<Plugin> TracePlugin(std::unique_ptr<Plugin> plugin) {
  return std::make_unique<TracedPlugin>(std::move(plugin));
}

}  // namespace ksched::framework
