// The API objects of a workload (bench/workloads.h) as the side-by-side bench creates them, and as
// scheduler_perf's ops (createNodes, createAny, createPods, allocResourceClaims) make them.
//
//   absl::StatusOr<WorkloadObjects> objects = MakeObjects(*FindWorkload("Partitionable-half"));
//   for (const auto* batch : {&objects->setup, &objects->nodes, &objects->storage}) ...
#pragma once

#include <initializer_list>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "bench/workloads.h"
#include "nlohmann/json.hpp"
#include "src/api/decode.h"

namespace ksched::bench {

// The objects of a workload, ready to create: first what the pods need (namespaces, priority
// classes, the StorageClass, DeviceClasses, ResourceClaimTemplates), then the nodes (and their
// CSINodes), the pods' claims, PVs, ResourceSlices and PodGroups, the init pods and the measured
// pods.
struct WorkloadObjects {
  std::vector<nlohmann::json> setup, nodes, storage, init_pods, measure_pods;
  nlohmann::json churn_node, churn_pod, churn_service;
};

absl::StatusOr<WorkloadObjects> MakeObjects(const Workload& w);

// The objects of `batches` decoded, for the embedded cluster, as the API server would admit them
// (sim::AdmitPods, sim::AdmitPriorities).
absl::StatusOr<std::vector<api::Object>> Decode(
    std::initializer_list<const std::vector<nlohmann::json>*> batches);

// `o` named `name` (and put in namespace `ns` unless empty), its generateName dropped.
nlohmann::json Named(nlohmann::json o, const std::string& name, const std::string& ns = "");

}  // namespace ksched::bench
