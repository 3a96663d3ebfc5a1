// PodGroupLister: the pod groups (scheduling.k8s.io/v1beta1 PodGroup, the GenericWorkload gate)
// as last watched, and what the scheduler knows of each group's pods (upstream's
// PodGroupManager and PodGroupState), for GangScheduling.
//
//   std::shared_ptr<const api::PodGroup> group = handle.pod_groups().GetPodGroup(ns, name);
//   std::optional<PodGroupState> state = handle.pod_groups().GetPodGroupState(ns, name);
//   if (state && state->all < *group->gang_min_count) ... not all of the gang has arrived
//
// A group's state exists once one of its pods is known, with or without its PodGroup.
//
// Thread safety: every method is safe from any thread.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ksched/api/core.h"
#include "ksched/api/scheduling.h"

namespace ksched {

struct PodGroupState {
  // The group's pods the scheduler knows: pending, assumed or bound.
  size_t all = 0;
  // Those assumed or bound.
  size_t scheduled = 0;
  // The pending ones (the queue's), and the UIDs of the assumed ones (bound or waiting at Permit).
  std::vector<std::shared_ptr<const api::Pod>> unscheduled;
  std::vector<std::string> assumed;
  // The `scheduled` ones, each with its node in spec.node_name (upstream's ScheduledPods).
  std::vector<std::shared_ptr<const api::Pod>> scheduled_pods;
};

class PodGroupLister {
 public:
  virtual ~PodGroupLister() = default;
  // nullptr where there is no such PodGroup.
  virtual std::shared_ptr<const api::PodGroup> GetPodGroup(std::string_view ns,
                                                           std::string_view name) const = 0;
  // nullopt until a pod of the group is known.
  virtual std::optional<PodGroupState> GetPodGroupState(std::string_view ns,
                                                        std::string_view name) const = 0;
};

}  // namespace ksched
