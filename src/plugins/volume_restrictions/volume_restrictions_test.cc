#include "src/plugins/volume_restrictions/volume_restrictions.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "src/testing/builders.h"
#include "src/testing/fake_handle.h"

namespace ksched::plugins::volume_restrictions {
namespace {

using ksched::testing::FakeHandle;
using ksched::testing::MakeNode;
using ksched::testing::MakePod;

api::Pod PodWith(const std::string& name, std::vector<api::Volume> volumes,
                 const std::string& node = "") {
  api::Pod pod = MakePod().Name(name).Obj();
  pod.metadata.uid = name;
  pod.spec.node_name = node;
  pod.spec.volumes = std::move(volumes);
  return pod;
}

api::Volume Disk(const std::string& source, const std::string& id, bool read_only = false,
                 std::vector<std::string> monitors = {}) {
  return {.name = "d",
          .source = source,
          .read_only = read_only,
          .disk_id = id,
          .rbd_monitors = std::move(monitors)};
}

api::Volume Claim(const std::string& name) {
  return {.name = "c", .source = "persistentVolumeClaim", .claim_name = name};
}

// PreFilter, then Filter on node n1 (which holds `existing`), as the framework runs them.
Status Check(const api::Pod& pod, const std::vector<api::Pod>& existing) {
  FakeHandle handle({MakeNode().Name("n1").Obj()}, existing);
  VolumeRestrictions plugin(handle);
  CycleState state;
  PreFilterResult result;
  Status pre = plugin.PreFilter(state, pod, handle.snapshot().nodes(), &result);
  if (!pre.ok()) return pre;
  return plugin.Filter(state, pod, *handle.snapshot().Get("n1"));
}

// The cases of upstream's TestGCEDiskConflicts, TestAWSDiskConflicts, TestRBDDiskConflicts and
// TestISCSIDiskConflicts.
TEST(VolumeRestrictionsTest, InTreeDisksConflictOnTheNode) {
  struct Case {
    std::string name;
    api::Volume wanted, in_use;
    bool conflict;
  };
  const std::vector<Case> cases = {
      {"same GCE disk", Disk("gcePersistentDisk", "foo"), Disk("gcePersistentDisk", "foo"), true},
      {"GCE disk read-only by both", Disk("gcePersistentDisk", "foo", true),
       Disk("gcePersistentDisk", "foo", true), false},
      {"other GCE disk", Disk("gcePersistentDisk", "foo"), Disk("gcePersistentDisk", "bar"), false},
      {"same EBS volume, even read-only", Disk("awsElasticBlockStore", "foo", true),
       Disk("awsElasticBlockStore", "foo", true), true},
      {"same iSCSI IQN", Disk("iscsi", "iqn.2016-12.server:storage.target01"),
       Disk("iscsi", "iqn.2016-12.server:storage.target01"), true},
      {"iSCSI read-only by both", Disk("iscsi", "iqn.a", true), Disk("iscsi", "iqn.a", true),
       false},
      {"RBD image with a shared monitor", Disk("rbd", "rbd/foo", false, {"a", "b"}),
       Disk("rbd", "rbd/foo", false, {"b", "c"}), true},
      {"RBD image, monitors apart", Disk("rbd", "rbd/foo", false, {"a"}),
       Disk("rbd", "rbd/foo", false, {"c"}), false},
      {"same id, other kind", Disk("gcePersistentDisk", "foo"), Disk("awsElasticBlockStore", "foo"),
       false},
  };
  for (const Case& c : cases) {
    Status st = Check(PodWith("p", {c.wanted}), {PodWith("q", {c.in_use}, "n1")});
    if (c.conflict) {
      EXPECT_EQ(st.code(), Code::kUnschedulable) << c.name;
      EXPECT_EQ(st.Message(), kErrReasonDiskConflict) << c.name;
    } else {
      EXPECT_TRUE(st.ok()) << c.name << ": " << st.Message();
    }
  }
  // Nothing to check: Skip.
  EXPECT_TRUE(Check(PodWith("p", {}), {}).IsSkip());
}

TEST(VolumeRestrictionsTest, AReadWriteOncePodClaimServesOnePodInTheCluster) {
  FakeHandle handle({MakeNode().Name("n1").Obj(), MakeNode().Name("n2").Obj()},
                    {PodWith("holder", {Claim("solo")}, "n1")});
  for (const char* name : {"solo", "shared"}) {
    auto pvc = std::make_shared<api::PersistentVolumeClaim>();
    pvc->metadata = {.name = name, .namespace_ = "default"};
    pvc->access_modes = {std::string(name) == "solo" ? "ReadWriteOncePod" : "ReadWriteOnce"};
    handle.listers().storage.pvcs.Set(pvc);
  }
  VolumeRestrictions plugin(handle);
  PreFilterResult result;

  CycleState shared;
  EXPECT_TRUE(
      plugin.PreFilter(shared, PodWith("p", {Claim("shared")}), handle.snapshot().nodes(), &result)
          .IsSkip());

  CycleState state;
  api::Pod pod = PodWith("p", {Claim("solo")});
  ASSERT_TRUE(plugin.PreFilter(state, pod, handle.snapshot().nodes(), &result).ok());
  for (const char* node : {"n1", "n2"}) {  // Anywhere: the claim is in use.
    Status st = plugin.Filter(state, pod, *handle.snapshot().Get(node));
    EXPECT_EQ(st.code(), Code::kUnschedulable) << node;
    EXPECT_EQ(st.Message(), kErrReasonReadWriteOncePodConflict);
  }
  // Preemption's what-if: without the holder the claim is free.
  const NodeInfo& n1 = *handle.snapshot().Get("n1");
  ASSERT_TRUE(plugin.RemovePod(state, pod, *n1.pods()[0], n1).ok());
  EXPECT_TRUE(plugin.Filter(state, pod, n1).ok());
  ASSERT_TRUE(plugin.AddPod(state, pod, *n1.pods()[0], n1).ok());
  EXPECT_FALSE(plugin.Filter(state, pod, n1).ok());

  CycleState missing;
  Status st =
      plugin.PreFilter(missing, PodWith("m", {Claim("nope")}), handle.snapshot().nodes(), &result);
  EXPECT_EQ(st.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(st.Message(), "persistentvolumeclaim \"nope\" not found");
}

TEST(VolumeRestrictionsTest, QueueingHints) {
  FakeHandle handle;
  VolumeRestrictions plugin(handle);
  std::vector<ClusterEventWithHint> events = plugin.EventsToRegister();
  api::Pod pod = PodWith("p", {Disk("gcePersistentDisk", "foo"), Claim("solo")});
  auto deleted = [&](const api::Pod& gone) {
    ClusterEventData e;
    e.old_pod = &gone;
    return events[0].hint(pod, e);
  };
  EXPECT_EQ(deleted(PodWith("q", {Disk("gcePersistentDisk", "foo")})), QueueingHint::kQueue);
  EXPECT_EQ(deleted(PodWith("q", {Claim("solo")})), QueueingHint::kQueue);
  EXPECT_EQ(deleted(PodWith("q", {Disk("gcePersistentDisk", "bar")})), QueueingHint::kQueueSkip);
}

}  // namespace
}  // namespace ksched::plugins::volume_restrictions
