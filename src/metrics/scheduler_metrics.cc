#include "src/metrics/scheduler_metrics.h"

#include <dirent.h>
#include <sys/resource.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

namespace ksched::metrics {

std::string_view PointName(Point p) {
  static constexpr std::array<std::string_view, kNumPoints> kNames = {
      "PreFilter",         "Filter",         "PostFilter",
      "PreScore",          "Score",          "ScoreExtensionNormalize",
      "Reserve",           "Unreserve",      "Permit",
      "PreBind",           "Bind",           "PostBind",
      "PlacementGenerate", "PlacementScore", "PlacementScoreExtensionNormalize"};
  return kNames[static_cast<size_t>(p)];
}

SchedulerMetrics::SchedulerMetrics(Registry* r, bool generic_workload, bool placements_too)
    : registry(*r),
      schedule_attempts(r->AddCounter(
          "scheduler_schedule_attempts_total",
          "Number of attempts to schedule pods, by the result. 'unschedulable' means a pod could "
          "not be scheduled, while 'error' means an internal scheduler problem.",
          Stability::kStable, {"result", "profile"})),
      scheduling_attempt_duration(r->AddHistogram(
          "scheduler_scheduling_attempt_duration_seconds",
          "Scheduling attempt latency in seconds (scheduling algorithm + binding)",
          Stability::kStable, ExponentialBuckets(0.001, 2, 15), {"result", "profile"})),
      scheduling_algorithm_duration(
          r->AddHistogram("scheduler_scheduling_algorithm_duration_seconds",
                          "Scheduling algorithm latency in seconds", Stability::kBeta,
                          ExponentialBuckets(0.001, 2, 15))),
      preemption_victims(r->AddHistogram(
          "scheduler_preemption_victims",
          "Number of selected preemption victims for preemption initiated by a single pod",
          Stability::kStable, ExponentialBuckets(1, 2, 7))),
      preemption_attempts(r->AddCounter("scheduler_preemption_attempts_total",
                                        "Total preemption attempts in the cluster till now",
                                        Stability::kStable)),
      pending_pods(r->AddGauge(
          "scheduler_pending_pods",
          "Number of pending pods, by the queue type. 'active' means number of pods in activeQ; "
          "'backoff' means number of pods in backoffQ; 'unschedulable' means number of pods in "
          "unschedulableEntities that the scheduler attempted to schedule and failed; 'gated' is "
          "the number of unschedulable pods that the scheduler never attempted to schedule "
          "because they are gated; 'incomplete' means number of pods in incompletePodGroupPods; "
          "'pending' means number of pods in pendingPodGroupPods.",
          Stability::kStable, {"queue"})),
      queued_entities(r->AddGauge(
          "scheduler_queued_entities",
          "Number of queued scheduling entities ('pod' or 'podgroup'; 'pod' stands for individual "
          "pods that are not members of any podgroup) by the queue type. 'active' means number of "
          "entities in activeQ; 'backoff' means number of entities in backoffQ; 'unschedulable' "
          "means number of entities in unschedulableEntities that the scheduler attempted to "
          "schedule and failed; 'gated' is the number of unschedulable entities that the "
          "scheduler never attempted to schedule because they are gated.",
          Stability::kAlpha, {"queue", "type"})),
      goroutines(
          r->AddGauge("scheduler_goroutines",
                      "Number of running goroutines split by the work they do such as binding.",
                      Stability::kBeta, {"operation"})),
      pod_scheduling_sli_duration(r->AddHistogram(
          "scheduler_pod_scheduling_sli_duration_seconds",
          "E2e latency for a pod being scheduled, from the time the pod enters the scheduling "
          "queue and might involve multiple scheduling attempts.",
          Stability::kBeta, ExponentialBuckets(0.01, 2, 20), {"attempts"})),
      pod_scheduling_attempts(r->AddHistogram("scheduler_pod_scheduling_attempts",
                                              "Number of attempts to successfully schedule a pod.",
                                              Stability::kStable, ExponentialBuckets(1, 2, 5))),
      framework_extension_point_duration(r->AddHistogram(
          "scheduler_framework_extension_point_duration_seconds",
          "Latency for running all plugins of a specific extension point.", Stability::kStable,
          ExponentialBuckets(0.0001, 2, 12), {"extension_point", "status", "profile"})),
      plugin_execution_duration(r->AddHistogram(
          "scheduler_plugin_execution_duration_seconds",
          "Duration for running a plugin at a specific extension point.", Stability::kBeta,
          ExponentialBuckets(0.00001, 1.5, 20), {"plugin", "extension_point", "status"})),
      queue_incoming_pods(
          r->AddCounter("scheduler_queue_incoming_pods_total",
                        "Number of pods added to scheduling queues by event and queue type.",
                        Stability::kStable, {"queue", "event"})),
      queue_incoming_entities(r->AddCounter(
          "scheduler_queue_incoming_entities_total",
          "Number of scheduling entities added to scheduling queues by event, queue type, and "
          "entity type. Entity types are either 'pod' (for individual pods that are not members "
          "of any podgroup) or 'podgroup'.",
          Stability::kAlpha, {"queue", "event", "type"})),
      permit_wait_duration(r->AddHistogram("scheduler_permit_wait_duration_seconds",
                                           "Duration of waiting on permit.", Stability::kBeta,
                                           ExponentialBuckets(0.001, 2, 15), {"result"})),
      cache_size(
          r->AddGauge("scheduler_cache_size",
                      "Number of nodes, pods, and assumed (bound) pods in the scheduler cache.",
                      Stability::kAlpha, {"type"})),
      unschedulable_pods(r->AddGauge(
          "scheduler_unschedulable_pods",
          "The number of unschedulable pods broken down by plugin name. A pod will increment the "
          "gauge for all plugins that caused it to not schedule and so this metric have meaning "
          "only when broken down by plugin.",
          Stability::kBeta, {"plugin", "profile"})),
      plugin_evaluation_total(r->AddCounter(
          "scheduler_plugin_evaluation_total",
          "Number of attempts to schedule pods by each plugin and the extension point (available "
          "only in PreFilter, Filter, PreScore, and Score).",
          Stability::kBeta, {"plugin", "extension_point", "profile"})),
      volume_scheduling_stage_error(r->AddCounter("scheduler_volume_scheduling_stage_error_total",
                                                  "Volume scheduling stage error count",
                                                  Stability::kAlpha, {"operation"})),
      batch_attempts(r->AddCounter("scheduler_batch_attempts_total",
                                   "Counts of results when we attempt to use batching.",
                                   Stability::kAlpha, {"profile", "result"})),
      batch_cache_flushed(r->AddCounter("scheduler_batch_cache_flushed_total",
                                        "Counts of cache flushes by reason.", Stability::kAlpha,
                                        {"profile", "reason"})),
      batch_rescore_attempts(
          r->AddCounter("scheduler_batch_rescore_attempts_total",
                        "Counts of rescore attempts during opportunistic batching.",
                        Stability::kAlpha, {"profile"})),
      get_node_hint_duration(r->AddHistogram(
          "scheduler_get_node_hint_duration_seconds", "Latency for getting a node hint.",
          Stability::kAlpha, ExponentialBuckets(0.00001, 2, 12), {"hinted", "profile"})),
      store_schedule_results_duration(
          r->AddHistogram("scheduler_store_schedule_results_duration_seconds",
                          "Latency for storing scheduling results.", Stability::kAlpha,
                          ExponentialBuckets(0.00001, 2, 12), {"profile"})),
      batch_rescore_duration(
          r->AddHistogram("scheduler_batch_rescore_duration_seconds",
                          "Latency for rescoring a node during opportunistic batching.",
                          Stability::kAlpha, ExponentialBuckets(0.00001, 2, 12), {"profile"})),
      dra_binding_conditions_allocations(r->AddCounter(
          "scheduler_dra_bindingconditions_allocations_total",
          "Number of allocations using devices with BindingConditions, counted per driver per "
          "scheduling attempt",
          Stability::kAlpha, {"profile", "driver", "status"})),
      dra_binding_conditions_wait(r->AddHistogram(
          "scheduler_dra_bindingconditions_wait_duration_seconds",
          "Time in seconds spent waiting for BindingConditions to be satisfied during PreBind.",
          Stability::kAlpha, ExponentialBuckets(0.1, 2, 14), {"profile", "driver", "status"})),
      plugin_families(*r),
      pod_groups(generic_workload ? std::make_unique<PodGroups>(r) : nullptr),
      placements(placements_too ? std::make_unique<Placements>(r) : nullptr) {}

SchedulerMetrics::Placements::Placements(Registry* r)
    : generated(
          r->AddCounter("scheduler_generated_placements_total",
                        "Number of candidate placements generated when scheduling pod groups.",
                        Stability::kAlpha, {"profile"})),
      evaluations(r->AddCounter(
          "scheduler_placement_evaluations_total",
          "Number of candidate placements evaluated when scheduling pod groups, by result. "
          "'feasible' means the pod group fit into the placement, while 'infeasible' means it did "
          "not.",
          Stability::kAlpha, {"result", "profile"})),
      evaluation_duration(r->AddHistogram(
          "scheduler_placement_evaluation_duration_seconds",
          "Latency in seconds of evaluating a single candidate placement when scheduling pod "
          "groups, by result. 'feasible' means the pod group fit into the placement, while "
          "'infeasible' means it did not.",
          Stability::kAlpha, ExponentialBuckets(0.001, 2, 15), {"result", "profile"})) {}

SchedulerMetrics::PodGroups::PodGroups(Registry* r)
    : schedule_attempts(r->AddCounter(
          "scheduler_podgroup_schedule_attempts_total",
          "Number of attempts to schedule pod group, by the result. 'unschedulable' means a pod "
          "group could not be scheduled, while 'error' means an internal scheduler problem.",
          Stability::kAlpha, {"result", "profile"})),
      scheduling_attempt_duration(
          r->AddHistogram("scheduler_podgroup_scheduling_attempt_duration_seconds",
                          "Pod group scheduling attempt latency in seconds", Stability::kAlpha,
                          ExponentialBuckets(0.001, 2, 15), {"result", "profile"})),
      scheduling_algorithm_duration(
          r->AddHistogram("scheduler_podgroup_scheduling_algorithm_duration_seconds",
                          "Pod group scheduling algorithm latency in seconds", Stability::kAlpha,
                          ExponentialBuckets(0.001, 2, 15), {})),
      workload_preemption_attempts(r->AddCounter(
          "scheduler_workload_preemption_attempts_total",
          "Total preemption attempts initiated by workload (including pod groups) in the cluster "
          "till now.",
          Stability::kAlpha, {"result"})),
      workload_preemption_victims(
          r->AddHistogram("scheduler_workload_preemption_victims",
                          "Number of pod preemption victims caused by workload preemption.",
                          Stability::kAlpha, ExponentialBuckets(1, 2, 11), {})),
      preemption_workload_disruptions(r->AddHistogram(
          "scheduler_preemption_workload_disruptions",
          "Number of workload preemption units being preempted. A single preemption unit can be "
          "all pods in a pod group (in case of DisruptionMode=all), or a single pod (in case of "
          "DisruptionMode=single).",
          Stability::kAlpha, ExponentialBuckets(1, 2, 11), {"preemptor"})),
      preemption_evaluation_duration(r->AddHistogram(
          "scheduler_preemption_evaluation_duration_seconds",
          "Duration in seconds for identifying the target preemption victims.", Stability::kAlpha,
          ExponentialBuckets(0.001, 2, 16), {"preemptor", "result"})),
      preemption_execution_duration(r->AddHistogram(
          "scheduler_preemption_execution_duration_seconds",
          "Duration in seconds for preempting the target preemption victims. With async "
          "preemption enabled, preemption execution does not block the scheduling of other pods.",
          Stability::kAlpha, ExponentialBuckets(0.001, 2, 16), {"preemptor", "result"})),
      preemption_pdb_violations(
          r->AddCounter("scheduler_preemption_pdb_violations_total",
                        "Total number of pod disruption budget violations caused by preemption.",
                        Stability::kAlpha, {"preemptor"})) {}

// --- FrameworkMetrics ---------------------------------------------------------------------------

FrameworkMetrics::FrameworkMetrics(SchedulerMetrics* m, std::string profile)
    : m_(m), profile_(std::move(profile)) {}

void FrameworkMetrics::ObservePoint(Point p, Code code, double seconds) {
  std::atomic<Histogram*>& slot = points_[static_cast<size_t>(p)][static_cast<size_t>(code)];
  Histogram* h = slot.load(std::memory_order_acquire);
  if (h == nullptr) {  // Two threads may race here; With returns the same series to both.
    h = m_->framework_extension_point_duration.With({PointName(p), CodeName(code), profile_});
    slot.store(h, std::memory_order_release);
  }
  h->Observe(seconds);
}

void FrameworkMetrics::ObservePlugin(std::string_view plugin, Point p, Code code, double seconds) {
  m_->plugin_execution_duration.With({plugin, PointName(p), CodeName(code)})->Observe(seconds);
}

void FrameworkMetrics::CountEvaluations(std::string_view plugin, Point p, uint64_t n) {
  if (n == 0) return;
  m_->plugin_evaluation_total.With({plugin, PointName(p), profile_})->Inc(static_cast<double>(n));
}

// --- Process metrics ----------------------------------------------------------------------------

// Fields of /proc/<pid>/stat (proc(5)): utime 14, stime 15, starttime 22, vsize 23, rss 24.
ProcessStat ReadProcessStat(int pid) {
  ProcessStat out;
  std::ifstream f(pid == 0 ? std::string("/proc/self/stat")
                           : "/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(f, line)) return out;
  // The command (field 2) is in parentheses and may hold spaces: fields are counted after it.
  std::istringstream rest(line.substr(line.rfind(')') + 2));
  std::vector<std::string> fields;
  for (std::string x; rest >> x;) fields.push_back(x);
  if (fields.size() < 22) return out;
  const double ticks = static_cast<double>(sysconf(_SC_CLK_TCK));
  auto field = [&](int n) { return std::stod(fields[n - 3]); };
  out.cpu_seconds = (field(14) + field(15)) / ticks;
  out.virtual_bytes = field(23);
  out.resident_bytes = field(24) * static_cast<double>(sysconf(_SC_PAGESIZE));
  double boot_time = 0;
  std::ifstream stat("/proc/stat");
  for (std::string key; stat >> key;) {
    if (key == "btime") {
      stat >> boot_time;
      break;
    }
  }
  out.start_time = boot_time + field(22) / ticks;
  return out;
}

namespace {

double OpenFds() {
  double n = 0;
  if (DIR* d = opendir("/proc/self/fd")) {
    while (dirent* e = readdir(d)) n += e->d_name[0] != '.';
    closedir(d);
    --n;  // The directory stream's own descriptor.
  }
  return n;
}

}  // namespace

void AddProcessMetrics(Registry* r) {
  Counter* cpu = r->AddCounter("process_cpu_seconds_total",
                               "Total user and system CPU time spent in seconds.", Stability::kNone)
                     .With({});
  Gauge* open_fds =
      r->AddGauge("process_open_fds", "Number of open file descriptors.", Stability::kNone)
          .With({});
  Gauge* max_fds =
      r->AddGauge("process_max_fds", "Maximum number of open file descriptors.", Stability::kNone)
          .With({});
  Gauge* resident = r->AddGauge("process_resident_memory_bytes", "Resident memory size in bytes.",
                                Stability::kNone)
                        .With({});
  Gauge* virt =
      r->AddGauge("process_virtual_memory_bytes", "Virtual memory size in bytes.", Stability::kNone)
          .With({});
  Gauge* start =
      r->AddGauge("process_start_time_seconds",
                  "Start time of the process since unix epoch in seconds.", Stability::kNone)
          .With({});
  r->AddCollector([=] {
    ProcessStat s = ReadProcessStat();
    cpu->Set(s.cpu_seconds);
    resident->Set(s.resident_bytes);
    virt->Set(s.virtual_bytes);
    start->Set(s.start_time);
    open_fds->Set(OpenFds());
    rlimit lim{};
    if (getrlimit(RLIMIT_NOFILE, &lim) == 0) max_fds->Set(static_cast<double>(lim.rlim_cur));
  });
}

PluginMetricsRecorder::PluginMetricsRecorder(SchedulerMetrics* metrics, std::string profile)
    : metrics_(metrics), profile_(std::move(profile)) {
  if (metrics_ != nullptr) {
    families_ = &metrics_->plugin_families;
    return;
  }
  own_registry_ = std::make_unique<Registry>();
  own_families_ = std::make_unique<PluginFamilies>(*own_registry_);
  families_ = own_families_.get();
}

void PluginMetricsRecorder::PreemptionAttempted() {
  if (metrics_ != nullptr) metrics_->preemption_attempts.With({})->Inc();
}

void PluginMetricsRecorder::PreemptionVictims(int count) {
  if (metrics_ != nullptr) metrics_->preemption_victims.With({})->Observe(count);
}

// The GenericWorkload series are there only with that gate (pod_groups), as upstream's.
void PluginMetricsRecorder::PreemptionEvaluated(std::string_view preemptor, std::string_view result,
                                                double seconds) {
  if (metrics_ == nullptr || metrics_->pod_groups == nullptr) return;
  metrics_->pod_groups->preemption_evaluation_duration.With({preemptor, result})->Observe(seconds);
}

void PluginMetricsRecorder::PreemptionExecuted(std::string_view preemptor, std::string_view result,
                                               double seconds) {
  if (metrics_ == nullptr || metrics_->pod_groups == nullptr) return;
  metrics_->pod_groups->preemption_execution_duration.With({preemptor, result})->Observe(seconds);
}

void PluginMetricsRecorder::PreemptionVictimsChosen(std::string_view preemptor,
                                                    int64_t pdb_violations, int group_disruptions) {
  if (metrics_ == nullptr || metrics_->pod_groups == nullptr) return;
  if (pdb_violations > 0) {
    metrics_->pod_groups->preemption_pdb_violations.With({preemptor})
        ->Inc(static_cast<double>(pdb_violations));
  }
  if (group_disruptions > 0) {
    metrics_->pod_groups->preemption_workload_disruptions.With({preemptor})
        ->Observe(group_disruptions);
  }
}

void PluginMetricsRecorder::VolumeSchedulingStageFailed(std::string_view operation) {
  if (metrics_ != nullptr) metrics_->volume_scheduling_stage_error.With({operation})->Inc();
}

void PluginMetricsRecorder::DraBindingConditionsWaited(std::string_view driver,
                                                       std::string_view status, double seconds) {
  if (metrics_ != nullptr) {
    metrics_->dra_binding_conditions_wait.With({profile_, driver, status})->Observe(seconds);
  }
}

void PluginMetricsRecorder::DraBindingConditionsAllocation(std::string_view driver,
                                                           std::string_view status) {
  if (metrics_ != nullptr) {
    metrics_->dra_binding_conditions_allocations.With({profile_, driver, status})->Inc();
  }
}

}  // namespace ksched::metrics
