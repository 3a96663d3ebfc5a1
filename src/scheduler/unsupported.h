// The pod fields that kube-scheduler honours through plugins ksched does not have yet. A pod must
// never be placed as if such a field were absent, so a pod that uses one stays pending: its
// scheduling cycle ends as a PreFilter rejection (UnschedulableAndUnresolvable) by the plugin that
// upstream would run, and the FailedScheduling event and PodScheduled condition name the field:
//
//   0/3 nodes are available: spec.resourceClaims is not supported by ksched yet
//   (kube-scheduler's DynamicResources plugin).
//
// Each rule goes when its plugin lands.
//
// Thread safety: a pure function of its arguments.
#pragma once

#include "ksched/api/objects.h"
#include "ksched/status.h"

namespace ksched::scheduler {

// Success, or the rejection for the first unsupported field of `pod`: spec.resourceClaims
// (DynamicResources).
Status UnsupportedFields(const api::Pod& pod);

}  // namespace ksched::scheduler
