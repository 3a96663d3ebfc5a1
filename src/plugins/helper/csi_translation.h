// In-tree volume plugins that moved to CSI drivers, as upstream's k8s.io/csi-translation-lib sees
// them: which in-tree sources migrate, to which driver, and the CSI volume handle a volume gets.
// Only the parts the volume plugins read are here (names and handles, not the full PV).
//
//   // volume.source is "awsElasticBlockStore":
//   const helper::InTreePlugin* p = helper::InTreePluginOf(volume.source);
//   if (p && helper::CsiMigrationOn(csi_node, *p)) {
//     absl::StatusOr<std::string> handle = helper::InlineVolumeHandle(volume);  // "vol-0123"
//   }
//
// Thread safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "ksched/api/objects.h"

namespace ksched::plugins::helper {

struct InTreePlugin {
  std::string_view source;        // The volume source's field: "gcePersistentDisk".
  std::string_view in_tree_name;  // "kubernetes.io/gce-pd", a StorageClass's provisioner.
  std::string_view csi_driver;    // "pd.csi.storage.gke.io"
  // Whether the scheduler counts the plugin's volumes as its CSI driver's (upstream's
  // isCSIMigrationOn): GCE PD, AWS EBS, Azure Disk, Cinder and Portworx; not Azure File and
  // vSphere, which migrate but are not counted.
  bool counted = false;
  // The driver's zone key, where translation rewrites a PV's zone topology: GCE PD, EBS, Cinder.
  std::string_view topology_key;
};

// The migrating plugin of a volume source ("awsElasticBlockStore"), or nullptr.
const InTreePlugin* InTreePluginOf(std::string_view source);
// The migrating plugin of an in-tree name ("kubernetes.io/aws-ebs"), or nullptr.
const InTreePlugin* InTreePluginNamed(std::string_view in_tree_name);

// Whether a node with `csi_node` (nullptr: none) runs `plugin`'s volumes through its CSI driver.
bool CsiMigrationOn(const api::CSINode* csi_node, const InTreePlugin& plugin);

// The CSI volume handle an inline in-tree volume translates to, or upstream's error ("kind(Shared)
// is not supported in csi migration", "failed to translate Kubernetes ID to EBS Volume ID ...").
absl::StatusOr<std::string> InlineVolumeHandle(const api::Volume& volume);
// The same for a PersistentVolume's in-tree source; a GCE PD's handle names the zone, or the
// region, of its zone labels.
absl::StatusOr<std::string> PersistentVolumeHandle(const api::PersistentVolume& pv);

// The node affinity VolumeBinding checks for `pv` on the node of `csi_node` (upstream's
// tryTranslatePVToCSI): where the PV is a migrating in-tree plugin's (GCE PD, EBS, Azure Disk,
// Cinder, Portworx) and the CSINode's storage.alpha.kubernetes.io/migrated-plugins annotation names
// it, the PV as translated to CSI: its zone requirements take the driver's topology key (a zone
// label becomes one, when its affinity has none), a beta region requirement the GA key. nullopt:
// the PV's own affinity. An error for a PV that does not translate ("could not translate pv: ...").
absl::StatusOr<std::optional<api::NodeSelector>> MigratedNodeAffinity(
    const api::PersistentVolume& pv, const api::CSINode* csi_node);

}  // namespace ksched::plugins::helper
