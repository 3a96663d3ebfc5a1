// Attempt: the one record of a scheduling attempt, and AttemptObserver, what reads it. The
// scheduler hands each attempt to its observers (SchedulerOptions::observers): `ksched explain`'s
// ExplainRecords in `run`, the explanations of `simulate --explain`, a test's own.
//
//   class Counter : public AttemptObserver {
//     void Observe(const Attempt& a) override { if (!a.node.empty()) ++placed; }
//   };
//
// When: once at the end of each scheduling cycle, with its decision (a node, or why none), on
// the scheduling thread; and once more if the binding cycle that followed fails, with the failure
// (`in_binding`), on whichever thread the binding ended. Per-plugin outcomes are not here: with
// --simulator-annotations each plugin is wrapped (framework/traced_plugin.h).
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/time/time.h"
#include "ksched/api/objects.h"
#include "ksched/fit_error.h"
#include "ksched/node_info.h"
#include "ksched/status.h"
#include "src/framework/framework.h"

namespace ksched::scheduler {

// The views (pointers, spans) are valid only during Observe: an observer copies what it keeps.
struct Attempt {
  std::shared_ptr<const api::Pod> pod;
  absl::Time time;
  int attempts = 0;    // The queue's count for the pod, this attempt included.
  std::string result;  // Scheduled, Unschedulable or SchedulerError.
  std::string node;    // The chosen node, when Scheduled.
  // OpportunisticBatching gave the pod `node`, the next node of this pod's scoring
  // ("namespace/name"): only that node was filtered, and nothing was scored.
  std::string batched_after;
  std::string message;  // The PodScheduled condition's message, when not.
  // The binding cycle failed on `node`: `diagnosis` holds that one node, and what the scheduling
  // cycle found is not here.
  bool in_binding = false;
  int cluster_nodes = 0;  // The nodes the scheduling cycle saw; 0 in the binding cycle.

  // What the scheduling cycle's filters and scores found, as far as it got: the nodes they
  // rejected (and the status of those PreFilter left out), those that passed, in the order they
  // were checked, and the passing nodes' scores when they were scored.
  const Diagnosis* filtered = nullptr;
  std::span<const NodeInfo* const> feasible;
  const framework::ScoreTable* scores = nullptr;

  // Why the pod did not fit, when it did not: the filters' diagnosis, or after a node was chosen,
  // that node's (nullptr for an error).
  const Diagnosis* diagnosis = nullptr;
  std::optional<std::string> nominated;  // Where preemption made room ("" clears it).
  std::vector<std::string> victims;      // The pods it evicts there (namespace/name).
  // Per plugin that rejected the pod: the events it registered (ClusterEvent labels).
  std::vector<std::pair<std::string, std::vector<std::string>>> waiting_for;
  // A PodGroup's pod tried in its group's cycle (GenericWorkload): the group ("namespace/name")
  // and what the cycle decided for the whole group, as its PodGroupInitiallyScheduled condition
  // says it (reason Scheduled with no message when the group was placed).
  std::string pod_group, group_reason, group_message;
  // With TopologyAwareWorkloadScheduling, the placement the group's cycle tried the pod in (a
  // topology domain; "" for the whole cluster), and its nodes (nullptr for the whole cluster).
  std::string placement;
  const absl::flat_hash_set<std::string>* placement_nodes = nullptr;

  bool Scheduled() const { return result == "Scheduled"; }
};

class AttemptObserver {
 public:
  virtual ~AttemptObserver() = default;
  virtual void Observe(const Attempt& attempt) = 0;
  // The pod was deleted: whatever is kept of it may go.
  virtual void Forget(std::string_view /*uid*/) {}
};

}  // namespace ksched::scheduler
