#include "src/plugins/volume_binding/volume_binding.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "src/testing/builders.h"
#include "src/testing/fake_handle.h"

namespace ksched::plugins::volume_binding {
namespace {

using ksched::testing::FakeHandle;
using ksched::testing::MakeNode;
using ksched::testing::MakePod;
using ::testing::ElementsAre;

api::Node NodeIn(const std::string& name, const std::string& zone) {
  return MakeNode()
      .Name(name)
      .Label("kubernetes.io/hostname", name)
      .Label("topology.kubernetes.io/zone", zone)
      .Obj();
}

api::Pod PodWithClaims(const std::string& name, const std::vector<std::string>& claims) {
  api::Pod pod = MakePod().Name(name).Obj();
  pod.metadata.uid = "uid-" + name;
  for (const std::string& c : claims) {
    pod.spec.volumes.push_back({.name = c, .source = "persistentVolumeClaim", .claim_name = c});
  }
  return pod;
}

std::shared_ptr<PVC> Claim(const std::string& name, const std::string& class_name,
                           const std::string& size = "1Gi") {
  auto pvc = std::make_shared<PVC>();
  pvc->metadata = {
      .name = name, .namespace_ = "default", .uid = "uid-" + name, .resource_version = "1"};
  pvc->storage_class_name = class_name;
  pvc->storage_request = *api::Quantity::Parse(size);
  pvc->access_modes = {"ReadWriteOnce"};
  pvc->phase = "Pending";
  return pvc;
}

std::shared_ptr<PV> Volume(const std::string& name, const std::string& class_name,
                           const std::string& node, const std::string& size = "10Gi") {
  auto pv = std::make_shared<PV>();
  pv->metadata = {.name = name, .resource_version = "1"};
  pv->storage_class_name = class_name;
  pv->capacity = *api::Quantity::Parse(size);
  pv->access_modes = {"ReadWriteOnce"};
  pv->phase = "Available";
  if (!node.empty()) {
    pv->node_affinity =
        api::NodeSelector{{{.match_expressions = {{"kubernetes.io/hostname", "In", {node}}}}}};
  }
  return pv;
}

std::shared_ptr<api::StorageClass> Class(const std::string& name, const std::string& provisioner,
                                         const std::string& mode) {
  auto sc = std::make_shared<api::StorageClass>();
  sc->metadata.name = name;
  sc->provisioner = provisioner;
  sc->volume_binding_mode = mode;
  return sc;
}

class VolumeBindingTest : public ::testing::Test {
 protected:
  VolumeBindingTest()
      : handle_({NodeIn("n1", "a"), NodeIn("n2", "b")}), plugin_(handle_, VolumeBindingArgs{}) {
    storage().storage_classes.Set(Class("local", api::kNoProvisioner, "WaitForFirstConsumer"));
    storage().storage_classes.Set(Class("fast", "ebs.csi.aws.com", "WaitForFirstConsumer"));
    storage().storage_classes.Set(Class("now", "ebs.csi.aws.com", "Immediate"));
  }

  StorageObjects& storage() { return handle_.listers().storage; }

  // PreFilter's status, and if it passed, each node's Filter message ("" where it fits).
  struct Outcome {
    Status pre_filter;
    std::map<std::string, std::string> filter;
  };
  Outcome Run(CycleState& state, const api::Pod& pod) {
    Outcome out;
    PreFilterResult result;
    out.pre_filter = plugin_.PreFilter(state, pod, handle_.snapshot().nodes(), &result);
    if (!out.pre_filter.ok()) return out;
    for (const NodeInfo* ni : handle_.snapshot().nodes()) {
      Status st = plugin_.Filter(state, pod, *ni);
      EXPECT_TRUE(st.ok() || st.code() == Code::kUnschedulableAndUnresolvable) << st.Message();
      out.filter[ni->name()] = st.Message();
    }
    return out;
  }

  FakeHandle handle_;
  VolumeBinding plugin_;
};

TEST_F(VolumeBindingTest, PreFilterRejectsClaimsThatCannotBeUsed) {
  CycleState state;
  EXPECT_TRUE(Run(state, MakePod().Name("none").Obj()).pre_filter.IsSkip());

  auto expect_rejected = [&](const api::Pod& pod, const std::string& message) {
    CycleState s;
    Status st = Run(s, pod).pre_filter;
    EXPECT_EQ(st.code(), Code::kUnschedulableAndUnresolvable) << pod.metadata.name;
    EXPECT_EQ(st.Message(), message) << pod.metadata.name;
  };
  expect_rejected(PodWithClaims("missing", {"data"}), "persistentvolumeclaim \"data\" not found");
  // Objects ksched saw but could not decode are named, with the field, not taken for missing (a
  // claim, a bound claim's PV) or for an Immediate class.
  storage().SetUnreadable("persistentVolumeClaim", "default/data",
                          "spec.resources.requests.storage: quantities must match the regular "
                          "expression");
  expect_rejected(PodWithClaims("unreadable", {"data"}),
                  "persistentvolumeclaim \"data\" cannot be decoded: "
                  "spec.resources.requests.storage: quantities must match the regular expression");
  auto on_odd_pv = Claim("on-odd-pv", "local");
  on_odd_pv->volume_name = "odd";
  storage().pvcs.Set(on_odd_pv);
  storage().SetUnreadable("persistentVolume", "odd",
                          "spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0]."
                          "operator: Unsupported value: \"Near\"");
  expect_rejected(PodWithClaims("p0", {"on-odd-pv"}),
                  "persistentvolume \"odd\" cannot be decoded: "
                  "spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].operator: "
                  "Unsupported value: \"Near\"");
  storage().pvcs.Set(Claim("of-odd-class", "later"));
  storage().SetUnreadable("storageClass", "later", "volumeBindingMode: Unsupported value");
  expect_rejected(PodWithClaims("p00", {"of-odd-class"}),
                  "storageclass.storage.k8s.io \"later\" cannot be decoded: volumeBindingMode: "
                  "Unsupported value");

  storage().pvcs.Set(Claim("immediate", "now"));
  expect_rejected(PodWithClaims("p1", {"immediate"}),
                  "pod has unbound immediate PersistentVolumeClaims");
  // A class that does not exist binds at once too, as upstream's IsDelayBindingMode says.
  storage().pvcs.Set(Claim("no-class", "gone"));
  expect_rejected(PodWithClaims("p2", {"no-class"}),
                  "pod has unbound immediate PersistentVolumeClaims");

  auto deleting = Claim("deleting", "local");
  deleting->metadata.deletion_timestamp = "2026-11-26T10:00:00Z";
  storage().pvcs.Set(deleting);
  expect_rejected(PodWithClaims("p3", {"deleting"}),
                  "persistentvolumeclaim \"deleting\" is being deleted");

  auto lost = Claim("lost", "local");
  lost->phase = "Lost";
  lost->volume_name = "pv-gone";
  storage().pvcs.Set(lost);
  expect_rejected(PodWithClaims("p4", {"lost"}),
                  "persistentvolumeclaim \"lost\" bound to non-existent persistentvolume "
                  "\"pv-gone\"");

  api::Pod ephemeral = MakePod().Name("eph").Obj();
  ephemeral.metadata.uid = "uid-eph";
  ephemeral.spec.volumes.push_back({.name = "scratch", .source = "ephemeral"});
  expect_rejected(ephemeral,
                  "waiting for ephemeral volume controller to create the persistentvolumeclaim "
                  "\"eph-scratch\"");
  storage().pvcs.Set(Claim("eph-scratch", "local"));  // Not owned by the pod.
  expect_rejected(ephemeral,
                  "PVC default/eph-scratch was not created for pod default/eph (pod is not owner)");
}

TEST_F(VolumeBindingTest, BoundClaimFollowsItsVolumesNodeAffinity) {
  auto pvc = Claim("data", "local");
  pvc->volume_name = "pv-1";
  pvc->metadata.annotations[api::kAnnBindCompleted] = "yes";
  storage().pvcs.Set(pvc);
  storage().pvs.Set(Volume("pv-1", "local", "n2"));
  CycleState state;
  Outcome out = Run(state, PodWithClaims("p", {"data"}));
  ASSERT_TRUE(out.pre_filter.ok()) << out.pre_filter.Message();
  EXPECT_EQ(out.filter["n1"], "node(s) didn't match PersistentVolume's node affinity");
  EXPECT_EQ(out.filter["n2"], "");

  // A claim bound to a PV that is gone.
  storage().pvs.Remove("pv-1");
  CycleState again;
  out = Run(again, PodWithClaims("p", {"data"}));
  EXPECT_EQ(out.filter["n1"],
            "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)");
}

// On a node whose CSINode says the EBS plugin migrated, an in-tree EBS PV's zone is the CSI
// driver's topology key, which that node must carry; elsewhere the in-tree zone label serves.
TEST_F(VolumeBindingTest, MigratedInTreeVolumeIsCheckedAgainstItsCsiTopology) {
  auto pvc = Claim("ebs", "");
  pvc->volume_name = "pv-ebs";
  pvc->metadata.annotations[api::kAnnBindCompleted] = "yes";
  storage().pvcs.Set(pvc);
  auto pv = Volume("pv-ebs", "", "");
  pv->source = {.kind = "awsElasticBlockStore", .volume_handle = "vol-1"};
  pv->metadata.labels["topology.kubernetes.io/zone"] = "a";
  pv->node_affinity = api::NodeSelector{
      {{.match_expressions = {{"topology.kubernetes.io/zone", "In", {"a", "b"}}}}}};
  storage().pvs.Set(pv);
  CycleState state;
  Outcome out = Run(state, PodWithClaims("p", {"ebs"}));
  EXPECT_EQ(out.filter["n1"], "");
  EXPECT_EQ(out.filter["n2"], "");

  auto csi_node = std::make_shared<api::CSINode>();
  csi_node->metadata.name = "n2";
  csi_node->metadata.annotations[api::kAnnMigratedPlugins] = "kubernetes.io/aws-ebs";
  storage().csi_nodes.Set(csi_node);
  CycleState migrated;
  out = Run(migrated, PodWithClaims("p", {"ebs"}));
  EXPECT_EQ(out.filter["n1"], "");
  EXPECT_EQ(out.filter["n2"], "node(s) didn't match PersistentVolume's node affinity");
}

// Reserve takes the only matching PV; a second pod then finds none until Unreserve gives it back.
TEST_F(VolumeBindingTest, StaticVolumeIsChosenOnItsNodeAndReservedForOnePod) {
  storage().pvcs.Set(Claim("a", "local"));
  storage().pvcs.Set(Claim("b", "local"));
  storage().pvs.Set(Volume("small", "local", "n1", "500Mi"));  // Too small for 1Gi.
  storage().pvs.Set(Volume("pv-1", "local", "n1"));
  const std::string no_pv = "node(s) didn't find available persistent volumes to bind";

  CycleState first;
  api::Pod pod_a = PodWithClaims("pa", {"a"});
  Outcome out = Run(first, pod_a);
  ASSERT_TRUE(out.pre_filter.ok()) << out.pre_filter.Message();
  EXPECT_EQ(out.filter["n1"], "");
  EXPECT_EQ(out.filter["n2"], no_pv);
  ASSERT_TRUE(plugin_.Reserve(first, pod_a, "n1").ok());

  CycleState second;
  out = Run(second, PodWithClaims("pb", {"b"}));
  EXPECT_EQ(out.filter["n1"], no_pv);

  plugin_.Unreserve(first, pod_a, "n1");
  CycleState third;
  out = Run(third, PodWithClaims("pb", {"b"}));
  EXPECT_EQ(out.filter["n1"], "");
}

TEST_F(VolumeBindingTest, DynamicProvisioningFollowsAllowedTopologiesAndCapacity) {
  auto zonal = Class("zonal", "ebs.csi.aws.com", "WaitForFirstConsumer");
  zonal->allowed_topologies = {{{{"topology.kubernetes.io/zone", {"a"}}}}};
  storage().storage_classes.Set(zonal);
  storage().pvcs.Set(Claim("z", "zonal"));
  CycleState state;
  Outcome out = Run(state, PodWithClaims("p", {"z"}));
  EXPECT_EQ(out.filter["n1"], "");
  EXPECT_EQ(out.filter["n2"], "node(s) didn't find available persistent volumes to bind");

  // Capacity tracking: only zone b has room for 50Gi.
  auto driver = std::make_shared<api::CSIDriver>();
  driver->metadata.name = "ebs.csi.aws.com";
  driver->storage_capacity = true;
  storage().csi_drivers.Set(driver);
  for (auto [zone, size] : {std::pair{"a", "10Gi"}, std::pair{"b", "100Gi"}}) {
    auto cap = std::make_shared<api::CSIStorageCapacity>();
    cap->metadata = {.name = std::string("cap-") + zone, .namespace_ = "kube-system"};
    cap->storage_class_name = "fast";
    cap->node_topology =
        api::LabelSelector{.match_labels = {{"topology.kubernetes.io/zone", zone}}};
    cap->capacity = *api::Quantity::Parse(size);
    storage().csi_storage_capacities.Set(cap);
  }
  storage().pvcs.Set(Claim("big", "fast", "50Gi"));
  CycleState capacity;
  out = Run(capacity, PodWithClaims("p", {"big"}));
  EXPECT_EQ(out.filter["n1"], "node(s) did not have enough free storage");
  EXPECT_EQ(out.filter["n2"], "");

  // A claim being provisioned for n2 keeps the pod off n1.
  auto selected = Claim("selected", "fast");
  selected->metadata.annotations[api::kAnnSelectedNode] = "n2";
  storage().pvcs.Set(selected);
  CycleState provisioning;
  out = Run(provisioning, PodWithClaims("p", {"selected"}));
  EXPECT_EQ(out.filter["n1"], "node(s) didn't find available persistent volumes to bind");
  EXPECT_EQ(out.filter["n2"], "");
}

// With StorageCapacityScoring, a node scores the default shape at the utilization the pod's claims
// bring to each class there: dynamic provisions against the CSIStorageCapacity that has room
// (its capacity, not its maximumVolumeSize), static bindings against their PV's size.
TEST_F(VolumeBindingTest, StorageCapacityScoringPrefersTheNodeWithTheMostRoom) {
  VolumeBindingArgs args;
  args.shape = DefaultShape();
  VolumeBinding scoring(handle_, args);
  auto driver = std::make_shared<api::CSIDriver>();
  driver->metadata.name = "ebs.csi.aws.com";
  driver->storage_capacity = true;
  storage().csi_drivers.Set(driver);
  for (auto [node, size] : {std::pair{"n1", "100Gi"}, std::pair{"n2", "40Gi"}}) {
    auto cap = std::make_shared<api::CSIStorageCapacity>();
    cap->metadata = {.name = std::string("cap-") + node, .namespace_ = "kube-system"};
    cap->storage_class_name = "fast";
    cap->node_topology = api::LabelSelector{.match_labels = {{"kubernetes.io/hostname", node}}};
    cap->capacity = *api::Quantity::Parse(size);
    cap->maximum_volume_size = *api::Quantity::Parse("30Gi");
    storage().csi_storage_capacities.Set(cap);
  }
  storage().pvcs.Set(Claim("a", "fast", "10Gi"));
  storage().pvcs.Set(Claim("b", "fast", "20Gi"));
  storage().pvs.Set(Volume("local-n2", "local", "n2", "100Gi"));
  storage().pvcs.Set(Claim("l", "local", "25Gi"));
  auto scores = [&](const api::Pod& pod) {
    CycleState state;
    std::map<std::string, int64_t> out;
    PreFilterResult result;
    const Status pre_filter = scoring.PreFilter(state, pod, handle_.snapshot().nodes(), &result);
    std::vector<const NodeInfo*> feasible;
    for (const NodeInfo* ni : handle_.snapshot().nodes()) {
      // A skipped PreFilter skips Filter too, as the framework does.
      if (pre_filter.code() == Code::kSkip || scoring.Filter(state, pod, *ni).ok()) {
        feasible.push_back(ni);
      }
    }
    EXPECT_TRUE(scoring.PreScore(state, pod, feasible).ok());
    for (const NodeInfo* ni : feasible) {
      EXPECT_TRUE(scoring.Score(state, pod, *ni, &out[ni->name()]).ok());
    }
    return out;
  };
  // 30Gi of 100Gi on n1 scores 70; 30Gi of 40Gi on n2, 25.
  EXPECT_EQ(scores(PodWithClaims("p", {"a", "b"})),
            (std::map<std::string, int64_t>{{"n1", 70}, {"n2", 25}}));
  // The static PV: 25Gi of its 100Gi; n1 has no PV for the claim.
  EXPECT_EQ(scores(PodWithClaims("q", {"l"})), (std::map<std::string, int64_t>{{"n2", 75}}));
  // A pod without claims scores 0 everywhere, as upstream's.
  EXPECT_EQ(scores(PodWithClaims("r", {})), (std::map<std::string, int64_t>{{"n1", 0}, {"n2", 0}}));
  // Without the gate, no score at all.
  CycleState state;
  EXPECT_EQ(plugin_.PreScore(state, PodWithClaims("p", {"a"}), {}).code(), Code::kSkip);
}

TEST_F(VolumeBindingTest, FindMatchingVolumePicksTheSmallestThatFits) {
  auto pvc = Claim("c", "local", "5Gi");
  pvc->selector = api::LabelSelector{.match_labels = {{"tier", "fast"}}};
  api::Node n1 = NodeIn("n1", "a");
  auto big = Volume("big", "local", "n1", "100Gi");
  big->metadata.labels["tier"] = "fast";
  auto fit = Volume("fit", "local", "n1", "8Gi");
  fit->metadata.labels["tier"] = "fast";
  auto unlabelled = Volume("unlabelled", "local", "n1", "6Gi");
  auto block = Volume("block", "local", "n1", "6Gi");
  block->metadata.labels["tier"] = "fast";
  block->volume_mode = "Block";
  std::vector<std::shared_ptr<const PV>> pvs = {big, fit, unlabelled, block};
  EXPECT_EQ(FindMatchingVolume(*pvc, pvs, n1, {})->metadata.name, "fit");
  EXPECT_EQ(FindMatchingVolume(*pvc, pvs, n1, {"fit"})->metadata.name, "big");
  EXPECT_EQ(FindMatchingVolume(*pvc, pvs, NodeIn("n2", "b"), {}), nullptr);
  // A PV that names the claim already wins over a smaller one.
  auto named = Volume("named", "local", "n1", "50Gi");
  named->claim_ref = api::ObjectReference{.namespace_ = "default", .name = "c"};
  named->phase = "Bound";
  pvs.push_back(named);
  EXPECT_EQ(FindMatchingVolume(*pvc, pvs, n1, {})->metadata.name, "named");
}

// An error, not a node that does not fit, counts in scheduler_volume_scheduling_stage_error_total
// under its stage, as upstream's volume binder counts it.
TEST_F(VolumeBindingTest, StageErrorsAreCountedByOperation) {
  const auto& metrics = handle_.counting_metrics();
  storage().pvcs.Set(Claim("c", "fast"));
  api::Pod pod = PodWithClaims("p", {"c"});
  CycleState state;
  Outcome out = Run(state, pod);
  ASSERT_TRUE(out.pre_filter.ok()) << out.pre_filter.Message();
  EXPECT_EQ(out.filter["n1"], "");
  EXPECT_TRUE(metrics.volume_errors().empty()) << "fitting is no error";

  // The writer cannot provision (RecordingWriter writes no claims): PreBind fails.
  ASSERT_TRUE(plugin_.Reserve(state, pod, "n1").ok());
  Status bind = plugin_.PreBind(state, pod, "n1");
  EXPECT_EQ(bind.code(), Code::kError);
  EXPECT_EQ(bind.Message(), "this cluster writer does not provision volumes");
  EXPECT_EQ(metrics.volume_errors(), std::vector<std::string>{"bind"});
  plugin_.Unreserve(state, pod, "n1");

  // The claim changed after Filter read it: Reserve cannot assume it.
  CycleState changed;
  ASSERT_TRUE(Run(changed, pod).pre_filter.ok());
  auto newer = Claim("c", "fast");
  newer->metadata.resource_version = "2";
  storage().pvcs.Set(newer);
  EXPECT_EQ(plugin_.Reserve(changed, pod, "n1").code(), Code::kError);
  EXPECT_EQ(metrics.volume_errors(), (std::vector<std::string>{"bind", "assume"}));

  // The claim's class went after PreFilter: Filter cannot tell whether it can be provisioned.
  CycleState gone;
  PreFilterResult result;
  ASSERT_TRUE(plugin_.PreFilter(gone, pod, handle_.snapshot().nodes(), &result).ok());
  storage().storage_classes.Remove("fast");
  Status filter = plugin_.Filter(gone, pod, *handle_.snapshot().nodes()[0]);
  EXPECT_EQ(filter.code(), Code::kError);
  EXPECT_EQ(filter.Message(), "failed to find storage class \"fast\"");
  EXPECT_EQ(metrics.volume_errors(), (std::vector<std::string>{"bind", "assume", "predicate"}));
}

TEST_F(VolumeBindingTest, QueueingHintsAskForTheChangesThatCanHelp) {
  std::vector<ClusterEventWithHint> events = plugin_.EventsToRegister();
  auto hint = [&](EventResource r, const ClusterEventData& e) {
    for (const auto& ev : events) {
      if (ev.event.resource == r)
        return ev.hint ? ev.hint(PodWithClaims("p", {"data"}), e) : QueueingHint::kQueue;
    }
    return QueueingHint::kQueueSkip;
  };
  auto other = Claim("other", "local");
  auto mine = Claim("data", "local");
  ClusterEventData e;
  e.storage.pvc = {nullptr, other.get()};
  EXPECT_EQ(hint(EventResource::kPersistentVolumeClaim, e), QueueingHint::kQueueSkip);
  e.storage.pvc = {nullptr, mine.get()};
  EXPECT_EQ(hint(EventResource::kPersistentVolumeClaim, e), QueueingHint::kQueue);

  auto old_sc = Class("zonal", "p", "WaitForFirstConsumer");
  auto same = Class("zonal", "p", "WaitForFirstConsumer");
  auto wider = Class("zonal", "p", "WaitForFirstConsumer");
  wider->allowed_topologies = {{{{"zone", {"a"}}}}};
  ClusterEventData sc;
  sc.storage.storage_class = {old_sc.get(), same.get()};
  EXPECT_EQ(hint(EventResource::kStorageClass, sc), QueueingHint::kQueueSkip);
  sc.storage.storage_class = {old_sc.get(), wider.get()};
  EXPECT_EQ(hint(EventResource::kStorageClass, sc), QueueingHint::kQueue);

  api::CSIStorageCapacity small, large;
  small.capacity = *api::Quantity::Parse("1Gi");
  large.capacity = *api::Quantity::Parse("2Gi");
  ClusterEventData cap;
  cap.storage.csi_storage_capacity = {&large, &small};
  EXPECT_EQ(hint(EventResource::kCSIStorageCapacity, cap), QueueingHint::kQueueSkip);
  cap.storage.csi_storage_capacity = {&small, &large};
  EXPECT_EQ(hint(EventResource::kCSIStorageCapacity, cap), QueueingHint::kQueue);
}

}  // namespace
}  // namespace ksched::plugins::volume_binding
