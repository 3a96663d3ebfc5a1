// CycleState: data that plugins share within one scheduling cycle of one pod, under typed keys.
//
//   struct PreFilterState : StateData {
//     int64_t milli_cpu = 0;
//     std::unique_ptr<StateData> Clone() const override {
//       return std::make_unique<PreFilterState>(*this);
//     }
//   };
//   inline constexpr StateKey<PreFilterState> kStateKey{"PreFilterNodeResourcesFit",
//                                                       StateScope::kSchedulingCycle};
//   state.Write(kStateKey, std::make_unique<PreFilterState>(...));   // in PreFilter
//   const PreFilterState* s = state.Read(kStateKey);                 // in Filter; nullptr if
//   absent
//
// Thread safety: Write happens in the sequential extension points (PreFilter, PreScore, Reserve);
// Filter and Score run in parallel and only Read. Key names must outlive the state (use literals).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ksched {
namespace internal {
class CycleStateAccess;  // The framework's side (src/sdk/cycle_state_access.h), not for plugins.
}  // namespace internal

class StateData {
 public:
  virtual ~StateData() = default;
  // A deep copy, for preemption's what-if evaluation.
  virtual std::unique_ptr<StateData> Clone() const = 0;
};

// How long the framework keeps a value written under a key.
enum class StateScope {
  // Until the pod's binding cycle ends, as upstream keeps all of a CycleState.
  kPod,
  // Until the scheduling cycle ends, after Permit: for data that only PreFilter through Permit
  // read (Filter, Score, preemption's what-if). Pods that wait on their bind then do not hold it;
  // the binding cycle (PreBind, Bind, PostBind, and Unreserve after a failed bind) finds nullptr.
  kSchedulingCycle,
};

template <typename T>
struct StateKey {
  std::string_view name;
  StateScope scope = StateScope::kPod;
};

class CycleState {
 public:
  CycleState() = default;
  CycleState(const CycleState&) = delete;
  CycleState& operator=(const CycleState&) = delete;

  template <typename T>
  void Write(StateKey<T> key, std::unique_ptr<T> value) {
    WriteData(key.name, key.scope, std::move(value));
  }

  // The value under `key`, or nullptr. The pointer is valid until the key is written again.
  template <typename T>
  const T* Read(StateKey<T> key) const {
    return static_cast<const T*>(ReadData(key.name));
  }
  template <typename T>
  T* ReadMutable(StateKey<T> key) {
    return const_cast<T*>(static_cast<const T*>(ReadData(key.name)));
  }

  std::unique_ptr<CycleState> Clone() const;

  // Whether the plugin's PreFilter returned Skip this cycle (its Filter is not run), and whether
  // its PreScore did (its Score is not run).
  bool ShouldSkipFilter(std::string_view plugin) const;
  bool ShouldSkipScore(std::string_view plugin) const;
  // Whether this cycle times each plugin (upstream samples 10% of the cycles).
  bool record_plugin_metrics() const { return record_plugin_metrics_; }
  // Whether this cycle's decisions are explained (`simulate --explain`): a plugin may spend time
  // on Status::WithExplanation for the nodes it rejects.
  bool explain() const { return explain_; }
  // The state the pods of one pod group's scheduling cycle share (GenericWorkload; upstream's
  // PodGroupCycleState): what a pod's Reserve leaves there, the next pods of the group tried in
  // that cycle find (DynamicResources shares a claim's allocation so). nullptr for a pod
  // scheduled alone, and once the pod's scheduling cycle ended. Written, as the pod's own state,
  // in the sequential extension points only.
  CycleState* pod_group_cycle() const { return pod_group_cycle_; }

 private:
  friend class internal::CycleStateAccess;

  struct Entry {
    std::string_view key;
    StateScope scope;
    std::unique_ptr<StateData> value;
  };
  void WriteData(std::string_view key, StateScope scope, std::unique_ptr<StateData> value);
  const StateData* ReadData(std::string_view key) const;

  std::vector<Entry> data_;
  std::vector<std::string_view> skip_filter_plugins_;
  std::vector<std::string_view> skip_score_plugins_;
  bool record_plugin_metrics_ = false;
  bool explain_ = false;
  CycleState* pod_group_cycle_ = nullptr;
};

}  // namespace ksched
