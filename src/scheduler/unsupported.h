// The pod fields that kube-scheduler honours through plugins ksched does not have yet. A pod must
// never be placed as if such a field were absent, so a pod that uses one stays pending: its
// scheduling cycle ends as a PreFilter rejection (UnschedulableAndUnresolvable) by the plugin that
// upstream would run, and the FailedScheduling event and PodScheduled condition name the field:
//
//   0/3 nodes are available: spec.affinity.podAntiAffinity is not supported by ksched yet
//   (kube-scheduler's InterPodAffinity plugin).
//
// Each rule goes when its plugin lands.
//
// Thread safety: a pure function of its arguments.
#pragma once

#include "ksched/api/objects.h"
#include "ksched/snapshot.h"
#include "ksched/status.h"

namespace ksched::scheduler {

// Success, or the rejection for the first unsupported field of `pod`: persistentVolumeClaim or
// ephemeral volumes (VolumeBinding), spec.resourceClaims (DynamicResources), podAffinity and
// podAntiAffinity terms (InterPodAffinity), and the required podAntiAffinity of a pod in
// `snapshot` whose selector matches `pod` (InterPodAffinity again: the existing pod's rule would
// keep `pod` off some nodes).
Status UnsupportedFields(const api::Pod& pod, const Snapshot& snapshot);

}  // namespace ksched::scheduler
