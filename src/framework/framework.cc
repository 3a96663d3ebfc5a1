#include "src/framework/framework.h"

#include <algorithm>
#include <atomic>
#include <chrono>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "fmt/format.h"
#include "fmt/ranges.h"
#include "ksched/extender.h"
#include "ksched/log.h"
#include "ksched/strings.h"
#include "oneapi/tbb/info.h"
#include "src/api/kinds.h"
#include "src/framework/traced_plugin.h"
#include "src/sdk/cycle_state_access.h"

namespace ksched::framework {
namespace {

// The args a plugin's factory gets: the profile's, decoded when the configuration was loaded. A
// profile built in code may hold them as written, or none: then they are decoded here (the
// defaults, for none), or, for a plugin without a decoder, an empty JsonArgs.
absl::StatusOr<std::shared_ptr<const PluginArgs>> ArgsOf(const config::Profile& profile,
                                                         std::string_view name,
                                                         const Registry& registry) {
  std::shared_ptr<const PluginArgs> args = profile.ArgsFor(name);
  const ArgsDecoder* decode = registry.FindArgs(name);
  if (decode != nullptr && (args == nullptr || dynamic_cast<const JsonArgs*>(args.get()))) {
    return (*decode)(args == nullptr ? nlohmann::json::object() : args->ToJson(), "");
  }
  if (args == nullptr) return std::make_shared<const JsonArgs>();
  return args;
}

// Every plugin-facing set of a profile, with the interface each one wires.
template <typename T>
struct Point {
  const config::PluginSet* set;
  std::vector<T*>* plugins;
  std::string_view type_name;  // As upstream's errors name it: "FilterPlugin".
};

bool Contains(const std::vector<config::PluginRef>& refs, std::string_view name) {
  return std::any_of(refs.begin(), refs.end(), [&](const auto& r) { return r.name == name; });
}

}  // namespace

Framework::Framework(std::string profile_name, const Deps& deps)
    : profile_name_(std::move(profile_name)),
      deps_(deps),
      batch_(std::make_unique<OpportunisticBatch>(*this, deps.clock)),
      // TBB's pool has one thread a core: a larger arena is no faster, and would make
      // ParallelCutoff count workers that do not exist.
      arena_(std::clamp(deps.parallelism, 1, tbb::info::default_concurrency())),
      waiting_(deps.clock) {
  if (deps_.metrics != nullptr) {
    metrics_ = std::make_unique<metrics::FrameworkMetrics>(deps_.metrics, profile_name_);
  }
}

template <typename F>
Status Framework::Timed(metrics::Point point, F&& run) const {
  if (metrics_ == nullptr) return run();
  const auto start = std::chrono::steady_clock::now();
  Status s = run();
  metrics_->ObservePoint(point, s.code(), metrics::SecondsSince(start));
  return s;
}

void Framework::PluginAnswered(const CycleState& state, std::string_view plugin,
                               metrics::Point point, const Status& s,
                               std::chrono::steady_clock::time_point start) const {
  if (metrics_ != nullptr && state.record_plugin_metrics()) {
    metrics_->ObservePlugin(plugin, point, s.code(), metrics::SecondsSince(start));
  }
}

template <typename F>
Status Framework::TimedPlugin(const CycleState& state, std::string_view plugin,
                              metrics::Point point, F&& run) const {
  const auto start = std::chrono::steady_clock::now();
  Status s = run();
  PluginAnswered(state, plugin, point, s, start);
  return s;
}

Framework::~Framework() = default;

absl::StatusOr<std::unique_ptr<Framework>> Framework::Create(const config::Profile& profile,
                                                             const Registry& registry,
                                                             const Deps& deps) {
  std::unique_ptr<Framework> fw(new Framework(profile.scheduler_name, deps));
  fw->percentage_ =
      profile.percentage_of_nodes_to_score.value_or(deps.global_percentage_of_nodes_to_score);
  if (absl::Status st = fw->Build(profile, registry); !st.ok()) return st;
  return fw;
}

namespace {

// Upstream's updatePluginList: wires the specifically enabled plugins of one extension point.
template <typename T>
absl::Status FillPoint(const Point<T>& point,
                       const std::map<std::string, std::unique_ptr<Plugin>, std::less<>>& all) {
  for (const config::PluginRef& ref : point.set->enabled) {
    auto it = all.find(ref.name);
    if (it == all.end()) {
      return absl::InvalidArgumentError(
          fmt::format("{} \"{}\" does not exist", point.type_name, ref.name));
    }
    T* p = PluginAs<T>(it->second.get());
    if (p == nullptr) {
      return absl::InvalidArgumentError(
          fmt::format("plugin \"{}\" does not extend {} plugin", ref.name, point.type_name));
    }
    if (std::find(point.plugins->begin(), point.plugins->end(), p) != point.plugins->end()) {
      return absl::InvalidArgumentError(
          fmt::format("plugin \"{}\" already registered as \"{}\"", ref.name, point.type_name));
    }
    point.plugins->push_back(p);
  }
  return absl::OkStatus();
}

// Upstream's expandMultiPointPlugins for one extension point: explicit overrides first (in their
// specific order), then the multiPoint plugins, then the rest of the specific ones.
template <typename T>
absl::Status ExpandMultiPoint(
    const Point<T>& point, const config::PluginSet& multi_point,
    const std::map<std::string, std::unique_ptr<Plugin>, std::less<>>& all) {
  if (Contains(point.set->disabled, "*")) return absl::OkStatus();
  std::vector<std::string> overrides, multi;
  for (const config::PluginRef& ref : multi_point.enabled) {
    auto it = all.find(ref.name);
    if (it == all.end()) {
      return absl::InvalidArgumentError(
          fmt::format("{} \"{}\" does not exist", point.type_name, ref.name));
    }
    if (PluginAs<T>(it->second.get()) == nullptr) continue;
    if (Contains(point.set->disabled, ref.name)) continue;
    if (Contains(point.set->enabled, ref.name)) {
      overrides.push_back(ref.name);
      continue;
    }
    if (std::find(multi.begin(), multi.end(), ref.name) != multi.end()) {
      return absl::InvalidArgumentError(
          fmt::format("plugin \"{}\" already registered as \"{}\"", ref.name, point.type_name));
    }
    multi.push_back(ref.name);
  }
  std::vector<T*> ordered;
  auto add = [&](const std::string& name) {
    T* p = PluginAs<T>(all.at(name).get());
    if (std::find(ordered.begin(), ordered.end(), p) == ordered.end()) ordered.push_back(p);
  };
  // Re-configured multiPoint plugins first, in the order the point lists them (upstream's part 1).
  for (const config::PluginRef& ref : point.set->enabled) {
    if (std::find(overrides.begin(), overrides.end(), ref.name) != overrides.end()) add(ref.name);
  }
  for (const std::string& name : multi) add(name);
  for (const config::PluginRef& ref : point.set->enabled) add(ref.name);
  *point.plugins = std::move(ordered);
  return absl::OkStatus();
}

}  // namespace

absl::Status Framework::Build(const config::Profile& profile, const Registry& registry) {
  const config::Plugins& ps = profile.plugins;
  auto pre_enqueue = Point<PreEnqueuePlugin>{&ps.pre_enqueue, &pre_enqueue_, "PreEnqueuePlugin"};
  auto queue_sort = Point<QueueSortPlugin>{&ps.queue_sort, &queue_sort_, "QueueSortPlugin"};
  auto pre_filter = Point<PreFilterPlugin>{&ps.pre_filter, &pre_filter_, "PreFilterPlugin"};
  auto filter = Point<FilterPlugin>{&ps.filter, &filter_, "FilterPlugin"};
  auto post_filter = Point<PostFilterPlugin>{&ps.post_filter, &post_filter_, "PostFilterPlugin"};
  auto pre_score = Point<PreScorePlugin>{&ps.pre_score, &pre_score_, "PreScorePlugin"};
  auto score = Point<ScorePlugin>{&ps.score, &score_, "ScorePlugin"};
  auto reserve = Point<ReservePlugin>{&ps.reserve, &reserve_, "ReservePlugin"};
  auto permit = Point<PermitPlugin>{&ps.permit, &permit_, "PermitPlugin"};
  auto pre_bind = Point<PreBindPlugin>{&ps.pre_bind, &pre_bind_, "PreBindPlugin"};
  auto bind = Point<BindPlugin>{&ps.bind, &bind_, "BindPlugin"};
  auto post_bind = Point<PostBindPlugin>{&ps.post_bind, &post_bind_, "PostBindPlugin"};
  auto placement_generate = Point<PlacementGeneratePlugin>{
      &ps.placement_generate, &placement_generate_, "PlacementGeneratePlugin"};
  auto placement_score =
      Point<PlacementScorePlugin>{&ps.placement_score, &placement_score_, "PlacementScorePlugin"};

  // Build every plugin that some extension point needs, once.
  std::set<std::string> needed;
  for (const config::PluginSet* set :
       {&ps.pre_enqueue, &ps.queue_sort, &ps.pre_filter, &ps.filter, &ps.post_filter, &ps.pre_score,
        &ps.score, &ps.reserve, &ps.permit, &ps.pre_bind, &ps.bind, &ps.post_bind,
        &ps.placement_generate, &ps.placement_score, &ps.multi_point}) {
    for (const config::PluginRef& ref : set->enabled) needed.insert(ref.name);
  }
  for (const std::string& name : needed) {
    const PluginSpec* spec = registry.Find(name);
    if (spec == nullptr) continue;  // Reported below with the extension point's type name.
    absl::StatusOr<std::shared_ptr<const PluginArgs>> args = ArgsOf(profile, name, registry);
    absl::StatusOr<std::unique_ptr<Plugin>> p =
        args.ok() ? spec->factory(**args, *this) : args.status();
    if (!p.ok()) {
      return absl::InvalidArgumentError(
          fmt::format("initializing plugin \"{}\": {}", name, AsStd(p.status().message())));
    }
    plugins_.emplace(name, deps_.simulator_trace ? TracePlugin(std::move(*p)) : std::move(*p));
  }

  absl::Status st;
  auto fill_all = [&](auto&... points) {
    ((st.ok() ? st = FillPoint(points, plugins_) : st), ...);
    if (!ps.multi_point.enabled.empty()) {
      ((st.ok() ? st = ExpandMultiPoint(points, ps.multi_point, plugins_) : st), ...);
    }
  };
  fill_all(pre_enqueue, queue_sort, pre_filter, filter, post_filter, pre_score, score, reserve,
           permit, pre_bind, bind, post_bind, placement_generate, placement_score);
  if (!st.ok()) return st;
  if (placement_generate_.size() > 1) {
    return absl::InvalidArgumentError(fmt::format(
        "at most one placement generate plugin is allowed for profile with scheduler name \"{}\"",
        profile_name_));
  }
  for (PreFilterPlugin* p : pre_filter_) {
    if (auto* ext = PluginAs<PreFilterExtensions>(p)) pre_filter_extensions_.emplace_back(p, ext);
  }
  if (auto it = plugins_.find("GangScheduling"); it != plugins_.end()) {
    placement_feasible_ = PluginAs<PlacementFeasiblePlugin>(it->second.get());
  }
  if (auto it = plugins_.find("DefaultPreemption"); it != plugins_.end()) {
    pod_group_preemption_ = PluginAs<preemption::PodGroupPreemptionPlugin>(it->second.get());
  }

  if (queue_sort_.size() != 1) {
    return absl::InvalidArgumentError(fmt::format(
        "only one queue sort plugin required for profile with scheduler name \"{}\", but got {}",
        profile_name_, queue_sort_.size()));
  }
  if (bind_.empty()) {
    return absl::InvalidArgumentError(
        fmt::format("at least one bind plugin is needed for profile with scheduler name \"{}\"",
                    profile_name_));
  }
  for (BindPlugin* p : bind_) async_bind_.push_back(PluginAs<AsyncBindPlugin>(p));
  for (PreBindPlugin* p : pre_bind_) async_pre_bind_.push_back(PluginAs<AsyncPreBindPlugin>(p));
  // Score weights: the Score point's own weight wins over multiPoint's; 0 means 1.
  std::vector<config::PluginRef> weighted = ps.score.enabled;
  weighted.insert(weighted.end(), ps.multi_point.enabled.begin(), ps.multi_point.enabled.end());
  for (const config::PluginRef& ref : weighted) {
    auto it = plugins_.find(ref.name);
    if (it == plugins_.end() || PluginAs<ScorePlugin>(it->second.get()) == nullptr) continue;
    score_weights_.try_emplace(ref.name, ref.weight == 0 ? 1 : ref.weight);
  }
  // PlacementScore's likewise, from its own point and multiPoint.
  weighted = ps.placement_score.enabled;
  weighted.insert(weighted.end(), ps.multi_point.enabled.begin(), ps.multi_point.enabled.end());
  for (const config::PluginRef& ref : weighted) {
    auto it = plugins_.find(ref.name);
    if (it == plugins_.end() || PluginAs<PlacementScorePlugin>(it->second.get()) == nullptr) {
      continue;
    }
    placement_score_weights_.try_emplace(ref.name, ref.weight == 0 ? 1 : ref.weight);
  }
  // Signing: every PreFilter, Filter, PreScore and Score plugin must sign, as upstream's
  // computeBatchablePlugins.
  signs_ = true;
  std::set<std::string_view> seen;
  auto sign = [&](Plugin* p) {
    if (!seen.insert(p->Name()).second) return;
    if (const SignPlugin* s = PluginAs<SignPlugin>(p)) {
      signers_.push_back(s);
    } else {
      signs_ = false;
    }
  };
  for (Plugin* p : pre_filter_) sign(p);
  for (Plugin* p : filter_) sign(p);
  for (Plugin* p : pre_score_) sign(p);
  for (Plugin* p : score_) sign(p);
  if (!signs_) signers_.clear();
  // Events: plugins that can reject a pod and don't say which events help are requeued on all.
  for (const auto& [name, p] : plugins_) {
    if (auto* ext = PluginAs<EnqueueExtensions>(p.get())) {
      events_[name] = ext->EventsToRegister();
      for (const ClusterEventWithHint& reg : events_[name]) {
        // Watched for the plugin, as upstream starts a dynamic informer for each.
        if (reg.event.resource == EventResource::kCustom && deps_.custom != nullptr) {
          deps_.custom->Watch({.resource = reg.event.custom_resource});
        }
      }
    } else if (PluginAs<PreEnqueuePlugin>(p.get()) || PluginAs<PreFilterPlugin>(p.get()) ||
               PluginAs<FilterPlugin>(p.get()) || PluginAs<ReservePlugin>(p.get()) ||
               PluginAs<PermitPlugin>(p.get())) {
      events_[name] = {{ClusterEvent{EventResource::kWildCard, kAll, "WildCard"}, nullptr}};
    }
  }
  if (!extenders().empty()) {
    events_[kExtenderName] = {{ClusterEvent{EventResource::kWildCard, kAll, "WildCard"}, nullptr}};
  }
  return absl::OkStatus();
}

std::optional<std::string> Framework::SignPod(const api::Pod& pod) const {
  if (!signs_) return std::nullopt;
  // Upstream's map from key to value: a key several plugins write holds one value.
  std::map<std::string, std::string, std::less<>> parts;
  std::vector<SignFragment> fragments;
  // The plugin that refused last is asked first: in the default profile PodTopologySpread
  // refuses every pod, and the others need not write what would be thrown away.
  for (size_t k = 0; k < signers_.size(); ++k) {
    const size_t i = k == 0 ? first_signer_ : (k <= first_signer_ ? k - 1 : k);
    fragments.clear();
    if (!signers_[i]->SignPod(pod, &fragments).ok()) {
      first_signer_ = i;
      return std::nullopt;
    }
    for (SignFragment& f : fragments) parts[std::move(f.key)] = std::move(f.value);
  }
  parts["v1.Pod.Spec.SchedulerName"] = pod.spec.scheduler_name;
  std::string out;
  for (const auto& [key, value] : parts) out += fmt::format("{:?}={:?}\n", key, value);
  return out;
}

std::map<std::string, std::vector<std::string>> Framework::PluginsByExtensionPoint() const {
  std::map<std::string, std::vector<std::string>> out;
  auto list = [&](const char* point, const auto& plugins) {
    for (const auto* p : plugins) out[point].emplace_back(p->Name());
  };
  list("preEnqueue", pre_enqueue_);
  list("queueSort", queue_sort_);
  list("preFilter", pre_filter_);
  list("filter", filter_);
  list("postFilter", post_filter_);
  list("preScore", pre_score_);
  list("score", score_);
  list("reserve", reserve_);
  list("permit", permit_);
  list("preBind", pre_bind_);
  list("bind", bind_);
  list("postBind", post_bind_);
  list("placementGenerate", placement_generate_);
  list("placementScore", placement_score_);
  return out;
}

int64_t Framework::ScoreWeight(std::string_view plugin) const {
  auto it = score_weights_.find(plugin);
  return it == score_weights_.end() ? 0 : it->second;
}

Status Framework::RunPreEnqueuePlugins(const api::Pod& pod) const {
  for (PreEnqueuePlugin* p : pre_enqueue_) {
    Status s = p->PreEnqueue(pod);
    if (!s.ok()) return std::move(s).WithPlugin(p->Name());
  }
  return Status();
}

bool Framework::Less(const QueuedPodInfo& a, const QueuedPodInfo& b) const {
  return queue_sort_[0]->Less(a, b);
}

QueueingStrategy Framework::IsPodWorthRequeuing(const QueuedPodInfo& pod,
                                                const ClusterEventData& event) const {
  // A pod held back at PreEnqueue moves only on the events its gating plugin registered.
  if (!pod.gating_plugin.empty()) {
    auto it = events_.find(pod.gating_plugin);
    if (it == events_.end() ||
        std::none_of(it->second.begin(), it->second.end(), [&](const ClusterEventWithHint& reg) {
          return Matches(reg.event, event.event);
        })) {
      return QueueingStrategy::kSkip;
    }
  }
  if (pod.unschedulable_plugins.empty() && pod.pending_plugins.empty()) {
    return QueueingStrategy::kAfterBackoff;
  }
  if (event.event.resource == EventResource::kWildCard) return QueueingStrategy::kAfterBackoff;
  QueueingStrategy best = QueueingStrategy::kSkip;
  auto consider = [&](const std::string& plugin, bool pending) {
    auto it = events_.find(plugin);
    if (it == events_.end()) return;
    for (const ClusterEventWithHint& reg : it->second) {
      if (!Matches(reg.event, event.event)) continue;
      QueueingHint h = reg.hint ? reg.hint(pod.pod(), event) : QueueingHint::kQueue;
      if (h == QueueingHint::kQueueSkip) continue;
      QueueingStrategy s =
          pending ? QueueingStrategy::kImmediately : QueueingStrategy::kAfterBackoff;
      best = std::max(best, s);
    }
  };
  for (const std::string& p : pod.unschedulable_plugins)
    consider(p, pod.pending_plugins.contains(p));
  for (const std::string& p : pod.pending_plugins) consider(p, true);
  return best;
}

namespace {

// "Add|UpdateNodeTaint", with upstream's names of the actions (fwk.ActionType's String).
std::string ActionNames(uint32_t action) {
  if (action == kAll) return "All";
  if (action == kUpdate) return "Update";
  static constexpr std::pair<uint32_t, std::string_view> kNames[] = {
      {kAdd, "Add"},
      {kDelete, "Delete"},
      {kUpdateNodeAllocatable, "UpdateNodeAllocatable"},
      {kUpdateNodeLabel, "UpdateNodeLabel"},
      {kUpdateNodeTaint, "UpdateNodeTaint"},
      {kUpdateNodeCondition, "UpdateNodeCondition"},
      {kUpdateNodeAnnotation, "UpdateNodeAnnotation"},
      {kUpdateNodeDeclaredFeature, "UpdateNodeDeclaredFeature"},
      {kUpdatePodLabel, "UpdatePodLabel"},
      {kUpdatePodScaleDown, "UpdatePodScaleDown"},
      {kUpdatePodToleration, "UpdatePodToleration"},
      {kUpdatePodSchedulingGatesEliminated, "UpdatePodSchedulingGatesEliminated"},
      {kUpdatePodOther, "UpdatePodOther"},
      {kUpdatePodGeneratedResourceClaim, "UpdatePodGeneratedResourceClaim"}};
  std::string out;
  for (const auto& [bit, name] : kNames) {
    if ((action & bit) == 0) continue;
    if (!out.empty()) out += "|";
    out += name;
  }
  return out;
}

}  // namespace

std::vector<std::string> Framework::RegisteredEvents(std::string_view plugin) const {
  std::vector<std::string> out;
  auto it = events_.find(std::string(plugin));
  if (it == events_.end()) return out;
  for (const ClusterEventWithHint& reg : it->second) {
    const ClusterEvent& e = reg.event;
    const std::string_view resource =
        e.resource == EventResource::kCustom ? e.custom_resource : EventResourceName(e.resource);
    out.push_back(!e.label.empty() ? e.label
                                   : fmt::format("{}/{}", resource, ActionNames(e.action)));
  }
  return out;
}

bool Framework::AnyPluginInterestedIn(const ClusterEvent& event) const {
  for (const auto& [name, regs] : events_) {
    for (const ClusterEventWithHint& reg : regs) {
      if (Matches(reg.event, event)) return true;
    }
  }
  return false;
}

Status Framework::RunPreFilterPlugins(CycleState& state, const api::Pod& pod,
                                      const std::vector<const NodeInfo*>& nodes,
                                      PreFilterResult* result,
                                      std::set<std::string, std::less<>>* rejectors) {
  return Timed(metrics::Point::kPreFilter,
               [&] { return PreFilterLoop(state, pod, nodes, result, rejectors); });
}

Status Framework::PreFilterLoop(CycleState& state, const api::Pod& pod,
                                const std::vector<const NodeInfo*>& nodes, PreFilterResult* result,
                                std::set<std::string, std::less<>>* rejectors) {
  *result = PreFilterResult{};
  std::optional<Status> unschedulable;
  std::vector<std::string_view> narrowing;
  for (PreFilterPlugin* p : pre_filter_) {
    PreFilterResult r;
    if (metrics_) metrics_->CountEvaluations(p->Name(), metrics::Point::kPreFilter, 1);
    Status s = TimedPlugin(state, p->Name(), metrics::Point::kPreFilter,
                           [&] { return p->PreFilter(state, pod, nodes, &r); });
    if (s.IsSkip()) {
      internal::CycleStateAccess::SkipFilter(state, p->Name());
      continue;
    }
    if (!s.ok()) {
      if (!s.IsRejected()) {
        return Status::Error(
            fmt::format("running PreFilter plugin \"{}\": {}", p->Name(), s.Message()));
      }
      rejectors->insert(std::string(p->Name()));
      if (s.code() == Code::kUnschedulableAndUnresolvable)
        return std::move(s).WithPlugin(p->Name());
      if (!unschedulable) unschedulable = s.WithPlugin(p->Name());
      continue;
    }
    if (r.AllNodes()) continue;
    narrowing.push_back(p->Name());
    rejectors->insert(std::string(p->Name()));
    if (result->AllNodes()) {
      result->node_names = std::move(r.node_names);
    } else {
      std::set<std::string, std::less<>> both;
      for (const std::string& n : *result->node_names) {
        if (r.node_names->contains(n)) both.insert(n);
      }
      result->node_names = std::move(both);
    }
    if (result->node_names->empty()) {
      std::string msg = narrowing.size() == 1
                            ? fmt::format("node(s) didn't satisfy plugin {}", narrowing[0])
                            : fmt::format("node(s) didn't satisfy plugin(s) [{}] simultaneously",
                                          fmt::join(narrowing, " "));
      return Status::UnschedulableAndUnresolvable(std::move(msg)).WithPlugin(p->Name());
    }
  }
  if (unschedulable) return *unschedulable;
  return Status();
}

Framework::FilterList Framework::FiltersToRun(const CycleState& state) const {
  FilterList out;
  for (FilterPlugin* p : filter_) {
    if (!state.ShouldSkipFilter(p->Name())) out.push_back(p);
  }
  return out;
}

Status Framework::RunFilterPlugins(const CycleState& state, const api::Pod& pod,
                                   const NodeInfo& node) const {
  size_t stopped_at = 0;
  return RunFilterPlugins(FiltersToRun(state), state, pod, node, &stopped_at);
}

Status Framework::RunFilterPlugins(absl::Span<FilterPlugin* const> filters, const CycleState& state,
                                   const api::Pod& pod, const NodeInfo& node,
                                   size_t* stopped_at) const {
  // Filter runs once per node: a sampled cycle times one node in 16, which keeps the cost of
  // timing small and the distribution the same.
  thread_local uint32_t nodes_seen = 0;
  const bool timed = metrics_ && state.record_plugin_metrics() && (++nodes_seen & 15) == 0;
  for (size_t i = 0; i < filters.size(); ++i) {
    FilterPlugin* p = filters[i];
    Status s = timed ? TimedPlugin(state, p->Name(), metrics::Point::kFilter,
                                   [&] { return p->Filter(state, pod, node); })
                     : p->Filter(state, pod, node);
    if (s.ok()) continue;
    *stopped_at = i;
    if (!s.IsRejected()) {
      return Status::Error(fmt::format("running \"{}\" filter plugin: {}", p->Name(), s.Message()))
          .WithPlugin(p->Name());
    }
    return std::move(s).WithPlugin(p->Name());
  }
  *stopped_at = filters.size();
  return Status();
}

Status Framework::RunFilterPluginsWithNominatedPods(const CycleState& state, const api::Pod& pod,
                                                    const NodeInfo& node) const {
  std::shared_ptr<const Nominator::PodList> nominated = PodsNominatedTo(node.name());
  if (nominated == nullptr) return RunFilterPlugins(state, pod, node);
  return RunFilterPluginsWithNominatedPods(state, pod, node, *nominated);
}

Status Framework::RunFilterPluginsWithNominatedPods(const CycleState& state, const api::Pod& pod,
                                                    const NodeInfo& node,
                                                    const Nominator::PodList& nominated) const {
  // The nominated pods at least as important as `pod` count on the node: the room preemption
  // made for them is not for lesser pods.
  std::unique_ptr<CycleState> state_with;
  std::unique_ptr<NodeInfo> node_with;
  const int32_t priority = api::PodPriority(pod);
  for (const auto& pi : nominated) {
    if (api::PodPriority(*pi->pod) < priority || pi->pod->metadata.uid == pod.metadata.uid) {
      continue;
    }
    if (!node_with) {
      node_with = node.Clone();
      state_with = state.Clone();
    }
    node_with->AddPod(pi);
    if (Status s = RunPreFilterExtensionAddPod(*state_with, pod, *pi, *node_with); !s.ok()) {
      return s;
    }
  }
  if (!node_with) return RunFilterPlugins(state, pod, node);
  // The pod must fit with them, and without them: a nominated pod may yet go elsewhere, and
  // affinity to it must not be relied on.
  if (Status s = RunFilterPlugins(*state_with, pod, *node_with); !s.ok()) return s;
  return RunFilterPlugins(state, pod, node);
}

Status Framework::RunPreFilterExtension(CycleState& state, const api::Pod& pod,
                                        const PodInfo& pod_info, const NodeInfo& node,
                                        bool add) const {
  for (const auto& [p, ext] : pre_filter_extensions_) {
    if (state.ShouldSkipFilter(p->Name())) continue;
    Status s =
        add ? ext->AddPod(state, pod, pod_info, node) : ext->RemovePod(state, pod, pod_info, node);
    if (!s.ok()) {
      return Status::Error(fmt::format("running {} on PreFilter plugin \"{}\": {}",
                                       add ? "AddPod" : "RemovePod", p->Name(), s.Message()));
    }
  }
  return Status();
}

Status Framework::RunPreFilterExtensionAddPod(CycleState& state, const api::Pod& pod,
                                              const PodInfo& pod_info, const NodeInfo& node) const {
  return RunPreFilterExtension(state, pod, pod_info, node, /*add=*/true);
}

Status Framework::RunPreFilterExtensionRemovePod(CycleState& state, const api::Pod& pod,
                                                 const PodInfo& pod_info,
                                                 const NodeInfo& node) const {
  return RunPreFilterExtension(state, pod, pod_info, node, /*add=*/false);
}

FilterRun::FilterRun(const Framework& fw, const CycleState& state)
    : fw_(fw), state_(state), filters_(fw.FiltersToRun(state)) {}

Status FilterRun::Filter(const api::Pod& pod, const NodeInfo& node, Tally& tally) const {
  size_t stopped_at = 0;
  Status s = fw_.RunFilterPlugins(filters_, state_, pod, node, &stopped_at);
  ++tally.stopped[std::min(stopped_at, kCounted)];
  return s;
}

void FilterRun::Merge(const Tally& tally) {
  for (size_t i = 0; i <= kCounted; ++i) {
    if (tally.stopped[i] != 0) stopped_[i].fetch_add(tally.stopped[i], std::memory_order_relaxed);
  }
}

FilterRun::~FilterRun() {
  if (fw_.metrics_ == nullptr) return;
  // Filter i ran on the nodes that stopped at it or later.
  uint64_t reached = 0;
  for (size_t i = kCounted + 1; i-- > 0;) {
    reached += stopped_[i].load();
    if (i < filters_.size()) {
      fw_.metrics_->CountEvaluations(filters_[i]->Name(), metrics::Point::kFilter, reached);
    }
  }
}

Status Framework::RunPostFilterPlugins(CycleState& state, const api::Pod& pod,
                                       const NodeToStatus& filtered, PostFilterResult* result) {
  return Timed(metrics::Point::kPostFilter, [&] {
    std::vector<std::string> reasons;
    for (PostFilterPlugin* p : post_filter_) {
      Status s = TimedPlugin(state, p->Name(), metrics::Point::kPostFilter,
                             [&] { return p->PostFilter(state, pod, filtered, result); });
      if (s.ok() || s.code() == Code::kUnschedulableAndUnresolvable || s.code() == Code::kError) {
        return std::move(s).WithPlugin(p->Name());
      }
      if (s.code() == Code::kUnschedulable) {
        reasons.insert(reasons.end(), s.reasons().begin(), s.reasons().end());
      }
    }
    return Status(Code::kUnschedulable, std::move(reasons));
  });
}

Status Framework::RunPreScorePlugins(CycleState& state, const api::Pod& pod,
                                     const std::vector<const NodeInfo*>& feasible) {
  return Timed(metrics::Point::kPreScore, [&] {
    for (PreScorePlugin* p : pre_score_) {
      if (metrics_) metrics_->CountEvaluations(p->Name(), metrics::Point::kPreScore, 1);
      Status s = TimedPlugin(state, p->Name(), metrics::Point::kPreScore,
                             [&] { return p->PreScore(state, pod, feasible); });
      if (s.IsSkip()) {
        internal::CycleStateAccess::SkipScore(state, p->Name());
        continue;
      }
      if (!s.ok()) {
        return Status::Error(
            fmt::format("running PreScore plugin \"{}\": {}", p->Name(), s.Message()));
      }
    }
    return Status();
  });
}

Status Framework::RunScorePlugins(const CycleState& state, const api::Pod& pod,
                                  const std::vector<const NodeInfo*>& feasible, ScoreTable* out) {
  return Timed(metrics::Point::kScore, [&] { return ScoreLoop(state, pod, feasible, out); });
}

Status Framework::RunRawScorePlugins(const CycleState& state, const api::Pod& pod,
                                     const NodeInfo& node, std::vector<std::string_view>* plugins,
                                     std::vector<int64_t>* raw) {
  plugins->clear();
  raw->clear();
  for (ScorePlugin* p : ActiveScorePlugins(state)) {
    NodeScore one{&node, 0};
    Status s = p->ScoreNodes(state, pod, std::span(&one, 1));
    if (!s.ok()) {
      return Status::Error(fmt::format("plugin \"{}\" failed with: {}", p->Name(), s.Message()));
    }
    plugins->push_back(p->Name());
    raw->push_back(one.score);
  }
  return Status();
}

Status Framework::NormalizeScores(const CycleState& state, const api::Pod& pod, ScoreTable* table) {
  const size_t n = table->nodes.size();
  std::vector<ScorePlugin*> active;
  std::vector<NodeScoreList> lists;
  for (size_t j = 0; j < table->plugins.size(); ++j) {
    auto it = std::find_if(score_.begin(), score_.end(),
                           [&](ScorePlugin* p) { return p->Name() == table->plugins[j]; });
    if (it == score_.end()) {
      return Status::Error(fmt::format("no Score plugin {}", table->plugins[j]));
    }
    active.push_back(*it);
    NodeScoreList& list = lists.emplace_back(n);
    for (size_t i = 0; i < n; ++i) list[i] = NodeScore{table->nodes[i], table->raw[j * n + i]};
  }
  return NormalizeAndWeigh(state, pod, active, lists, n, table);
}

Status Framework::ScoreLoop(const CycleState& state, const api::Pod& pod,
                            const std::vector<const NodeInfo*>& feasible, ScoreTable* out) {
  const std::vector<ScorePlugin*> active = ActiveScorePlugins(state);
  out->plugins.clear();
  for (ScorePlugin* p : active) {
    out->plugins.push_back(p->Name());
    if (metrics_) metrics_->CountEvaluations(p->Name(), metrics::Point::kScore, 1);
  }
  const size_t n = feasible.size();
  out->nodes = feasible;
  // raw[plugin] holds the plugins' scores before normalizing, reused across cycles.
  std::vector<NodeScoreList>& raw = score_scratch_;
  if (raw.size() < active.size()) raw.resize(active.size());
  for (size_t j = 0; j < active.size(); ++j) {
    raw[j].resize(n);
    for (size_t i = 0; i < n; ++i) raw[j][i] = NodeScore{feasible[i], 0};
  }
  std::atomic<bool> failed{false};
  Status first_error;
  absl::Mutex error_mu;
  // Each task scores a run of nodes, one plugin at a time (ScoreNodes); the runs go to the
  // workers only when they hold enough work (ParallelCutoff).
  auto score_run = [&](size_t begin, size_t end) {
    for (size_t j = 0; j < active.size() && !failed.load(std::memory_order_relaxed); ++j) {
      std::span<NodeScore> run = std::span(raw[j]).subspan(begin, end - begin);
      // A sampled cycle times each run of nodes once, and records the time per node; other
      // cycles do not even read the clock.
      const bool timed = metrics_ && state.record_plugin_metrics();
      const auto start =
          timed ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point();
      Status s = active[j]->ScoreNodes(state, pod, run);
      if (timed) {
        metrics_->ObservePlugin(active[j]->Name(), metrics::Point::kScore, s.code(),
                                metrics::SecondsSince(start) / static_cast<double>(run.size()));
      }
      if (!s.ok()) {
        absl::MutexLock lock(&error_mu);
        if (!failed.exchange(true)) {
          first_error =
              Status::Error(fmt::format("running Score plugins: plugin \"{}\" failed with: {}",
                                        active[j]->Name(), s.Message()));
        }
        return;
      }
    }
  };
  ParallelCutoff::Busy busy;
  auto timed_run = [&](size_t begin, size_t end) { busy.Run(score_run, begin, end); };
  if (score_cutoff_.Parallel(n * active.size())) {
    ParallelFor(0, n, 32, timed_run);
  } else {
    timed_run(0, n);
  }
  score_cutoff_.Record(n * active.size(), busy.total());
  if (failed) return first_error;
  out->raw.resize(active.size() * n);  // Kept for OpportunisticBatching's rescoring.
  for (size_t j = 0; j < active.size(); ++j) {
    for (size_t i = 0; i < n; ++i) out->raw[j * n + i] = raw[j][i].score;
  }
  return NormalizeAndWeigh(state, pod, active, raw, n, out);
}

std::vector<ScorePlugin*> Framework::ActiveScorePlugins(const CycleState& state) const {
  std::vector<ScorePlugin*> active;
  for (ScorePlugin* p : score_) {
    if (!state.ShouldSkipScore(p->Name())) active.push_back(p);
  }
  return active;
}

Status Framework::NormalizeAndWeigh(const CycleState& state, const api::Pod& pod,
                                    const std::vector<ScorePlugin*>& active,
                                    std::vector<NodeScoreList>& raw, size_t n, ScoreTable* out) {
  out->weighted.resize(active.size() * n);  // Every entry is written below.
  out->totals.assign(n, 0);
  for (size_t j = 0; j < active.size(); ++j) {
    ScorePlugin* p = active[j];
    if (auto* ext = PluginAs<ScoreExtensions>(p)) {
      Status s = TimedPlugin(state, p->Name(), metrics::Point::kScoreExtensionNormalize,
                             [&] { return ext->NormalizeScore(state, pod, raw[j]); });
      if (!s.ok()) {
        return Status::Error(
            fmt::format("running Normalize on Score plugins: plugin \"{}\" failed with: {}",
                        p->Name(), s.Message()));
      }
    }
    const int64_t weight = ScoreWeight(p->Name());
    for (size_t i = 0; i < n; ++i) {
      int64_t v = raw[j][i].score;
      if (v < kMinNodeScore || v > kMaxNodeScore) {
        return Status::Error(fmt::format(
            "applying score defaultWeights on Score plugins: plugin \"{}\" returns an invalid "
            "score {}, it should in the range of [{}, {}] after normalizing",
            p->Name(), v, kMinNodeScore, kMaxNodeScore));
      }
      out->weighted[j * n + i] = v * weight;
      out->totals[i] += v * weight;
    }
  }
  return Status();
}

Status Framework::RunReservePluginsReserve(CycleState& state, const api::Pod& pod,
                                           std::string_view node) {
  return Timed(metrics::Point::kReserve, [&] {
    for (ReservePlugin* p : reserve_) {
      Status s = TimedPlugin(state, p->Name(), metrics::Point::kReserve,
                             [&] { return p->Reserve(state, pod, node); });
      if (s.ok()) continue;
      if (s.IsRejected()) return std::move(s).WithPlugin(p->Name());
      return Status::Error(fmt::format("running Reserve plugin \"{}\": {}", p->Name(), s.Message()))
          .WithPlugin(p->Name());
    }
    return Status();
  });
}

void Framework::RunReservePluginsUnreserve(CycleState& state, const api::Pod& pod,
                                           std::string_view node) {
  (void)Timed(metrics::Point::kUnreserve, [&] {
    for (auto it = reserve_.rbegin(); it != reserve_.rend(); ++it) {
      (void)TimedPlugin(state, (*it)->Name(), metrics::Point::kUnreserve, [&] {
        (*it)->Unreserve(state, pod, node);
        return Status();
      });
    }
    return Status();
  });
}

PodGroupPostFilterPlugin* Framework::PodGroupPostFilterPluginNamed(std::string_view name) const {
  for (PostFilterPlugin* p : post_filter_) {
    if (p->Name() == name) return PluginAs<PodGroupPostFilterPlugin>(p);
  }
  return nullptr;
}

Status Framework::RunPlacementFeasible(const api::PodGroup& group, int scheduled, int remaining) {
  if (placement_feasible_ == nullptr) return Status();
  Status s = placement_feasible_->PlacementFeasible(group, scheduled, remaining);
  if (s.ok() || s.IsRejected() || s.IsWait()) return std::move(s).WithPlugin("GangScheduling");
  return Status::Error(fmt::format("running PlacementFeasible plugin: {}", s.Message()));
}

Status Framework::RunPlacementGeneratePlugins(const api::PodGroup& group, Placement all,
                                              std::vector<Placement>* placements) {
  placements->clear();
  return Timed(metrics::Point::kPlacementGenerate, [&] {
    if (placement_generate_.empty()) {
      placements->push_back(std::move(all));
      return Status();
    }
    // Upstream times the plugin always: a pod group's cycle records its plugins' metrics.
    PlacementGeneratePlugin* p = placement_generate_.front();
    const auto start = std::chrono::steady_clock::now();
    Status s = p->GeneratePlacements(group, all, placements);
    if (metrics_) {
      metrics_->ObservePlugin(p->Name(), metrics::Point::kPlacementGenerate, s.code(),
                              metrics::SecondsSince(start));
    }
    if (!s.ok()) {
      placements->clear();
      return std::move(s).WithPlugin(p->Name());
    }
    if (placements->empty()) {
      return Status::Unschedulable("no feasible placements found").WithPlugin(p->Name());
    }
    return Status();
  });
}

Status Framework::RunPlacementScorePlugins(const api::PodGroup& group,
                                           std::span<const PodGroupAssignments> assignments,
                                           std::vector<int64_t>* totals) {
  totals->assign(assignments.size(), 0);
  return Timed(metrics::Point::kPlacementScore, [&] {
    for (PlacementScorePlugin* p : placement_score_) {
      std::vector<int64_t> scores(assignments.size(), 0);
      for (size_t i = 0; i < assignments.size(); ++i) {
        const auto start = std::chrono::steady_clock::now();
        Status s = p->ScorePlacement(group, assignments[i], &scores[i]);
        if (metrics_) {
          metrics_->ObservePlugin(p->Name(), metrics::Point::kPlacementScore, s.code(),
                                  metrics::SecondsSince(start));
        }
        if (!s.ok()) {
          return Status::Error(
              fmt::format("running PlacementScore plugins: plugin \"{}\" failed with: {}",
                          p->Name(), s.Message()));
        }
      }
      const auto start = std::chrono::steady_clock::now();
      Status s = p->NormalizePlacementScores(group, scores);
      if (metrics_) {
        metrics_->ObservePlugin(p->Name(), metrics::Point::kPlacementScoreExtensionNormalize,
                                s.code(), metrics::SecondsSince(start));
      }
      if (!s.ok()) {
        return Status::Error(fmt::format(
            "running NormalizePlacementScore on PlacementScore plugins: plugin \"{}\" failed "
            "with: {}",
            p->Name(), s.Message()));
      }
      const int64_t weight = placement_score_weights_.find(p->Name())->second;
      for (size_t i = 0; i < scores.size(); ++i) {
        if (scores[i] < 0 || scores[i] > kMaxNodeScore) {
          return Status::Error(fmt::format(
              "applying score defaultWeights on PlacementScore plugins: plugin \"{}\" returns an "
              "invalid score {}, it should in the range of [0, {}] after normalizing",
              p->Name(), scores[i], kMaxNodeScore));
        }
        (*totals)[i] += scores[i] * weight;
      }
    }
    return Status();
  });
}

Status Framework::RunPermitPlugins(CycleState& state, const api::Pod& pod, std::string_view node) {
  return Timed(metrics::Point::kPermit, [&] { return PermitLoop(state, pod, node); });
}

Status Framework::PermitLoop(CycleState& state, const api::Pod& pod, std::string_view node) {
  std::map<std::string, absl::Duration> waits;
  for (PermitPlugin* p : permit_) {
    absl::Duration timeout = absl::ZeroDuration();
    Status s = TimedPlugin(state, p->Name(), metrics::Point::kPermit,
                           [&] { return p->Permit(state, pod, node, &timeout); });
    if (s.ok()) continue;
    if (s.IsWait()) {
      waits[std::string(p->Name())] = std::min(timeout, absl::Minutes(15));
      continue;
    }
    if (s.IsRejected()) return std::move(s).WithPlugin(p->Name());
    return Status::Error(fmt::format("running Permit plugin \"{}\": {}", p->Name(), s.Message()))
        .WithPlugin(p->Name());
  }
  if (waits.empty()) return Status();
  waiting_.Add(pod, waits);
  return Status(Code::kWait);
}

Status Framework::WaitOnPermit(const api::Pod& pod) {
  std::shared_ptr<WaitingPodImpl> wp = waiting_.Get(pod.metadata.uid);
  if (wp == nullptr) return Status();
  const auto start = std::chrono::steady_clock::now();
  Status s = wp->Wait();
  if (deps_.metrics != nullptr) {
    deps_.metrics->permit_wait_duration.With({CodeName(s.code())})
        ->Observe(metrics::SecondsSince(start));
  }
  waiting_.Remove(pod.metadata.uid);
  return s;
}

Status Framework::RunPreBindPreFlights(CycleState& state, const api::Pod& pod,
                                       std::string_view node, PreBindWork* work) {
  Status out = Status::Skip();
  for (size_t i = 0; i < pre_bind_.size(); ++i) {
    PreBindPlugin* p = pre_bind_[i];
    Status s = p->PreBindPreFlight(state, pod, node);
    if (s.IsSkip()) continue;
    if (!s.ok()) {
      return Status::Error(
                 fmt::format("running PreBindPreFlight \"{}\": {}", p->Name(), s.Message()))
          .WithPlugin(p->Name());
    }
    out = Status();
    if (work != nullptr) work->push_back(static_cast<uint16_t>(i));
  }
  return out;
}

namespace {

// What a PreBind plugin's status makes of the PreBind point: Success, the rejection, or an Error;
// the last two name the plugin.
Status PreBindPluginOutcome(std::string_view plugin, Status s) {
  if (s.ok()) return s;
  if (s.IsRejected()) return std::move(s).WithPlugin(plugin);
  return Status::Error(fmt::format("running PreBind plugin \"{}\": {}", plugin, s.Message()))
      .WithPlugin(plugin);
}

}  // namespace

namespace {

// What a Bind plugin's status makes of the Bind point: Success, Skip (the next plugin's turn), the
// rejection, or an Error; the last two name the plugin.
Status BindPluginOutcome(std::string_view plugin, Status s) {
  if (s.ok() || s.IsSkip()) return s;
  if (s.IsRejected()) return std::move(s).WithPlugin(plugin);
  return Status::Error(fmt::format("running Bind plugin \"{}\": {}", plugin, s.Message()))
      .WithPlugin(plugin);
}

}  // namespace

// One binding cycle's plugins, one after another: PreBind's (those in `work`), then Bind's until
// one binds. Each plugin is called through its asynchronous form where it has one (an
// AsyncPreBindPlugin, an AsyncBindPlugin) and answers at once otherwise. Waiting, the calling
// thread waits for each answer that comes later, so that every plugin and `done` run on it;
// otherwise each plugin starts where the answer before it arrived, and so does `done`.
struct Framework::BindingRun {
  Framework& fw;
  CycleState& state;
  const api::Pod& pod;
  std::string node;
  PreBindWork work;
  bool waiting;
  std::function<void(Status)> done;
  metrics::Point point = metrics::Point::kPreBind;
  size_t next = 0;  // In work (PreBind), or in bind_ (Bind).
  std::chrono::steady_clock::time_point point_start = std::chrono::steady_clock::now();
  std::string_view plugin;
  std::chrono::steady_clock::time_point plugin_start;
  bool extenders_asked = false;          // Whether an extender was looked for to bind the pod.
  Extender* binding_extender = nullptr;  // The extender whose answer is awaited.

  // Runs the chain from its next plugin until it ends or waits for an answer that comes later.
  static void Continue(const std::shared_ptr<BindingRun>& run) {
    for (;;) {
      std::optional<Status> answer = run->CallNext(run);
      if (!answer || !run->Answered(std::move(*answer))) return;
    }
  }

  // Calls the next plugin: its answer, if it came at once or was waited for; nullopt if it comes
  // later (the chain goes on from there) or the chain has ended.
  std::optional<Status> CallNext(const std::shared_ptr<BindingRun>& run) {
    if (point == metrics::Point::kPreBind && next == work.size()) {
      EndPoint(Status());
      point = metrics::Point::kBind;
      next = 0;
      point_start = std::chrono::steady_clock::now();
    }
    if (point == metrics::Point::kBind && !extenders_asked && fw.deps_.extenders_bind) {
      // An extender that binds the pod does so instead of the Bind plugins (upstream's
      // extendersBinding).
      extenders_asked = true;
      for (Extender* e : fw.extenders()) {
        if (!e->IsBinder() || !e->IsInterested(pod)) continue;
        binding_extender = e;
        return Await(run, [&](std::function<void(Status)> answered) {
          e->Bind(pod, node, [answered = std::move(answered)](absl::Status s) {
            answered(s.ok() ? Status() : Status::Error(std::string(s.message())));
          });
        });
      }
    }
    if (point == metrics::Point::kBind && next == fw.bind_.size()) {
      Finish(Status::Skip());  // Every Bind plugin skipped.
      return std::nullopt;
    }
    const bool pre_bind = point == metrics::Point::kPreBind;
    const size_t i = pre_bind ? work[next] : next;
    ++next;
    plugin = pre_bind ? fw.pre_bind_[i]->Name() : fw.bind_[i]->Name();
    plugin_start = std::chrono::steady_clock::now();
    AsyncPreBindPlugin* async_pre_bind = pre_bind ? fw.async_pre_bind_[i] : nullptr;
    AsyncBindPlugin* async_bind = pre_bind ? nullptr : fw.async_bind_[i];
    if (async_pre_bind == nullptr && async_bind == nullptr) {
      return pre_bind ? fw.pre_bind_[i]->PreBind(state, pod, node)
                      : fw.bind_[i]->Bind(state, pod, node);
    }
    return Await(run, [&](std::function<void(Status)> answered) {
      if (async_pre_bind != nullptr) {
        async_pre_bind->PreBindAsync(state, pod, node, std::move(answered));
      } else {
        async_bind->BindAsync(state, pod, node, std::move(answered));
      }
    });
  }

  // Calls `call` with what takes its answer: the answer, when the run waits for it; nullopt when
  // the chain goes on where the answer arrives.
  std::optional<Status> Await(const std::shared_ptr<BindingRun>& run,
                              const std::function<void(std::function<void(Status)>)>& call) {
    if (!waiting) {
      call([run](Status s) {
        if (run->Answered(std::move(s))) Continue(run);
      });
      return std::nullopt;
    }
    // The waiting adapter: the answer is handed back to this thread, whichever thread it came on.
    auto answer = std::make_shared<std::pair<absl::Notification, Status>>();
    call([answer](Status s) {
      answer->second = std::move(s);
      answer->first.Notify();
    });
    answer->first.WaitForNotification();
    return std::move(answer->second);
  }

  // Records the plugin's (or the binding extender's) answer; false if it ended the chain.
  bool Answered(Status s) {
    if (Extender* e = std::exchange(binding_extender, nullptr)) {
      if (!s.ok() && e->IsIgnorable()) {
        KLOG(0, "Skipping extender in bind as it returned error and has ignorable flag set",
             {"extender", e->Name()}, {"err", s.Message()});
        return true;
      }
      Finish(std::move(s));
      return false;
    }
    fw.PluginAnswered(state, plugin, point, s, plugin_start);
    if (point == metrics::Point::kPreBind) {
      s = PreBindPluginOutcome(plugin, std::move(s));
      if (s.ok()) return true;
    } else {
      s = BindPluginOutcome(plugin, std::move(s));
      if (s.IsSkip()) return true;
    }
    Finish(std::move(s));
    return false;
  }

  // The point's outcome, as Timed records it.
  void EndPoint(const Status& s) {
    if (fw.metrics_ != nullptr) {
      fw.metrics_->ObservePoint(point, s.code(), metrics::SecondsSince(point_start));
    }
  }
  void Finish(Status s) {
    EndPoint(s);
    done(std::move(s));
  }
};

Status Framework::RunBindingPlugins(CycleState& state, const api::Pod& pod, std::string_view node,
                                    PreBindWork work) {
  Status out;
  BindingRun::Continue(
      std::make_shared<BindingRun>(BindingRun{.fw = *this,
                                              .state = state,
                                              .pod = pod,
                                              .node = std::string(node),
                                              .work = std::move(work),
                                              .waiting = true,
                                              .done = [&out](Status s) { out = std::move(s); }}));
  return out;
}

void Framework::RunBindingPluginsAsync(CycleState& state, const api::Pod& pod,
                                       std::string_view node, PreBindWork work,
                                       std::function<void(Status)> done) {
  BindingRun::Continue(std::make_shared<BindingRun>(BindingRun{.fw = *this,
                                                               .state = state,
                                                               .pod = pod,
                                                               .node = std::string(node),
                                                               .work = std::move(work),
                                                               .waiting = false,
                                                               .done = std::move(done)}));
}

void Framework::RunPostBindPlugins(CycleState& state, const api::Pod& pod, std::string_view node) {
  (void)Timed(metrics::Point::kPostBind, [&] {
    for (PostBindPlugin* p : post_bind_) {
      (void)TimedPlugin(state, p->Name(), metrics::Point::kPostBind, [&] {
        p->PostBind(state, pod, node);
        return Status();
      });
    }
    return Status();
  });
}

const PodLister& Framework::pods() {
  static const PodsByNamespace kNone;
  if (deps_.pods == nullptr) return kNone;
  deps_.pods->Enable();
  return *deps_.pods;
}

const CustomObjectLister& Framework::WatchCustomResource(const CustomResource& resource) {
  static const CustomObjects::Store kNone{CustomResource{}};
  if (deps_.custom == nullptr) return kNone;
  return deps_.custom->Watch(resource);
}

std::shared_ptr<WaitingPod> Framework::GetWaitingPod(std::string_view uid) {
  return waiting_.Get(uid);
}

void Framework::IterateOverWaitingPods(const std::function<void(WaitingPod&)>& fn) {
  waiting_.Iterate(fn);
}

}  // namespace ksched::framework
