// The API objects of a workload (bench/workloads.h) as the side-by-side bench creates them, and as
// scheduler_perf's ops (createNodes, createAny, createPods, allocResourceClaims) make them.
//
//   absl::StatusOr<WorkloadObjects> objects = MakeObjects(*FindWorkload("Partitionable-half"));
//   for (const auto* batch : {&objects->setup, &objects->nodes, &objects->storage}) ...
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "bench/workloads.h"
#include "nlohmann/json.hpp"

namespace ksched::bench {

// The objects of a workload, ready to create: first what the pods need (namespaces, priority
// classes, the StorageClass, DeviceClasses, ResourceClaimTemplates), then the nodes (and their
// CSINodes), the pods' claims, PVs and ResourceSlices, the init pods and the measured pods.
struct WorkloadObjects {
  std::vector<nlohmann::json> setup, nodes, storage, init_pods, measure_pods;
  nlohmann::json churn_node, churn_pod, churn_service;
};

absl::StatusOr<WorkloadObjects> MakeObjects(const Workload& w);

// `o` named `name` (and put in namespace `ns` unless empty), its generateName dropped.
nlohmann::json Named(nlohmann::json o, const std::string& name, const std::string& ns = "");

}  // namespace ksched::bench
