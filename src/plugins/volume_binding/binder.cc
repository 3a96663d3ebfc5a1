#include "src/plugins/volume_binding/binder.h"

#include <algorithm>
#include <charconv>
#include <thread>

#include "absl/time/clock.h"
#include "fmt/format.h"
#include "ksched/api/selectors.h"
#include "ksched/strings.h"
#include "src/plugins/helper/csi_translation.h"
#include "src/plugins/helper/pod_volumes.h"

namespace ksched::plugins::volume_binding {
namespace {

// Compares resourceVersions as upstream's APIObjectVersioner does (as integers); one that does
// not parse counts as equal.
int CompareVersions(const std::string& a, const std::string& b) {
  uint64_t x = 0, y = 0;
  if (std::from_chars(a.data(), a.data() + a.size(), x).ec != std::errc() ||
      std::from_chars(b.data(), b.data() + b.size(), y).ec != std::errc()) {
    return 0;
  }
  return x < y ? -1 : x > y ? 1 : 0;
}

bool HasAccessModes(const PVC& claim, const PV& pv) {
  return std::all_of(claim.access_modes.begin(), claim.access_modes.end(), [&](const auto& m) {
    return std::find(pv.access_modes.begin(), pv.access_modes.end(), m) != pv.access_modes.end();
  });
}

// The claim's storage request; none is zero.
__int128 Requested(const PVC& claim) {
  return claim.storage_request ? claim.storage_request->NanoValue() : 0;
}

// Whether a bound PV admits the node, its affinity translated to CSI where the node migrated its
// plugin (helper::MigratedNodeAffinity).
absl::StatusOr<bool> BoundVolumeAdmits(const StorageLister& storage, const PV& pv,
                                       const api::Node& node) {
  if (!helper::InTreePluginOf(pv.source.kind)) return CheckNodeAffinity(pv, node.metadata.labels);
  std::shared_ptr<const api::CSINode> csi_node = storage.GetCSINode(node.metadata.name);
  absl::StatusOr<std::optional<api::NodeSelector>> migrated =
      helper::MigratedNodeAffinity(pv, csi_node.get());
  if (!migrated.ok()) return migrated.status();
  if (!*migrated) return CheckNodeAffinity(pv, node.metadata.labels);
  return CheckNodeAffinity(**migrated, node.metadata.labels);
}

// CheckBindings' error for a bound PV whose node affinity excludes the pod's node; a translation
// error goes after `translate_prefix`, as upstream words each place.
absl::Status AdmitsNode(const StorageLister& storage, const PV& pv, const api::Node& node,
                        std::string_view translate_prefix = "") {
  absl::StatusOr<bool> admits = BoundVolumeAdmits(storage, pv, node);
  if (!admits.ok()) {
    return absl::Status(admits.status().code(),
                        fmt::format("{}{}", translate_prefix, AsStd(admits.status().message())));
  }
  if (*admits) return absl::OkStatus();
  return absl::FailedPreconditionError(
      fmt::format("pv \"{}\" node affinity doesn't match node \"{}\": no matching "
                  "NodeSelectorTerms",
                  pv.metadata.name, node.metadata.name));
}

}  // namespace

// --- Helpers ---------------------------------------------------------------------------------

bool CheckNodeAffinity(const PV& pv, const api::StringMap& labels) {
  return !pv.node_affinity || CheckNodeAffinity(*pv.node_affinity, labels);
}

bool CheckNodeAffinity(const api::NodeSelector& affinity, const api::StringMap& labels) {
  // As upstream, against a node that has only these labels (matchFields see no name).
  static const api::StringMap kNoFields = {{"metadata.name", ""}};
  for (const api::NodeSelectorTerm& term : affinity.node_selector_terms) {
    if (term.match_expressions.empty() && term.match_fields.empty()) continue;
    const bool all = std::all_of(term.match_expressions.begin(), term.match_expressions.end(),
                                 [&](const auto& r) { return api::Matches(r, labels); }) &&
                     std::all_of(term.match_fields.begin(), term.match_fields.end(),
                                 [&](const auto& r) { return api::Matches(r, kNoFields); });
    if (all) return true;
  }
  return false;
}

bool IsClaimFullyBound(const PVC& claim) {
  return !claim.volume_name.empty() && claim.metadata.annotations.contains(api::kAnnBindCompleted);
}

bool MatchTopologySelectorTerms(const std::vector<api::TopologySelectorTerm>& terms,
                                const api::StringMap& labels) {
  if (terms.empty()) return true;
  return std::any_of(terms.begin(), terms.end(), [&](const api::TopologySelectorTerm& t) {
    return std::all_of(t.match_label_expressions.begin(), t.match_label_expressions.end(),
                       [&](const api::TopologySelectorRequirement& r) {
                         auto it = labels.find(r.key);
                         return it != labels.end() && std::find(r.values.begin(), r.values.end(),
                                                                it->second) != r.values.end();
                       });
  });
}

std::shared_ptr<const PV> FindMatchingVolume(const PVC& claim,
                                             const std::vector<std::shared_ptr<const PV>>& volumes,
                                             const api::Node& node,
                                             const std::vector<std::string>& excluded) {
  std::shared_ptr<const PV> smallest;
  const __int128 requested = Requested(claim);
  const std::string requested_class = api::StorageClassOf(claim);
  const std::string claim_mode = claim.volume_mode.value_or("Filesystem");
  const std::string claim_vac = claim.volume_attributes_class_name.value_or("");
  for (const std::shared_ptr<const PV>& pv : volumes) {
    if (std::find(excluded.begin(), excluded.end(), pv->metadata.name) != excluded.end()) continue;
    if (pv->claim_ref && !api::IsVolumeBoundToClaim(*pv, claim)) continue;
    const __int128 capacity = pv->capacity ? pv->capacity->NanoValue() : 0;
    if (capacity < requested) continue;
    if (pv->volume_mode.value_or("Filesystem") != claim_mode) continue;
    if (pv->volume_attributes_class_name.value_or("") != claim_vac) continue;
    if (pv->metadata.deletion_timestamp) continue;
    const bool affinity_ok = CheckNodeAffinity(*pv, node.metadata.labels);
    if (api::IsVolumeBoundToClaim(*pv, claim)) return affinity_ok ? pv : nullptr;
    if (pv->phase != "Available") continue;
    if (claim.selector && !api::Matches(*claim.selector, pv->metadata.labels)) continue;
    if (api::StorageClassOf(*pv) != requested_class || !affinity_ok) continue;
    if (!HasAccessModes(claim, *pv)) continue;
    if (!smallest || smallest->capacity->NanoValue() > capacity) smallest = pv;
  }
  return smallest;
}

// --- AssumeCache -----------------------------------------------------------------------------

template <typename T>
std::shared_ptr<const T> AssumeCache<T>::Overlay(std::shared_ptr<const T> stored) const {
  if (!stored) return stored;
  absl::MutexLock lock(&mu_);
  if (assumed_.empty()) return stored;
  auto it = assumed_.find(api::KeyOf(stored->metadata));
  if (it == assumed_.end() ||
      it->second->metadata.resource_version != stored->metadata.resource_version) {
    return stored;
  }
  return it->second;
}

template <typename T>
absl::Status AssumeCache<T>::Assume(std::shared_ptr<const T> obj,
                                    const std::shared_ptr<const T>& stored) {
  const std::string key = api::KeyOf(obj->metadata);
  if (!stored) return absl::NotFoundError(fmt::format("\"{}\" not found", key));
  if (stored->metadata.resource_version != obj->metadata.resource_version) {
    return absl::AbortedError(fmt::format("\"{}\" is out of sync (stored: {}, assume: {})", key,
                                          stored->metadata.resource_version,
                                          obj->metadata.resource_version));
  }
  absl::MutexLock lock(&mu_);
  assumed_[key] = std::move(obj);
  return absl::OkStatus();
}

template <typename T>
void AssumeCache<T>::Restore(const T& obj) {
  absl::MutexLock lock(&mu_);
  auto it = assumed_.find(api::KeyOf(obj.metadata));
  if (it != assumed_.end() &&
      it->second->metadata.resource_version == obj.metadata.resource_version) {
    assumed_.erase(it);
  }
}

template class AssumeCache<PV>;
template class AssumeCache<PVC>;

// --- Binder ----------------------------------------------------------------------------------

std::shared_ptr<const PVC> Binder::GetClaim(std::string_view ns, std::string_view name) const {
  return pvcs_.Overlay(handle_.storage().GetPersistentVolumeClaim(ns, name));
}

std::shared_ptr<const PV> Binder::GetVolume(std::string_view name) const {
  return pvs_.Overlay(handle_.storage().GetPersistentVolume(name));
}

absl::StatusOr<PodVolumeClaims> Binder::GetPodVolumeClaims(const api::Pod& pod) const {
  PodVolumeClaims out;
  const std::string& ns = pod.metadata.namespace_;
  for (const api::Volume& v : pod.spec.volumes) {
    std::optional<helper::PodClaim> ref = helper::ClaimOf(pod, v);
    if (!ref) continue;
    std::shared_ptr<const PVC> pvc = GetClaim(ns, ref->name);
    if (!pvc) {
      return absl::NotFoundError(
          fmt::format("error getting PVC \"{}/{}\": {}", ns, ref->name,
                      helper::NotFound(handle_.storage(), "persistentVolumeClaim", ns, ref->name)));
    }
    if (ref->ephemeral) {
      if (absl::Status st = helper::VolumeIsForPod(pod, *pvc); !st.ok()) return st;
    }
    if (IsClaimFullyBound(*pvc)) {
      out.bound_volumes.push_back(GetVolume(pvc->volume_name));
      out.bound.push_back(std::move(pvc));
      continue;
    }
    // Upstream's IsDelayBindingMode: a claim without a class, or whose class is missing, is
    // bound at once (by the PV controller, which waits for the class).
    const std::string class_name = api::StorageClassOf(*pvc);
    std::shared_ptr<const api::StorageClass> sc =
        class_name.empty() ? nullptr : handle_.storage().GetStorageClass(class_name);
    if (sc && sc->volume_binding_mode == "WaitForFirstConsumer" && pvc->volume_name.empty()) {
      out.unbound_delay_binding.push_back(std::move(pvc));
    } else {
      out.unbound_immediate.push_back(std::move(pvc));
    }
  }
  for (const auto& pvc : out.unbound_delay_binding) {
    const std::string class_name = api::StorageClassOf(*pvc);
    if (out.unbound_volumes.contains(class_name)) continue;
    std::vector<std::shared_ptr<const PV>> pvs =
        handle_.storage().ListPersistentVolumes(class_name);
    for (auto& pv : pvs) pv = pvs_.Overlay(std::move(pv));
    out.unbound_volumes.emplace(class_name, std::move(pvs));
  }
  return out;
}

absl::StatusOr<PodVolumes> Binder::FindPodVolumes(const PodVolumeClaims& claims,
                                                  const api::Node& node,
                                                  std::vector<std::string>* reasons) const {
  PodVolumes out;
  bool bound_satisfied = true, unbound_satisfied = true, sufficient = true, pvs_found = true;
  auto finish = [&]() -> absl::StatusOr<PodVolumes> {
    if (!bound_satisfied) reasons->push_back(kErrReasonNodeConflict);
    if (!unbound_satisfied) reasons->push_back(kErrReasonBindConflict);
    if (!sufficient) reasons->push_back(kErrReasonNotEnoughSpace);
    if (!pvs_found) reasons->push_back(kErrReasonPVNotExist);
    return std::move(out);
  };
  // Bound claims: their PVs must admit the node.
  for (const std::shared_ptr<const PV>& pv : claims.bound_volumes) {
    if (!pv) {
      pvs_found = false;
      break;
    }
    absl::StatusOr<bool> admits = BoundVolumeAdmits(handle_.storage(), *pv, node);
    if (!admits.ok()) return admits.status();
    if (!*admits) {
      bound_satisfied = false;
      break;
    }
  }
  if (claims.unbound_delay_binding.empty()) return finish();

  std::vector<std::shared_ptr<const PVC>> to_match, to_provision;
  for (const auto& pvc : claims.unbound_delay_binding) {
    auto it = pvc->metadata.annotations.find(api::kAnnSelectedNode);
    if (it == pvc->metadata.annotations.end()) {
      to_match.push_back(pvc);
    } else if (it->second != node.metadata.name) {
      unbound_satisfied = false;  // Being provisioned for another node.
      return finish();
    } else {
      to_provision.push_back(pvc);
    }
  }
  if (!to_match.empty()) {
    // The smallest claims first, as upstream sorts them.
    std::stable_sort(to_match.begin(), to_match.end(),
                     [](const auto& a, const auto& b) { return Requested(*a) < Requested(*b); });
    std::vector<std::string> chosen;
    for (const auto& pvc : to_match) {
      auto it = claims.unbound_volumes.find(api::StorageClassOf(*pvc));
      std::shared_ptr<const PV> pv = it == claims.unbound_volumes.end()
                                         ? nullptr
                                         : FindMatchingVolume(*pvc, it->second, node, chosen);
      if (!pv) {
        to_provision.push_back(pvc);
        unbound_satisfied = false;
        continue;
      }
      chosen.push_back(pv->metadata.name);
      out.static_bindings.push_back({std::move(pv), pvc});
    }
  }
  if (!to_provision.empty()) {
    absl::Status st = CheckVolumeProvisions(to_provision, node, &unbound_satisfied, &sufficient,
                                            &out.dynamic_provisions);
    if (!st.ok()) return st;
  }
  return finish();
}

absl::Status Binder::CheckVolumeProvisions(const std::vector<std::shared_ptr<const PVC>>& claims,
                                           const api::Node& node, bool* satisfied, bool* sufficient,
                                           std::vector<PodVolumes::DynamicProvision>* out) const {
  std::vector<PodVolumes::DynamicProvision> provisions;
  for (const auto& claim : claims) {
    const std::string class_name = api::StorageClassOf(*claim);
    if (class_name.empty()) {
      return absl::FailedPreconditionError(
          fmt::format("no class for claim \"{}\"", api::KeyOf(claim->metadata)));
    }
    std::shared_ptr<const api::StorageClass> sc = handle_.storage().GetStorageClass(class_name);
    if (!sc) {
      return absl::NotFoundError(fmt::format("failed to find storage class \"{}\"", class_name));
    }
    if (sc->provisioner.empty() || sc->provisioner == api::kNoProvisioner ||
        !MatchTopologySelectorTerms(sc->allowed_topologies, node.metadata.labels)) {
      *satisfied = false;
      *sufficient = true;
      return absl::OkStatus();
    }
    std::shared_ptr<const api::CSIStorageCapacity> capacity;
    if (!HasEnoughCapacity(sc->provisioner, *claim, *sc, node, &capacity)) {
      *satisfied = true;
      *sufficient = false;
      return absl::OkStatus();
    }
    provisions.push_back({claim, std::move(capacity)});
  }
  *satisfied = true;
  *sufficient = true;
  *out = std::move(provisions);
  return absl::OkStatus();
}

bool Binder::HasEnoughCapacity(const std::string& provisioner, const PVC& claim,
                               const api::StorageClass& storage_class, const api::Node& node,
                               std::shared_ptr<const api::CSIStorageCapacity>* capacity) const {
  if (!claim.storage_request) return true;
  std::shared_ptr<const api::CSIDriver> driver = handle_.storage().GetCSIDriver(provisioner);
  if (!driver || !driver->storage_capacity.value_or(false)) return true;
  const __int128 size = claim.storage_request->NanoValue();
  for (const auto& cap : handle_.storage().ListCSIStorageCapacities()) {
    const std::optional<api::Quantity>& limit =
        cap->maximum_volume_size ? cap->maximum_volume_size : cap->capacity;
    if (cap->storage_class_name == storage_class.metadata.name && limit &&
        limit->NanoValue() >= size && cap->node_topology &&
        api::Matches(*cap->node_topology, node.metadata.labels)) {
      *capacity = cap;
      return true;
    }
  }
  return false;
}

absl::StatusOr<bool> Binder::AssumePodVolumes(const api::Pod& pod, std::string_view node,
                                              PodVolumes* volumes) {
  bool all_bound = true;
  for (const api::Volume& v : pod.spec.volumes) {
    std::optional<helper::PodClaim> ref = helper::ClaimOf(pod, v);
    if (!ref) continue;
    std::shared_ptr<const PVC> pvc = GetClaim(pod.metadata.namespace_, ref->name);
    if (!pvc || !IsClaimFullyBound(*pvc)) all_bound = false;
  }
  if (all_bound) return true;

  PodVolumes assumed;
  auto fail = [&](absl::Status st) -> absl::StatusOr<bool> {
    RevertAssumedPodVolumes(assumed);
    return st;
  };
  for (const auto& [pv, pvc] : volumes->static_bindings) {
    auto bound = std::make_shared<PV>(*pv);
    bool dirty = false;
    const api::ObjectMeta& c = pvc->metadata;
    if (!pv->claim_ref || pv->claim_ref->name != c.name ||
        pv->claim_ref->namespace_ != c.namespace_ || pv->claim_ref->uid != c.uid) {
      bound->claim_ref = api::ClaimReference(*pvc);
      dirty = true;
    }
    if (!api::IsVolumeBoundToClaim(*pv, *pvc) &&
        !bound->metadata.annotations.contains(api::kAnnBoundByController)) {
      bound->metadata.annotations[api::kAnnBoundByController] = "yes";
      dirty = true;
    }
    if (dirty) {
      absl::Status st =
          pvs_.Assume(bound, handle_.storage().GetPersistentVolume(pv->metadata.name));
      if (!st.ok()) return fail(st);
    }
    assumed.static_bindings.push_back({std::move(bound), pvc});
  }
  for (const auto& [pvc, capacity] : volumes->dynamic_provisions) {
    auto selected = std::make_shared<PVC>(*pvc);
    selected->metadata.annotations[api::kAnnSelectedNode] = std::string(node);
    absl::Status st = pvcs_.Assume(selected, handle_.storage().GetPersistentVolumeClaim(
                                                 pvc->metadata.namespace_, pvc->metadata.name));
    if (!st.ok()) return fail(st);
    assumed.dynamic_provisions.push_back({std::move(selected), capacity});
  }
  *volumes = std::move(assumed);
  return false;
}

void Binder::RevertAssumedPodVolumes(const PodVolumes& volumes) {
  for (const auto& b : volumes.static_bindings) pvs_.Restore(*b.pv);
  for (const auto& provision : volumes.dynamic_provisions) pvcs_.Restore(*provision.pvc);
}

absl::Status Binder::BindPodVolumes(const api::Pod& pod, const api::Node& node,
                                    PodVolumes volumes) {
  ClusterWriter& writer = handle_.writer();
  // Written so far; what is left is reverted on a failure.
  size_t bindings = 0, provisions = 0;
  auto revert_rest = [&] {
    for (size_t i = bindings; i < volumes.static_bindings.size(); ++i) {
      pvs_.Restore(*volumes.static_bindings[i].pv);
    }
    for (size_t i = provisions; i < volumes.dynamic_provisions.size(); ++i) {
      pvcs_.Restore(*volumes.dynamic_provisions[i].pvc);
    }
  };
  for (auto& [pv, pvc] : volumes.static_bindings) {
    absl::StatusOr<PV> written = writer.BindVolumeToClaim(*pv, *pvc);
    if (!written.ok()) {
      revert_rest();
      return written.status();
    }
    pv = std::make_shared<const PV>(*std::move(written));
    ++bindings;
  }
  for (auto& provision : volumes.dynamic_provisions) {
    std::shared_ptr<const PVC>& claim = provision.pvc;
    absl::StatusOr<PVC> written = writer.SetSelectedNode(*claim, node.metadata.name);
    if (!written.ok()) {
      revert_rest();
      return written.status();
    }
    claim = std::make_shared<const PVC>(*std::move(written));
    ++provisions;
  }
  // Upstream polls its informers once a second; the stores here are as cheap to read, so a tenth
  // of that lets a pod go on sooner once the controller is done.
  const absl::Time deadline = absl::Now() + bind_timeout_;
  while (true) {
    absl::StatusOr<bool> done = CheckBindings(pod, node, volumes);
    if (!done.ok()) {
      return absl::InternalError(
          fmt::format("binding volumes: {}", AsStd(done.status().message())));
    }
    if (*done) return absl::OkStatus();
    if (absl::Now() >= deadline) {
      return absl::DeadlineExceededError("binding volumes: context deadline exceeded");
    }
    absl::SleepFor(absl::Milliseconds(100));
  }
}

absl::StatusOr<bool> Binder::CheckBindings(const api::Pod& pod, const api::Node& node,
                                           const PodVolumes& written) const {
  const StorageLister& storage = handle_.storage();
  const std::string& node_name = node.metadata.name;
  if (!handle_.GetAssignedPod(pod.metadata.uid)) {
    return absl::NotFoundError("pod does not exist any more");
  }
  for (const auto& [pv_written, pvc_written] : written.static_bindings) {
    std::shared_ptr<const PV> pv = storage.GetPersistentVolume(pv_written->metadata.name);
    std::shared_ptr<const PVC> pvc = storage.GetPersistentVolumeClaim(
        pvc_written->metadata.namespace_, pvc_written->metadata.name);
    if (!pv || !pvc) {
      return absl::NotFoundError(
          fmt::format("failed to check binding: \"{}\" not found",
                      !pv ? pv_written->metadata.name : api::KeyOf(pvc_written->metadata)));
    }
    if (CompareVersions(pv_written->metadata.resource_version, pv->metadata.resource_version) > 0) {
      return false;  // The store has not seen our write yet.
    }
    if (absl::Status st = AdmitsNode(storage, *pv, node, "failed to translate pv to csi: ");
        !st.ok()) {
      return st;
    }
    if (!pv->claim_ref || pv->claim_ref->uid.empty()) {
      return absl::FailedPreconditionError(
          fmt::format("ClaimRef got reset for pv \"{}\"", pv->metadata.name));
    }
    if (!IsClaimFullyBound(*pvc)) return false;
  }
  for (const auto& provision : written.dynamic_provisions) {
    const std::shared_ptr<const PVC>& claim = provision.pvc;
    std::shared_ptr<const PVC> pvc =
        storage.GetPersistentVolumeClaim(claim->metadata.namespace_, claim->metadata.name);
    if (!pvc) {
      return absl::NotFoundError(fmt::format("failed to check provisioning pvc: \"{}\" not found",
                                             api::KeyOf(claim->metadata)));
    }
    if (CompareVersions(claim->metadata.resource_version, pvc->metadata.resource_version) > 0) {
      return false;
    }
    auto it = pvc->metadata.annotations.find(api::kAnnSelectedNode);
    if (pvc->metadata.annotations.empty()) {
      return absl::FailedPreconditionError(
          fmt::format("selectedNode annotation reset for PVC \"{}\"", pvc->metadata.name));
    }
    if (it == pvc->metadata.annotations.end() || it->second != node_name) {
      return absl::FailedPreconditionError(
          fmt::format("provisioning failed for PVC \"{}\"", pvc->metadata.name));
    }
    if (!pvc->volume_name.empty()) {
      std::shared_ptr<const PV> pv = storage.GetPersistentVolume(pvc->volume_name);
      if (!pv) return false;
      if (absl::Status st = AdmitsNode(storage, *pv, node); !st.ok()) return st;
    }
    if (!IsClaimFullyBound(*pvc)) return false;
  }
  return true;
}

}  // namespace ksched::plugins::volume_binding
