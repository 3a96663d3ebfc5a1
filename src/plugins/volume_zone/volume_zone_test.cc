#include "src/plugins/volume_zone/volume_zone.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "src/testing/builders.h"
#include "src/testing/fake_handle.h"

namespace ksched::plugins::volume_zone {
namespace {

using ksched::testing::FakeHandle;
using ksched::testing::MakeNode;
using ksched::testing::MakePod;

api::Pod PodWithClaim(const std::string& claim) {
  api::Pod pod = MakePod().Name("p").Obj();
  pod.spec.volumes.push_back({.name = "v", .source = "persistentVolumeClaim", .claim_name = claim});
  return pod;
}

class VolumeZoneTest : public ::testing::Test {
 protected:
  VolumeZoneTest()
      : handle_({MakeNode().Name("a").Label("topology.kubernetes.io/zone", "us-a").Obj(),
                 MakeNode()
                     .Name("b")
                     .Label("failure-domain.beta.kubernetes.io/zone", "us-b")
                     .Label("topology.kubernetes.io/region", "us")
                     .Obj(),
                 MakeNode().Name("plain").Obj()}),
        plugin_(handle_) {
    auto wffc = std::make_shared<api::StorageClass>();
    wffc->metadata.name = "late";
    wffc->volume_binding_mode = "WaitForFirstConsumer";
    storage().storage_classes.Set(wffc);
    auto now = std::make_shared<api::StorageClass>();
    now->metadata.name = "now";
    storage().storage_classes.Set(now);
  }
  StorageObjects& storage() { return handle_.listers().storage; }

  void ClaimBoundTo(const std::string& claim, const std::string& pv_name,
                    const api::StringMap& pv_labels) {
    auto pvc = std::make_shared<api::PersistentVolumeClaim>();
    pvc->metadata = {.name = claim, .namespace_ = "default"};
    pvc->volume_name = pv_name;
    storage().pvcs.Set(pvc);
    auto pv = std::make_shared<api::PersistentVolume>();
    pv->metadata = {.name = pv_name, .labels = pv_labels};
    storage().pvs.Set(pv);
  }

  // PreFilter's status if it did not pass, else each node's Filter message ("" where it fits).
  std::map<std::string, std::string> Run(const api::Pod& pod, Status* pre_filter) {
    CycleState state;
    PreFilterResult result;
    *pre_filter = plugin_.PreFilter(state, pod, handle_.snapshot().nodes(), &result);
    std::map<std::string, std::string> out;
    if (!pre_filter->ok()) return out;
    for (const NodeInfo* ni : handle_.snapshot().nodes()) {
      out[ni->name()] = plugin_.Filter(state, pod, *ni).Message();
    }
    return out;
  }

  FakeHandle handle_;
  VolumeZone plugin_;
};

TEST_F(VolumeZoneTest, BoundVolumesKeepThePodInTheirZones) {
  ClaimBoundTo("zonal", "pv-a", {{"topology.kubernetes.io/zone", "us-a"}});
  Status pre;
  auto out = Run(PodWithClaim("zonal"), &pre);
  ASSERT_TRUE(pre.ok()) << pre.Message();
  EXPECT_EQ(out["a"], "");
  EXPECT_EQ(out["b"], kErrReasonConflict);  // Its beta zone label is compared with the GA key.
  EXPECT_EQ(out["plain"], "");              // No topology label: not checked.

  // A beta label on the PV, with two zones, against the node's beta label.
  ClaimBoundTo("multi", "pv-ab", {{"failure-domain.beta.kubernetes.io/zone", "us-a__us-b"}});
  out = Run(PodWithClaim("multi"), &pre);
  EXPECT_EQ(out["a"], "");
  EXPECT_EQ(out["b"], "");

  // The region too.
  ClaimBoundTo("regional", "pv-r", {{"topology.kubernetes.io/region", "eu"}});
  out = Run(PodWithClaim("regional"), &pre);
  EXPECT_EQ(out["a"], kErrReasonConflict);
  EXPECT_EQ(out["b"], kErrReasonConflict);

  // A malformed value is ignored, as upstream.
  ClaimBoundTo("odd", "pv-odd", {{"topology.kubernetes.io/zone", "us-a__"}});
  out = Run(PodWithClaim("odd"), &pre);
  EXPECT_TRUE(pre.IsSkip());
}

TEST_F(VolumeZoneTest, PreFilterSkipsOrRejects) {
  Status pre;
  Run(MakePod().Name("none").Obj(), &pre);
  EXPECT_TRUE(pre.IsSkip());
  ClaimBoundTo("unlabelled", "pv-u", {});
  Run(PodWithClaim("unlabelled"), &pre);
  EXPECT_TRUE(pre.IsSkip());

  auto expect = [&](const std::string& claim, const std::string& message) {
    Status st;
    Run(PodWithClaim(claim), &st);
    EXPECT_EQ(st.code(), Code::kUnschedulableAndUnresolvable) << claim;
    EXPECT_EQ(st.Message(), message) << claim;
  };
  expect("missing", "persistentvolumeclaim \"missing\" not found");
  auto unbound = [&](const std::string& name, std::optional<std::string> cls) {
    auto pvc = std::make_shared<api::PersistentVolumeClaim>();
    pvc->metadata = {.name = name, .namespace_ = "default"};
    pvc->storage_class_name = cls;
    storage().pvcs.Set(pvc);
  };
  unbound("late-claim", "late");
  Run(PodWithClaim("late-claim"), &pre);
  EXPECT_TRUE(pre.IsSkip());  // VolumeBinding's to place.
  unbound("now-claim", "now");
  expect("now-claim", "PersistentVolume had no name");
  unbound("classless", std::nullopt);
  expect("classless", "PersistentVolumeClaim had no pv name and storageClass name");
  unbound("gone-class", "gone");
  expect("gone-class", "storageclass.storage.k8s.io \"gone\" not found");
  auto dangling = std::make_shared<api::PersistentVolumeClaim>();
  dangling->metadata = {.name = "dangling", .namespace_ = "default"};
  dangling->volume_name = "pv-gone";
  storage().pvcs.Set(dangling);
  expect("dangling", "persistentvolume \"pv-gone\" not found");
}

TEST_F(VolumeZoneTest, QueueingHints) {
  std::vector<ClusterEventWithHint> events = plugin_.EventsToRegister();
  auto hint = [&](EventResource r, const ClusterEventData& e) {
    for (const auto& ev : events) {
      if (ev.event.resource == r)
        return ev.hint ? ev.hint(PodWithClaim("data"), e) : QueueingHint::kQueue;
    }
    return QueueingHint::kQueueSkip;
  };
  api::PersistentVolume a, a2, b;
  a.metadata.labels = {{"topology.kubernetes.io/zone", "us-a"}};
  a2 = a;
  a2.metadata.resource_version = "2";
  b.metadata.labels = {{"topology.kubernetes.io/zone", "us-b"}};
  ClusterEventData e;
  e.storage.pv = {&a, &a2};
  EXPECT_EQ(hint(EventResource::kPersistentVolume, e), QueueingHint::kQueueSkip);
  e.storage.pv = {&a, &b};
  EXPECT_EQ(hint(EventResource::kPersistentVolume, e), QueueingHint::kQueue);
  api::StorageClass immediate;
  ClusterEventData sc;
  sc.storage.storage_class = {nullptr, &immediate};
  EXPECT_EQ(hint(EventResource::kStorageClass, sc), QueueingHint::kQueueSkip);
}

}  // namespace
}  // namespace ksched::plugins::volume_zone
