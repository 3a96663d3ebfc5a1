// A differential case: a scenario (test/scenarios/*.yaml, or a generated one) made ready for the
// real API server and for both schedulers. The API server's admission changes some pods, so the
// case adapts them first and records each change; ksched simulate gets the adapted objects too.
//
//   absl::StatusOr<Case> c = MakeCase("resources_fit", scenario_json);
//   // c->setup: what exists before scheduling; c->pending: the pods to schedule, in queue order.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"

namespace ksched::difftest {

struct Case {
  std::string name;
  nlohmann::json scenario;  // As given.
  nlohmann::json config;    // The KubeSchedulerConfiguration, or null for the defaults.
  // The flags both schedulers and simulate get: the scenario's args that set feature gates or
  // versions (GateFlags).
  std::vector<std::string> flags;
  // Namespaces, PriorityClasses, PodDisruptionBudgets (each with a status), Nodes, the storage
  // objects (IsStorage), the PodGroups of running pods and the pods already on a node, in
  // creation order.
  std::vector<nlohmann::json> setup;
  // The pending pods in the order the scheduling queue takes them: by priority, highest first,
  // then as the scenario lists them (both schedulers get them one at a time in this order).
  std::vector<nlohmann::json> pending;
  // With the scenario's `burst: true`, a pending pod identical to the one before it (but for its
  // name) is given together with it, as a ReplicaSet's pods are created; so is a pending pod of
  // the same pod group (spec.schedulingGroup.podGroupName) as the one before it, as a Job's are.
  // first[i] is the first pod of pod i's burst or group (i itself when it is given alone).
  std::vector<size_t> first;
  // The PodGroups (scheduling.k8s.io/v1beta1, which the API server serves with GenericWorkload)
  // of pending pods only. On each scheduler's turn the harness creates a group's PodGroup right
  // after the group's pods, so that the scheduler takes them all at once, whatever their
  // minCount, and deletes it with them. One that running pods name is in `setup`, before them.
  std::vector<nlohmann::json> pod_groups;
  // What was changed for the API server's admission, one line each.
  std::vector<std::string> adaptations;
  // Why the case cannot be given to kube-scheduler ("" if it can): its config names a plugin that
  // kube-scheduler does not have.
  std::string incomparable;
};

// Builds the case of a scenario. `upstream_plugins` are kube-scheduler's plugin names. An error
// names what in the scenario cannot be used (no cluster, an object without a kind).
absl::StatusOr<Case> MakeCase(std::string name, const nlohmann::json& scenario,
                              const std::vector<std::string>& upstream_plugins);

// The args of a scenario that set feature gates or versions (--feature-gates,
// --emulated-version, --min-compatibility-version), which kube-scheduler takes as ksched does.
std::vector<std::string> GateFlags(const nlohmann::json& scenario);

// Whether the harness creates objects of this kind for the volume plugins (StorageClass,
// CSIDriver, CSINode, CSIStorageCapacity, PersistentVolume, PersistentVolumeClaim,
// VolumeAttachment) or for DynamicResources (DeviceClass, ResourceSlice, ResourceClaim).
// StorageOrder is the order it creates them in (-1 for other kinds).
bool IsStorage(const std::string& kind);
int StorageOrder(const std::string& kind);

// "namespace/name" of an object (namespace "default" when it has none).
std::string KeyOf(const nlohmann::json& object);

// Whether two pods are the same but for their names (a ReplicaSet's or a Job's).
bool AlikeButForName(nlohmann::json a, nlohmann::json b);

// "namespace/name" of the PodGroup a pod names, "" when it names none.
std::string PodGroupOf(const nlohmann::json& pod);

// The pending pods given together with pod i (its burst or its group), as indexes into
// c.pending: [c.first[i], end).
size_t GivenEnd(const Case& c, size_t i);

// The case's configuration with every profile's schedulerName prefixed by `prefix`, leader
// election off and `kubeconfig` as the client's, for one of the two schedulers.
nlohmann::json ConfigFor(const Case& c, const std::string& prefix, const std::string& kubeconfig);

}  // namespace ksched::difftest
