// kube-scheduler's metrics (pkg/scheduler/metrics, 1.37), with their names, help, stability,
// labels and buckets, registered in one Registry; and the per-profile view the framework records
// into.
//
//   metrics::Registry registry;
//   metrics::SchedulerMetrics m(&registry);
//   m.schedule_attempts.With({"scheduled", "default-scheduler"})->Inc();
//   metrics::FrameworkMetrics fm(&m, "default-scheduler");
//   fm.ObservePoint(metrics::Point::kFilter, Code::kSuccess, elapsed);
//
// Thread safety: everything may be called concurrently.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <string_view>

#include "ksched/metrics.h"
#include "ksched/status.h"
#include "src/metrics/metrics.h"
#include "src/metrics/plugin_families.h"

namespace ksched::metrics {

// The extension_point label values.
enum class Point {
  kPreFilter,
  kFilter,
  kPostFilter,
  kPreScore,
  kScore,
  kScoreExtensionNormalize,
  kReserve,
  kUnreserve,
  kPermit,
  kPreBind,
  kBind,
  kPostBind,
  kPlacementGenerate,  // A pod group's, with TopologyAwareWorkloadScheduling.
  kPlacementScore,
  kPlacementScoreExtensionNormalize,
};
inline constexpr size_t kNumPoints =
    static_cast<size_t>(Point::kPlacementScoreExtensionNormalize) + 1;
std::string_view PointName(Point p);

// Seconds since `start` on the steady clock.
inline double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

struct SchedulerMetrics {
  // `generic_workload`: the pod groups' metrics too; `placements`, their placements' as well
  // (TopologyAwareWorkloadScheduling).
  explicit SchedulerMetrics(Registry* registry, bool generic_workload = false,
                            bool placements = false);

  Registry& registry;
  CounterFamily& schedule_attempts;                     // result, profile
  HistogramFamily& scheduling_attempt_duration;         // result, profile
  HistogramFamily& scheduling_algorithm_duration;       // (none)
  HistogramFamily& preemption_victims;                  // (none)
  CounterFamily& preemption_attempts;                   // (none)
  GaugeFamily& pending_pods;                            // queue
  GaugeFamily& queued_entities;                         // queue, type (always "pod" here)
  GaugeFamily& goroutines;                              // operation
  HistogramFamily& pod_scheduling_sli_duration;         // attempts
  HistogramFamily& pod_scheduling_attempts;             // (none)
  HistogramFamily& framework_extension_point_duration;  // extension_point, status, profile
  HistogramFamily& plugin_execution_duration;           // plugin, extension_point, status
  CounterFamily& queue_incoming_pods;                   // queue, event
  CounterFamily& queue_incoming_entities;               // queue, event, type
  HistogramFamily& permit_wait_duration;                // result
  GaugeFamily& cache_size;                              // type
  GaugeFamily& unschedulable_pods;                      // plugin, profile
  CounterFamily& plugin_evaluation_total;               // plugin, extension_point, profile
  CounterFamily& volume_scheduling_stage_error;         // operation
  CounterFamily& batch_attempts;                        // profile, result
  CounterFamily& batch_cache_flushed;                   // profile, reason
  CounterFamily& batch_rescore_attempts;                // profile
  HistogramFamily& get_node_hint_duration;              // hinted, profile
  HistogramFamily& store_schedule_results_duration;     // profile
  HistogramFamily& batch_rescore_duration;              // profile
  CounterFamily& dra_binding_conditions_allocations;    // profile, driver, status
  HistogramFamily& dra_binding_conditions_wait;         // profile, driver, status
  PluginFamilies plugin_families;                       // The plugins' own.
  // Registered with GenericWorkload only, as upstream registers them; null without.
  struct PodGroups {
    explicit PodGroups(Registry* registry);
    CounterFamily& schedule_attempts;                  // result, profile
    HistogramFamily& scheduling_attempt_duration;      // result, profile
    HistogramFamily& scheduling_algorithm_duration;    // (none)
    CounterFamily& workload_preemption_attempts;       // result
    HistogramFamily& workload_preemption_victims;      // (none)
    HistogramFamily& preemption_workload_disruptions;  // preemptor
    HistogramFamily& preemption_evaluation_duration;   // preemptor, result
    HistogramFamily& preemption_execution_duration;    // preemptor, result
    CounterFamily& preemption_pdb_violations;          // preemptor
  };
  std::unique_ptr<PodGroups> pod_groups;
  // Registered with TopologyAwareWorkloadScheduling only; null without.
  struct Placements {
    explicit Placements(Registry* registry);
    CounterFamily& generated;              // profile
    CounterFamily& evaluations;            // result ("feasible", "infeasible"), profile
    HistogramFamily& evaluation_duration;  // result, profile
  };
  std::unique_ptr<Placements> placements;
};

// One profile's extension-point and plugin series, looked up once per label combination.
class FrameworkMetrics {
 public:
  // Upstream times plugins in 10% of the scheduling cycles (pluginMetricsSamplePercent).
  static constexpr int kPluginSamplePercent = 10;

  FrameworkMetrics(SchedulerMetrics* m, std::string profile);
  FrameworkMetrics(const FrameworkMetrics&) = delete;
  FrameworkMetrics& operator=(const FrameworkMetrics&) = delete;

  void ObservePoint(Point p, Code code, double seconds);
  void ObservePlugin(std::string_view plugin, Point p, Code code, double seconds);
  void CountEvaluations(std::string_view plugin, Point p, uint64_t n);

 private:
  SchedulerMetrics* m_;
  const std::string profile_;
  static constexpr size_t kNumCodes = static_cast<size_t>(Code::kPending) + 1;
  // The extension points' series, resolved once each: they are observed several times a cycle.
  std::array<std::array<std::atomic<Histogram*>, kNumCodes>, kNumPoints> points_{};
};

// The SDK's PluginMetrics (ksched/metrics.h) on `metrics`; with nullptr it records the scheduler's
// metrics nowhere, and the plugins' own in a registry of its own that nothing serves.
class PluginMetricsRecorder final : public PluginMetrics {
 public:
  PluginMetricsRecorder(SchedulerMetrics* metrics, std::string profile);
  void PreemptionAttempted() override;
  void PreemptionVictims(int count) override;
  void PreemptionEvaluated(std::string_view preemptor, std::string_view result,
                           double seconds) override;
  void PreemptionExecuted(std::string_view preemptor, std::string_view result,
                          double seconds) override;
  void PreemptionVictimsChosen(std::string_view preemptor, int64_t pdb_violations,
                               int group_disruptions) override;
  void VolumeSchedulingStageFailed(std::string_view operation) override;
  void DraBindingConditionsWaited(std::string_view driver, std::string_view status,
                                  double seconds) override;
  void DraBindingConditionsAllocation(std::string_view driver, std::string_view status) override;
  absl::StatusOr<PluginCounter*> Counter(const MetricOptions& options) override {
    return families_->Counter(options);
  }
  absl::StatusOr<PluginGauge*> Gauge(const MetricOptions& options) override {
    return families_->Gauge(options);
  }
  absl::StatusOr<PluginHistogram*> Histogram(const MetricOptions& options) override {
    return families_->Histogram(options);
  }

 private:
  SchedulerMetrics* metrics_;
  const std::string profile_;
  std::unique_ptr<Registry> own_registry_;        // Without `metrics`.
  std::unique_ptr<PluginFamilies> own_families_;  // Without `metrics`.
  PluginFamilies* families_;
};

// A process's figures from /proc/<pid>/stat (and its start from /proc/stat's btime); zeros if
// the process is gone. pid 0 is this process.
struct ProcessStat {
  double cpu_seconds = 0;  // user + system
  double start_time = 0;   // seconds since the Unix epoch
  double virtual_bytes = 0, resident_bytes = 0;
};
ProcessStat ReadProcessStat(int pid = 0);

// process_cpu_seconds_total, process_resident_memory_bytes, process_start_time_seconds, ... as
// Prometheus's process collector reports them, read from /proc/self at each scrape.
void AddProcessMetrics(Registry* registry);

}  // namespace ksched::metrics
