#include "src/plugins/helper/csi_translation.h"

#include <gtest/gtest.h>

namespace ksched::plugins::helper {
namespace {

api::PersistentVolume Pv(std::string kind, std::string handle, api::StringMap labels = {}) {
  api::PersistentVolume pv;
  pv.metadata.labels = std::move(labels);
  pv.source = {.kind = std::move(kind), .volume_handle = std::move(handle)};
  return pv;
}

TEST(CsiTranslationTest, PluginsAndMigration) {
  const InTreePlugin* ebs = InTreePluginOf("awsElasticBlockStore");
  ASSERT_NE(ebs, nullptr);
  EXPECT_EQ(ebs->csi_driver, "ebs.csi.aws.com");
  EXPECT_EQ(InTreePluginNamed("kubernetes.io/aws-ebs"), ebs);
  EXPECT_EQ(InTreePluginOf("nfs"), nullptr);
  api::CSINode csi_node;
  EXPECT_FALSE(CsiMigrationOn(nullptr, *ebs));
  EXPECT_TRUE(CsiMigrationOn(&csi_node, *ebs));
  EXPECT_FALSE(CsiMigrationOn(&csi_node, *InTreePluginOf("vsphereVolume")));
}

TEST(CsiTranslationTest, VolumeHandlesAsUpstreamTranslatesThem) {
  auto inline_handle = [](std::string source, std::string id, std::string kind = "") {
    absl::StatusOr<std::string> h = InlineVolumeHandle({.name = "v",
                                                        .source = std::move(source),
                                                        .disk_id = std::move(id),
                                                        .azure_disk_kind = std::move(kind)});
    return h.ok() ? *h : "error: " + std::string(h.status().message());
  };
  EXPECT_EQ(inline_handle("gcePersistentDisk", "pd-1"),
            "projects/UNSPECIFIED/zones/UNSPECIFIED/disks/pd-1");
  EXPECT_EQ(inline_handle("awsElasticBlockStore", "vol-1"), "vol-1");
  EXPECT_EQ(inline_handle("awsElasticBlockStore", "aws://us-east-1a/vol-2"), "vol-2");
  EXPECT_EQ(inline_handle("awsElasticBlockStore", "aws:///vol-3"), "vol-3");
  EXPECT_EQ(inline_handle("awsElasticBlockStore", "aws://z/x/vol-4"),
            "error: failed to translate Kubernetes ID to EBS Volume ID Invalid format for AWS "
            "volume (aws://z/x/vol-4)");
  EXPECT_EQ(inline_handle("azureDisk", "/subscriptions/s/disks/d", "managed"),
            "/subscriptions/s/disks/d");
  EXPECT_EQ(inline_handle("azureDisk", "uri", "Dedicated"),
            "error: kind(Dedicated) is not supported in csi migration");
  EXPECT_EQ(inline_handle("cinder", "c-1"), "c-1");

  auto pv_handle = [](const api::PersistentVolume& pv) {
    absl::StatusOr<std::string> h = PersistentVolumeHandle(pv);
    return h.ok() ? *h : "error";
  };
  EXPECT_EQ(pv_handle(Pv("gcePersistentDisk", "pd", {{"topology.kubernetes.io/zone", "us-c1-a"}})),
            "projects/UNSPECIFIED/zones/us-c1-a/disks/pd");
  EXPECT_EQ(pv_handle(Pv("gcePersistentDisk", "pd",
                         {{"failure-domain.beta.kubernetes.io/zone", "us-c1-a__us-c1-b"}})),
            "projects/UNSPECIFIED/regions/us-c1/disks/pd");
  EXPECT_EQ(pv_handle(Pv("gcePersistentDisk", "pd",
                         {{"topology.kubernetes.io/zone", "us-c1-a__eu-w1-b"}})),
            "error");
  EXPECT_EQ(pv_handle(Pv("gcePersistentDisk", "pd")),
            "projects/UNSPECIFIED/zones/UNSPECIFIED/disks/pd");
  EXPECT_EQ(pv_handle(Pv("awsElasticBlockStore", "aws://us-east-1a/vol-9")), "vol-9");
}

TEST(CsiTranslationTest, MigratedNodeAffinityTakesTheDriversTopologyKey) {
  api::CSINode migrated, other;
  migrated.metadata.annotations[api::kAnnMigratedPlugins] =
      "kubernetes.io/gce-pd,kubernetes.io/aws-ebs";
  other.metadata.annotations[api::kAnnMigratedPlugins] = "kubernetes.io/gce-pd";
  auto keys = [](const std::optional<api::NodeSelector>& s) {
    std::vector<std::string> out;
    if (!s) return std::vector<std::string>{"(own)"};
    for (const auto& t : s->node_selector_terms) {
      for (const auto& r : t.match_expressions) {
        out.push_back(r.key + "=" + (r.values.empty() ? "" : r.values[0]));
      }
    }
    return out;
  };
  // A zone label becomes a requirement of the driver's key.
  api::PersistentVolume ebs =
      Pv("awsElasticBlockStore", "vol-1", {{"topology.kubernetes.io/zone", "us-east-1a"}});
  absl::StatusOr<std::optional<api::NodeSelector>> got = MigratedNodeAffinity(ebs, &migrated);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(keys(*got), std::vector<std::string>{"topology.ebs.csi.aws.com/zone=us-east-1a"});
  // Not migrated on that node, or no CSINode: the PV as it is.
  EXPECT_EQ(keys(*MigratedNodeAffinity(ebs, &other)), std::vector<std::string>{"(own)"});
  EXPECT_EQ(keys(*MigratedNodeAffinity(ebs, nullptr)), std::vector<std::string>{"(own)"});
  // Beta zone and region requirements: the zone takes the driver's key, the region the GA key.
  api::PersistentVolume gce = Pv("gcePersistentDisk", "pd");
  gce.node_affinity = api::NodeSelector{
      {{.match_expressions = {{"failure-domain.beta.kubernetes.io/zone", "In", {"us-c1-a"}},
                              {"failure-domain.beta.kubernetes.io/region", "In", {"us-c1"}}}}}};
  EXPECT_EQ(keys(*MigratedNodeAffinity(gce, &migrated)),
            (std::vector<std::string>{"topology.gke.io/zone=us-c1-a",
                                      "topology.kubernetes.io/region=us-c1"}));
  // A PV that does not translate.
  api::PersistentVolume bad = Pv("awsElasticBlockStore", "aws://z/x/vol-1");
  EXPECT_EQ(MigratedNodeAffinity(bad, &migrated).status().message(),
            "could not translate pv: failed to translate Kubernetes ID to EBS Volume ID Invalid "
            "format for AWS volume (aws://z/x/vol-1)");
}

}  // namespace
}  // namespace ksched::plugins::helper
