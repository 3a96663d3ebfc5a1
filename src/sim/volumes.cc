#include "src/sim/volumes.h"

#include <algorithm>

namespace ksched::sim {

BoundClaim CompleteBinding(const api::PersistentVolume& pv, const api::PersistentVolumeClaim& claim,
                           const std::string& version) {
  auto bound_pv = std::make_shared<api::PersistentVolume>(pv);
  bound_pv->phase = "Bound";
  bound_pv->metadata.resource_version = version;
  auto bound_claim = std::make_shared<api::PersistentVolumeClaim>(claim);
  bound_claim->volume_name = pv.metadata.name;
  bound_claim->phase = "Bound";
  bound_claim->metadata.annotations[api::kAnnBindCompleted] = "yes";
  bound_claim->metadata.annotations[api::kAnnBoundByController] = "yes";
  bound_claim->metadata.resource_version = version;
  return {std::move(bound_pv), std::move(bound_claim)};
}

BoundClaim Provision(const api::PersistentVolumeClaim& claim, const api::StorageClass& sc,
                     const api::Node& node, const api::CSINode* csi_node,
                     const std::string& version) {
  api::PersistentVolume pv;
  // As provisioners name it, "pvc-<claim's uid>" ("/" of a simulated uid made "-").
  std::string uid = claim.metadata.uid;
  std::replace(uid.begin(), uid.end(), '/', '-');
  pv.metadata.name = "pvc-" + uid;
  pv.metadata.annotations["pv.kubernetes.io/provisioned-by"] = sc.provisioner;
  pv.capacity = claim.storage_request;
  pv.access_modes = claim.access_modes;
  pv.storage_class_name = sc.metadata.name;
  pv.volume_mode = claim.volume_mode;
  pv.claim_ref = api::ClaimReference(claim);
  pv.source = {.kind = "csi", .driver = sc.provisioner, .volume_handle = pv.metadata.name};
  if (csi_node != nullptr) {
    auto driver = std::find_if(csi_node->drivers.begin(), csi_node->drivers.end(),
                               [&](const auto& d) { return d.name == sc.provisioner; });
    if (driver != csi_node->drivers.end() && !driver->topology_keys.empty()) {
      api::NodeSelectorTerm term;
      for (const std::string& key : driver->topology_keys) {
        auto label = node.metadata.labels.find(key);
        if (label == node.metadata.labels.end()) continue;
        term.match_expressions.push_back({key, "In", {label->second}});
      }
      if (!term.match_expressions.empty()) pv.node_affinity = api::NodeSelector{{std::move(term)}};
    }
  }
  return CompleteBinding(pv, claim, version);
}

}  // namespace ksched::sim
