// ListCluster: everything the scheduler's plugins read, listed once from a live API server, for
// `ksched simulate --kubeconfig`: nodes, pods (finished ones left out, as ksched's informer
// leaves them), namespaces, PriorityClasses, the workloads and Services that spreading reads,
// PodDisruptionBudgets, the storage objects and the DRA objects. Each kind is one consistent list,
// read in one answer (a consistent read, at one resourceVersion), and walked item by item without a
// tree of the whole list, as the informers list. Only GETs are sent: nothing in the cluster
// changes.
//
//   absl::StatusOr<ClusterListing> s = ListCluster(http);
//   for (const api::Object& o : s->objects) ...
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "ksched/custom_objects.h"
#include "src/api/decode.h"
#include "src/client/http.h"

namespace ksched::client {

struct ClusterListing {
  std::vector<api::Object> objects;  // Kind by kind, in the order of the lists.
  // Per list: its path and the resourceVersion it was read at.
  std::vector<std::pair<std::string, std::string>> resource_versions;
  // What was left out, one line each: an object that did not decode (as the informer skips it),
  // a kind the server does not serve or the caller may not list (DRA, PriorityClasses, ...).
  std::vector<std::string> warnings;
  // The fields of the objects read that ksched's API types do not have (a newer API server's),
  // one line each: /api/v1/pods default/web: unknown field "spec.newThing". The objects are kept.
  std::vector<std::string> unknown_fields;
  // The objects of the custom resources asked for, with their resource
  // ("podgroups.v1alpha1.scheduling.x-k8s.io").
  std::vector<std::pair<std::string, std::shared_ptr<const CustomObject>>> custom;
};

// With the objects of the `custom` resources too (those the profiles' plugins watch), each left
// out with a warning when the API server does not serve it (its CRD is not installed). Fails only
// when nodes or pods cannot be listed (the error names the list), or an answer is not JSON.
absl::StatusOr<ClusterListing> ListCluster(HttpClient& http,
                                           const std::vector<CustomResource>& custom = {});

}  // namespace ksched::client
