#include "src/sim/cluster.h"

#include <gtest/gtest.h>

#include "absl/strings/str_format.h"
#include "src/plugins/registry.h"
#include "src/scheduler/scheduler.h"
#include "src/sim/manifests.h"

namespace ksched::sim {
namespace {

// A scheduler on an embedded cluster made from a manifest, started.
class ClusterTest : public ::testing::Test {
 protected:
  void Start(const std::string& yaml) {
    auto objects = ParseManifest(yaml, "test.yaml");
    ASSERT_TRUE(objects.ok()) << objects.status();
    cluster_ = std::make_unique<Cluster>(std::move(*objects));
    auto s = scheduler::Scheduler::Create({.writer = cluster_.get()}, registry_);
    ASSERT_TRUE(s.ok()) << s.status();
    scheduler_ = std::move(*s);
    cluster_->Start(*scheduler_);
  }
  const Handle& handle() { return *scheduler_->FrameworkFor("default-scheduler"); }
  // Schedules until no pod is ready, as simulate does.
  void Drain() {
    while (scheduler_->ScheduleOne()) cluster_->Deliver(*scheduler_);
    cluster_->Deliver(*scheduler_);
  }
  // disruptionsAllowed of the only PodDisruptionBudget, as the scheduler sees it.
  int32_t Allowed() {
    auto pdbs = handle().ListPodDisruptionBudgets();
    EXPECT_EQ(pdbs.size(), 1u);
    return pdbs.empty() ? -1 : pdbs[0]->disruptions_allowed;
  }
  std::shared_ptr<const api::Pod> PodNamed(const std::string& name) {
    for (const auto& p : cluster_->Pods()) {
      if (p->metadata.name == name) return p;
    }
    return nullptr;
  }

  Registry registry_ = plugins::NewInTreeRegistry();
  std::unique_ptr<Cluster> cluster_;
  std::unique_ptr<scheduler::Scheduler> scheduler_;
};

constexpr char kNodeAndWebPods[] = R"(
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "8", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: web-1, labels: {app: web}}
spec: {nodeName: n1, containers: [{name: c, image: registry.k8s.io/pause:3.10}]}
---
apiVersion: v1
kind: Pod
metadata: {name: web-2, labels: {app: web}}
spec: {containers: [{name: c, image: registry.k8s.io/pause:3.10}]}
---
apiVersion: v1
kind: Pod
metadata: {name: web-3, labels: {app: web}}
spec: {containers: [{name: c, image: registry.k8s.io/pause:3.10}]}
---
apiVersion: v1
kind: Pod
metadata: {name: other, labels: {app: other}}
spec: {nodeName: n1, containers: [{name: c, image: registry.k8s.io/pause:3.10}]}
)";

TEST_F(ClusterTest, ABudgetWithoutStatusFollowsBindsAndRemovals) {
  Start(std::string(kNodeAndWebPods) + R"(---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web}
spec: {minAvailable: 1, selector: {matchLabels: {app: web}}}
)");
  // Three pods, one of them bound: 1 healthy - 1 desired.
  EXPECT_EQ(Allowed(), 0);
  EXPECT_TRUE(handle().ListPodDisruptionBudgets()[0]->has_status);
  EXPECT_EQ(handle().ListPodDisruptionBudgets()[0]->metadata.namespace_, "default");

  ASSERT_TRUE(cluster_->Bind(*PodNamed("web-2"), "n1").ok());
  EXPECT_EQ(Allowed(), 0);  // The scheduler hears of it on the next Deliver.
  EXPECT_EQ(cluster_->PodDisruptionBudgets()[0]->disruptions_allowed, 1);
  cluster_->Deliver(*scheduler_);
  EXPECT_EQ(Allowed(), 1);

  // The scheduler binds the last one.
  Drain();
  EXPECT_EQ(PodNamed("web-3")->spec.node_name, "n1");
  EXPECT_EQ(Allowed(), 2);

  // Evicting a pod gives one disruption back; removing a pod it does not select changes nothing.
  ASSERT_TRUE(cluster_->DeletePod(*PodNamed("web-1")).ok());
  ASSERT_TRUE(cluster_->DeletePod(*PodNamed("other")).ok());
  cluster_->Deliver(*scheduler_);
  EXPECT_EQ(Allowed(), 1);
  EXPECT_EQ(PodNamed("web-1"), nullptr);
  EXPECT_EQ(cluster_->Pods().size(), 2u);
  EXPECT_EQ(scheduler_->cache().NodeOf("default/web-1"), "");  // The scheduler heard of it.
  EXPECT_EQ(scheduler_->cache().PodCount(), 2u);
  EXPECT_EQ(cluster_->DeletePod(api::Pod{.metadata = {.name = "web-1", .uid = "default/web-1"}})
                .message(),
            "pods \"web-1\" not found");
}

TEST_F(ClusterTest, ABudgetWithAStatusKeepsIt) {
  Start(std::string(kNodeAndWebPods) + R"(---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web}
spec: {maxUnavailable: 1, selector: {matchLabels: {app: web}}}
status: {disruptionsAllowed: 5, disruptedPods: {web-1: "2026-01-01T00:00:00Z"}}
)");
  EXPECT_EQ(Allowed(), 5);
  Drain();
  EXPECT_EQ(PodNamed("web-3")->spec.node_name, "n1");
  EXPECT_EQ(Allowed(), 5);
  EXPECT_EQ(handle().ListPodDisruptionBudgets()[0]->disrupted_pods.size(), 1u);
}

TEST_F(ClusterTest, WorkloadsReachTheSchedulerInTheDefaultNamespace) {
  Start(R"(
apiVersion: v1
kind: Service
metadata: {name: web}
spec: {selector: {app: web}}
---
apiVersion: v1
kind: ReplicationController
metadata: {name: rc, namespace: prod}
spec: {selector: {app: rc}}
---
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: rs}
spec: {selector: {matchLabels: {app: rs}}}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec: {selector: {matchLabels: {app: db}}}
)");
  ASSERT_EQ(handle().ListServices("default").size(), 1u);
  EXPECT_EQ(handle().ListServices("default")[0]->selector.at("app"), "web");
  EXPECT_NE(handle().GetReplicationController("prod", "rc"), nullptr);
  EXPECT_NE(handle().GetReplicaSet("default", "rs"), nullptr);
  EXPECT_NE(handle().GetStatefulSet("default", "db"), nullptr);
}

// The PV controller's part: a static PV VolumeBinding bound is Bound to the claim, and the
// scheduler hears of both at once; a write from a stale read is a conflict, as the API server's.
constexpr char kOneGpuTemplate[] = R"(
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: one-gpu}
spec: {spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu}}]}}}
)";

// simulate loads the DRA objects into the scheduler's listers, each in its namespace (the class
// and the slice have none), and the pod gets the device (its class selects by the driver's name
// alone, which needs no CEL library: this test has none).
TEST_F(ClusterTest, DraObjectsReachTheListersAndTheirPodsWait) {
  Start(R"(
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "8", memory: 8Gi, pods: "110"}}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu}
spec: {selectors: [{cel: {expression: "device.driver == 'gpu.example.com'"}}]}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: n1-gpu}
spec: {driver: gpu.example.com, nodeName: n1, pool: {name: n1, generation: 1, resourceSliceCount: 1},
       devices: [{name: gpu-0}]}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: gpu}
spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu}}]}}
---
apiVersion: v1
kind: Pod
metadata: {name: train}
spec: {containers: [{name: c, image: registry.k8s.io/pause:3.10}], resourceClaims: [{name: gpu, resourceClaimName: gpu}]}
---
)" + std::string(kOneGpuTemplate));
  Listers& l = scheduler_->listers();
  EXPECT_NE(l.dra.device_classes.Get("gpu"), nullptr);
  ASSERT_NE(l.dra.resource_slices.Get("n1-gpu"), nullptr);
  EXPECT_EQ(l.dra.resource_slices.Get("n1-gpu")->devices.size(), 1u);
  EXPECT_NE(l.dra.resource_claims.Get("default", "gpu"), nullptr);
  EXPECT_NE(l.dra.resource_claim_templates.Get("default", "one-gpu"), nullptr);
  Drain();
  EXPECT_EQ(PodNamed("train")->spec.node_name, "n1");
}

// The resourceclaim controller's part: a pod that names a template gets its claim, and its status
// names it; a pod whose template is missing gets none.
TEST_F(ClusterTest, ATemplateMakesThePodsClaim) {
  Start(std::string(kOneGpuTemplate) + R"(---
apiVersion: v1
kind: Pod
metadata: {name: train}
spec: {containers: [{name: c, image: registry.k8s.io/pause:3.10}], resourceClaims: [{name: gpu, resourceClaimTemplateName: one-gpu}]}
---
apiVersion: v1
kind: Pod
metadata: {name: orphan}
spec: {containers: [{name: c, image: registry.k8s.io/pause:3.10}], resourceClaims: [{name: gpu, resourceClaimTemplateName: missing}]}
)");
  std::shared_ptr<const api::Pod> train = PodNamed("train");
  ASSERT_EQ(train->status.resource_claim_statuses.size(), 1u);
  const std::string claim = *train->status.resource_claim_statuses[0].resource_claim_name;
  std::shared_ptr<const api::ResourceClaim> made =
      scheduler_->listers().dra.resource_claims.Get("default", claim);
  ASSERT_NE(made, nullptr);
  EXPECT_EQ(made->metadata.owner_references[0].uid, train->metadata.uid);
  EXPECT_EQ(made->spec.requests[0].exactly->device_class_name, "gpu");
  EXPECT_TRUE(PodNamed("orphan")->status.resource_claim_statuses.empty());
  EXPECT_EQ(scheduler_->listers().dra.resource_claims.size(), 1u);
}

// DRAWorkloadResourceClaims: a PodGroup that names a template gets one claim, owned by the group
// and named in its status; its pods whose entry is the group's get that claim, a pod of another
// entry one of its own.
TEST_F(ClusterTest, APodGroupsTemplateMakesOneClaimForItsPods) {
  Start(std::string(kOneGpuTemplate) + R"(---
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: train}
spec: {schedulingPolicy: {gang: {minCount: 2}}, resourceClaims: [{name: gpu, resourceClaimTemplateName: one-gpu}]}
---
apiVersion: v1
kind: Pod
metadata: {name: w0}
spec: {schedulingGroup: {podGroupName: train}, containers: [{name: c, image: registry.k8s.io/pause:3.10}], resourceClaims: [{name: gpu, resourceClaimTemplateName: one-gpu}]}
---
apiVersion: v1
kind: Pod
metadata: {name: w1}
spec: {schedulingGroup: {podGroupName: train}, containers: [{name: c, image: registry.k8s.io/pause:3.10}], resourceClaims: [{name: gpu, resourceClaimTemplateName: one-gpu}]}
---
apiVersion: v1
kind: Pod
metadata: {name: own}
spec: {schedulingGroup: {podGroupName: train}, containers: [{name: c, image: registry.k8s.io/pause:3.10}], resourceClaims: [{name: mine, resourceClaimTemplateName: one-gpu}]}
)");
  std::shared_ptr<const api::PodGroup> group =
      scheduler_->listers().pod_groups.Get("default", "train");
  ASSERT_NE(group, nullptr);
  ASSERT_EQ(group->resource_claim_statuses.size(), 1u);
  const std::string claim = *group->resource_claim_statuses[0].resource_claim_name;
  EXPECT_TRUE(claim.starts_with("train-gpu-")) << claim;
  std::shared_ptr<const api::ResourceClaim> made =
      scheduler_->listers().dra.resource_claims.Get("default", claim);
  ASSERT_NE(made, nullptr);
  EXPECT_EQ(made->metadata.owner_references[0].kind, "PodGroup");
  EXPECT_EQ(made->metadata.owner_references[0].uid, group->metadata.uid);
  for (const char* pod : {"w0", "w1"}) {
    ASSERT_EQ(PodNamed(pod)->status.resource_claim_statuses.size(), 1u) << pod;
    EXPECT_EQ(*PodNamed(pod)->status.resource_claim_statuses[0].resource_claim_name, claim);
  }
  const std::string own = *PodNamed("own")->status.resource_claim_statuses[0].resource_claim_name;
  EXPECT_TRUE(own.starts_with("own-mine-")) << own;
  EXPECT_EQ(scheduler_->listers().dra.resource_claims.size(), 2u);
}

// A write that changes nothing leaves the claim at its version, as the API server does: two pods
// of a pod group whose PodGroupPostFilter deallocates a claim they read at one version (and that
// has no allocation) both get through, where the second was a conflict.
TEST_F(ClusterTest, AClaimsWriteThatChangesNothingKeepsItsVersion) {
  Start(R"(
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: gpu}
spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu}}]}}
)");
  std::shared_ptr<const api::ResourceClaim> read =
      scheduler_->listers().dra.resource_claims.Get("default", "gpu");
  ASSERT_NE(read, nullptr);
  ASSERT_TRUE(cluster_->DeallocateResourceClaim(*read).ok());
  ASSERT_TRUE(cluster_->DeallocateResourceClaim(*read).ok());
  ASSERT_TRUE(cluster_->UnreserveResourceClaim(*read, "nobody").ok());
  absl::StatusOr<api::ResourceClaim> reserved =
      cluster_->ReserveResourceClaim(*read, nullptr, {.resource = "pods", .name = "p", .uid = "p"});
  ASSERT_TRUE(reserved.ok()) << reserved.status();
  EXPECT_NE(reserved->metadata.resource_version, read->metadata.resource_version);
  // A write that changes it moves its version: the stale read is a conflict.
  EXPECT_EQ(cluster_->DeallocateResourceClaim(*read).code(), absl::StatusCode::kAlreadyExists);
}

// The resourceclaim controller's part once a pod is gone: its reservations go; a claim that no
// one uses any more is deallocated, one that another pod still uses keeps its allocation; the
// claim made for the pod from a template goes.
TEST_F(ClusterTest, AGonePodsClaimsAreReleased) {
  constexpr char kAllocated[] = R"(
    allocation: {devices: {results: [{request: gpu, driver: gpu.example.com, pool: n1, device: %s}]}}
)";
  Start(
      std::string(kOneGpuTemplate) + R"(---
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "8", memory: 8Gi, pods: "110"}}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: shared}
spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu}}]}}
status:)" +
      absl::StrFormat(kAllocated, "g0") +
      R"(    reservedFor: [{resource: pods, name: a, uid: default/a}, {resource: pods, name: b, uid: default/b}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: solo}
spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu}}]}}
status:)" +
      absl::StrFormat(kAllocated, "g1") +
      R"(    reservedFor: [{resource: pods, name: a, uid: default/a}]
---
apiVersion: v1
kind: Pod
metadata: {name: a}
spec: {nodeName: n1, containers: [{name: c, image: registry.k8s.io/pause:3.10}], resourceClaims: [{name: gpu, resourceClaimTemplateName: one-gpu}]}
---
apiVersion: v1
kind: Pod
metadata: {name: b}
spec: {nodeName: n1, containers: [{name: c, image: registry.k8s.io/pause:3.10}]}
)");
  const ObjectStore<api::ResourceClaim>& claims = scheduler_->listers().dra.resource_claims;
  ASSERT_EQ(claims.size(), 3u);  // shared, solo and a's from the template.
  ASSERT_TRUE(cluster_->DeletePod(*PodNamed("a")).ok());
  cluster_->Deliver(*scheduler_);

  EXPECT_EQ(claims.size(), 2u);  // a's own claim went.
  std::shared_ptr<const api::ResourceClaim> shared = claims.Get("default", "shared");
  ASSERT_EQ(shared->reserved_for.size(), 1u);
  EXPECT_EQ(shared->reserved_for[0].name, "b");
  EXPECT_TRUE(shared->allocation.has_value());
  std::shared_ptr<const api::ResourceClaim> solo = claims.Get("default", "solo");
  EXPECT_TRUE(solo->reserved_for.empty());
  EXPECT_FALSE(solo->allocation.has_value());
}

TEST_F(ClusterTest, VolumeBindingWritesAreCompletedAsThePvControllerWould) {
  Start(R"(
apiVersion: v1
kind: Node
metadata: {name: n1, labels: {kubernetes.io/hostname: n1}}
status: {allocatable: {cpu: "2", pods: "110"}}
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: local}
provisioner: kubernetes.io/no-provisioner
volumeBindingMode: WaitForFirstConsumer
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: pv-1}
spec: {capacity: {storage: 1Gi}, accessModes: [ReadWriteOnce], storageClassName: local, hostPath: {path: /data}}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data}
spec: {accessModes: [ReadWriteOnce], storageClassName: local, resources: {requests: {storage: 1Gi}}}
)");
  const StorageLister& storage = handle().storage();
  std::shared_ptr<const api::PersistentVolume> pv = storage.GetPersistentVolume("pv-1");
  std::shared_ptr<const api::PersistentVolumeClaim> claim =
      storage.GetPersistentVolumeClaim("default", "data");
  ASSERT_NE(pv, nullptr);
  ASSERT_NE(claim, nullptr);
  EXPECT_EQ(pv->phase, "Available");
  EXPECT_EQ(claim->phase, "Pending");
  EXPECT_EQ(claim->metadata.uid, "default/data");

  absl::StatusOr<api::PersistentVolume> written = cluster_->BindVolumeToClaim(*pv, *claim);
  ASSERT_TRUE(written.ok()) << written.status();
  EXPECT_EQ(written->claim_ref->name, "data");
  std::shared_ptr<const api::PersistentVolumeClaim> bound =
      storage.GetPersistentVolumeClaim("default", "data");
  EXPECT_EQ(bound->volume_name, "pv-1");
  EXPECT_EQ(bound->phase, "Bound");
  EXPECT_TRUE(bound->metadata.annotations.contains(api::kAnnBindCompleted));
  EXPECT_EQ(storage.GetPersistentVolume("pv-1")->phase, "Bound");

  // `pv` was read before the write: the API server would refuse it.
  absl::StatusOr<api::PersistentVolume> stale = cluster_->BindVolumeToClaim(*pv, *claim);
  EXPECT_EQ(stale.status().code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(cluster_->SetSelectedNode(*claim, "n1").status().code(),
            absl::StatusCode::kAlreadyExists);
}

}  // namespace
}  // namespace ksched::sim
