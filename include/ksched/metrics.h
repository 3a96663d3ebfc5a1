// PluginMetrics: the scheduler's metrics that a plugin records itself, as upstream's plugins record
// them in pkg/scheduler/metrics. The framework records the rest around every plugin call
// (scheduler_plugin_execution_duration_seconds, scheduler_plugin_evaluation_total, ...).
//
//   handle.metrics().PreemptionAttempted();
//   handle.metrics().PreemptionVictims(static_cast<int>(victims.size()));
//
// Where ksched serves no /metrics (`ksched simulate`), the calls do nothing.
//
// Thread safety: every method may be called from any thread.
#pragma once

namespace ksched {

class PluginMetrics {
 public:
  // scheduler_preemption_attempts_total: a PostFilter plugin tried to preempt for a pod.
  virtual void PreemptionAttempted() = 0;
  // scheduler_preemption_victims: the number of pods one preemption evicts.
  virtual void PreemptionVictims(int count) = 0;

 protected:
  ~PluginMetrics() = default;
};

}  // namespace ksched
