#include "src/plugins/helper/csi_translation.h"

#include <set>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "fmt/format.h"

namespace ksched::plugins::helper {
namespace {

constexpr InTreePlugin kPlugins[] = {
    {"gcePersistentDisk", "kubernetes.io/gce-pd", "pd.csi.storage.gke.io", true},
    {"awsElasticBlockStore", "kubernetes.io/aws-ebs", "ebs.csi.aws.com", true},
    {"cinder", "kubernetes.io/cinder", "cinder.csi.openstack.org", true},
    {"azureDisk", "kubernetes.io/azure-disk", "disk.csi.azure.com", true},
    {"azureFile", "kubernetes.io/azure-file", "file.csi.azure.com", false},
    {"vsphereVolume", "kubernetes.io/vsphere-volume", "csi.vsphere.vmware.com", false},
    {"portworxVolume", "kubernetes.io/portworx-volume", "pxd.portworx.com", true},
};

constexpr char kUnspecified[] = "UNSPECIFIED";

// An EBS volume id from its Kubernetes forms "aws://<zone>/<id>", "aws:///<id>" and "<id>"
// (upstream's KubernetesVolumeIDToEBSVolumeID).
absl::StatusOr<std::string> EbsVolumeId(const std::string& id) {
  constexpr std::string_view kScheme = "aws://";
  if (!id.starts_with(kScheme)) return id;
  const size_t slash = id.find('/', kScheme.size());
  std::string path = slash == std::string::npos ? "" : id.substr(slash);
  path = path.substr(0, path.find_first_of("?#"));
  const size_t first = path.find_first_not_of('/');
  path =
      first == std::string::npos ? "" : path.substr(first, path.find_last_not_of('/') + 1 - first);
  if (!path.starts_with("vol-") || path.find('/') != std::string::npos) {
    return absl::InvalidArgumentError(fmt::format(
        "failed to translate Kubernetes ID to EBS Volume ID Invalid format for AWS volume ({})",
        id));
  }
  return path;
}

absl::Status AzureKindSupported(const std::string& kind) {
  if (absl::EqualsIgnoreCase(kind, "Managed")) return absl::OkStatus();
  return absl::InvalidArgumentError(
      fmt::format("kind({}) is not supported in csi migration", kind));
}

// The region of GCE zones "{locale}-{region}-{zone}" (upstream's gceGetRegionFromZones).
absl::StatusOr<std::string> GceRegion(const std::vector<std::string>& zones) {
  std::set<std::string> regions;
  for (const std::string& zone : zones) {
    std::vector<std::string> parts = absl::StrSplit(zone, '-');
    if (parts.size() != 3) {
      return absl::InvalidArgumentError(fmt::format(
          "zone in unexpected format, expected: {{locale}}-{{region}}-{{zone}}, got: {}", zone));
    }
    regions.insert(parts[0] + "-" + parts[1]);
  }
  if (regions.size() != 1) {
    return absl::InvalidArgumentError("multiple or no regions gotten from zones");
  }
  return *regions.begin();
}

}  // namespace

const InTreePlugin* InTreePluginOf(std::string_view source) {
  for (const InTreePlugin& p : kPlugins) {
    if (p.source == source) return &p;
  }
  return nullptr;
}

const InTreePlugin* InTreePluginNamed(std::string_view in_tree_name) {
  for (const InTreePlugin& p : kPlugins) {
    if (p.in_tree_name == in_tree_name) return &p;
  }
  return nullptr;
}

bool CsiMigrationOn(const api::CSINode* csi_node, const InTreePlugin& plugin) {
  return csi_node != nullptr && plugin.counted;
}

absl::StatusOr<std::string> InlineVolumeHandle(const api::Volume& v) {
  if (v.source == "gcePersistentDisk") {
    return fmt::format("projects/{0}/zones/{0}/disks/{1}", kUnspecified, v.disk_id);
  }
  if (v.source == "awsElasticBlockStore") return EbsVolumeId(v.disk_id);
  if (v.source == "azureDisk") {
    if (absl::Status st = AzureKindSupported(v.azure_disk_kind); !st.ok()) return st;
  }
  return v.disk_id;
}

absl::StatusOr<std::string> PersistentVolumeHandle(const api::PersistentVolume& pv) {
  const api::PersistentVolumeSource& s = pv.source;
  if (s.kind == "gcePersistentDisk") {
    const api::StringMap& labels = pv.metadata.labels;
    auto it = labels.find("failure-domain.beta.kubernetes.io/zone");
    if (it == labels.end() || it->second.empty()) it = labels.find("topology.kubernetes.io/zone");
    const std::string zones_label = it == labels.end() ? "" : it->second;
    std::vector<std::string> zones = absl::StrSplit(zones_label, "__");
    if (zones.size() == 1 && !zones[0].empty()) {
      return fmt::format("projects/{}/zones/{}/disks/{}", kUnspecified, zones[0], s.volume_handle);
    }
    if (zones.size() > 1) {
      absl::StatusOr<std::string> region = GceRegion(zones);
      if (!region.ok()) return region.status();
      return fmt::format("projects/{}/regions/{}/disks/{}", kUnspecified, *region, s.volume_handle);
    }
    return fmt::format("projects/{0}/zones/{0}/disks/{1}", kUnspecified, s.volume_handle);
  }
  if (s.kind == "awsElasticBlockStore") return EbsVolumeId(s.volume_handle);
  if (s.kind == "azureDisk") {
    if (absl::Status st = AzureKindSupported(s.azure_disk_kind); !st.ok()) return st;
  }
  return s.volume_handle;
}

}  // namespace ksched::plugins::helper
