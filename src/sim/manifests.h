// Reading Kubernetes manifests from files: multi-document YAML or JSON, single objects or lists
// (`kubectl get -o yaml|json`). Errors name the file, the object and the field:
//   cluster.yaml: document 2 (Pod default/web): spec.containers[0].resources.requests.cpu: ...
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "src/api/decode.h"

namespace ksched::sim {

// Decodes the objects of one manifest text; `source` names it in errors.
absl::StatusOr<std::vector<api::Object>> ParseManifest(std::string_view text,
                                                       const std::string& source);

// Reads and decodes every file, in order.
absl::StatusOr<std::vector<api::Object>> LoadManifests(const std::vector<std::string>& paths);

// What the API server does to a pod it is given, before any scheduler sees it: requests default
// to the limits of each resource that has no request (SetDefaults_Pod), and a resource that
// cannot be overcommitted (an extended resource such as example.com/gpu, or hugepages) needs a
// limit equal to its request. An error is the API server's:
//   Pod "train" is invalid: spec.containers[0].resources.limits: Required value: Limit must be
//   set for non overcommitable resources
absl::Status AdmitPod(api::Pod& pod);

// What the Priority admission plugin does to a pod created without spec.priority: the priority of
// its priorityClassName (the built-in system-node-critical and system-cluster-critical, or a
// PriorityClass among `objects`), else of the global default class (the lowest, if several), else
// 0; preemptionPolicy too, when the pod has none. Pods that carry a priority (exported from a
// cluster) keep it. An unknown class is an error, as the API server's:
//   pods "web" is forbidden: no PriorityClass with name high was found
// The built-in classes that `objects` lacks are added to it, as the API server creates them.
absl::Status AdmitPriorities(std::vector<api::Object>* objects);

}  // namespace ksched::sim
