#include "src/plugins/helper/csi_translation.h"

#include <algorithm>
#include <set>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "fmt/format.h"

namespace ksched::plugins::helper {
namespace {

constexpr InTreePlugin kPlugins[] = {
    {"gcePersistentDisk", "kubernetes.io/gce-pd", "pd.csi.storage.gke.io", true,
     "topology.gke.io/zone"},
    {"awsElasticBlockStore", "kubernetes.io/aws-ebs", "ebs.csi.aws.com", true,
     "topology.ebs.csi.aws.com/zone"},
    {"cinder", "kubernetes.io/cinder", "cinder.csi.openstack.org", true,
     "topology.cinder.csi.openstack.org/zone"},
    {"azureDisk", "kubernetes.io/azure-disk", "disk.csi.azure.com", true},
    {"azureFile", "kubernetes.io/azure-file", "file.csi.azure.com", false},
    {"vsphereVolume", "kubernetes.io/vsphere-volume", "csi.vsphere.vmware.com", false},
    {"portworxVolume", "kubernetes.io/portworx-volume", "pxd.portworx.com", true},
};

constexpr char kUnspecified[] = "UNSPECIFIED";
constexpr char kZone[] = "topology.kubernetes.io/zone";
constexpr char kBetaZone[] = "failure-domain.beta.kubernetes.io/zone";
constexpr char kRegion[] = "topology.kubernetes.io/region";
constexpr char kBetaRegion[] = "failure-domain.beta.kubernetes.io/region";

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

bool AffinityHasKey(const std::optional<api::NodeSelector>& affinity, std::string_view key) {
  if (!affinity) return false;
  for (const api::NodeSelectorTerm& t : affinity->node_selector_terms) {
    for (const api::NodeSelectorRequirement& r : t.match_expressions) {
      if (r.key == key) return true;
    }
  }
  return false;
}

void RenameKey(api::NodeSelector& affinity, std::string_view from, std::string_view to) {
  for (api::NodeSelectorTerm& t : affinity.node_selector_terms) {
    for (api::NodeSelectorRequirement& r : t.match_expressions) {
      if (r.key == from) r.key = to;
    }
  }
}

// Upstream's translateTopologyFromInTreeToCSI, on the PV's affinity.
std::optional<api::NodeSelector> TranslateTopology(const api::PersistentVolume& pv,
                                                   std::string_view csi_key) {
  std::optional<api::NodeSelector> affinity = pv.node_affinity;
  const api::StringMap& labels = pv.metadata.labels;
  // The GA labels unless the PV uses the beta ones (its affinity first, then its labels).
  bool beta = !AffinityHasKey(affinity, kZone) && AffinityHasKey(affinity, kBetaZone);
  if (!AffinityHasKey(affinity, kZone) && !AffinityHasKey(affinity, kBetaZone)) {
    beta = !labels.contains(kZone) && labels.contains(kBetaZone);
  }
  const char* zone_key = beta ? kBetaZone : kZone;
  if (AffinityHasKey(affinity, zone_key)) {
    RenameKey(*affinity, zone_key, csi_key);
  } else if (auto it = labels.find(zone_key); it != labels.end()) {
    std::set<std::string> zones;
    for (absl::string_view z : absl::StrSplit(it->second, "__")) {
      std::string zone(z.data(), z.size());
      zone.erase(0, zone.find_first_not_of(" \t"));
      zone.erase(zone.find_last_not_of(" \t") + 1);
      if (!zone.empty()) zones.insert(std::move(zone));
    }
    if (!zones.empty()) {
      if (!affinity) affinity.emplace();
      if (affinity->node_selector_terms.empty()) affinity->node_selector_terms.emplace_back();
      for (api::NodeSelectorTerm& t : affinity->node_selector_terms) {
        t.match_expressions.push_back(
            {.key = std::string(csi_key), .op = "In", .values = {zones.begin(), zones.end()}});
      }
    }
  }
  if (beta && AffinityHasKey(affinity, kBetaRegion)) RenameKey(*affinity, kBetaRegion, kRegion);
  return affinity;
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
    auto it = labels.find(kBetaZone);
    if (it == labels.end() || it->second.empty()) it = labels.find(kZone);
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

absl::StatusOr<std::optional<api::NodeSelector>> MigratedNodeAffinity(
    const api::PersistentVolume& pv, const api::CSINode* csi_node) {
  const InTreePlugin* plugin = InTreePluginOf(pv.source.kind);
  if (plugin == nullptr || !plugin->counted || csi_node == nullptr) return std::nullopt;
  auto it = csi_node->metadata.annotations.find(api::kAnnMigratedPlugins);
  if (it == csi_node->metadata.annotations.end()) return std::nullopt;
  const std::vector<std::string> migrated = absl::StrSplit(it->second, ',');
  if (std::find(migrated.begin(), migrated.end(), plugin->in_tree_name) == migrated.end()) {
    return std::nullopt;
  }
  if (absl::StatusOr<std::string> handle = PersistentVolumeHandle(pv); !handle.ok()) {
    return absl::InvalidArgumentError(
        fmt::format("could not translate pv: {}", std::string(handle.status().message())));
  }
  if (plugin->topology_key.empty()) return pv.node_affinity;
  return TranslateTopology(pv, plugin->topology_key);
}

}  // namespace ksched::plugins::helper
