#include "src/plugins/node_volume_limits/node_volume_limits.h"

#include <algorithm>
#include <map>
#include <random>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "fmt/format.h"
#include "ksched/strings.h"
#include "src/plugins/helper/csi_translation.h"
#include "src/plugins/helper/pod_volumes.h"
#include "src/plugins/helper/signers.h"

namespace ksched::plugins::node_volume_limits {
namespace {

// Attachable volumes by unique name ("<driver>/<handle>"), each with its driver.
using VolumeSet = absl::flat_hash_map<std::string, std::string>;

// The pod's own volumes, or why they cannot be counted.
struct PodVolumes {
  VolumeSet volumes;
  Status status;
  // The volumes' names by driver, for Filter's count on every node.
  std::vector<std::pair<std::string, std::vector<std::string>>> by_driver;

  void GroupByDriver() {
    absl::flat_hash_map<std::string_view, size_t> at;
    for (const auto& [name, driver] : volumes) {
      auto [it, added] = at.try_emplace(driver, by_driver.size());
      if (added) by_driver.emplace_back(driver, std::vector<std::string>());
      by_driver[it->second].second.push_back(name);
    }
  }
};

struct LimitsState final : StateData {
  // The VolumeAttachments' CSI volumes, by node, as of this storage generation.
  absl::flat_hash_map<std::string, VolumeSet> attachments;
  uint64_t storage_generation = 0;
  // The pod's volumes on a node with a CSINode (in-tree ones migrated) and on one without.
  PodVolumes on_csi_node, elsewhere;
  std::unique_ptr<StateData> Clone() const override { return std::make_unique<LimitsState>(*this); }
};
inline constexpr StateKey<LimitsState> kStateKey{"PreFilterNodeVolumeLimits",
                                                 StateScope::kSchedulingCycle};

std::string UniqueName(std::string_view driver, std::string_view handle) {
  return fmt::format("{}/{}", driver, handle);
}

// Whether the volume may need a node's attach slot (upstream's PreFilter test).
bool MayAttach(const api::Volume& v) {
  return v.source == "persistentVolumeClaim" || v.source == "ephemeral" ||
         helper::InTreePluginOf(v.source) != nullptr;
}

// The CSI volumes the VolumeAttachments attach, by node (upstream's getNodeVolumeAttachmentInfo).
void AddAttachments(const StorageLister& storage, std::string_view only_node,
                    absl::flat_hash_map<std::string, VolumeSet>* out) {
  for (const auto& va : storage.ListVolumeAttachments()) {
    if (!only_node.empty() && va->node_name != only_node) continue;
    if (va->attacher.empty() || va->persistent_volume_name.empty()) continue;
    auto pv = storage.GetPersistentVolume(va->persistent_volume_name);
    if (pv == nullptr || pv->source.kind != "csi") continue;
    (*out)[va->node_name].emplace(UniqueName(va->attacher, pv->source.volume_handle), va->attacher);
  }
}

// The node's limit for `driver`; nullopt: none.
std::optional<int64_t> LimitOf(const api::CSINode& csi_node, std::string_view driver) {
  for (const api::CSINodeDriver& d : csi_node.drivers) {
    if (d.name == driver && d.allocatable_count) return *d.allocatable_count;
  }
  return std::nullopt;
}

// The per-driver volume limits of a node's CSINode; no entry: no limit.
std::map<std::string, int64_t, std::less<>> LimitsOf(const api::CSINode* csi_node) {
  std::map<std::string, int64_t, std::less<>> out;
  if (csi_node == nullptr) return out;
  for (const api::CSINodeDriver& d : csi_node->drivers) {
    if (d.allocatable_count) out[d.name] = *d.allocatable_count;
  }
  return out;
}

// Counts a pod's volumes the way upstream's CSILimits does: a claim's driver and handle.
class VolumeCounter {
 public:
  VolumeCounter(const StorageLister& storage, const api::CSINode* csi_node,
                const std::string& random_prefix)
      : storage_(storage), csi_node_(csi_node), random_prefix_(random_prefix) {}

  // Adds the pod's attachable volumes to `out` (upstream's filterAttachableVolumes). For a
  // `new_pod`, a claim that does not exist rejects it; an existing pod's is not counted.
  Status Add(const api::Pod& pod, bool new_pod, VolumeSet* out) const {
    for (const api::Volume& v : pod.spec.volumes) {
      std::optional<helper::PodClaim> claim = helper::ClaimOf(pod, v);
      if (!claim) {
        if (Status st = AddInline(v, out); !st.ok()) return st;
        continue;
      }
      if (claim->name.empty()) return Status::Error("PersistentVolumeClaim had no name");
      auto pvc = storage_.GetPersistentVolumeClaim(pod.metadata.namespace_, claim->name);
      if (pvc == nullptr) {
        if (!new_pod) continue;
        return Status::UnschedulableAndUnresolvable(
            fmt::format("looking up PVC {}/{}: {}", pod.metadata.namespace_, claim->name,
                        helper::NotFound(storage_, "persistentVolumeClaim", pod.metadata.namespace_,
                                         claim->name)));
      }
      if (claim->ephemeral) {
        if (absl::Status st = helper::VolumeIsForPod(pod, *pvc); !st.ok()) {
          return Status::Error(std::string(AsStd(st.message())));
        }
      }
      auto [driver, handle] = DriverOf(*pvc);
      if (driver.empty() || handle.empty()) continue;
      out->emplace(UniqueName(driver, handle), driver);
    }
    return Status();
  }

 private:
  // An inline in-tree volume, under its CSI driver where the node migrated it.
  Status AddInline(const api::Volume& v, VolumeSet* out) const {
    const helper::InTreePlugin* plugin = helper::InTreePluginOf(v.source);
    if (plugin == nullptr || !helper::CsiMigrationOn(csi_node_, *plugin)) return Status();
    absl::StatusOr<std::string> handle = helper::InlineVolumeHandle(v);
    if (!handle.ok()) {
      return Status::Error(fmt::format("converting volume({}) from inline to csi: {}", v.name,
                                       AsStd(handle.status().message())));
    }
    out->emplace(UniqueName(plugin->csi_driver, *handle), plugin->csi_driver);
    return Status();
  }

  // The CSI driver and volume handle of a claim (upstream's getCSIDriverInfo); empty: not
  // counted.
  std::pair<std::string, std::string> DriverOf(const api::PersistentVolumeClaim& pvc) const {
    if (pvc.volume_name.empty()) return DriverOfClass(pvc);
    auto pv = storage_.GetPersistentVolume(pvc.volume_name);
    if (pv == nullptr) return DriverOfClass(pvc);
    if (pv->source.kind == "csi") return {pv->source.driver, pv->source.volume_handle};
    const helper::InTreePlugin* plugin = helper::InTreePluginOf(pv->source.kind);
    if (plugin == nullptr || !helper::CsiMigrationOn(csi_node_, *plugin)) return {};
    absl::StatusOr<std::string> handle = helper::PersistentVolumeHandle(*pv);
    if (!handle.ok()) return {};
    return {std::string(plugin->csi_driver), *handle};
  }

  // An unbound claim's driver is its class's provisioner; its handle is made up, unique to the
  // claim (upstream's getCSIDriverInfoFromSC).
  std::pair<std::string, std::string> DriverOfClass(const api::PersistentVolumeClaim& pvc) const {
    const std::string class_name = api::StorageClassOf(pvc);
    if (class_name.empty()) return {};
    auto sc = storage_.GetStorageClass(class_name);
    if (sc == nullptr) return {};
    std::string handle =
        fmt::format("{}-{}/{}", random_prefix_, pvc.metadata.namespace_, pvc.metadata.name);
    if (const helper::InTreePlugin* plugin = helper::InTreePluginNamed(sc->provisioner)) {
      if (!helper::CsiMigrationOn(csi_node_, *plugin)) return {};
      return {std::string(plugin->csi_driver), std::move(handle)};
    }
    return {sc->provisioner, std::move(handle)};
  }

  const StorageLister& storage_;
  const api::CSINode* csi_node_;
  const std::string& random_prefix_;
};

// What the node's pods and VolumeAttachments attach: the pods' volumes, each once, and with the
// attachments' the count by driver (`state`: PreFilter's attachments, if it ran).
Status CountAttached(const StorageLister& storage, const api::CSINode* csi_node,
                     const std::string& random_prefix, const LimitsState* state,
                     const NodeInfo& node, VolumeSet* by_pods,
                     absl::flat_hash_map<std::string, int64_t>* count) {
  VolumeCounter counter(storage, csi_node, random_prefix);
  for (const auto& existing : node.pods()) {
    if (Status st = counter.Add(*existing->pod, /*new_pod=*/false, by_pods); !st.ok()) return st;
  }
  for (const auto& [name, driver] : *by_pods) ++(*count)[driver];
  absl::flat_hash_map<std::string, VolumeSet> computed;
  const absl::flat_hash_map<std::string, VolumeSet>* attachments = &computed;
  if (state != nullptr) {
    attachments = &state->attachments;
  } else {
    AddAttachments(storage, node.name(), &computed);
  }
  if (auto it = attachments->find(node.name()); it != attachments->end()) {
    for (const auto& [name, driver] : it->second) {
      if (!by_pods->contains(name)) ++(*count)[driver];
    }
  }
  return Status();
}

std::string RandomPrefix() {
  static constexpr char kAlphabet[] = "bcdfghjklmnpqrstvwxz2456789";  // As upstream's rand.String.
  std::random_device seed;
  std::mt19937 gen(seed());
  std::uniform_int_distribution<size_t> pick(0, sizeof(kAlphabet) - 2);
  std::string out(32, ' ');
  for (char& c : out) c = kAlphabet[pick(gen)];
  return out;
}

// VolumeLimitScaling's check (upstream's checkCSIDriverOnNode): a driver whose CSIDriver asks for
// it must be among the node's CSINode drivers. A driver without a CSIDriver may not be a CSI
// driver at all, and passes.
Status DriverInstalled(const StorageLister& storage, const std::string& driver,
                       const api::CSINode* csi_node) {
  std::shared_ptr<const api::CSIDriver> d = storage.GetCSIDriver(driver);
  if (d == nullptr) {
    if (storage.Unreadable("csiDriver", driver).empty()) return Status();
    return Status::Error(fmt::format("error getting CSIDriver for provider {}: {}", driver,
                                     helper::NotFound(storage, "csiDriver", "", driver)));
  }
  if (!d->prevent_pod_scheduling_if_missing.value_or(false)) return Status();
  if (csi_node != nullptr) {
    for (const api::CSINodeDriver& on : csi_node->drivers) {
      if (on.name == driver) return Status();
    }
  }
  return Status::Unschedulable(fmt::format("{} CSI driver is not installed on the node", driver));
}

}  // namespace

struct NodeVolumeLimits::Attached {
  int64_t node_generation = 0;
  uint64_t storage_generation = 0;
  std::shared_ptr<const api::CSINode> csi_node;
  std::string unreadable;   // Why the node's CSINode could not be decoded, if it could not.
  bool has_limits = false;  // Whether a driver of the CSINode reports a count.
  // Where it has: the pods' volumes, each once, and with the VolumeAttachments' the count by
  // driver; or why the pods' volumes cannot be counted.
  VolumeSet by_pods;
  absl::flat_hash_map<std::string, int64_t> count;
  Status error;
};

std::shared_ptr<const NodeVolumeLimits::Attached> NodeVolumeLimits::AttachedOn(
    const CycleState& state, const NodeInfo& node) {
  const StorageLister& storage = handle_.storage();
  // Read before the objects, so that a change while counting makes the next call count again.
  const uint64_t storage_generation = storage.Generation();
  {
    absl::MutexLock lock(&mu_);
    auto it = attached_.find(node.name());
    if (it != attached_.end() && it->second->node_generation == node.generation() &&
        it->second->storage_generation == storage_generation) {
      return it->second;
    }
  }
  const LimitsState* s = state.Read(kStateKey);
  auto out = std::make_shared<Attached>();
  out->node_generation = node.generation();
  // PreFilter's attachments are as of its generation: a later change makes the next call count.
  out->storage_generation = s != nullptr ? s->storage_generation : storage_generation;
  out->csi_node = storage.GetCSINode(node.name());
  if (out->csi_node == nullptr && !storage.Unreadable("csiNode", node.name()).empty()) {
    out->unreadable = helper::NotFound(storage, "csiNode", "", node.name());
  }
  if (out->csi_node != nullptr) {
    const auto& drivers = out->csi_node->drivers;
    out->has_limits = std::any_of(drivers.begin(), drivers.end(),
                                  [](const auto& d) { return d.allocatable_count.has_value(); });
  }
  if (out->has_limits) {
    out->error = CountAttached(storage, out->csi_node.get(), random_volume_id_prefix_, s, node,
                               &out->by_pods, &out->count);
  }
  absl::MutexLock lock(&mu_);
  // Nodes come and go: entries of nodes long gone are dropped with the rest, now and then.
  if (attached_.size() > 2 * handle_.snapshot().size() + 64) attached_.clear();
  attached_[node.name()] = out;
  return out;
}

NodeVolumeLimits::NodeVolumeLimits(Handle& handle, bool volume_limit_scaling)
    : handle_(handle),
      volume_limit_scaling_(volume_limit_scaling),
      random_volume_id_prefix_(RandomPrefix()) {}

Status NodeVolumeLimits::PreFilter(CycleState& state, const api::Pod& pod,
                                   const std::vector<const NodeInfo*>&, PreFilterResult*) {
  if (std::none_of(pod.spec.volumes.begin(), pod.spec.volumes.end(), MayAttach)) {
    return Status::Skip();
  }
  auto s = std::make_unique<LimitsState>();
  const StorageLister& storage = handle_.storage();
  s->storage_generation = storage.Generation();  // Before the objects are read.
  AddAttachments(storage, "", &s->attachments);
  // A node's CSINode matters to the pod's volumes only by being there (CsiMigrationOn).
  static const api::CSINode kAnyCSINode;
  for (auto [csi_node, out] :
       {std::pair(&kAnyCSINode, &s->on_csi_node),
        std::pair<const api::CSINode*, PodVolumes*>(nullptr, &s->elsewhere)}) {
    out->status = VolumeCounter(storage, csi_node, random_volume_id_prefix_)
                      .Add(pod, /*new_pod=*/true, &out->volumes);
    out->GroupByDriver();
  }
  state.Write(kStateKey, std::move(s));
  return Status();
}

Status NodeVolumeLimits::Filter(const CycleState& state, const api::Pod& pod,
                                const NodeInfo& node) {
  if (pod.spec.volumes.empty()) return Status();
  std::shared_ptr<const Attached> attached = AttachedOn(state, node);
  const api::CSINode* csi_node = attached->csi_node.get();
  PodVolumes computed;
  const PodVolumes* mine = &computed;
  if (const LimitsState* s = state.Read(kStateKey)) {
    mine = csi_node != nullptr ? &s->on_csi_node : &s->elsewhere;
  } else {
    computed.status = VolumeCounter(handle_.storage(), csi_node, random_volume_id_prefix_)
                          .Add(pod, /*new_pod=*/true, &computed.volumes);
    computed.GroupByDriver();
  }
  if (!mine->status.ok()) return mine->status;
  // Its limits, and which in-tree volumes it migrated, are unknown: not taken for none.
  if (!attached->unreadable.empty()) {
    return Status::UnschedulableAndUnresolvable(attached->unreadable);
  }
  if (mine->volumes.empty()) return Status();
  if (volume_limit_scaling_) {
    for (const auto& [driver, names] : mine->by_driver) {
      if (Status st = DriverInstalled(handle_.storage(), driver, csi_node); !st.ok()) return st;
    }
  }
  if (!attached->has_limits) return Status();
  if (!attached->error.ok()) return attached->error;
  for (const auto& [driver, names] : mine->by_driver) {
    // A volume several pods use counts once.
    const auto n = std::count_if(names.begin(), names.end(), [&](const std::string& name) {
      return !attached->by_pods.contains(name);
    });
    if (n == 0) continue;
    std::optional<int64_t> limit = LimitOf(*csi_node, driver);
    if (!limit) continue;
    auto have = attached->count.find(driver);
    if ((have == attached->count.end() ? 0 : have->second) + n > *limit) {
      return Status::Unschedulable(kErrReasonMaxVolumeCountExceeded);
    }
  }
  return Status();
}

std::vector<ClusterEventWithHint> NodeVolumeLimits::EventsToRegister() const {
  auto csi_node_updated = [](const api::Pod&, const ClusterEventData& e) {
    const auto& [o, n] = e.storage.csi_node;
    if (n == nullptr) return QueueingHint::kQueue;
    const auto old_limits = LimitsOf(o);
    for (const api::CSINodeDriver& d : n->drivers) {
      auto it = old_limits.find(d.name);
      const int64_t old_limit = it == old_limits.end() ? 0 : it->second;
      if (d.allocatable_count.value_or(0) > old_limit) return QueueingHint::kQueue;
    }
    return QueueingHint::kQueueSkip;
  };
  auto pod_deleted = [](const api::Pod&, const ClusterEventData& e) {
    const api::Pod* deleted = e.old_pod;
    if (deleted == nullptr) return QueueingHint::kQueue;
    if (deleted->spec.node_name.empty() && deleted->status.nominated_node_name.empty()) {
      return QueueingHint::kQueueSkip;
    }
    const auto& vs = deleted->spec.volumes;
    return std::any_of(vs.begin(), vs.end(), MayAttach) ? QueueingHint::kQueue
                                                        : QueueingHint::kQueueSkip;
  };
  auto claim_added = [](const api::Pod& pod, const ClusterEventData& e) {
    const api::PersistentVolumeClaim* pvc = e.storage.pvc.new_obj;
    if (pvc == nullptr) return QueueingHint::kQueue;
    return helper::UsesClaim(pod, *pvc) ? QueueingHint::kQueue : QueueingHint::kQueueSkip;
  };
  auto attachment_deleted = [](const api::Pod& pod, const ClusterEventData& e) {
    const api::VolumeAttachment* va = e.storage.volume_attachment.old_obj;
    for (const api::Volume& v : pod.spec.volumes) {
      if (v.source == "persistentVolumeClaim") return QueueingHint::kQueue;
      const helper::InTreePlugin* plugin = helper::InTreePluginOf(v.source);
      if (plugin == nullptr) continue;
      // A volume that does not translate is an error upstream, which queues the pod.
      if (va == nullptr || !helper::InlineVolumeHandle(v).ok() ||
          va->attacher == plugin->csi_driver) {
        return QueueingHint::kQueue;
      }
    }
    return QueueingHint::kQueueSkip;
  };
  return {
      {{EventResource::kCSINode, kAdd}, nullptr},
      {{EventResource::kCSINode, kUpdate}, csi_node_updated},
      {{EventResource::kPod, kDelete}, pod_deleted},
      {{EventResource::kPersistentVolumeClaim, kAdd}, claim_added},
      {{EventResource::kVolumeAttachment, kDelete}, attachment_deleted},
  };
}

PluginFactory MakeFactory(bool volume_limit_scaling) {
  return [volume_limit_scaling](const PluginArgs&,
                                Handle& handle) -> absl::StatusOr<std::unique_ptr<Plugin>> {
    return std::make_unique<NodeVolumeLimits>(handle, volume_limit_scaling);
  };
}

Status NodeVolumeLimits::SignPod(const api::Pod& pod, std::vector<SignFragment>* out) const {
  out->push_back({helper::kVolumesSigner, helper::SignVolumes(pod)});
  return Status();
}

}  // namespace ksched::plugins::node_volume_limits
