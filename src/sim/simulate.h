// `ksched simulate`: runs the real scheduler on an embedded cluster until the queue settles, and
// reports where every pending pod went, or why it did not.
//
//   auto result = Simulate(objects, registry, {.config = cfg, .seed = 1, .explain = true});
//   std::cout << FormatJson(*result, /*explain=*/true);
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ksched/registry.h"
#include "src/api/decode.h"
#include "src/config/config.h"
#include "src/scheduler/scheduler.h"
#include "src/sim/manifests.h"

namespace ksched::sim {

struct SimulationOptions {
  config::Configuration config = config::DefaultConfiguration();
  uint64_t seed = 1;
  bool explain = false;  // Keep each pod's last per-node filter and score details.
  // Give the pending pods to the scheduler one at a time, in queue order, each once the scheduler
  // has settled after the one before, as pods created one after another reach a live scheduler
  // (and as make difftest gives them); otherwise all are in the queue from the start.
  bool one_at_a_time = false;
  bool nominated_node_name_for_expectation = true;  // The gate (SchedulerOptions').
  bool opportunistic_batching = true;               // The gate (SchedulerOptions').
  bool generic_workload = false;                    // The gate (SchedulerOptions').
  bool topology_aware_workload_scheduling = false;  // The gate (SchedulerOptions').
  bool pod_group_preemption_policy = false;         // The gate (SchedulerOptions').
  // The objects of custom resources plugins watch (LoadManifests' `custom`).
  std::vector<CustomManifestObject> custom_objects;
};

// What `simulate --explain` shows of a pod's last scheduling cycle (its observer keeps it).
struct Explanation {
  // Each node the filters checked: "passed", or "Plugin: reason (explanation)".
  std::map<std::string, std::string> verdicts;
  // The verdict of the nodes PreFilter ruled out (all, or those outside its result), if it did.
  std::optional<std::string> absent;
  bool nominated_fit = false;  // Only the pod's nominated node was checked, and it fit.
  // OpportunisticBatching gave the pod the next node of this pod's scoring ("namespace/name"):
  // only that node was checked, and nothing was scored.
  std::string batched_after;
  // Per scored node, best total first (equal totals in the order they were scored): each
  // plugin's weighted score and the total.
  struct NodeScores {
    std::string node;
    std::vector<std::pair<std::string, int64_t>> plugins;
    int64_t total = 0;
  };
  std::vector<NodeScores> scores;
  // Tried in its PodGroup's cycle: what the cycle decided for the whole group, as the group's
  // PodGroupInitiallyScheduled condition says it ("" when the pod was tried alone).
  std::string group_reason, group_message;
  // With TopologyAwareWorkloadScheduling, the placement the group's cycle tried the pod in ("" for
  // the whole cluster) and its nodes (nullopt for the whole cluster).
  std::string placement;
  std::optional<std::set<std::string>> placement_nodes;
};

struct PodOutcome {
  std::string namespace_;
  std::string name;
  std::optional<std::string> node;
  // Scheduled, Unschedulable, SchedulerError or SchedulingGated; Preempted for a pod placed and
  // then evicted (it is among `evicted` too); NotOurs for a pod whose schedulerName no profile
  // serves, which no scheduler here will place.
  std::string status;
  std::string message;    // The PodScheduled condition's message ("" when scheduled), or why.
  std::string pod_group;  // Its PodGroup, "namespace/name", when it names one.
  // status.nominatedNodeName of a pod left pending: where its preemption made room.
  std::string nominated_node;
  std::optional<Explanation> last_cycle;  // With explain.
};

// A pod that preemption deleted to make room, and the pod it made room for ("namespace/name").
struct EvictedPod {
  std::string namespace_, name, node, preemptor;
};

struct SimulationResult {
  // Every pod pending at the start, in input order, each once.
  std::vector<PodOutcome> pods;
  std::vector<EvictedPod> evicted;      // In the order of their eviction.
  std::vector<std::string> node_names;  // All nodes, in input order (for explain).
  int cycles = 0;
  // The cluster at the end: every pod (bound or not) and node.
  std::vector<std::shared_ptr<const api::Pod>> final_pods;
  std::vector<std::shared_ptr<const api::Node>> final_nodes;
};

// The custom resources the profiles' plugins watch, with their kinds: what LoadManifests reads
// besides ksched's own kinds. The plugins are made (and dropped) to learn it.
absl::StatusOr<std::vector<CustomResource>> WatchedCustomResources(const config::Configuration& cfg,
                                                                   const Registry& registry);

absl::StatusOr<SimulationResult> Simulate(std::vector<api::Object> objects,
                                          const Registry& registry,
                                          const SimulationOptions& options);

// The stable JSON schema:
// {"pods":[{namespace,name,node,status[,message][,nominatedNode][,filter,scores]}],
// "evicted":[{namespace,name,node[,preemptor]}]}.
std::string FormatJson(const SimulationResult& result, bool explain);
// A table for people; with explain, each pod's verdicts follow the table.
std::string FormatTable(const SimulationResult& result, bool explain);

}  // namespace ksched::sim
