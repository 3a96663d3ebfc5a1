// The framework's bookkeeping in a CycleState, which plugins read (ShouldSkipFilter,
// record_plugin_metrics) but only the framework and the scheduler write. Not part of the SDK.
#pragma once

#include <string_view>
#include <vector>

#include "ksched/cycle_state.h"

namespace ksched::internal {

class CycleStateAccess {
 public:
  static void SkipFilter(CycleState& state, std::string_view plugin) {
    state.skip_filter_plugins_.push_back(plugin);
  }
  static void SkipScore(CycleState& state, std::string_view plugin) {
    state.skip_score_plugins_.push_back(plugin);
  }
  // Frees the values written under StateScope::kSchedulingCycle keys; the pod's group cycle is
  // over too.
  static void EndSchedulingCycle(CycleState& state) {
    std::erase_if(state.data_, [](const CycleState::Entry& e) {
      return e.scope == StateScope::kSchedulingCycle;
    });
    state.pod_group_cycle_ = nullptr;
  }
  static void SetPodGroupCycle(CycleState& state, CycleState* group) {
    state.pod_group_cycle_ = group;
  }
  static void SetRecordPluginMetrics(CycleState& state, bool record) {
    state.record_plugin_metrics_ = record;
  }
  static void SetExplain(CycleState& state, bool explain) { state.explain_ = explain; }
};

}  // namespace ksched::internal
