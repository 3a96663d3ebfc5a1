#include "src/plugins/node_volume_limits/node_volume_limits.h"

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "src/testing/builders.h"
#include "src/testing/fake_handle.h"

namespace ksched::plugins::node_volume_limits {
namespace {

using ksched::testing::FakeHandle;
using ksched::testing::MakeNode;
using ksched::testing::MakePod;

constexpr char kDriver[] = "csi.example.com";
constexpr char kEbs[] = "ebs.csi.aws.com";

api::Volume Claim(const std::string& name) {
  return {.name = name, .source = "persistentVolumeClaim", .claim_name = name};
}
api::Volume Ebs(const std::string& name, const std::string& volume_id) {
  return {.name = name, .source = "awsElasticBlockStore", .disk_id = volume_id};
}
api::Pod PodWith(const std::string& name, std::vector<api::Volume> volumes,
                 const std::string& node = "") {
  api::Pod pod = MakePod().Name(name).Node(node).Obj();
  pod.spec.volumes = std::move(volumes);
  return pod;
}

class NodeVolumeLimitsTest : public ::testing::Test {
 protected:
  // Node "limited" attaches 2 volumes of kDriver and 1 EBS volume; "open" has no CSINode.
  void Start(const std::vector<api::Pod>& placed) {
    handle_ = std::make_unique<FakeHandle>(
        std::vector<api::Node>{MakeNode().Name("limited").Obj(), MakeNode().Name("open").Obj()},
        placed);
    auto csi_node = std::make_shared<api::CSINode>();
    csi_node->metadata.name = "limited";
    csi_node->drivers = {{.name = kDriver, .allocatable_count = 2},
                         {.name = kEbs, .allocatable_count = 1},
                         {.name = "uncounted.example.com"}};
    storage().csi_nodes.Set(csi_node);
    auto sc = std::make_shared<api::StorageClass>();
    sc->metadata.name = "fast";
    sc->provisioner = kDriver;
    storage().storage_classes.Set(sc);
    auto ebs_class = std::make_shared<api::StorageClass>();
    ebs_class->metadata.name = "gp2";
    ebs_class->provisioner = "kubernetes.io/aws-ebs";
    storage().storage_classes.Set(ebs_class);
    plugin_ = std::make_unique<NodeVolumeLimits>(*handle_, /*volume_limit_scaling=*/false);
  }
  StorageObjects& storage() { return handle_->listers().storage; }

  // A claim bound to a PV of `source`; its handle is the PV's name.
  void BoundClaim(const std::string& claim, api::PersistentVolumeSource source) {
    auto pvc = std::make_shared<api::PersistentVolumeClaim>();
    pvc->metadata = {.name = claim, .namespace_ = "default"};
    pvc->volume_name = "pv-" + claim;
    storage().pvcs.Set(pvc);
    auto pv = std::make_shared<api::PersistentVolume>();
    pv->metadata.name = "pv-" + claim;
    pv->source = std::move(source);
    storage().pvs.Set(pv);
  }
  void CsiClaim(const std::string& claim, const std::string& handle) {
    BoundClaim(claim, {.kind = "csi", .driver = kDriver, .volume_handle = handle});
  }
  void UnboundClaim(const std::string& claim, const std::string& class_name) {
    auto pvc = std::make_shared<api::PersistentVolumeClaim>();
    pvc->metadata = {.name = claim, .namespace_ = "default"};
    pvc->storage_class_name = class_name;
    storage().pvcs.Set(pvc);
  }

  // PreFilter's status if it did not pass, else each node's Filter message ("" where it fits).
  std::map<std::string, std::string> Run(const api::Pod& pod, Status* pre_filter,
                                         Code* limited_code = nullptr) {
    CycleState state;
    PreFilterResult result;
    *pre_filter = plugin_->PreFilter(state, pod, handle_->snapshot().nodes(), &result);
    std::map<std::string, std::string> out;
    if (!pre_filter->ok()) return out;
    for (const NodeInfo* ni : handle_->snapshot().nodes()) {
      Status st = plugin_->Filter(state, pod, *ni);
      out[ni->name()] = st.Message();
      if (limited_code != nullptr && ni->name() == "limited") *limited_code = st.code();
    }
    return out;
  }
  std::map<std::string, std::string> Run(const api::Pod& pod) {
    Status pre;
    auto out = Run(pod, &pre);
    EXPECT_TRUE(pre.ok()) << pre.Message();
    return out;
  }

  std::unique_ptr<FakeHandle> handle_;
  std::unique_ptr<NodeVolumeLimits> plugin_;
};

TEST_F(NodeVolumeLimitsTest, CountsTheNodesCsiVolumesAgainstItsLimit) {
  Start({PodWith("placed", {Claim("a")}, "limited"), PodWith("elsewhere", {Claim("b")}, "open")});
  for (const char* c : {"a", "b", "c", "d"}) CsiClaim(c, std::string("h-") + c);

  // "a" is on the node: one more fits, two do not.
  EXPECT_EQ(Run(PodWith("one", {Claim("c")}))["limited"], "");
  auto out = Run(PodWith("two", {Claim("c"), Claim("d")}));
  EXPECT_EQ(out["limited"], kErrReasonMaxVolumeCountExceeded);
  EXPECT_EQ(out["open"], "");  // No CSINode: no limit.
  // A volume the node has already counts once.
  EXPECT_EQ(Run(PodWith("shares", {Claim("a"), Claim("c")}))["limited"], "");
  // An unbound claim counts under its class's provisioner, each claim apart.
  UnboundClaim("new-1", "fast");
  UnboundClaim("new-2", "fast");
  EXPECT_EQ(Run(PodWith("unbound", {Claim("new-1")}))["limited"], "");
  EXPECT_EQ(Run(PodWith("unbound2", {Claim("new-1"), Claim("new-2")}))["limited"],
            kErrReasonMaxVolumeCountExceeded);
  // A claim of a class that is gone, or without a class, is not counted.
  UnboundClaim("orphan", "gone");
  EXPECT_EQ(Run(PodWith("orphan", {Claim("c"), Claim("orphan")}))["limited"], "");
}

// VolumeLimitScaling: a driver whose CSIDriver sets preventPodSchedulingIfMissing keeps the pod off
// nodes whose CSINode lacks it ("open" has no CSINode at all); without the gate it does not.
TEST_F(NodeVolumeLimitsTest, VolumeLimitScalingNeedsTheDriverOnTheNode) {
  Start({});
  CsiClaim("a", "h-a");
  BoundClaim("b", {.kind = "csi", .driver = "other.example.com", .volume_handle = "h-b"});
  auto driver = [&](const std::string& name, std::optional<bool> prevent) {
    auto d = std::make_shared<api::CSIDriver>();
    d->metadata.name = name;
    d->prevent_pod_scheduling_if_missing = prevent;
    storage().csi_drivers.Set(d);
  };
  driver(kDriver, true);
  EXPECT_EQ(Run(PodWith("p", {Claim("a")}))["open"], "");  // The gate is off.
  plugin_ = std::make_unique<NodeVolumeLimits>(*handle_, /*volume_limit_scaling=*/true);
  Status pre;
  Code code = Code::kSuccess;
  auto out = Run(PodWith("p", {Claim("a")}), &pre, &code);
  EXPECT_EQ(out["limited"], "");  // Its CSINode has the driver.
  EXPECT_EQ(out["open"], "csi.example.com CSI driver is not installed on the node");
  // "other.example.com" has no CSIDriver (it may not be a CSI driver), then one that does not
  // ask: neither rejects; once it asks, the "limited" node lacks it too.
  out = Run(PodWith("q", {Claim("b")}));
  EXPECT_EQ(out["limited"], "");
  driver("other.example.com", false);
  EXPECT_EQ(Run(PodWith("q", {Claim("b")}))["limited"], "");
  driver("other.example.com", true);
  out = Run(PodWith("q", {Claim("b")}), &pre, &code);
  EXPECT_EQ(out["limited"], "other.example.com CSI driver is not installed on the node");
  EXPECT_EQ(code, Code::kUnschedulable);
}

TEST_F(NodeVolumeLimitsTest, VolumeAttachmentsCountOncePerVolume) {
  Start({PodWith("placed", {Claim("a")}, "limited")});
  for (const char* c : {"a", "b", "c"}) CsiClaim(c, std::string("h-") + c);
  auto attach = [&](const std::string& name, const std::string& pv, const std::string& node) {
    auto va = std::make_shared<api::VolumeAttachment>();
    va->metadata.name = name;
    va->attacher = kDriver;
    va->node_name = node;
    va->persistent_volume_name = pv;
    storage().volume_attachments.Set(va);
  };
  attach("va-a", "pv-a", "limited");  // The placed pod's volume: counted once.
  attach("va-b", "pv-b", "open");     // Another node's.
  EXPECT_EQ(Run(PodWith("one", {Claim("c")}))["limited"], "");
  attach("va-b2", "pv-b", "limited");  // A volume still attached with no pod.
  EXPECT_EQ(Run(PodWith("one", {Claim("c")}))["limited"], kErrReasonMaxVolumeCountExceeded);
}

// The counts kept per node follow the node's pods and the storage objects.
TEST_F(NodeVolumeLimitsTest, KeptCountsFollowTheNodesPodsAndTheStorage) {
  Start({});
  for (const char* c : {"a", "b", "c"}) CsiClaim(c, std::string("h-") + c);
  const api::Pod pod = PodWith("new", {Claim("c")});
  EXPECT_EQ(Run(pod)["limited"], "");
  ASSERT_TRUE(handle_->cache()
                  .AddPod(PodInfo::Make(std::make_shared<const api::Pod>(
                      PodWith("placed", {Claim("a"), Claim("b")}, "limited"))))
                  .ok());
  handle_->Refresh();
  EXPECT_EQ(Run(pod)["limited"], kErrReasonMaxVolumeCountExceeded);
  // "b" is now the same volume as "a": the node holds one.
  CsiClaim("b", "h-a");
  EXPECT_EQ(Run(pod)["limited"], "");
}

TEST_F(NodeVolumeLimitsTest, InTreeVolumesCountAsTheirCsiDriverWhereTheNodeHasACsiNode) {
  Start({PodWith("placed", {Claim("ebs-pv")}, "limited")});
  BoundClaim("ebs-pv", {.kind = "awsElasticBlockStore", .volume_handle = "aws://us-east-1a/vol-1"});
  // The same EBS volume inline ("vol-1") is the PV's: it fits; another does not.
  EXPECT_EQ(Run(PodWith("same", {Ebs("disk", "vol-1")}))["limited"], "");
  auto out = Run(PodWith("other", {Ebs("disk", "aws:///vol-2")}));
  EXPECT_EQ(out["limited"], kErrReasonMaxVolumeCountExceeded);
  EXPECT_EQ(out["open"], "");  // Not migrated without a CSINode.
  // An unbound claim of the in-tree provisioner counts under its CSI driver.
  UnboundClaim("gp2-claim", "gp2");
  EXPECT_EQ(Run(PodWith("gp2", {Claim("gp2-claim")}))["limited"], kErrReasonMaxVolumeCountExceeded);
  // Azure File migrates but is not counted, as upstream.
  EXPECT_EQ(Run(PodWith("file", {{.name = "f", .source = "azureFile", .disk_id = "x"}}))["limited"],
            "");
}

TEST_F(NodeVolumeLimitsTest, RejectionsAndErrors) {
  Start({});
  Status pre;
  Run(MakePod().Name("none").Obj(), &pre);
  EXPECT_TRUE(pre.IsSkip());
  Run(PodWith("cm", {{.name = "cfg", .source = "configMap"}}), &pre);
  EXPECT_TRUE(pre.IsSkip());

  Code code = Code::kSuccess;
  auto out = Run(PodWith("missing", {Claim("data")}), &pre, &code);
  EXPECT_EQ(code, Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(out["limited"],
            "looking up PVC default/data: persistentvolumeclaim \"data\" not found");

  out = Run(PodWith("bad-ebs", {Ebs("disk", "aws://us-east-1a/snap-1")}), &pre, &code);
  EXPECT_EQ(code, Code::kError);
  EXPECT_EQ(out["limited"],
            "converting volume(disk) from inline to csi: failed to translate Kubernetes ID to EBS "
            "Volume ID Invalid format for AWS volume (aws://us-east-1a/snap-1)");
  out = Run(
      PodWith(
          "blob",
          {{.name = "d", .source = "azureDisk", .disk_id = "uri", .azure_disk_kind = "Shared"}}),
      &pre, &code);
  EXPECT_EQ(code, Code::kError);
  EXPECT_EQ(out["limited"],
            "converting volume(d) from inline to csi: kind(Shared) is not supported in csi "
            "migration");
  EXPECT_EQ(out["open"], "");  // Nothing migrates there.
}

// A CSINode ksched could not decode: its limits are not taken for none.
TEST_F(NodeVolumeLimitsTest, ANodeWhoseCsiNodeCannotBeDecodedIsNotTakenForUnlimited) {
  Start({});
  CsiClaim("data", "vol-1");
  storage().SetUnreadable("csiNode", "open", "spec.drivers[0].allocatable.count: not a number");
  Status pre;
  Code code = Code::kSuccess;
  auto out = Run(PodWith("db", {Claim("data")}), &pre, &code);
  EXPECT_EQ(out["open"],
            "csinode.storage.k8s.io \"open\" cannot be decoded: spec.drivers[0].allocatable.count: "
            "not a number");
  EXPECT_EQ(out["limited"], "");
  storage().SetUnreadable("csiNode", "open", "");  // It decoded at last.
  out = Run(PodWith("db", {Claim("data")}));
  EXPECT_EQ(out["open"], "");
}

TEST_F(NodeVolumeLimitsTest, QueueingHints) {
  Start({});
  std::vector<ClusterEventWithHint> events = plugin_->EventsToRegister();
  auto hint = [&](EventResource r, uint32_t action, const api::Pod& pod,
                  const ClusterEventData& e) {
    for (const auto& ev : events) {
      if (ev.event.resource == r && (ev.event.action & action) != 0)
        return ev.hint ? ev.hint(pod, e) : QueueingHint::kQueue;
    }
    return QueueingHint::kQueueSkip;
  };
  const api::Pod pod = PodWith("p", {Claim("data")});

  api::CSINode before, after;
  before.drivers = {{.name = kDriver, .allocatable_count = 2}};
  after.drivers = {{.name = kDriver, .allocatable_count = 2}, {.name = kEbs}};
  ClusterEventData e;
  e.storage.csi_node = {&before, &after};
  EXPECT_EQ(hint(EventResource::kCSINode, kUpdate, pod, e), QueueingHint::kQueueSkip);
  after.drivers[0].allocatable_count = 3;
  EXPECT_EQ(hint(EventResource::kCSINode, kUpdate, pod, e), QueueingHint::kQueue);

  api::Pod gone = PodWith("gone", {Claim("x")});
  ClusterEventData d;
  d.old_pod = &gone;
  EXPECT_EQ(hint(EventResource::kPod, kDelete, pod, d), QueueingHint::kQueueSkip);  // Unplaced.
  gone.spec.node_name = "limited";
  EXPECT_EQ(hint(EventResource::kPod, kDelete, pod, d), QueueingHint::kQueue);

  api::PersistentVolumeClaim mine, other;
  mine.metadata = {.name = "data", .namespace_ = "default"};
  other.metadata = {.name = "data", .namespace_ = "elsewhere"};
  ClusterEventData c;
  c.storage.pvc = {nullptr, &mine};
  EXPECT_EQ(hint(EventResource::kPersistentVolumeClaim, kAdd, pod, c), QueueingHint::kQueue);
  c.storage.pvc = {nullptr, &other};
  EXPECT_EQ(hint(EventResource::kPersistentVolumeClaim, kAdd, pod, c), QueueingHint::kQueueSkip);

  api::VolumeAttachment va;
  va.attacher = "pd.csi.storage.gke.io";
  ClusterEventData v;
  v.storage.volume_attachment = {&va, nullptr};
  EXPECT_EQ(hint(EventResource::kVolumeAttachment, kDelete, pod, v), QueueingHint::kQueue);
  const api::Pod inline_ebs = PodWith("i", {Ebs("disk", "vol-1")});
  EXPECT_EQ(hint(EventResource::kVolumeAttachment, kDelete, inline_ebs, v),
            QueueingHint::kQueueSkip);
  va.attacher = kEbs;
  EXPECT_EQ(hint(EventResource::kVolumeAttachment, kDelete, inline_ebs, v), QueueingHint::kQueue);
}

}  // namespace
}  // namespace ksched::plugins::node_volume_limits
