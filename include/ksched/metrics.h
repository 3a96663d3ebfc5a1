// PluginMetrics: the metrics a plugin records itself. Upstream's plugins record some of the
// scheduler's own (pkg/scheduler/metrics), and a plugin may register metrics of its own, as an
// upstream plugin registers them with legacyregistry; /metrics serves both with the scheduler's.
// The framework records the rest around every plugin call
// (scheduler_plugin_execution_duration_seconds, scheduler_plugin_evaluation_total, ...).
//
//   handle.metrics().PreemptionAttempted();
//   handle.metrics().VolumeSchedulingStageFailed("bind");
//
//   // A metric of the plugin's own, registered once, in its factory:
//   absl::StatusOr<PluginCounter*> hits = handle.metrics().Counter(
//       {.name = "network_aware_cache_hits_total", .help = "Lookups served by the cache.",
//        .labels = {"zone"}});
//   if (!hits.ok()) return hits.status();
//   (*hits)->Add({"zone-a"});   // network_aware_cache_hits_total{zone="zone-a"} 1
//
// Where ksched serves no /metrics (`ksched simulate`), the calls work and nothing is served.
//
// Thread safety: every method may be called from any thread.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace ksched {

// A plugin's own metric: its name, help and label names.
struct MetricOptions {
  // [a-zA-Z_:][a-zA-Z0-9_:]*, not one the scheduler serves. Prefix it with the plugin's name.
  std::string name;
  // Served as "[ALPHA] <help>", as component-base marks a metric of stability level ALPHA.
  std::string help;
  // Label names, [a-zA-Z_][a-zA-Z0-9_]*, not beginning with "__"; a histogram's may not be "le".
  std::vector<std::string> labels;
  // A histogram's bucket upper bounds, ascending; none: Prometheus's default buckets (0.005 to
  // 10). Only for histograms.
  std::vector<double> buckets;
};

// The series of one metric, each told apart by its label values: one per label name, in the order
// of MetricOptions::labels. Values of another number are not recorded (and are logged).
class PluginCounter {
 public:
  // Adds `v` (>= 0; a negative `v` is not recorded, and is logged).
  virtual void Add(std::initializer_list<std::string_view> label_values, double v = 1) = 0;

 protected:
  ~PluginCounter() = default;
};

class PluginGauge {
 public:
  virtual void Set(std::initializer_list<std::string_view> label_values, double v) = 0;
  virtual void Add(std::initializer_list<std::string_view> label_values, double v) = 0;

 protected:
  ~PluginGauge() = default;
};

class PluginHistogram {
 public:
  virtual void Observe(std::initializer_list<std::string_view> label_values, double v) = 0;

 protected:
  ~PluginHistogram() = default;
};

class PluginMetrics {
 public:
  // scheduler_preemption_attempts_total: a PostFilter plugin tried to preempt for a pod.
  virtual void PreemptionAttempted() = 0;
  // scheduler_preemption_victims: the number of pods one preemption evicts.
  virtual void PreemptionVictims(int count) = 0;
  // With GenericWorkload (upstream registers these only then; without it they record nothing), of
  // a preemption by a `preemptor`, "pod" or "podgroup":
  // scheduler_preemption_evaluation_duration_seconds{preemptor, result}: the search for victims
  // took `seconds` and ended with `result`, a Code's name ("Success", "Unschedulable", ...);
  virtual void PreemptionEvaluated(std::string_view preemptor, std::string_view result,
                                   double seconds) = 0;
  // scheduler_preemption_execution_duration_seconds{preemptor, result}: its evictions took
  // `seconds`; `result` is "success" or "error";
  virtual void PreemptionExecuted(std::string_view preemptor, std::string_view result,
                                  double seconds) = 0;
  // scheduler_preemption_pdb_violations_total{preemptor} and
  // scheduler_preemption_workload_disruptions{preemptor}, each when above 0: of the victims
  // chosen, the PodDisruptionBudget violations and the pod group victims (a PodGroup disrupted as
  // a whole, or a pod of one disrupted pod by pod).
  virtual void PreemptionVictimsChosen(std::string_view preemptor, int64_t pdb_violations,
                                       int group_disruptions) = 0;
  // scheduler_volume_scheduling_stage_error_total{operation}: a volume plugin's stage failed with
  // an error (not a node that does not fit): "predicate" (finding the node's volumes, Filter),
  // "assume" (Reserve) or "bind" (PreBind), as upstream's volume binder counts them.
  virtual void VolumeSchedulingStageFailed(std::string_view operation) = 0;
  // DynamicResources' wait in PreBind for devices' binding conditions, for each allocated device
  // of the pod's claims: scheduler_dra_bindingconditions_wait_duration_seconds{profile, driver,
  // status} observes `seconds`; status is "success", "failure", "timeout" or "error".
  virtual void DraBindingConditionsWaited(std::string_view driver, std::string_view status,
                                          double seconds) = 0;
  // scheduler_dra_bindingconditions_allocations_total{profile, driver, status}: one more
  // allocated device that has binding conditions, per attempt.
  virtual void DraBindingConditionsAllocation(std::string_view driver, std::string_view status) = 0;

  // A metric of the plugin's own. It lives as long as the scheduler; registering the same name
  // again with the same type and options gives the same metric (each profile makes its own
  // instance of a plugin). InvalidArgument for a name, label or bucket the comments above do not
  // allow; AlreadyExists for a name the scheduler serves, or that was registered otherwise.
  virtual absl::StatusOr<PluginCounter*> Counter(const MetricOptions& options) = 0;
  virtual absl::StatusOr<PluginGauge*> Gauge(const MetricOptions& options) = 0;
  virtual absl::StatusOr<PluginHistogram*> Histogram(const MetricOptions& options) = 0;

 protected:
  ~PluginMetrics() = default;
};

}  // namespace ksched
