// Pods with PersistentVolumeClaims, scheduled by `ksched run` on a control plane that runs
// kube-controller-manager: its PV controller completes the bindings VolumeBinding writes, as in a
// real cluster. kubectl creates the objects and reads back what ksched and the controller wrote.
#include <gtest/gtest.h>

#include <string>

#include "nlohmann/json.hpp"
#include "src/testing/storage_json.h"
#include "test/integration/ksched_process_test.h"

namespace ksched::testing {
namespace {

const bool kWithControllers = (SharedControlPlaneOptions().controller_manager = true);

json StorageClass(const std::string& name, const std::string& provisioner) {
  return {{"apiVersion", "storage.k8s.io/v1"},
          {"kind", "StorageClass"},
          {"metadata", {{"name", name}}},
          {"provisioner", provisioner},
          {"volumeBindingMode", "WaitForFirstConsumer"}};
}

json Claim(const std::string& ns, const std::string& name, const std::string& storage_class) {
  return {{"apiVersion", "v1"},
          {"kind", "PersistentVolumeClaim"},
          {"metadata", {{"name", name}, {"namespace", ns}}},
          {"spec",
           {{"accessModes", {"ReadWriteOnce"}},
            {"storageClassName", storage_class},
            {"resources", {{"requests", {{"storage", "1Gi"}}}}}}}};
}

json PodWithClaim(const std::string& ns, const std::string& name, const std::string& claim) {
  json pod = Pod(ns, name, "100m");
  pod["spec"]["volumes"] = {{{"name", "data"}, {"persistentVolumeClaim", {{"claimName", claim}}}}};
  return pod;
}

class VolumesTest : public KschedProcessTest {
 protected:
  void SetUp() override {
    KschedProcessTest::SetUp();
    ASSERT_TRUE(kWithControllers);
  }

  // The test's nodes go with it, so that each test's messages count its own.
  void TearDown() override {
    KschedProcessTest::TearDown();
    for (const std::string& node : nodes_) cluster().Kubectl({"delete", "node", node});
  }

  // A namespace of its own for each test, with `nodes` nodes named "<ns>-<i>".
  std::string Namespace(const std::string& ns, int nodes) {
    Create({{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", ns}}}});
    for (int i = 0; i < nodes; ++i) {
      nodes_.push_back(ns + "-" + std::to_string(i));
      Create(Node(nodes_.back(), "4"));
    }
    return ns;
  }

  std::vector<std::string> nodes_;
};

// The user's first try: a WaitForFirstConsumer class without a provisioner and a local PV on one
// node. ksched puts the pod on the PV's node and binds the claim to the PV; the PV controller
// finishes the binding (the claim Bound).
TEST_F(VolumesTest, StaticLocalVolumeBringsThePodToItsNodeAndIsBound) {
  const std::string ns = Namespace("static", 3);
  Create(StorageClass("static-local", "kubernetes.io/no-provisioner"));
  Create(LocalVolumeJson("static-pv", "static-local", "static-2", "10Gi"));
  Create(Claim(ns, "data", "static-local"));
  StartKsched();
  Create(PodWithClaim(ns, "db", "data"));
  EXPECT_EQ(BoundNodeOf(ns, "db"), "static-2");
  json claim;
  EXPECT_TRUE(Eventually([&] {
    claim = Get({"pvc", "data", "-n", ns});
    return claim["status"].value("phase", "") == "Bound";
  })) << claim.dump();
  EXPECT_EQ(claim["spec"].value("volumeName", ""), "static-pv");
  json pv = Get({"pv", "static-pv"});
  EXPECT_EQ(pv["spec"]["claimRef"]["name"], "data");
  EXPECT_EQ(pv["metadata"]["annotations"]["pv.kubernetes.io/bound-by-controller"], "yes");

  // The PV is taken: a second pod with a claim of the same class finds none and waits.
  Create(Claim(ns, "more", "static-local"));
  Create(PodWithClaim(ns, "db-2", "more"));
  EXPECT_EQ(FailedSchedulingNote(ns),
            "0/3 nodes are available: 3 node(s) didn't find available persistent volumes to "
            "bind. preemption: 0/3 nodes are available: 3 "
            "Preemption is not helpful for scheduling.");
}

// A pod whose claim does not exist waits with upstream's message, and is scheduled once the claim
// appears.
TEST_F(VolumesTest, MissingClaimKeepsThePodPendingUntilItAppears) {
  const std::string ns = Namespace("missing", 2);
  Create(StorageClass("missing-local", "kubernetes.io/no-provisioner"));
  Create(LocalVolumeJson("missing-pv", "missing-local", "missing-0", "10Gi"));
  StartKsched();
  Create(PodWithClaim(ns, "db", "data"));
  EXPECT_EQ(FailedSchedulingNote(ns),
            "0/2 nodes are available: persistentvolumeclaim \"data\" not found. not found");
  Create(Claim(ns, "data", "missing-local"));
  EXPECT_EQ(BoundNodeOf(ns, "db"), "missing-0");
}

// Dynamic provisioning: ksched writes the selected node on the claim and the pod's
// nominatedNodeName, and waits; the test plays the provisioner (a PV on that node, pre-bound to the
// claim) and the PV controller binds it.
TEST_F(VolumesTest, ProvisionedClaimGetsTheSelectedNodeAndThePodWaitsForTheVolume) {
  const std::string ns = Namespace("dynamic", 2);
  Create(StorageClass("dynamic-fake", "example.com/fake"));
  Create(Claim(ns, "data", "dynamic-fake"));
  StartKsched();
  Create(PodWithClaim(ns, "db", "data"));
  std::string selected;
  ASSERT_TRUE(Eventually([&] {
    json claim = Get({"pvc", "data", "-n", ns});
    selected = claim["metadata"]
                   .value("annotations", json::object())
                   .value("volume.kubernetes.io/selected-node", "");
    return !selected.empty();
  }));
  // Not bound while its volume is missing, but nominated there, so that other components (the
  // cluster autoscaler) see where it is going.
  json waiting;
  EXPECT_TRUE(Eventually([&] {
    waiting = Get({"pod", "db", "-n", ns});
    return waiting["status"].value("nominatedNodeName", "") == selected;
  })) << waiting["status"].dump();
  EXPECT_EQ(waiting["spec"].value("nodeName", ""), "");
  json claim = Get({"pvc", "data", "-n", ns});
  json pv = LocalVolumeJson("dynamic-pv", "dynamic-fake", selected, "10Gi");
  pv["spec"]["claimRef"] = {{"namespace", ns},
                            {"name", "data"},
                            {"uid", claim["metadata"]["uid"]},
                            {"kind", "PersistentVolumeClaim"},
                            {"apiVersion", "v1"}};
  Create(pv);
  EXPECT_EQ(BoundNodeOf(ns, "db"), selected);
  // The API server clears the nomination on bind.
  EXPECT_EQ(Get({"pod", "db", "-n", ns})["status"].value("nominatedNodeName", ""), "");
}

// An unbound claim of an Immediate class keeps the pod pending: the PV controller binds such
// claims, not the scheduler.
TEST_F(VolumesTest, UnboundImmediateClaimKeepsThePodPending) {
  const std::string ns = Namespace("immediate", 1);
  json sc = StorageClass("immediate-none", "example.com/none");
  sc["volumeBindingMode"] = "Immediate";
  Create(sc);
  Create(Claim(ns, "data", "immediate-none"));
  StartKsched();
  Create(PodWithClaim(ns, "db", "data"));
  EXPECT_EQ(FailedSchedulingNote(ns),
            "0/1 nodes are available: pod has unbound immediate PersistentVolumeClaims. not "
            "found");
}

}  // namespace
}  // namespace ksched::testing
