// SimulatorTrace: what kube-scheduler-simulator's wrapped plugins record of one pod's attempt, kept
// when asked (`ksched run --simulator-annotations`), so that ksched can write the simulator's
// result annotations and the simulator's web UI shows ksched's decisions.
//
//   state.Write(kSimulatorTraceKey, std::make_unique<SimulatorTrace>());  // before PreFilter
//   ... each plugin's wrapper (traced_plugin.h) records its outcomes at each extension point; the
//   scheduler records the weighted scores and the node it chose ...
//   std::map<std::string, std::string> a = state.Read(kSimulatorTraceKey)->Annotations();
//
// What is recorded, as the simulator records it (its resultstore and wrapped plugins): per plugin,
// "success" or the status's message (a Skip's message is usually ""), at PreFilter, PreScore,
// Reserve, Permit ("wait" for Wait, and the timeout as a Go duration), PreBind and Bind; the node
// names of each PreFilterResult that is not "all nodes"; per node and Filter plugin run, "passed"
// or the message; per node given to PostFilter an entry, the nominated node's with "preemption
// victim" for the plugin that nominated it; per node and Score plugin, the raw score and the final
// one (normalized, times the plugin's weight); and the node Reserve was given. A later outcome of
// the same plugin (and node) replaces an earlier one. Preemption's what-if filtering runs on a
// copy of the state and is not recorded.
//
// Thread safety: Filter and Score record from several threads; every method locks.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "ksched/cycle_state.h"
#include "ksched/status.h"
#include "src/metrics/scheduler_metrics.h"

namespace ksched::framework {

// The annotation keys, as kube-scheduler-simulator names them.
inline constexpr char kSimulatorAnnotationPrefix[] = "kube-scheduler-simulator.sigs.k8s.io/";
inline constexpr char kSimulatorResultHistory[] =
    "kube-scheduler-simulator.sigs.k8s.io/result-history";

class SimulatorTrace final : public StateData {
 public:
  SimulatorTrace() = default;
  SimulatorTrace(const SimulatorTrace& o);
  std::unique_ptr<StateData> Clone() const override;

  // The outcome of `plugin` at `point`, one of PreFilter, PreScore, Reserve, Permit, PreBind and
  // Bind; the other points are not recorded here (Filter and Score are, per node, below).
  void Plugin(metrics::Point point, std::string_view plugin, const Status& s) const;
  void PreFilterResult(std::string_view plugin, const std::vector<std::string>& nodes) const;
  void PermitTimeout(std::string_view plugin, absl::Duration timeout) const;
  void Filter(std::string_view node, std::string_view plugin, const Status& s) const;
  // PostFilter was given `nodes`; `nominated` ("" if none) is the node `plugin` nominated.
  void PostFilter(std::string_view plugin, const std::vector<std::string>& nodes,
                  std::string_view nominated) const;
  void Score(std::string_view node, std::string_view plugin, int64_t raw) const;
  void FinalScore(std::string_view node, std::string_view plugin, int64_t final_score) const;
  void SelectedNode(std::string_view node) const;

  // The simulator's annotations (the 13 keys but result-history), values as Go's json.Marshal
  // writes them (keys sorted, <, > and & escaped).
  std::map<std::string, std::string> Annotations() const;

 private:
  using PerPlugin = std::map<std::string, std::string, std::less<>>;
  using PerNode = std::map<std::string, PerPlugin, std::less<>>;
  mutable absl::Mutex mu_;
  mutable std::map<metrics::Point, PerPlugin> plugins_ ABSL_GUARDED_BY(mu_);
  mutable PerPlugin permit_timeout_ ABSL_GUARDED_BY(mu_);
  mutable std::map<std::string, std::vector<std::string>, std::less<>> prefilter_result_
      ABSL_GUARDED_BY(mu_);
  mutable PerNode filter_ ABSL_GUARDED_BY(mu_), postfilter_ ABSL_GUARDED_BY(mu_),
      score_ ABSL_GUARDED_BY(mu_), final_score_ ABSL_GUARDED_BY(mu_);
  mutable std::string selected_node_ ABSL_GUARDED_BY(mu_);
};

inline constexpr StateKey<SimulatorTrace> kSimulatorTraceKey{"ksched.simulator-trace",
                                                             StateScope::kPod};

// `json` as Go's encoding/json escapes it by default: <, > and & as \u003c, \u003e and \u0026.
std::string GoJsonEscape(std::string json);

// The result-history annotation's value: `history` (a JSON array, or "" for none) with one more
// entry, `annotations`. A history that is not a JSON array is left as it is (the simulator logs
// it and writes the other annotations).
std::string AppendResultHistory(std::string_view history,
                                const std::map<std::string, std::string>& annotations);

}  // namespace ksched::framework
