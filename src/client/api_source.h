// ApiSource: feeds a ClusterEventSink (the scheduler) from a real cluster, as kube-scheduler's
// informers do for its event handlers. Terminal pods are not
// watched at all (field selector status.phase!=Succeeded,status.phase!=Failed, as upstream).
// Namespaces, PriorityClasses, Services, ReplicationControllers, ReplicaSets, StatefulSets,
// PodDisruptionBudgets and the storage objects are kept for plugins (Handle::GetNamespace,
// ListServices, storage, ...), as kube-scheduler's informers keep them for PodTopologySpread,
// preemption and the volume plugins: their reflectors' copies are the sink's listers. The DRA
// objects kube-scheduler watches (DeviceClasses, ResourceSlices, ResourceClaims; not templates,
// whose claims the resourceclaim controller makes) are kept too. Like kube-scheduler
// (WaitForCacheSync on every informer it started), ksched is not ready until all have synced,
// but for the kinds the table calls optional (src/api/kinds.h, with why: PriorityClasses, which
// system:kube-scheduler may not list, and the DRA kinds, which a cluster may not serve): a 403 or
// 404 is logged once and ksched goes on without them, trying again with backoff.
//
//   ApiSource source(http, sink, writer);
//   source.Start();
//   if (!source.WaitForSync(absl::Minutes(1))) ...   // /readyz stays false until then
//
// A pod that cannot be decoded is left out and, if it waits for one of our profiles, gets a
// Warning FailedScheduling event that says why; the scheduler goes on.
//
// Thread safety: Start/Stop/WaitForSync/HasSynced from any thread. The sink is called from the
// reflectors' threads.
#pragma once

#include <tuple>

#include "ksched/cluster_writer.h"
#include "src/api/event_sink.h"
#include "src/client/reflector.h"

namespace ksched::client {

class ApiSource {
 public:
  ApiSource(HttpClient& http, ClusterEventSink& sink, ClusterWriter& writer);

  void Start();
  void Stop();
  bool WaitForSync(absl::Duration timeout);
  bool HasSynced();
  // Pods listed afresh, with a consistent read (Reflector::Resync); false after `timeout`. A
  // replica that has just become leader calls it before it schedules.
  bool ResyncPods(absl::Duration timeout) { return pods_.Resync(timeout); }

 private:
  // Every reflector, in the order they start: what plugins look up first, then nodes, then pods.
  auto Reflectors() {
    return std::tie(namespaces_, priority_classes_, services_, replication_controllers_,
                    replica_sets_, stateful_sets_, pod_disruption_budgets_, storage_classes_,
                    csi_drivers_, csi_nodes_, csi_storage_capacities_, volume_attachments_,
                    device_classes_, resource_slices_, resource_claims_, pvs_, pvcs_, nodes_,
                    pods_);
  }

  ClusterEventSink& sink_;
  ClusterWriter& writer_;
  Reflector<api::Node> nodes_;
  Reflector<api::Pod> pods_;
  Reflector<api::Namespace> namespaces_;
  Reflector<api::PriorityClass> priority_classes_;
  Reflector<api::Service> services_;
  Reflector<api::ReplicationController> replication_controllers_;
  Reflector<api::ReplicaSet> replica_sets_;
  Reflector<api::StatefulSet> stateful_sets_;
  Reflector<api::PodDisruptionBudget> pod_disruption_budgets_;
  Reflector<api::PersistentVolume> pvs_;
  Reflector<api::PersistentVolumeClaim> pvcs_;
  Reflector<api::StorageClass> storage_classes_;
  Reflector<api::CSINode> csi_nodes_;
  Reflector<api::CSIDriver> csi_drivers_;
  Reflector<api::CSIStorageCapacity> csi_storage_capacities_;
  Reflector<api::VolumeAttachment> volume_attachments_;
  Reflector<api::DeviceClass> device_classes_;
  Reflector<api::ResourceSlice> resource_slices_;
  Reflector<api::ResourceClaim> resource_claims_;
};

}  // namespace ksched::client
