#include "src/sim/cluster.h"

#include <algorithm>
#include <utility>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "fmt/format.h"
#include "ksched/api/field.h"
#include "ksched/status_macros.h"
#include "ksched/strings.h"
#include "nlohmann/json.hpp"
#include "src/sim/claims.h"
#include "src/sim/disruption.h"
#include "src/sim/volumes.h"

namespace ksched::sim {

namespace {

// The API server's condition on a pod created with scheduling gates, unless it has a PodScheduled
// condition already (kube-apiserver's applySchedulingGatedCondition).
void MarkSchedulingGated(api::Pod& pod) {
  if (pod.spec.scheduling_gates.empty()) return;
  for (const api::PodCondition& c : pod.status.conditions) {
    if (c.type == "PodScheduled") return;
  }
  pod.status.conditions.push_back({.type = "PodScheduled",
                                   .status = "False",
                                   .reason = "SchedulingGated",
                                   .message = std::string(kSchedulingGatedMessage)});
}

// A namespaced object without a namespace is in "default", as kubectl would create it.
void DefaultNamespace(api::Object& o) {
  if (!api::IsNamespaced(o)) return;
  api::ObjectMeta& m = std::visit([](auto& obj) -> api::ObjectMeta& { return obj.metadata; }, o);
  if (m.namespace_.empty()) m.namespace_ = "default";
}

// The object's JSON, kept for the extenders (api::KeepObjectJson), with what the API server's copy
// would say and the manifest need not: its namespace and UID, and a pod's node (`node_name`,
// unless null), which the cluster gave it.
std::shared_ptr<const std::string> Stamped(const std::shared_ptr<const std::string>& json,
                                           const api::ObjectMeta& m, const std::string* node_name) {
  if (json == nullptr) return nullptr;
  nlohmann::json j = nlohmann::json::parse(*json, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return json;
  nlohmann::json& meta = j["metadata"];
  meta["name"] = m.name;
  if (!m.namespace_.empty()) meta["namespace"] = m.namespace_;
  if (!m.uid.empty()) meta["uid"] = m.uid;
  if (node_name != nullptr && !node_name->empty()) {
    j["spec"]["nodeName"] = *node_name;
  } else if (node_name != nullptr && j.contains("spec") && j["spec"].is_object()) {
    j["spec"].erase("nodeName");
  }
  return std::make_shared<const std::string>(j.dump());
}

// Moves the object out of `o` to the end of `out` if it is a T.
template <typename T>
bool Take(api::Object& o, std::vector<std::shared_ptr<const T>>& out) {
  T* obj = std::get_if<T>(&o);
  if (obj != nullptr) out.push_back(std::make_shared<const T>(std::move(*obj)));
  return obj != nullptr;
}

// Sets each object in the sink's listers, as an informer's first list does, and tells the sink of
// each, if plugins hear of the kind.
template <typename T>
void SetAll(const std::vector<std::shared_ptr<const T>>& objects, ClusterEventSink& s) {
  for (const auto& o : objects) SetObject(s, o);
}

}  // namespace

Cluster::Cluster(std::vector<api::Object> objects) {
  absl::MutexLock lock(&mu_);
  for (api::Object& o : objects) {
    DefaultNamespace(o);
    if (auto* claim = std::get_if<api::ResourceClaim>(&o)) AttachDevices(*claim);
    if (auto* pvc = std::get_if<api::PersistentVolumeClaim>(&o)) {
      if (pvc->phase.empty()) pvc->phase = "Pending";
      if (pvc->metadata.uid.empty()) {
        pvc->metadata.uid = pvc->metadata.namespace_ + "/" + pvc->metadata.name;
      }
    }
    if (auto* group = std::get_if<api::PodGroup>(&o); group && group->metadata.uid.empty()) {
      // As a pod's: what a preemption's victims' events name.
      group->metadata.uid = "podgroup/" + group->metadata.namespace_ + "/" + group->metadata.name;
    }
    if (auto* node = std::get_if<api::Node>(&o)) {
      node->json = Stamped(node->json, node->metadata, nullptr);
    }
    if (auto* pv = std::get_if<api::PersistentVolume>(&o); pv && pv->phase.empty()) {
      pv->phase = pv->claim_ref ? "Bound" : "Available";
    }
    if (Take(o, nodes_) || Take(o, pvs_) || Take(o, pvcs_) || Take(o, resource_claims_) ||
        api::ForEachKind([&]<typename T>() {
          if constexpr (kAsGiven<T>) {
            return Take(o, std::get<std::vector<std::shared_ptr<const T>>>(as_given_));
          } else {
            return false;
          }
        })) {
      continue;
    }
    if (auto* pdb = std::get_if<api::PodDisruptionBudget>(&o)) {
      const bool computed = !pdb->has_status;
      pdb->has_status = true;
      budgets_.push_back({.pdb = std::make_shared<const api::PodDisruptionBudget>(std::move(*pdb)),
                          .computed = computed});
    } else if (auto* pod = std::get_if<api::Pod>(&o)) {
      if (pod->spec.scheduler_name.empty()) pod->spec.scheduler_name = "default-scheduler";
      if (pod->metadata.uid.empty()) {
        pod->metadata.uid = pod->metadata.namespace_ + "/" + pod->metadata.name;
      }
      if (!pod->spec.node_name.empty() && pod->status.phase.empty()) pod->status.phase = "Running";
      if (pod->spec.node_name.empty() && pod->status.phase.empty()) pod->status.phase = "Pending";
      MarkSchedulingGated(*pod);
      pod->json = Stamped(pod->json, pod->metadata, &pod->spec.node_name);
      pod_index_[pod->metadata.uid] = pods_.size();
      pods_.push_back(std::make_shared<const api::Pod>(std::move(*pod)));
    }
  }
  MakeTemplateClaims();
  // What the PV controller does first: a claim that names its PV, and a PV whose claimRef names
  // a claim, are bound to each other.
  for (auto& pvc : pvcs_) {
    if (pvc->metadata.annotations.contains(api::kAnnBindCompleted)) continue;
    for (auto& pv : pvs_) {
      const bool claimed = api::IsVolumeBoundToClaim(*pv, *pvc);
      if (!(pvc->volume_name == pv->metadata.name && (!pv->claim_ref || claimed)) &&
          !(pvc->volume_name.empty() && claimed)) {
        continue;
      }
      api::PersistentVolume named = *pv;
      named.claim_ref = api::ClaimReference(*pvc);
      BoundClaim bound = CompleteBinding(named, *pvc, pv->metadata.resource_version);
      pv = std::move(bound.pv);
      pvc = std::move(bound.claim);
      break;
    }
  }
  for (const auto& pod : pods_) CountPod(nullptr, pod.get());
  for (Budget& b : budgets_) b.changed = false;  // Start hands them all over.
}

void Cluster::MakeTemplateClaims() {
  auto template_named = [&](const std::string& ns,
                            const std::string& name) -> const api::ResourceClaimTemplate* {
    for (const auto& t : Given<api::ResourceClaimTemplate>()) {
      if (t->metadata.namespace_ == ns && t->metadata.name == name) return t.get();
    }
    return nullptr;  // The controller cannot make it.
  };
  auto made = [](const std::vector<api::PodResourceClaimStatus>& statuses,
                 const std::string& name) {
    return std::any_of(statuses.begin(), statuses.end(),
                       [&](const auto& st) { return st.name == name; });
  };
  // A PodGroup's claims first (DRAWorkloadResourceClaims; without it simulate dropped them).
  for (std::shared_ptr<const api::PodGroup>& group :
       std::get<std::vector<std::shared_ptr<const api::PodGroup>>>(as_given_)) {
    std::optional<api::PodGroup> updated;
    for (const api::PodResourceClaim& gc : group->resource_claims) {
      if (!gc.resource_claim_template_name || made(group->resource_claim_statuses, gc.name)) {
        continue;
      }
      const api::ResourceClaimTemplate* tmpl =
          template_named(group->metadata.namespace_, *gc.resource_claim_template_name);
      if (tmpl == nullptr) continue;
      auto claim = std::make_shared<const api::ResourceClaim>(ClaimFromTemplate(*group, gc, *tmpl));
      if (!updated) updated = *group;
      updated->resource_claim_statuses.push_back(
          {.name = gc.name, .resource_claim_name = claim->metadata.name});
      resource_claims_.push_back(std::move(claim));
    }
    if (updated) group = std::make_shared<const api::PodGroup>(*std::move(updated));
  }
  // The claim a pod's entry gets from its group, where the group has the same entry.
  auto group_claim = [&](const api::Pod& pod,
                         const api::PodResourceClaim& pc) -> std::optional<std::string> {
    if (!pod.spec.pod_group_name) return std::nullopt;
    for (const auto& group : Given<api::PodGroup>()) {
      if (group->metadata.namespace_ != pod.metadata.namespace_ ||
          group->metadata.name != *pod.spec.pod_group_name) {
        continue;
      }
      for (const api::PodResourceClaimStatus& st : group->resource_claim_statuses) {
        const auto& gcs = group->resource_claims;
        const bool same = std::any_of(gcs.begin(), gcs.end(), [&](const auto& gc) {
          return gc.name == pc.name && gc.name == st.name &&
                 gc.resource_claim_template_name == pc.resource_claim_template_name &&
                 !gc.resource_claim_name;
        });
        if (same) return st.resource_claim_name;
      }
    }
    return std::nullopt;
  };
  for (std::shared_ptr<const api::Pod>& pod : pods_) {
    std::optional<api::Pod> updated;
    for (const api::PodResourceClaim& pc : pod->spec.resource_claims) {
      if (!pc.resource_claim_template_name || made(pod->status.resource_claim_statuses, pc.name)) {
        continue;
      }
      std::optional<std::string> name = group_claim(*pod, pc);
      if (!name) {
        const api::ResourceClaimTemplate* tmpl =
            template_named(pod->metadata.namespace_, *pc.resource_claim_template_name);
        if (tmpl == nullptr) continue;
        auto claim = std::make_shared<const api::ResourceClaim>(ClaimFromTemplate(*pod, pc, *tmpl));
        name = claim->metadata.name;
        resource_claims_.push_back(std::move(claim));
      }
      if (!updated) updated = *pod;
      updated->status.resource_claim_statuses.push_back(
          {.name = pc.name, .resource_claim_name = std::move(name)});
    }
    if (updated) pod = std::make_shared<const api::Pod>(*std::move(updated));
  }
}

void Cluster::Start(ClusterEventSink& s, bool hold_pending) {
  api::ForEachKind([&]<typename T>() {
    if constexpr (kAsGiven<T>) SetAll(Given<T>(), s);
  });
  SetAll(PodDisruptionBudgets(), s);
  SetAll(resource_claims_, s);
  sink_ = &s;
  SetAll(PersistentVolumes(), s);
  SetAll(PersistentVolumeClaims(), s);
  for (const auto& node : nodes_) s.OnNodeAdd(node);
  std::vector<std::shared_ptr<const api::Pod>> pods = Pods();
  for (const auto& pod : pods) {
    if (!pod->spec.node_name.empty()) s.OnPodAdd(pod);
  }
  for (const auto& pod : pods) {
    if (!pod->spec.node_name.empty()) continue;
    if (hold_pending) {
      held_.push_back(pod);
    } else {
      s.OnPodAdd(pod);
    }
  }
  // Queue order, reversed: the next pod at the back.
  std::stable_sort(held_.begin(), held_.end(), [](const auto& a, const auto& b) {
    return api::PodPriority(*a) > api::PodPriority(*b);
  });
  std::reverse(held_.begin(), held_.end());
}

bool Cluster::AddNextPod(ClusterEventSink& s) {
  if (held_.empty()) return false;
  std::vector<std::shared_ptr<const api::Pod>> given = {std::move(held_.back())};
  held_.pop_back();
  // The pods of a pod group that come next, with it, as a Job's are created.
  const api::Pod& first = *given.front();
  while (first.spec.pod_group_name && !held_.empty() &&
         held_.back()->spec.pod_group_name == first.spec.pod_group_name &&
         held_.back()->metadata.namespace_ == first.metadata.namespace_) {
    given.push_back(std::move(held_.back()));
    held_.pop_back();
  }
  for (auto& pod : given) s.OnPodAdd(std::move(pod));
  return true;
}

void Cluster::Deliver(ClusterEventSink& s) {
  std::vector<Change> changes;
  std::vector<std::shared_ptr<const api::PodDisruptionBudget>> budgets;
  {
    absl::MutexLock lock(&mu_);
    changes.swap(pending_);
    for (Budget& b : budgets_) {
      if (std::exchange(b.changed, false)) budgets.push_back(b.pdb);
    }
  }
  for (Change& c : changes) {
    if (c.pod) {
      s.OnPodUpdate(c.old_pod, std::move(c.pod));
    } else {
      s.OnPodDelete(c.old_pod);
      ReleaseClaims(s, *c.old_pod);
    }
  }
  // As the disruption controller would write them once it saw the pods change.
  for (auto& pdb : budgets) s.listers().pod_disruption_budgets.Set(std::move(pdb));
}

void Cluster::ReleaseClaims(ClusterEventSink& s, const api::Pod& pod) {
  std::vector<std::shared_ptr<const api::ResourceClaim>> changed, deleted;
  {
    absl::MutexLock lock(&mu_);
    for (auto it = resource_claims_.begin(); it != resource_claims_.end();) {
      const api::ResourceClaim& claim = **it;
      const std::vector<api::OwnerReference>& owners = claim.metadata.owner_references;
      if (std::any_of(owners.begin(), owners.end(),
                      [&](const auto& o) { return o.controller && o.uid == pod.metadata.uid; })) {
        deleted.push_back(std::move(*it));
        it = resource_claims_.erase(it);
        continue;
      }
      auto reserved = [&](const auto& r) { return r.uid == pod.metadata.uid; };
      if (std::any_of(claim.reserved_for.begin(), claim.reserved_for.end(), reserved)) {
        api::ResourceClaim released = claim;
        std::erase_if(released.reserved_for, reserved);
        if (released.reserved_for.empty()) {
          released.allocation.reset();
          released.devices.clear();
        }
        released.metadata.resource_version = std::to_string(++storage_version_);
        *it = std::make_shared<const api::ResourceClaim>(std::move(released));
        changed.push_back(*it);
      }
      ++it;
    }
  }
  for (auto& claim : changed) SetObject(s, std::move(claim));
  for (const auto& claim : deleted) RemoveObject(s, *claim);
}

absl::StatusOr<std::shared_ptr<const api::Pod>*> Cluster::StoredPod(const api::Pod& pod) {
  auto it = pod_index_.find(pod.metadata.uid);
  if (it == pod_index_.end()) {
    return absl::NotFoundError(fmt::format("pods \"{}\" not found", pod.metadata.name));
  }
  return &pods_[it->second];
}

absl::Status Cluster::DeletePod(const api::Pod& pod) {
  absl::MutexLock lock(&mu_);
  absl::StatusOr<std::shared_ptr<const api::Pod>*> stored = StoredPod(pod);
  if (!stored.ok()) return stored.status();
  std::shared_ptr<const api::Pod> gone = std::move(**stored);
  pod_index_.erase(pod.metadata.uid);
  CountPod(gone.get(), nullptr);
  evicted_.push_back(gone);
  pending_.push_back({std::move(gone), nullptr});
  return absl::OkStatus();
}

void Cluster::CountPod(const api::Pod* old_pod, const api::Pod* pod) {
  for (Budget& b : budgets_) {
    if (!b.computed) continue;
    for (auto [p, sign] : {std::pair{old_pod, -1}, std::pair{pod, 1}}) {
      if (p == nullptr || !Selects(*b.pdb, *p)) continue;
      b.pods += sign;
      b.healthy += IsHealthy(*p) ? sign : 0;
    }
    int32_t allowed = DisruptionsAllowed(*b.pdb, b.pods, b.healthy);
    if (allowed == b.pdb->disruptions_allowed) continue;
    auto updated = std::make_shared<api::PodDisruptionBudget>(*b.pdb);
    updated->disruptions_allowed = allowed;
    b.pdb = std::move(updated);
    b.changed = true;
  }
}

std::vector<std::shared_ptr<const api::Pod>> Cluster::Pods() const {
  absl::MutexLock lock(&mu_);
  std::vector<std::shared_ptr<const api::Pod>> out;
  out.reserve(pod_index_.size());
  for (const auto& pod : pods_) {
    if (pod) out.push_back(pod);
  }
  return out;
}

std::vector<std::shared_ptr<const api::PodDisruptionBudget>> Cluster::PodDisruptionBudgets() const {
  absl::MutexLock lock(&mu_);
  std::vector<std::shared_ptr<const api::PodDisruptionBudget>> out;
  out.reserve(budgets_.size());
  for (const Budget& b : budgets_) out.push_back(b.pdb);
  return out;
}

namespace {

// The object of `objects` with the name (and namespace) of `obj`.
template <typename T>
std::shared_ptr<const T>* Find(std::vector<std::shared_ptr<const T>>& objects, const T& obj) {
  auto it = std::find_if(objects.begin(), objects.end(), [&](const auto& o) {
    return o->metadata.name == obj.metadata.name &&
           o->metadata.namespace_ == obj.metadata.namespace_;
  });
  return it == objects.end() ? nullptr : &*it;
}

// The API server's answer to a write of `obj` (read at `read`): NotFound, or a conflict if the
// object changed since.
template <typename T>
absl::Status CheckWrite(const std::shared_ptr<const T>* current, const T& read,
                        std::string_view resource) {
  if (current == nullptr) {
    return absl::NotFoundError(fmt::format("{} \"{}\" not found", resource, read.metadata.name));
  }
  if ((*current)->metadata.resource_version != read.metadata.resource_version) {
    return absl::AlreadyExistsError(fmt::format(
        "Operation cannot be fulfilled on {} \"{}\": the object has been modified; please apply "
        "your changes to the latest version and try again",
        resource, read.metadata.name));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<api::PersistentVolume> Cluster::BindVolumeToClaim(
    const api::PersistentVolume& pv, const api::PersistentVolumeClaim& claim) {
  BoundClaim bound;
  api::PersistentVolume written;
  {
    absl::MutexLock lock(&mu_);
    std::shared_ptr<const api::PersistentVolume>* current = Find(pvs_, pv);
    KSCHED_RETURN_IF_ERROR(CheckWrite(current, pv, "persistentvolumes"));
    std::shared_ptr<const api::PersistentVolumeClaim>* current_claim = Find(pvcs_, claim);
    if (current_claim == nullptr) {
      return absl::NotFoundError(
          fmt::format("persistentvolumeclaims \"{}\" not found", claim.metadata.name));
    }
    written = **current;
    written.claim_ref = api::ClaimReference(claim);
    if (auto it = pv.metadata.annotations.find(api::kAnnBoundByController);
        it != pv.metadata.annotations.end()) {
      written.metadata.annotations.insert(*it);
    }
    written.metadata.resource_version = std::to_string(++storage_version_);
    bound = CompleteBinding(written, **current_claim, std::to_string(++storage_version_));
    *current = bound.pv;
    *current_claim = bound.claim;
  }
  TellBound(bound);
  return written;
}

absl::StatusOr<api::PersistentVolumeClaim> Cluster::SetSelectedNode(
    const api::PersistentVolumeClaim& claim, std::string_view node) {
  BoundClaim bound;
  api::PersistentVolumeClaim written;
  {
    absl::MutexLock lock(&mu_);
    std::shared_ptr<const api::PersistentVolumeClaim>* current = Find(pvcs_, claim);
    KSCHED_RETURN_IF_ERROR(CheckWrite(current, claim, "persistentvolumeclaims"));
    written = **current;
    written.metadata.annotations[api::kAnnSelectedNode] = std::string(node);
    written.metadata.resource_version = std::to_string(++storage_version_);
    const auto& classes = Given<api::StorageClass>();
    auto sc = std::find_if(classes.begin(), classes.end(), [&](const auto& c) {
      return c->metadata.name == api::StorageClassOf(written);
    });
    auto n = std::find_if(nodes_.begin(), nodes_.end(),
                          [&](const auto& x) { return x->metadata.name == node; });
    if (sc == classes.end() || n == nodes_.end()) {
      *current = std::make_shared<const api::PersistentVolumeClaim>(written);
      bound.claim = *current;  // Nobody provisions it.
    } else {
      const auto& csi_nodes = Given<api::CSINode>();
      auto csi = std::find_if(csi_nodes.begin(), csi_nodes.end(),
                              [&](const auto& c) { return c->metadata.name == node; });
      bound = Provision(written, **sc, **n, csi == csi_nodes.end() ? nullptr : csi->get(),
                        std::to_string(++storage_version_));
      *current = bound.claim;
      pvs_.push_back(bound.pv);
    }
  }
  TellBound(bound);
  return written;
}

void Cluster::TellBound(const BoundClaim& bound) {
  if (sink_ == nullptr) return;
  if (bound.pv) SetObject(*sink_, bound.pv);
  SetObject(*sink_, bound.claim);
}

absl::StatusOr<api::ResourceClaim> Cluster::WriteClaim(
    const api::ResourceClaim& read, bool check_version,
    const std::function<bool(api::ResourceClaim&)>& change) {
  std::shared_ptr<const api::ResourceClaim> written;
  {
    absl::MutexLock lock(&mu_);
    std::shared_ptr<const api::ResourceClaim>* current = Find(resource_claims_, read);
    if (check_version) {
      KSCHED_RETURN_IF_ERROR(CheckWrite(current, read, "resourceclaims.resource.k8s.io"));
    } else if (current == nullptr) {
      return absl::NotFoundError(
          fmt::format("resourceclaims.resource.k8s.io \"{}\" not found", read.metadata.name));
    }
    api::ResourceClaim claim = **current;
    if (!change(claim)) return claim;
    claim.metadata.resource_version = std::to_string(++storage_version_);
    written = std::make_shared<const api::ResourceClaim>(std::move(claim));
    *current = written;
  }
  if (sink_ != nullptr) SetObject(*sink_, written);
  return *written;
}

void Cluster::AttachDevices(api::ResourceClaim& claim) {
  if (!claim.allocation) return;
  for (const api::DeviceRequestAllocationResult& r : claim.allocation->results) {
    if (r.binding_conditions.empty()) continue;
    auto same = [&](const api::AllocatedDeviceStatus& d) {
      return d.driver == r.driver && d.pool == r.pool && d.device == r.device;
    };
    if (std::any_of(claim.devices.begin(), claim.devices.end(), same)) continue;
    api::AllocatedDeviceStatus status{
        .driver = r.driver, .pool = r.pool, .device = r.device, .share_id = r.share_id};
    for (const std::string& type : r.binding_conditions) {
      status.conditions.push_back({.type = type,
                                   .status = "True",
                                   .reason = "Simulated",
                                   .message = "ksched simulate attaches devices at once"});
    }
    claim.devices.push_back(std::move(status));
  }
}

absl::StatusOr<api::ResourceClaim> Cluster::ReserveResourceClaim(
    const api::ResourceClaim& claim, const api::AllocationResult* allocation,
    const api::ResourceClaimConsumerReference& consumer) {
  return WriteClaim(claim, /*check_version=*/true, [&](api::ResourceClaim& c) {
    if (allocation != nullptr) {
      c.allocation = *allocation;
    } else if (c.allocation && c.allocation->allocation_timestamp.empty()) {
      c.allocation->allocation_timestamp = api::field::MetaTime(absl::Now());
    }
    c.reserved_for.push_back(consumer);
    AttachDevices(c);
    return true;
  });
}

absl::Status Cluster::UnreserveResourceClaim(const api::ResourceClaim& claim,
                                             std::string_view consumer_uid) {
  return WriteClaim(claim, /*check_version=*/false,
                    [&](api::ResourceClaim& c) {
                      return std::erase_if(c.reserved_for, [&](const auto& r) {
                               return r.uid == consumer_uid;
                             }) > 0;
                    })
      .status();
}

absl::Status Cluster::DeallocateResourceClaim(const api::ResourceClaim& claim) {
  return WriteClaim(claim, /*check_version=*/true,
                    [](api::ResourceClaim& c) {
                      const bool changed =
                          c.allocation || !c.reserved_for.empty() || !c.devices.empty();
                      c.allocation.reset();
                      c.reserved_for.clear();
                      c.devices.clear();
                      return changed;
                    })
      .status();
}

absl::StatusOr<api::ResourceClaim> Cluster::CreateResourceClaim(const api::ResourceClaim& claim) {
  std::shared_ptr<const api::ResourceClaim> created;
  {
    absl::MutexLock lock(&mu_);
    api::ResourceClaim c = claim;
    c.metadata.name = fmt::format("{}{:05}", claim.metadata.generate_name, ++created_claims_);
    c.metadata.generate_name.clear();
    c.metadata.uid = c.metadata.namespace_ + "/" + c.metadata.name;
    c.metadata.resource_version = std::to_string(++storage_version_);
    created = std::make_shared<const api::ResourceClaim>(std::move(c));
    resource_claims_.push_back(created);
  }
  if (sink_ != nullptr) SetObject(*sink_, created);
  return *created;
}

absl::Status Cluster::DeleteResourceClaim(const api::ResourceClaim& claim) {
  std::shared_ptr<const api::ResourceClaim> gone;
  {
    absl::MutexLock lock(&mu_);
    std::shared_ptr<const api::ResourceClaim>* current = Find(resource_claims_, claim);
    if (current == nullptr) return absl::OkStatus();
    gone = *current;
    std::erase(resource_claims_, gone);
  }
  if (sink_ != nullptr) RemoveObject(*sink_, *gone);
  return absl::OkStatus();
}

absl::Status Cluster::SetExtendedResourceClaimStatus(
    const api::Pod& pod, const api::PodExtendedResourceClaimStatus& status) {
  absl::MutexLock lock(&mu_);
  absl::StatusOr<std::shared_ptr<const api::Pod>*> stored = StoredPod(pod);
  if (!stored.ok()) return stored.status();
  std::shared_ptr<const api::Pod>& current = **stored;
  auto updated = std::make_shared<api::Pod>(*current);
  updated->status.extended_resource_claim_status = status;
  pending_.push_back({current, updated});
  current = std::move(updated);
  return absl::OkStatus();
}

std::vector<std::shared_ptr<const api::PersistentVolume>> Cluster::PersistentVolumes() const {
  absl::MutexLock lock(&mu_);
  return pvs_;
}

std::vector<std::shared_ptr<const api::PersistentVolumeClaim>> Cluster::PersistentVolumeClaims()
    const {
  absl::MutexLock lock(&mu_);
  return pvcs_;
}

std::vector<std::shared_ptr<const api::Pod>> Cluster::Evicted() const {
  absl::MutexLock lock(&mu_);
  return evicted_;
}

std::vector<RecordedEvent> Cluster::Events() const {
  absl::MutexLock lock(&mu_);
  return events_;
}

absl::Status Cluster::Bind(const api::Pod& pod, std::string_view node_name) {
  absl::MutexLock lock(&mu_);
  absl::StatusOr<std::shared_ptr<const api::Pod>*> stored = StoredPod(pod);
  if (!stored.ok()) return stored.status();
  std::shared_ptr<const api::Pod>& current = **stored;
  if (!current->spec.node_name.empty()) {
    return absl::AlreadyExistsError(fmt::format("pod {} is already assigned to node \"{}\"",
                                                pod.metadata.name, current->spec.node_name));
  }
  auto bound = std::make_shared<api::Pod>(*current);
  bound->spec.node_name = std::string(node_name);
  bound->json = Stamped(bound->json, bound->metadata, &bound->spec.node_name);
  bound->status.phase = "Running";
  std::erase_if(bound->status.conditions, [](const auto& c) { return c.type == "PodScheduled"; });
  bound->status.conditions.push_back({.type = "PodScheduled", .status = "True"});
  CountPod(current.get(), bound.get());
  pending_.push_back({current, bound});
  current = std::move(bound);
  return absl::OkStatus();
}

void Cluster::RecordEvent(const api::Pod& pod, std::string_view type, std::string_view reason,
                          std::string_view action, std::string message) {
  absl::MutexLock lock(&mu_);
  events_.push_back({pod.metadata.namespace_, pod.metadata.name, std::string(type),
                     std::string(reason), std::string(action), std::move(message)});
}

absl::Status Cluster::UpdatePodStatus(const api::Pod& pod, const api::PodCondition& condition,
                                      const std::string* nominated_node) {
  absl::MutexLock lock(&mu_);
  absl::StatusOr<std::shared_ptr<const api::Pod>*> stored = StoredPod(pod);
  if (!stored.ok()) return stored.status();
  std::shared_ptr<const api::Pod>& current = **stored;
  auto updated = std::make_shared<api::Pod>(*current);
  if (!condition.type.empty()) {
    std::erase_if(updated->status.conditions,
                  [&](const auto& c) { return c.type == condition.type; });
    updated->status.conditions.push_back(condition);
  }
  const bool renominated =
      nominated_node != nullptr && *nominated_node != updated->status.nominated_node_name;
  if (nominated_node != nullptr) updated->status.nominated_node_name = *nominated_node;
  // A condition is not a scheduling change; the scheduler hears only of a new nomination, as its
  // informer would.
  if (renominated) pending_.push_back({current, updated});
  current = std::move(updated);
  return absl::OkStatus();
}

}  // namespace ksched::sim
