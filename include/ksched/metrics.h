// PluginMetrics: the scheduler's metrics that a plugin records itself, as upstream's plugins record
// them in pkg/scheduler/metrics. The framework records the rest around every plugin call
// (scheduler_plugin_execution_duration_seconds, scheduler_plugin_evaluation_total, ...).
//
//   handle.metrics().PreemptionAttempted();
//   handle.metrics().PreemptionVictims(static_cast<int>(victims.size()));
//   handle.metrics().VolumeSchedulingStageFailed("bind");
//
// Where ksched serves no /metrics (`ksched simulate`), the calls do nothing.
//
// Thread safety: every method may be called from any thread.
#pragma once

#include <string_view>

namespace ksched {

class PluginMetrics {
 public:
  // scheduler_preemption_attempts_total: a PostFilter plugin tried to preempt for a pod.
  virtual void PreemptionAttempted() = 0;
  // scheduler_preemption_victims: the number of pods one preemption evicts.
  virtual void PreemptionVictims(int count) = 0;
  // scheduler_volume_scheduling_stage_error_total{operation}: a volume plugin's stage failed with
  // an error (not a node that does not fit): "predicate" (finding the node's volumes, Filter),
  // "assume" (Reserve) or "bind" (PreBind), as upstream's volume binder counts them.
  virtual void VolumeSchedulingStageFailed(std::string_view operation) = 0;

 protected:
  ~PluginMetrics() = default;
};

}  // namespace ksched
