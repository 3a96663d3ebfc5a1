// scheduling.k8s.io/v1 PriorityClass and v1beta1 PodGroup, part of the object model of
// ksched/api/objects.h.
//
// Thread safety: plain values; concurrent reads are safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ksched/api/core.h"
#include "ksched/api/meta.h"
#include "ksched/api/resource.h"

namespace ksched::api {

// --- PriorityClass ---------------------------------------------------------------------------

// scheduling.k8s.io/v1 PriorityClass.
struct PriorityClass {
  ObjectMeta metadata;
  int32_t value = 0;
  bool global_default = false;
  std::optional<std::string> preemption_policy;  // PreemptLowerPriority (the default) or Never.
};

// --- PodGroup ---------------------------------------------------------------------------------

// scheduling.k8s.io/v1beta1 PodGroup (the GenericWorkload gate): pods that name it in
// spec.schedulingGroup.podGroupName are scheduled together, in one cycle.
struct PodGroup {
  ObjectMeta metadata;
  int64_t generation = 0;  // metadata.generation, for its conditions' observedGeneration.
  // spec.schedulingPolicy: gang's minCount (all or nothing: at least minCount pods placed at
  // once), or nullopt for basic (each pod as it fits).
  std::optional<int32_t> gang_min_count;
  bool basic = false;               // schedulingPolicy.basic was given.
  std::optional<int32_t> priority;  // spec.priority; nullopt: 0.
  std::string priority_class_name;
  bool disrupt_all = false;  // spec.disruptionMode.all: preempted as a whole.
  // spec.schedulingConstraints (the TopologyAwareWorkloadScheduling gate): nullopt when not
  // given; else the keys of its topology list (the API allows one): the group is placed within
  // one domain of that node label.
  struct SchedulingConstraints {
    std::vector<std::string> topology_keys;
  };
  std::optional<SchedulingConstraints> scheduling_constraints;
  // spec.preemptionPolicy (the PodGroupPreemptionPolicy gate): PreemptLowerPriority or Never; the
  // group's, which its pods must share. nullopt when not given.
  std::optional<std::string> preemption_policy;
  // spec.resourceClaims (the DRAWorkloadResourceClaims gate): claims the group's pods share, each
  // allocated once and reserved for the group (one entry of its status.reservedFor); a pod's
  // claim is the group's where its entry is the same (name, and the claim or template it names).
  std::vector<PodResourceClaim> resource_claims;
  // Fields of the gates ksched does not implement (parentCompositePodGroupName), by path, where
  // set.
  std::vector<std::string> gated_fields;
  std::vector<Condition> conditions;  // status.conditions.
  // status.resourceClaimStatuses: the claims the resourceclaim controller made for the templates
  // of spec.resourceClaims.
  std::vector<PodResourceClaimStatus> resource_claim_statuses;
};

// The group's priority, 0 when it has none.
inline int32_t PodGroupPriority(const PodGroup& group) { return group.priority.value_or(0); }

}  // namespace ksched::api
