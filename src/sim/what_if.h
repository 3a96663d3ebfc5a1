// What-ifs for `ksched simulate`, applied to a cluster's objects (a live snapshot or manifests)
// before the scheduler runs on them, and the summary of what they did:
//
//   WhatIf w{.add = {"more.yaml"}, .drain = {"node-3"}};
//   absl::StatusOr<std::map<std::string, std::string>> moved = ApplyWhatIf(w, &objects);
//   ... Simulate(objects, ...) ...
//   WhatIfSummary summary = Summarize(LoadsBefore(objects_before), result, *moved);
//
// --add FILE: the objects of a manifest (kinds as simulate reads them) join the cluster, an object
// of the same kind and name replacing the one there; a Deployment, ReplicaSet or StatefulSet
// (apps/v1) also brings spec.replicas pods made from its template, "<name>-<i>", as its controller
// would make them (a Deployment through a ReplicaSet of its name). --cordon NODE marks the node
// unschedulable. --drain NODE cordons it and makes its pods pending again, as their controllers
// would make them anew after the eviction; DaemonSet pods and static pods stay, terminating pods
// go on terminating. --delete-node NODE removes the node: its DaemonSet and static pods go with
// it, the others become pending again.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "src/api/decode.h"
#include "src/sim/manifests.h"
#include "src/sim/simulate.h"

namespace ksched::sim {

struct WhatIf {
  std::vector<std::string> add;  // Manifest files.
  std::vector<std::string> cordon, drain, delete_nodes;
  FieldValidation fields = FieldValidation::kStrict;  // For the added manifests' unknown fields.
  bool empty() const {
    return add.empty() && cordon.empty() && drain.empty() && delete_nodes.empty();
  }
};

// Applies `what_if` to `objects`: adds, then cordons, drains and deletions. Returns the pods made
// pending again, by "namespace/name", with the node each was on. The added manifests are checked
// as LoadManifests checks files; under FieldValidation::kWarn their unknown fields go to
// `warnings`. Errors are InvalidArgument, naming the file and field ("more.yaml: Deployment
// default/web, pod web-0: spec.containers[0]
// ...") or the flag ("--drain node-9: no such node").
absl::StatusOr<std::map<std::string, std::string>> ApplyWhatIf(
    const WhatIf& what_if, std::vector<api::Object>* objects,
    std::vector<std::string>* warnings = nullptr);

// Per node, the CPU and memory its pods request (api::PodRequests) before and after.
struct NodeLoad {
  std::string node;
  int64_t cpu_allocatable = 0, memory_allocatable = 0;  // Milli-CPU, bytes.
  int64_t cpu_before = 0, cpu_after = 0, memory_before = 0, memory_after = 0;
  bool before = true, after = true;  // Whether the node is there.
};

struct WhatIfSummary {
  std::vector<std::string> pending;          // Pods left pending, "namespace/name".
  std::map<std::string, std::string> moved;  // Pods made pending again → their old node.
  std::vector<NodeLoad> nodes;               // By name.
};

// What a pod requests (api::PodRequests): milli-CPU and bytes of memory.
std::pair<int64_t, int64_t> CpuMemoryRequests(const api::Pod& pod);
// A node's allocatable CPU and memory, nothing requested yet.
NodeLoad LoadOf(const api::Node& node);
// As a quantity reads: "3500m", "4"; "512Mi", "8Gi", "0".
std::string Cpu(int64_t milli);
std::string Memory(int64_t bytes);

// Per node, its allocatable and what its pods request, in `objects` (before the what-if).
std::vector<NodeLoad> LoadsBefore(const std::vector<api::Object>& objects);
// With what the simulation after the what-if left: `moved` is what ApplyWhatIf returned.
WhatIfSummary Summarize(std::vector<NodeLoad> before, const SimulationResult& result,
                        std::map<std::string, std::string> moved);
// The summary for people, after the table: the pods left pending, the pods moved, and per node
// "cpu 3500m → 5500m of 8000m, memory ...".
std::string FormatSummaryTable(const WhatIfSummary& summary);
nlohmann::ordered_json SummaryJson(const WhatIfSummary& summary);

}  // namespace ksched::sim
