#include "src/plugins/volume_zone/volume_zone.h"

#include <algorithm>
#include <set>
#include <string>

#include "absl/strings/str_split.h"
#include "fmt/format.h"
#include "src/plugins/helper/pod_volumes.h"
#include "src/plugins/helper/signers.h"

namespace ksched::plugins::volume_zone {
namespace {

// The labels VolumeZone compares, in upstream's order; the beta ones match the GA ones on nodes.
constexpr std::string_view kTopologyLabels[] = {
    "failure-domain.beta.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/region",
    "topology.kubernetes.io/zone", "topology.kubernetes.io/region"};

std::string_view GaLabel(std::string_view label) {
  if (label == "failure-domain.beta.kubernetes.io/region") return "topology.kubernetes.io/region";
  if (label == "failure-domain.beta.kubernetes.io/zone") return "topology.kubernetes.io/zone";
  return label;
}

// One topology label of a bound PV: the values it allows.
struct PvTopology {
  std::string key;
  std::set<std::string, std::less<>> values;
  bool operator==(const PvTopology&) const = default;
};

struct ZoneState final : StateData {
  std::vector<PvTopology> topologies;
  std::unique_ptr<StateData> Clone() const override { return std::make_unique<ZoneState>(*this); }
};
inline constexpr StateKey<ZoneState> kStateKey{"PreFilterVolumeZone", StateScope::kSchedulingCycle};

// A PV's topology labels; a value with an empty zone ("a__") is ignored, as upstream's
// LabelZonesToSet refuses it.
std::vector<PvTopology> TopologiesOf(const api::PersistentVolume& pv) {
  std::vector<PvTopology> out;
  for (std::string_view key : kTopologyLabels) {
    auto it = pv.metadata.labels.find(key);
    if (it == pv.metadata.labels.end()) continue;
    PvTopology t{.key = std::string(key)};
    bool valid = true;
    for (absl::string_view zone : absl::StrSplit(it->second, "__")) {
      valid = valid && !zone.empty();
      t.values.emplace(zone.data(), zone.size());
    }
    if (valid) out.push_back(std::move(t));
  }
  return out;
}

// The topologies of the pod's bound PVs (upstream's getPVbyPod), or the rejection.
Status PodTopologies(const api::Pod& pod, const StorageLister& storage,
                     std::vector<PvTopology>* out) {
  for (const api::Volume& v : pod.spec.volumes) {
    if (v.source != "persistentVolumeClaim") continue;
    if (v.claim_name.empty()) {
      return Status::UnschedulableAndUnresolvable("PersistentVolumeClaim had no name");
    }
    auto pvc = storage.GetPersistentVolumeClaim(pod.metadata.namespace_, v.claim_name);
    if (!pvc) {
      return Status::UnschedulableAndUnresolvable(helper::NotFound(
          storage, "persistentVolumeClaim", pod.metadata.namespace_, v.claim_name));
    }
    if (pvc->volume_name.empty()) {
      const std::string class_name = api::StorageClassOf(*pvc);
      if (class_name.empty()) {
        return Status::UnschedulableAndUnresolvable(
            "PersistentVolumeClaim had no pv name and storageClass name");
      }
      auto sc = storage.GetStorageClass(class_name);
      if (!sc) {
        return Status::UnschedulableAndUnresolvable(
            helper::NotFound(storage, "storageClass", "", class_name));
      }
      if (sc->volume_binding_mode == "WaitForFirstConsumer") continue;
      return Status::UnschedulableAndUnresolvable("PersistentVolume had no name");
    }
    auto pv = storage.GetPersistentVolume(pvc->volume_name);
    if (!pv) {
      return Status::UnschedulableAndUnresolvable(
          helper::NotFound(storage, "persistentVolume", "", pvc->volume_name));
    }
    std::vector<PvTopology> t = TopologiesOf(*pv);
    out->insert(out->end(), t.begin(), t.end());
  }
  return Status();
}

}  // namespace

Status VolumeZone::PreFilter(CycleState& state, const api::Pod& pod,
                             const std::vector<const NodeInfo*>&, PreFilterResult*) {
  if (!helper::HasClaimVolume(pod)) return Status::Skip();  // Most pods: nothing to allocate.
  auto s = std::make_unique<ZoneState>();
  if (Status st = PodTopologies(pod, handle_.storage(), &s->topologies); !st.ok()) return st;
  if (s->topologies.empty()) return Status::Skip();
  state.Write(kStateKey, std::move(s));
  return Status();
}

Status VolumeZone::Filter(const CycleState& state, const api::Pod& pod, const NodeInfo& node) {
  if (pod.spec.volumes.empty()) return Status();
  std::vector<PvTopology> computed;
  const std::vector<PvTopology>* topologies = &computed;
  if (const ZoneState* s = state.Read(kStateKey)) {
    topologies = &s->topologies;
  } else if (Status st = PodTopologies(pod, handle_.storage(), &computed); !st.ok()) {
    return st;
  }
  const api::StringMap& labels = node.node()->metadata.labels;
  const bool constrained = std::any_of(std::begin(kTopologyLabels), std::end(kTopologyLabels),
                                       [&](std::string_view l) { return labels.contains(l); });
  if (!constrained) return Status();
  for (const PvTopology& t : *topologies) {
    auto it = labels.find(t.key);
    if (it == labels.end()) it = labels.find(GaLabel(t.key));
    if (it == labels.end() || !t.values.contains(it->second)) {
      return Status::UnschedulableAndUnresolvable(kErrReasonConflict);
    }
  }
  return Status();
}

std::vector<ClusterEventWithHint> VolumeZone::EventsToRegister() const {
  auto class_added = [](const api::Pod&, const ClusterEventData& e) {
    const api::StorageClass* sc = e.storage.storage_class.new_obj;
    return sc != nullptr && sc->volume_binding_mode == "WaitForFirstConsumer"
               ? QueueingHint::kQueue
               : QueueingHint::kQueueSkip;
  };
  auto claim_changed = [](const api::Pod& pod, const ClusterEventData& e) {
    const api::PersistentVolumeClaim* pvc = e.storage.pvc.new_obj;
    return pvc != nullptr && helper::NamesClaim(pod, *pvc) ? QueueingHint::kQueue
                                                           : QueueingHint::kQueueSkip;
  };
  auto volume_changed = [](const api::Pod&, const ClusterEventData& e) {
    const auto& [o, n] = e.storage.pv;
    if (o == nullptr || n == nullptr) return QueueingHint::kQueue;
    return TopologiesOf(*o) == TopologiesOf(*n) ? QueueingHint::kQueueSkip : QueueingHint::kQueue;
  };
  return {
      {{EventResource::kStorageClass, kAdd}, class_added},
      {{EventResource::kNode, kAdd | kUpdateNodeLabel}, nullptr},
      {{EventResource::kPersistentVolumeClaim, kAdd | kUpdate}, claim_changed},
      {{EventResource::kPersistentVolume, kAdd | kUpdate}, volume_changed},
  };
}

Status VolumeZone::SignPod(const api::Pod& pod, std::vector<SignFragment>* out) const {
  out->push_back({helper::kVolumesSigner, helper::SignVolumes(pod)});
  return Status();
}

absl::StatusOr<std::unique_ptr<Plugin>> New(const PluginArgs&, Handle& handle) {
  return std::make_unique<VolumeZone>(handle);
}

}  // namespace ksched::plugins::volume_zone
