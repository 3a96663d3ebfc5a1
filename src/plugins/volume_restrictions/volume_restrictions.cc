#include "src/plugins/volume_restrictions/volume_restrictions.h"

#include <algorithm>
#include <set>
#include <string>

#include "fmt/format.h"
#include "src/plugins/helper/pod_volumes.h"
#include "src/plugins/helper/signers.h"

namespace ksched::plugins::volume_restrictions {
namespace {

bool NeedsCheck(const api::Volume& v) {
  return v.source == "gcePersistentDisk" || v.source == "awsElasticBlockStore" ||
         v.source == "rbd" || v.source == "iscsi";
}

bool Overlap(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  return std::any_of(a.begin(), a.end(),
                     [&](const auto& x) { return std::find(b.begin(), b.end(), x) != b.end(); });
}

// Whether `v` may not be mounted beside `existing`'s volumes (upstream's isVolumeConflict).
bool Conflicts(const api::Volume& v, const api::Pod& existing) {
  for (const api::Volume& e : existing.spec.volumes) {
    if (e.source != v.source || e.disk_id != v.disk_id) continue;
    const bool both_read_only = v.read_only && e.read_only;
    if (v.source == "awsElasticBlockStore") return true;
    if ((v.source == "gcePersistentDisk" || v.source == "iscsi") && !both_read_only) return true;
    if (v.source == "rbd" && Overlap(v.rbd_monitors, e.rbd_monitors) && !both_read_only) {
      return true;
    }
  }
  return false;
}

bool SatisfiesDiskConflicts(const api::Pod& pod, const NodeInfo& node) {
  for (const api::Volume& v : pod.spec.volumes) {
    if (!NeedsCheck(v)) continue;
    for (const auto& existing : node.pods()) {
      if (Conflicts(v, *existing->pod)) return false;
    }
  }
  return true;
}

struct RestrictionsState final : StateData {
  // The pod's claims with the ReadWriteOncePod access mode, by name.
  std::set<std::string, std::less<>> read_write_once_pod_claims;
  // How many of them pods placed or assumed (or added by a what-if) use.
  int conflicting_claim_refs = 0;

  // How many of `pod`'s claims are among ours (by name, as upstream counts them).
  int RefsOf(const api::Pod& pod) const {
    return static_cast<int>(
        std::count_if(pod.spec.volumes.begin(), pod.spec.volumes.end(), [&](const api::Volume& v) {
          return v.source == "persistentVolumeClaim" &&
                 read_write_once_pod_claims.contains(v.claim_name);
        }));
  }
  std::unique_ptr<StateData> Clone() const override {
    return std::make_unique<RestrictionsState>(*this);
  }
};
inline constexpr StateKey<RestrictionsState> kStateKey{"PreFilterVolumeRestrictions",
                                                       StateScope::kSchedulingCycle};

}  // namespace

Status VolumeRestrictions::PreFilter(CycleState& state, const api::Pod& pod,
                                     const std::vector<const NodeInfo*>&, PreFilterResult*) {
  const bool needs_check =
      std::any_of(pod.spec.volumes.begin(), pod.spec.volumes.end(), NeedsCheck);
  if (!needs_check && !helper::HasClaimVolume(pod))
    return Status::Skip();  // Most pods: nothing to allocate.
  auto s = std::make_unique<RestrictionsState>();
  const std::string& ns = pod.metadata.namespace_;
  for (const api::Volume& v : pod.spec.volumes) {
    if (v.source != "persistentVolumeClaim") continue;
    auto pvc = handle_.storage().GetPersistentVolumeClaim(ns, v.claim_name);
    if (!pvc) {
      return Status::UnschedulableAndUnresolvable(
          helper::NotFound(handle_.storage(), "persistentVolumeClaim", ns, v.claim_name));
    }
    const auto& modes = pvc->access_modes;
    if (std::find(modes.begin(), modes.end(), "ReadWriteOncePod") != modes.end()) {
      s->read_write_once_pod_claims.insert(pvc->metadata.name);
    }
  }
  // Upstream's StorageInfos().IsPVCUsedByPods: whether any pod of the snapshot uses the claim.
  if (!s->read_write_once_pod_claims.empty()) {
    std::set<std::string, std::less<>> used;
    for (const NodeInfo* ni : handle_.snapshot().nodes()) {
      for (const auto& p : ni->pods()) {
        if (p->pod->metadata.namespace_ != ns) continue;
        for (const api::Volume& v : p->pod->spec.volumes) {
          if (v.source == "persistentVolumeClaim") used.insert(v.claim_name);
        }
      }
    }
    for (const std::string& claim : s->read_write_once_pod_claims) {
      s->conflicting_claim_refs += used.contains(claim) ? 1 : 0;
    }
  }
  if (!needs_check && s->conflicting_claim_refs == 0) return Status::Skip();
  state.Write(kStateKey, std::move(s));
  return Status();
}

Status VolumeRestrictions::AddPod(CycleState& state, const api::Pod&, const PodInfo& pod_to_add,
                                  const NodeInfo&) {
  RestrictionsState* s = state.ReadMutable(kStateKey);
  if (s == nullptr)
    return Status::Error("cannot read \"PreFilterVolumeRestrictions\" from cycleState");
  s->conflicting_claim_refs += s->RefsOf(*pod_to_add.pod);
  return Status();
}

Status VolumeRestrictions::RemovePod(CycleState& state, const api::Pod&,
                                     const PodInfo& pod_to_remove, const NodeInfo&) {
  RestrictionsState* s = state.ReadMutable(kStateKey);
  if (s == nullptr)
    return Status::Error("cannot read \"PreFilterVolumeRestrictions\" from cycleState");
  s->conflicting_claim_refs -= s->RefsOf(*pod_to_remove.pod);
  return Status();
}

Status VolumeRestrictions::Filter(const CycleState& state, const api::Pod& pod,
                                  const NodeInfo& node) {
  if (!SatisfiesDiskConflicts(pod, node)) {
    return Status::Unschedulable(kErrReasonDiskConflict);
  }
  const RestrictionsState* s = state.Read(kStateKey);
  if (s == nullptr)
    return Status::Error("cannot read \"PreFilterVolumeRestrictions\" from cycleState");
  if (s->conflicting_claim_refs > 0) {
    return Status::Unschedulable(kErrReasonReadWriteOncePodConflict);
  }
  return Status();
}

std::vector<ClusterEventWithHint> VolumeRestrictions::EventsToRegister() const {
  auto pod_deleted = [](const api::Pod& pod, const ClusterEventData& e) {
    const api::Pod* deleted = e.old_pod;
    if (deleted == nullptr || deleted->metadata.namespace_ != pod.metadata.namespace_) {
      return QueueingHint::kQueueSkip;
    }
    for (const api::Volume& v : pod.spec.volumes) {
      if (NeedsCheck(v) && Conflicts(v, *deleted)) return QueueingHint::kQueue;
    }
    for (const api::Volume& v : pod.spec.volumes) {
      if (v.source != "persistentVolumeClaim") continue;
      for (const api::Volume& d : deleted->spec.volumes) {
        if (d.source == "persistentVolumeClaim" && d.claim_name == v.claim_name) {
          return QueueingHint::kQueue;
        }
      }
    }
    return QueueingHint::kQueueSkip;
  };
  auto claim_added = [](const api::Pod& pod, const ClusterEventData& e) {
    const api::PersistentVolumeClaim* pvc = e.storage.pvc.new_obj;
    return pvc != nullptr && helper::NamesClaim(pod, *pvc) ? QueueingHint::kQueue
                                                           : QueueingHint::kQueueSkip;
  };
  return {
      {{EventResource::kPod, kDelete}, pod_deleted},
      {{EventResource::kNode, kAdd}, nullptr},
      {{EventResource::kPersistentVolumeClaim, kAdd}, claim_added},
  };
}

Status VolumeRestrictions::SignPod(const api::Pod& pod, std::vector<SignFragment>* out) const {
  out->push_back({helper::kVolumesSigner, helper::SignVolumes(pod)});
  return Status();
}

absl::StatusOr<std::unique_ptr<Plugin>> New(const PluginArgs&, Handle& handle) {
  return std::make_unique<VolumeRestrictions>(handle);
}

}  // namespace ksched::plugins::volume_restrictions
