#include "src/scheduler/scheduler.h"

#include <algorithm>

#include "fmt/format.h"
#include "src/plugins/names.h"

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
  if (!options.config.extenders.empty()) {
    return absl::InvalidArgumentError(
        "extenders: scheduler extenders are not supported by ksched yet; remove the extenders "
        "from the configuration");
  }
  std::unique_ptr<Scheduler> s(new Scheduler(std::move(options)));
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
         .simulator_trace = s->options_.simulator_annotations});
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

const framework::Framework* Scheduler::FrameworkFor(std::string_view scheduler_name) const {
  auto it = frameworks_.find(scheduler_name);
  return it == frameworks_.end() ? nullptr : it->second.get();
}

bool Scheduler::IsResponsibleFor(const api::Pod& pod) const {
  return FrameworkFor(pod.spec.scheduler_name) != nullptr;
}

}  // namespace ksched::scheduler
