// The volume controllers' part in `ksched simulate`: what kube-controller-manager's PV controller
// and a volume provisioner do once the scheduler's VolumeBinding has written its choice, so that
// the next pods see the claims bound (sim::Cluster applies them at once).
//
//   // VolumeBinding set pv.spec.claimRef (a static PV):
//   BoundClaim b = CompleteBinding(pv, claim, next_version);
//   // VolumeBinding set the claim's selected-node annotation (WaitForFirstConsumer, a class with
//   // a provisioner):
//   BoundClaim b = Provision(claim, storage_class, node, csi_node, next_version);
//
// Where simulate differs from the real controllers:
// - Binding and provisioning are instant and never fail.
// - A provisioned PV's node affinity holds the node's values of the topology keys that the
//   class's driver lists in the node's CSINode (as the CSI external-provisioner writes it); with
//   no such CSINode entry the PV has none, and any node may use it.
// - Its capacity is the claim's request.
//
// Thread safety: the functions are pure.
#pragma once

#include <cstdint>
#include <memory>

#include "ksched/api/objects.h"

namespace ksched::sim {

struct BoundClaim {
  std::shared_ptr<const api::PersistentVolume> pv;
  std::shared_ptr<const api::PersistentVolumeClaim> claim;
};

// `pv` (whose claimRef names `claim`) and `claim` bound to each other, as the PV controller
// writes them: phase Bound on both, the claim's volumeName and its bind-completed annotation. Each
// gets the resourceVersion `version`.
BoundClaim CompleteBinding(const api::PersistentVolume& pv, const api::PersistentVolumeClaim& claim,
                           const std::string& version);

// A new PV for `claim`, provisioned on `node` by the class's provisioner, and the claim bound to
// it; both get the resourceVersion `version`. `csi_node` may be null.
BoundClaim Provision(const api::PersistentVolumeClaim& claim, const api::StorageClass& sc,
                     const api::Node& node, const api::CSINode* csi_node,
                     const std::string& version);

}  // namespace ksched::sim
