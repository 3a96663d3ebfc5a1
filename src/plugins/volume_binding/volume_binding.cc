#include "src/plugins/volume_binding/volume_binding.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>

#include "absl/synchronization/mutex.h"
#include "fmt/format.h"
#include "ksched/strings.h"
#include "src/plugins/helper/pod_volumes.h"
#include "src/plugins/helper/shape_score.h"
#include "src/plugins/helper/signers.h"

namespace ksched::plugins::volume_binding {
namespace {

// The cycle's state: PreFilter's claims, Filter's findings per node, Reserve's outcome.
struct VolumeState final : StateData {
  PodVolumeClaims claims;
  // Every claim was fully bound at PreFilter: no node has bindings to write, so none is kept in
  // by_node, and Reserve finds the pod all bound, as upstream's for a node without an entry.
  bool fully_bound = false;
  bool all_bound = false;
  struct OnNode {
    std::shared_ptr<const api::Node> node;
    PodVolumes volumes;
  };
  // Filter writes it for several nodes at once.
  mutable absl::Mutex mu;
  mutable std::map<std::string, OnNode, std::less<>> by_node ABSL_GUARDED_BY(mu);

  VolumeState() = default;
  VolumeState(const VolumeState& o) : claims(o.claims), all_bound(o.all_bound) {
    absl::MutexLock lock(&o.mu);
    by_node = o.by_node;
  }
  std::unique_ptr<StateData> Clone() const override { return std::make_unique<VolumeState>(*this); }
  // The findings for `node`, or nullptr.
  const OnNode* Find(std::string_view node) const {
    absl::MutexLock lock(&mu);
    auto it = by_node.find(node);
    return it == by_node.end() ? nullptr : &it->second;
  }
};
inline constexpr StateKey<VolumeState> kStateKey{"PreFilterVolumeBinding", StateScope::kPod};

// The claims a pod's volumes name (upstream's podHasPVCs): an error says which one is unusable.
absl::StatusOr<bool> PodHasClaims(const api::Pod& pod, const StorageLister& storage) {
  bool has = false;
  for (const api::Volume& v : pod.spec.volumes) {
    std::optional<helper::PodClaim> claim = helper::ClaimOf(pod, v);
    if (!claim) continue;
    has = true;
    const std::string& name = claim->name;
    std::shared_ptr<const PVC> pvc =
        storage.GetPersistentVolumeClaim(pod.metadata.namespace_, name);
    if (!pvc) {
      return absl::NotFoundError(
          claim->ephemeral
              ? fmt::format("waiting for ephemeral volume controller to create the "
                            "persistentvolumeclaim \"{}\"",
                            name)
              : helper::NotFound(storage, "persistentVolumeClaim", pod.metadata.namespace_, name));
    }
    if (pvc->phase == "Lost") {
      return absl::FailedPreconditionError(
          fmt::format("persistentvolumeclaim \"{}\" bound to non-existent persistentvolume \"{}\"",
                      name, pvc->volume_name));
    }
    if (pvc->metadata.deletion_timestamp) {
      return absl::FailedPreconditionError(
          fmt::format("persistentvolumeclaim \"{}\" is being deleted", name));
    }
    if (claim->ephemeral) {
      if (absl::Status st = helper::VolumeIsForPod(pod, *pvc); !st.ok()) return st;
    }
    // Its PV or class, if ksched could not decode it: said, rather than taken for missing (a
    // bound claim's PV) or for an Immediate class (upstream's IsDelayBindingMode).
    const std::string class_name = api::StorageClassOf(*pvc);
    if (!pvc->volume_name.empty() && !storage.GetPersistentVolume(pvc->volume_name) &&
        !storage.Unreadable("persistentVolume", pvc->volume_name).empty()) {
      return absl::FailedPreconditionError(
          helper::NotFound(storage, "persistentVolume", "", pvc->volume_name));
    }
    if (pvc->volume_name.empty() && !class_name.empty() && !storage.GetStorageClass(class_name) &&
        !storage.Unreadable("storageClass", class_name).empty()) {
      return absl::FailedPreconditionError(
          helper::NotFound(storage, "storageClass", "", class_name));
    }
  }
  return has;
}

Status AsStatus(const absl::Status& st) { return Status::Error(std::string(AsStd(st.message()))); }

bool SameTopologies(const std::vector<api::TopologySelectorTerm>& a,
                    const std::vector<api::TopologySelectorTerm>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    const auto& x = a[i].match_label_expressions;
    const auto& y = b[i].match_label_expressions;
    if (x.size() != y.size()) return false;
    for (size_t j = 0; j < x.size(); ++j) {
      if (x[j].key != y[j].key || x[j].values != y[j].values) return false;
    }
  }
  return true;
}

const std::optional<api::Quantity>& VolumeLimit(const api::CSIStorageCapacity& c) {
  return c.maximum_volume_size ? c.maximum_volume_size : c.capacity;
}

// The requested and available bytes of one storage class on a node.
struct ClassUse {
  int64_t requested = 0;
  int64_t capacity = 0;
};

// The storage-capacity score of a node's volumes (upstream's buildScorerFunction): each class
// scores the shape at requested * 100 / capacity (the shape's end when the class has no capacity
// or too little), and the node the classes' mean, rounded.
int64_t CapacityScore(const std::map<std::string, ClassUse>& classes,
                      const std::function<int64_t(int64_t)>& shape) {
  if (classes.empty()) return 0;
  int64_t sum = 0;
  for (const auto& [name, use] : classes) {
    constexpr int64_t kMaxUtilization = 100;
    sum += use.capacity == 0 || use.requested > use.capacity
               ? shape(kMaxUtilization)
               : shape(use.requested * kMaxUtilization / use.capacity);
  }
  return std::llround(static_cast<double>(sum) / static_cast<double>(classes.size()));
}

int64_t Bytes(const std::optional<api::Quantity>& q) { return q ? q->Value() : 0; }

}  // namespace

VolumeBinding::VolumeBinding(Handle& handle, const VolumeBindingArgs& args)
    : handle_(handle), binder_(handle, absl::Seconds(args.bind_timeout_seconds)) {
  if (!args.shape.empty()) scorer_ = helper::ShapeScorer(args.shape);
}

Status VolumeBinding::StageFailed(std::string_view operation, const absl::Status& st) {
  handle_.metrics().VolumeSchedulingStageFailed(operation);
  return AsStatus(st);
}

Status VolumeBinding::PreFilter(CycleState& state, const api::Pod& pod,
                                const std::vector<const NodeInfo*>&, PreFilterResult*) {
  absl::StatusOr<bool> has = PodHasClaims(pod, handle_.storage());
  if (!has.ok()) {
    return Status::UnschedulableAndUnresolvable(std::string(AsStd(has.status().message())));
  }
  if (!*has) return Status::Skip();
  absl::StatusOr<PodVolumeClaims> claims = binder_.GetPodVolumeClaims(pod);
  if (!claims.ok()) return AsStatus(claims.status());
  if (!claims->unbound_immediate.empty()) {
    return Status::UnschedulableAndUnresolvable(kErrReasonUnboundImmediate);
  }
  auto s = std::make_unique<VolumeState>();
  s->claims = *std::move(claims);
  const auto& bound = s->claims.bound;
  s->fully_bound = s->claims.unbound_delay_binding.empty() &&
                   std::all_of(bound.begin(), bound.end(),
                               [](const auto& pvc) { return IsClaimFullyBound(*pvc); });
  state.Write(kStateKey, std::move(s));
  return Status();
}

Status VolumeBinding::Filter(const CycleState& state, const api::Pod&, const NodeInfo& node) {
  const VolumeState* s = state.Read(kStateKey);
  if (s == nullptr)
    return Status::Error("reading \"PreFilterVolumeBinding\" from cycleState: not found");
  std::vector<std::string> reasons;
  absl::StatusOr<PodVolumes> volumes = binder_.FindPodVolumes(s->claims, *node.node(), &reasons);
  if (!volumes.ok()) return StageFailed("predicate", volumes.status());
  if (!reasons.empty()) {
    return Status(Code::kUnschedulableAndUnresolvable, std::move(reasons));
  }
  if (s->fully_bound) return Status();
  absl::MutexLock lock(&s->mu);
  s->by_node[node.name()] = {node.node_ptr(), *std::move(volumes)};
  return Status();
}

Status VolumeBinding::PreScore(CycleState&, const api::Pod&, const std::vector<const NodeInfo*>&) {
  // Without the gate there is no scorer, and upstream skips, whatever the pod's claims.
  return scorer_ ? Status() : Status::Skip();
}

Status VolumeBinding::Score(const CycleState& state, const api::Pod&, const NodeInfo& node,
                            int64_t* score) {
  *score = 0;
  const VolumeState* s = state.Read(kStateKey);
  if (s == nullptr) return Status();  // No claims: PreFilter skipped.
  const VolumeState::OnNode* on = s->Find(node.name());
  if (on == nullptr) return Status();  // Every claim bound: nothing to place.
  std::map<std::string, ClassUse> classes;
  if (!on->volumes.static_bindings.empty()) {
    for (const auto& [pv, pvc] : on->volumes.static_bindings) {
      ClassUse& use = classes[pv->storage_class_name];
      use.requested += Bytes(pvc->storage_request);
      use.capacity += Bytes(pv->capacity);
    }
  } else {
    for (const auto& [pvc, capacity] : on->volumes.dynamic_provisions) {
      if (capacity == nullptr) continue;
      ClassUse& use = classes[api::StorageClassOf(*pvc)];
      // The class's room on the node, once however many claims share it.
      use.capacity = Bytes(capacity->capacity);
      use.requested += Bytes(pvc->storage_request);
    }
  }
  *score = CapacityScore(classes, scorer_);
  return Status();
}

Status VolumeBinding::Reserve(CycleState& state, const api::Pod& pod, std::string_view node) {
  VolumeState* s = state.ReadMutable(kStateKey);
  if (s == nullptr) return Status();  // No claims.
  absl::MutexLock lock(&s->mu);
  auto it = s->by_node.find(node);
  if (it == s->by_node.end()) {
    s->all_bound = true;
    return Status();
  }
  // From here on only the chosen node's bindings are read (Unreserve, PreBind): the others go,
  // and so do the PVs the claims could take, so that a pod waiting in PreBind for the PV
  // controller holds one node's bindings, not every feasible node's and every PV of the class.
  auto chosen = s->by_node.extract(it);
  s->by_node.clear();
  it = s->by_node.insert(std::move(chosen)).position;
  s->claims.unbound_volumes.clear();
  absl::StatusOr<bool> all_bound = binder_.AssumePodVolumes(pod, node, &it->second.volumes);
  if (!all_bound.ok()) return StageFailed("assume", all_bound.status());
  s->all_bound = *all_bound;
  return Status();
}

void VolumeBinding::Unreserve(CycleState& state, const api::Pod&, std::string_view node) {
  const VolumeState* s = state.Read(kStateKey);
  if (s == nullptr) return;
  if (const VolumeState::OnNode* on = s->Find(node)) binder_.RevertAssumedPodVolumes(on->volumes);
}

Status VolumeBinding::PreBind(CycleState& state, const api::Pod& pod, std::string_view node) {
  const VolumeState* s = state.Read(kStateKey);
  if (s == nullptr || s->all_bound) return Status();
  const VolumeState::OnNode* on = s->Find(node);
  if (on == nullptr) return Status::Error(fmt::format("no pod volume found for node \"{}\"", node));
  absl::Status st = binder_.BindPodVolumes(pod, *on->node, on->volumes);
  if (!st.ok()) return StageFailed("bind", st);
  return Status();
}

Status VolumeBinding::PreBindPreFlight(CycleState& state, const api::Pod&, std::string_view node) {
  const VolumeState* s = state.Read(kStateKey);
  if (s == nullptr || s->all_bound) return Status::Skip();
  if (s->Find(node) == nullptr) {
    return Status::Error(fmt::format("no pod volume found for node \"{}\"", node));
  }
  return Status();
}

std::vector<ClusterEventWithHint> VolumeBinding::EventsToRegister() const {
  auto storage_class_changed = [](const api::Pod&, const ClusterEventData& e) {
    const auto& [o, n] = e.storage.storage_class;
    if (o == nullptr || n == nullptr) return QueueingHint::kQueue;
    return SameTopologies(o->allowed_topologies, n->allowed_topologies) ? QueueingHint::kQueueSkip
                                                                        : QueueingHint::kQueue;
  };
  auto claim_changed = [](const api::Pod& pod, const ClusterEventData& e) {
    const PVC* n = e.storage.pvc.new_obj;
    return n != nullptr && helper::UsesClaim(pod, *n) ? QueueingHint::kQueue
                                                      : QueueingHint::kQueueSkip;
  };
  auto csi_node_changed = [](const api::Pod&, const ClusterEventData& e) {
    const auto& [o, n] = e.storage.csi_node;
    if (o == nullptr || n == nullptr) return QueueingHint::kQueue;
    auto migrated = [](const api::CSINode& c) {
      auto it = c.metadata.annotations.find(api::kAnnMigratedPlugins);
      return it == c.metadata.annotations.end() ? std::string() : it->second;
    };
    return migrated(*o) != migrated(*n) ? QueueingHint::kQueue : QueueingHint::kQueueSkip;
  };
  auto csi_driver_changed = [](const api::Pod& pod, const ClusterEventData& e) {
    const auto& [o, n] = e.storage.csi_driver;
    if (o == nullptr || n == nullptr) return QueueingHint::kQueue;
    for (const api::Volume& v : pod.spec.volumes) {
      if (v.source != "csi" || v.csi_driver != n->metadata.name) continue;
      if (o->storage_capacity.value_or(false) && !n->storage_capacity.value_or(false)) {
        return QueueingHint::kQueue;
      }
    }
    return QueueingHint::kQueueSkip;
  };
  auto capacity_changed = [](const api::Pod&, const ClusterEventData& e) {
    const auto& [o, n] = e.storage.csi_storage_capacity;
    if (o == nullptr || n == nullptr) return QueueingHint::kQueue;
    const auto& old_limit = VolumeLimit(*o);
    const auto& new_limit = VolumeLimit(*n);
    return new_limit && (!old_limit || new_limit->NanoValue() > old_limit->NanoValue())
               ? QueueingHint::kQueue
               : QueueingHint::kQueueSkip;
  };
  return {
      {{EventResource::kStorageClass, kAdd | kUpdate}, storage_class_changed},
      {{EventResource::kPersistentVolumeClaim, kAdd | kUpdate}, claim_changed},
      {{EventResource::kPersistentVolume, kAdd | kUpdate}, nullptr},
      {{EventResource::kNode, kAdd | kUpdateNodeLabel}, nullptr},
      {{EventResource::kCSINode, kAdd | kUpdate}, csi_node_changed},
      {{EventResource::kCSIDriver, kUpdate}, csi_driver_changed},
      {{EventResource::kCSIStorageCapacity, kAdd | kUpdate}, capacity_changed},
  };
}

Status VolumeBinding::SignPod(const api::Pod& pod, std::vector<SignFragment>* out) const {
  out->push_back({helper::kVolumesSigner, helper::SignVolumes(pod)});
  return Status();
}

absl::StatusOr<std::unique_ptr<Plugin>> New(const VolumeBindingArgs& args, Handle& handle) {
  return std::make_unique<VolumeBinding>(handle, args);
}

}  // namespace ksched::plugins::volume_binding
