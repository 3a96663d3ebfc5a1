#include "src/scheduler/scheduler.h"

#include <algorithm>

#include "fmt/format.h"
#include "src/api/decode.h"
#include "src/plugins/names.h"
#include "src/plugins/node_resources/args.h"

namespace ksched::scheduler {

Scheduler::Scheduler(SchedulerOptions options)
    : options_(std::move(options)),
      clock_(options_.clock ? options_.clock : &real_clock_),
      rng_(options_.seed),
      binding_(options_.binding_threads) {
  metrics::Registry* registry = options_.metrics_registry;
  if (registry == nullptr) {
    own_registry_ = std::make_unique<metrics::Registry>();
    registry = own_registry_.get();
  }
  metrics_ = std::make_unique<metrics::SchedulerMetrics>(
      registry, options_.generic_workload,
      options_.generic_workload && options_.topology_aware_workload_scheduling);
  binding_goroutines_ = metrics_->goroutines.With({"binding"});
}

void Scheduler::RecordAttempt(const api::Pod& pod, std::string_view result, SteadyTime start) {
  const std::string_view profile = pod.spec.scheduler_name;
  metrics_->schedule_attempts.With({result, profile})->Inc();
  metrics_->scheduling_attempt_duration.With({result, profile})
      ->Observe(metrics::SecondsSince(start));
}

queue::QueueOptions Scheduler::QueueObservers(queue::QueueOptions options) {
  metrics::SchedulerMetrics* m = metrics_.get();
  options.on_incoming = [m](std::string_view queue, std::string_view event, bool moved) {
    m->queue_incoming_pods.With({queue, event})->Inc();
    if (moved) m->queue_incoming_entities.With({queue, event, "pod"})->Inc();
  };
  options.on_unschedulable = [m](const QueuedPodInfo& info, int delta) {
    for (const std::string& plugin : info.unschedulable_plugins) {
      m->unschedulable_pods.With({plugin, info.pod().spec.scheduler_name})->Add(delta);
    }
  };
  return options;
}

Scheduler::~Scheduler() = default;

absl::StatusOr<std::unique_ptr<Scheduler>> Scheduler::Create(SchedulerOptions options,
                                                             const Registry& registry) {
  if (options.writer == nullptr) return absl::InvalidArgumentError("a ClusterWriter is required");
  std::unique_ptr<Scheduler> s(new Scheduler(std::move(options)));
  if (absl::Status st = s->BuildExtenders(); !st.ok()) return st;
  // Upstream's defaults with GenericWorkload: GangScheduling ends the default plugins, and with
  // TopologyAwareWorkloadScheduling too, TopologyPlacementGenerator and PodGroupPodsCount (weight
  // 1), each unless the profile names or disables it.
  std::vector<config::PluginRef> gated_defaults;
  if (s->options_.generic_workload) gated_defaults.push_back({plugins::names::kGangScheduling, 0});
  if (s->options_.generic_workload && s->options_.topology_aware_workload_scheduling) {
    gated_defaults.push_back({plugins::names::kTopologyPlacementGenerator, 0});
    gated_defaults.push_back({plugins::names::kPodGroupPodsCount, 1});
  }
  for (config::Profile& profile : s->options_.config.profiles) {
    config::PluginSet& multi = profile.plugins.multi_point;
    for (const config::PluginRef& plugin : gated_defaults) {
      auto named = [&](const config::PluginRef& r) {
        return r.name == "*" || r.name == plugin.name;
      };
      if (std::none_of(multi.disabled.begin(), multi.disabled.end(), named) &&
          std::none_of(multi.enabled.begin(), multi.enabled.end(), named)) {
        multi.enabled.push_back(plugin);
      }
    }
  }
  const config::Configuration& cfg = s->options_.config;
  for (const config::Profile& profile : cfg.profiles) {
    if (s->frameworks_.contains(profile.scheduler_name)) {
      return absl::InvalidArgumentError(
          fmt::format("duplicate profile with scheduler name \"{}\"", profile.scheduler_name));
    }
    auto fw = framework::Framework::Create(
        profile, registry,
        {.writer = s->options_.writer,
         .parallelism = cfg.parallelism,
         .global_percentage_of_nodes_to_score = cfg.percentage_of_nodes_to_score,
         .metrics = s->metrics_.get(),
         .cache = &s->cache_,
         .listers = &s->listers_,
         .custom = &s->listers_.custom,
         .pods = &s->pods_by_namespace_,
         .clock = s->clock_,
         .nominator = &s->nominator_,
         .run_async =
             [self = s.get()](std::function<void()> fn) { self->binding_.Run(std::move(fn)); },
         .activate =
             [self = s.get()](const std::vector<std::shared_ptr<const api::Pod>>& pods) {
               std::vector<std::string> uids;
               for (const auto& p : pods) uids.push_back(p->metadata.uid);
               self->queue_->Activate(uids);
             },
         .stopping = [self = s.get()] { return self->queue_->Closed(); },
         .simulator_trace = s->options_.simulator_annotations,
         .extenders = &s->extenders_.list,
         .extenders_bind = s->options_.extenders_bind});
    if (!fw.ok()) return fw.status();
    s->frameworks_.emplace(profile.scheduler_name, std::move(*fw));
  }
  queue::QueueOptions qopts{.initial_backoff = absl::Seconds(cfg.pod_initial_backoff_seconds),
                            .max_backoff = absl::Seconds(cfg.pod_max_backoff_seconds)};
  Scheduler* self = s.get();
  s->queue_ = std::make_unique<queue::SchedulingQueue>(
      s->QueueObservers(qopts), s->clock_,
      [self](std::string_view name) { return self->FrameworkFor(name); });
  // Gauges read at each scrape.
  s->metrics_->registry.AddCollector([self] {
    queue::QueueCounts c = self->queue_->Counts();
    metrics::GaugeFamily& pending = self->metrics_->pending_pods;
    metrics::GaugeFamily& entities = self->metrics_->queued_entities;
    for (const auto& [queue, n] : {std::pair<const char*, size_t>{"active", c.active},
                                   {"backoff", c.backoff},
                                   {"unschedulable", c.unschedulable},
                                   {"gated", c.gated}}) {
      pending.With({queue})->Set(static_cast<double>(n));
      // Each pod is an entity of its own while ksched schedules no pod groups.
      entities.With({queue, "pod"})->Set(static_cast<double>(n));
    }
    // The pods of pod groups, which ksched does not schedule yet: none, as upstream shows them.
    pending.With({"incomplete"})->Set(0);
    pending.With({"pending"})->Set(0);
    metrics::GaugeFamily& cache = self->metrics_->cache_size;
    cache.With({"nodes"})->Set(static_cast<double>(self->cache_.NodeCount()));
    cache.With({"pods"})->Set(static_cast<double>(self->cache_.PodCount()));
    cache.With({"assumed_pods"})->Set(static_cast<double>(self->cache_.AssumedPodCount()));
  });
  return s;
}

absl::Status Scheduler::BuildExtenders() {
  const std::vector<nlohmann::json>& configs = options_.config.extenders;
  if (configs.empty()) return absl::OkStatus();
  // Extenders are sent pods and nodes whole, as they came.
  api::KeepObjectJson(true);
  extender_metrics_ = std::make_unique<extender::ExtenderMetrics>(metrics_->registry);
  absl::StatusOr<extender::Extenders> built =
      extender::BuildExtenders(configs, extender_metrics_.get());
  if (!built.ok()) {
    return absl::InvalidArgumentError(
        fmt::format("couldn't build extenders: {}", std::string(built.status().message())));
  }
  extenders_ = *std::move(built);
  if (std::any_of(extenders_.list.begin(), extenders_.list.end(),
                  [](const Extender* e) { return e->IsPrioritizer(); })) {
    prioritizing_goroutines_ = metrics_->goroutines.With({"prioritizing_extender"});
  }
  if (extenders_.ignored_resources.empty()) return absl::OkStatus();
  // The resources they manage and the scheduler ignores are NodeResourcesFit's ignoredResources,
  // in place of any it was given (upstream's buildExtenders).
  for (config::Profile& profile : options_.config.profiles) {
    auto pc = std::find_if(
        profile.plugin_config.begin(), profile.plugin_config.end(),
        [](const config::PluginConfig& c) { return c.name == plugins::names::kNodeResourcesFit; });
    if (pc == profile.plugin_config.end()) {
      pc = profile.plugin_config.insert(profile.plugin_config.end(),
                                        {.name = plugins::names::kNodeResourcesFit});
    }
    nlohmann::json args = pc->args->ToJson();
    if (!args.is_object()) args = nlohmann::json::object();
    args["ignoredResources"] = extenders_.ignored_resources;
    absl::StatusOr<plugins::node_resources::FitArgs> fit =
        plugins::node_resources::ParseFitArgs(args);
    if (!fit.ok()) {
      return absl::InvalidArgumentError(
          fmt::format("couldn't build extenders: {}", std::string(fit.status().message())));
    }
    pc->args = std::make_shared<const TypedArgs<plugins::node_resources::FitArgs>>(
        *std::move(fit), plugins::node_resources::FitArgsToJson);
  }
  return absl::OkStatus();
}

const framework::Framework* Scheduler::FrameworkFor(std::string_view scheduler_name) const {
  auto it = frameworks_.find(scheduler_name);
  return it == frameworks_.end() ? nullptr : it->second.get();
}

bool Scheduler::IsResponsibleFor(const api::Pod& pod) const {
  return FrameworkFor(pod.spec.scheduler_name) != nullptr;
}

}  // namespace ksched::scheduler
