// The core/v1 objects: Pod, Node, Namespace, Service, ReplicationController, PersistentVolume and
// PersistentVolumeClaim, with the affinity, tolerations, containers and volumes of pods.
#include <algorithm>
#include <atomic>
#include <functional>
#include <memory>
#include <string>

#include "fmt/format.h"
#include "ksched/status_macros.h"
#include "ksched/strings.h"
#include "src/api/decode.h"
#include "src/api/decode_internal.h"

namespace ksched::api {
namespace decoding {
namespace {

// --- Affinity ------------------------------------------------------------------------------

absl::Status PreferredTerm(element e, const Path& p, PreferredSchedulingTerm* out,
                           OperatorError wording) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k == "weight") return Integer(v, vp, &out->weight);
    if (k == "preference") return NodeTerm(v, vp, &out->preference, wording);
    return absl::OkStatus();
  });
}

absl::Status NodeAff(element e, const Path& p, NodeAffinity* out,
                     OperatorError wording = OperatorError::kApiServer) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k == "requiredDuringSchedulingIgnoredDuringExecution") {
      if (v.is_null()) return absl::OkStatus();
      return NodeSel(v, vp, &out->required_during_scheduling_ignored_during_execution.emplace(),
                     wording);
    }
    if (k == "preferredDuringSchedulingIgnoredDuringExecution") {
      auto term = [wording](element te, const Path& tp, PreferredSchedulingTerm* t) {
        return PreferredTerm(te, tp, t, wording);
      };
      return Items(v, vp, &out->preferred_during_scheduling_ignored_during_execution, term);
    }
    return absl::OkStatus();
  });
}

absl::Status PodAffTerm(element e, const Path& p, PodAffinityTerm* out) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k == "labelSelector") return OptLabelSel(v, vp, &out->label_selector);
    if (k == "namespaces") return StrList(v, vp, &out->namespaces);
    if (k == "topologyKey") return Str(v, vp, &out->topology_key);
    if (k == "namespaceSelector") return OptLabelSel(v, vp, &out->namespace_selector);
    if (k == "matchLabelKeys") return StrList(v, vp, &out->match_label_keys);
    if (k == "mismatchLabelKeys") return StrList(v, vp, &out->mismatch_label_keys);
    return absl::OkStatus();
  });
}

absl::Status WeightedPodAffTerm(element e, const Path& p, WeightedPodAffinityTerm* out) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k == "weight") return Integer(v, vp, &out->weight);
    if (k == "podAffinityTerm") return PodAffTerm(v, vp, &out->pod_affinity_term);
    return absl::OkStatus();
  });
}

absl::Status PodAff(element e, const Path& p, PodAffinity* out) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k == "requiredDuringSchedulingIgnoredDuringExecution") {
      return Items(v, vp, &out->required_during_scheduling_ignored_during_execution, PodAffTerm);
    }
    if (k == "preferredDuringSchedulingIgnoredDuringExecution") {
      return Items(v, vp, &out->preferred_during_scheduling_ignored_during_execution,
                   WeightedPodAffTerm);
    }
    return absl::OkStatus();
  });
}

absl::Status Aff(element e, const Path& p, Affinity* out) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (v.is_null()) return absl::OkStatus();
    if (k == "nodeAffinity") return NodeAff(v, vp, &out->node_affinity.emplace());
    if (k == "podAffinity") return PodAff(v, vp, &out->pod_affinity.emplace());
    if (k == "podAntiAffinity") return PodAff(v, vp, &out->pod_anti_affinity.emplace());
    return absl::OkStatus();
  });
}

// --- Taints, tolerations, spread -----------------------------------------------------------

absl::Status Effect(element e, const Path& p, std::string* out, bool allow_empty) {
  KSCHED_RETURN_IF_ERROR(Str(e, p, out));
  if (allow_empty && out->empty()) return absl::OkStatus();
  return CheckSupported(
      p, *out, {kTaintEffectNoSchedule, kTaintEffectPreferNoSchedule, kTaintEffectNoExecute});
}

absl::Status TaintOf(element e, const Path& p, Taint* out) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k == "key") return Str(v, vp, &out->key);
    if (k == "value") return Str(v, vp, &out->value);
    if (k == "effect") return Effect(v, vp, &out->effect, /*allow_empty=*/false);
    if (k == "timeAdded") return Str(v, vp, &out->time_added);
    return absl::OkStatus();
  });
}

absl::Status TolerationOf(element e, const Path& p, Toleration* out) {
  KSCHED_RETURN_IF_ERROR(
      Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
        if (k == "key") return Str(v, vp, &out->key);
        if (k == "operator") return Str(v, vp, &out->op);
        if (k == "value") return Str(v, vp, &out->value);
        if (k == "effect") return Effect(v, vp, &out->effect, /*allow_empty=*/true);
        if (k == "tolerationSeconds") return OptInteger(v, vp, &out->toleration_seconds);
        return absl::OkStatus();
      }));
  if (out->op.empty()) return absl::OkStatus();
  return CheckSupported(p.Field("operator"), out->op, {"Equal", "Exists"});
}

absl::Status Spread(element e, const Path& p, TopologySpreadConstraint* out) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k == "maxSkew") return Integer(v, vp, &out->max_skew);
    if (k == "topologyKey") return Str(v, vp, &out->topology_key);
    if (k == "whenUnsatisfiable") return Str(v, vp, &out->when_unsatisfiable);
    if (k == "labelSelector") return OptLabelSel(v, vp, &out->label_selector);
    if (k == "minDomains") return OptInteger(v, vp, &out->min_domains);
    if (k == "nodeAffinityPolicy") return OptStr(v, vp, &out->node_affinity_policy);
    if (k == "nodeTaintsPolicy") return OptStr(v, vp, &out->node_taints_policy);
    if (k == "matchLabelKeys") return StrList(v, vp, &out->match_label_keys);
    return absl::OkStatus();
  });
}

// --- Containers and volumes ----------------------------------------------------------------

absl::Status Port(element e, const Path& p, ContainerPort* out) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k == "name") return Str(v, vp, &out->name);
    if (k == "containerPort") return Integer(v, vp, &out->container_port);
    if (k == "hostPort") return Integer(v, vp, &out->host_port);
    if (k == "hostIP") return Str(v, vp, &out->host_ip);
    if (k == "protocol") return Str(v, vp, &out->protocol);
    return absl::OkStatus();
  });
}

absl::Status Requirements(element e, const Path& p, ResourceRequirements* out) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k == "requests") return Resources(v, vp, &out->requests);
    if (k == "limits") return Resources(v, vp, &out->limits);
    return absl::OkStatus();
  });
}

absl::Status RestartRule(element e, const Path& p, ContainerRestartRule* out) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k == "action") return Str(v, vp, &out->action);
    return absl::OkStatus();
  });
}

absl::Status ContainerOf(element e, const Path& p, Container* out) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k == "name") return Str(v, vp, &out->name);
    if (k == "image") return Str(v, vp, &out->image);
    if (k == "ports") return Items(v, vp, &out->ports, Port);
    if (k == "resources") return Requirements(v, vp, &out->resources);
    if (k == "restartPolicy") return OptStr(v, vp, &out->restart_policy);
    if (k == "restartPolicyRules") return Items(v, vp, &out->restart_policy_rules, RestartRule);
    if (k == "volumeMounts") {
      std::vector<std::vector<std::string>> options;  // Each mount's bindMountOptions.
      KSCHED_RETURN_IF_ERROR(
          Items(v, vp, &options, [](element m, const Path& mp, std::vector<std::string>* o) {
            return Fields(m, mp, [&](std::string_view mk, element mv, const Path& mvp) {
              return mk == "bindMountOptions" ? StrList(mv, mvp, o) : absl::OkStatus();
            });
          }));
      out->bind_mount_options =
          std::any_of(options.begin(), options.end(), [](const auto& o) { return !o.empty(); });
    }
    return absl::OkStatus();
  });
}

// Whether `field` of an in-tree volume source names its disk (api::Volume's disk_id).
bool InTreeDiskField(std::string_view source, std::string_view field) {
  return (source == "gcePersistentDisk" && field == "pdName") ||
         (source == "awsElasticBlockStore" && field == "volumeID") ||
         (source == "azureDisk" && field == "diskURI") ||
         (source == "cinder" && field == "volumeID") ||
         (source == "portworxVolume" && field == "volumeID");
}

// The fields of one volume source that the volume plugins read.
absl::Status VolumeSource(std::string_view source, element e, const Path& p, Volume* out) {
  std::string pool, image;
  KSCHED_RETURN_IF_ERROR(
      Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
        if (k == "readOnly") return Bool(v, vp, &out->read_only);
        if (source == "persistentVolumeClaim" && k == "claimName") {
          return Str(v, vp, &out->claim_name);
        }
        if (source == "csi" && k == "driver") return Str(v, vp, &out->csi_driver);
        if (source == "image" && k == "reference") return Str(v, vp, &out->image_reference);
        if (source == "ephemeral" && k == "volumeClaimTemplate") {
          out->ephemeral_claim = !v.is_null();
          return absl::OkStatus();
        }
        if (InTreeDiskField(source, k)) return Str(v, vp, &out->disk_id);
        if (source == "azureDisk" && k == "kind") return Str(v, vp, &out->azure_disk_kind);
        if (source == "iscsi" && k == "iqn") return Str(v, vp, &out->disk_id);
        if (source == "rbd" && k == "monitors") return StrList(v, vp, &out->rbd_monitors);
        if (source == "rbd" && k == "pool") return Str(v, vp, &pool);
        if (source == "rbd" && k == "image") return Str(v, vp, &image);
        return absl::OkStatus();
      }));
  if (source == "rbd") out->disk_id = fmt::format("{}/{}", pool.empty() ? "rbd" : pool, image);
  if (source == "azureDisk" && out->azure_disk_kind.empty()) out->azure_disk_kind = "Shared";
  return absl::OkStatus();
}

absl::Status VolumeOf(element e, const Path& p, Volume* out) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k == "name") return Str(v, vp, &out->name);
    if (v.is_null()) return absl::OkStatus();
    out->source = k;
    out->source_digest = std::hash<std::string>{}(fmt::format("{}:{}", k, simdjson::minify(v)));
    return VolumeSource(k, v, vp, out);
  });
}

// --- Pod -----------------------------------------------------------------------------------

// An item of which only the name is decoded (schedulingGates, resourceClaims).
template <typename T>
absl::Status Named(element e, const Path& p, T* out) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k == "name") return Str(v, vp, &out->name);
    return absl::OkStatus();
  });
}

// The API server's defaults for a pod's containers (SetDefaults_Pod), so that a pod from a
// manifest reads as the API server would store it; pods read from the API server have them
// already. Requests default to the limits of resources that have no request, and on the host's
// network every container port is also a host port (defaultHostNetworkPorts).
void ApplyPodDefaults(PodSpec* spec) {
  for (auto* list : {&spec->init_containers, &spec->containers}) {
    for (Container& c : *list) {
      for (const auto& [name, limit] : c.resources.limits)
        c.resources.requests.try_emplace(name, limit);
      if (!spec->host_network) continue;
      for (ContainerPort& port : c.ports) {
        if (port.host_port == 0) port.host_port = port.container_port;
      }
    }
  }
}

absl::Status Spec(element e, const Path& p, PodSpec* out) {
  absl::Status st =
      Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
        if (k == "hostNetwork") return Bool(v, vp, &out->host_network);
        if (k == "hostUsers") return OptBool(v, vp, &out->host_users);
        if (k == "schedulerName") return Str(v, vp, &out->scheduler_name);
        if (k == "nodeName") return Str(v, vp, &out->node_name);
        if (k == "nodeSelector") return StrMapOf(v, vp, &out->node_selector);
        if (k == "affinity") {
          if (v.is_null()) return absl::OkStatus();
          return Aff(v, vp, &out->affinity.emplace());
        }
        if (k == "tolerations") return Items(v, vp, &out->tolerations, TolerationOf);
        if (k == "topologySpreadConstraints") {
          return Items(v, vp, &out->topology_spread_constraints, Spread);
        }
        if (k == "priority") return OptInteger(v, vp, &out->priority);
        if (k == "priorityClassName") return Str(v, vp, &out->priority_class_name);
        if (k == "preemptionPolicy") return OptStr(v, vp, &out->preemption_policy);
        if (k == "overhead") return Resources(v, vp, &out->overhead);
        if (k == "schedulingGates")
          return Items(v, vp, &out->scheduling_gates, Named<PodSchedulingGate>);
        if (k == "schedulingGroup") {
          return Fields(v, vp, [&](std::string_view gk, element gv, const Path& gvp) {
            return gk == "podGroupName" ? OptStr(gv, gvp, &out->pod_group_name) : absl::OkStatus();
          });
        }
        if (k == "initContainers") return Items(v, vp, &out->init_containers, ContainerOf);
        if (k == "containers") return Items(v, vp, &out->containers, ContainerOf);
        if (k == "volumes") return Items(v, vp, &out->volumes, VolumeOf);
        if (k == "resourceClaims") return Items(v, vp, &out->resource_claims, PodClaim);
        if (k == "resources") {
          if (v.is_null()) return absl::OkStatus();
          return Requirements(v, vp, &out->resources.emplace());
        }
        return absl::OkStatus();
      });
  if (st.ok()) ApplyPodDefaults(out);
  return st;
}

absl::Status ExtendedClaimStatus(element e, const Path& p, PodExtendedResourceClaimStatus* out) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k == "resourceClaimName") return Str(v, vp, &out->resource_claim_name);
    if (k != "requestMappings") return absl::OkStatus();
    return Items(v, vp, &out->request_mappings,
                 [](element m, const Path& mp, ContainerExtendedResourceRequest* r) {
                   return Fields(
                       m, mp,
                       [&](std::string_view mk, element mv, const Path& mvp) -> absl::Status {
                         if (mk == "containerName") return Str(mv, mvp, &r->container_name);
                         if (mk == "resourceName") return Str(mv, mvp, &r->resource_name);
                         if (mk == "requestName") return Str(mv, mvp, &r->request_name);
                         return absl::OkStatus();
                       });
                 });
  });
}

absl::Status PodStat(element e, const Path& p, PodStatus* out) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k == "phase") return Str(v, vp, &out->phase);
    if (k == "conditions") return Items(v, vp, &out->conditions, ConditionOf<PodCondition>);
    if (k == "nominatedNodeName") return Str(v, vp, &out->nominated_node_name);
    if (k == "startTime") return Str(v, vp, &out->start_time);
    if (k == "resourceClaimStatuses") {
      return Items(v, vp, &out->resource_claim_statuses, PodClaimStatus);
    }
    if (k == "extendedResourceClaimStatus" && !v.is_null()) {
      return ExtendedClaimStatus(v, vp, &out->extended_resource_claim_status.emplace());
    }
    return absl::OkStatus();
  });
}

// --- Node ----------------------------------------------------------------------------------

absl::Status NodeSpecOf(element e, const Path& p, NodeSpec* out) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k == "unschedulable") return Bool(v, vp, &out->unschedulable);
    if (k == "taints") return Items(v, vp, &out->taints, TaintOf);
    return absl::OkStatus();
  });
}

absl::Status Image(element e, const Path& p, ContainerImage* out) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k == "names") return StrList(v, vp, &out->names);
    if (k == "sizeBytes") return Integer(v, vp, &out->size_bytes);
    return absl::OkStatus();
  });
}

absl::Status NodeCond(element e, const Path& p, NodeCondition* out) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k == "type") return Str(v, vp, &out->type);
    if (k == "status") return Str(v, vp, &out->status);
    if (k == "reason") return Str(v, vp, &out->reason);
    if (k == "message") return Str(v, vp, &out->message);
    return absl::OkStatus();
  });
}

absl::Status NodeStat(element e, const Path& p, NodeStatus* out) {
  bool has_allocatable = false;
  absl::Status st =
      Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
        if (k == "capacity") return Resources(v, vp, &out->capacity);
        if (k == "allocatable") {
          has_allocatable = !v.is_null();
          return Resources(v, vp, &out->allocatable);
        }
        if (k == "images") return Items(v, vp, &out->images, Image);
        if (k == "conditions") return Items(v, vp, &out->conditions, NodeCond);
        if (k == "declaredFeatures") return StrList(v, vp, &out->declared_features);
        return absl::OkStatus();
      });
  // The API server's defaulting (SetDefaults_NodeStatus): no allocatable means the capacity.
  if (!has_allocatable) out->allocatable = out->capacity;
  return st;
}

// The object's JSON, minified, where KeepObjectJson asks for it.
std::atomic<bool> keep_object_json{false};
std::shared_ptr<const std::string> JsonOf(element e) {
  if (!keep_object_json.load(std::memory_order_relaxed)) return nullptr;
  return std::make_shared<const std::string>(simdjson::minify(e));
}

absl::Status PodAt(element e, const Path& p, Pod* out) {
  out->json = JsonOf(e);
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k == "metadata") return Meta(v, vp, &out->metadata);
    if (k == "spec") return Spec(v, vp, &out->spec);
    if (k == "status") return PodStat(v, vp, &out->status);
    return absl::OkStatus();
  });
}

absl::Status NodeAt(element e, const Path& p, Node* out) {
  out->json = JsonOf(e);
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k == "metadata") return Meta(v, vp, &out->metadata);
    if (k == "spec") return NodeSpecOf(v, vp, &out->spec);
    if (k == "status") return NodeStat(v, vp, &out->status);
    return absl::OkStatus();
  });
}

absl::Status NamespaceAt(element e, const Path& p, Namespace* out) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k == "metadata") return Meta(v, vp, &out->metadata);
    return absl::OkStatus();
  });
}

absl::Status StorageOf(element e, const Path& p, std::optional<Quantity>* out) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k == kResourceStorage) return OptQuant(v, vp, out);
    return absl::OkStatus();
  });
}

absl::Status ObjectRef(element e, const Path& p, ObjectReference* out) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k == "kind") return Str(v, vp, &out->kind);
    if (k == "namespace") return Str(v, vp, &out->namespace_);
    if (k == "name") return Str(v, vp, &out->name);
    if (k == "uid") return Str(v, vp, &out->uid);
    if (k == "apiVersion") return Str(v, vp, &out->api_version);
    if (k == "resourceVersion") return Str(v, vp, &out->resource_version);
    return absl::OkStatus();
  });
}

// The fields of a PV's source that identify the disk, by source kind (the in-tree ones that
// NodeVolumeLimits translates to CSI).
absl::Status PvSource(std::string_view kind, element e, const Path& p,
                      PersistentVolumeSource* out) {
  out->kind = kind;
  KSCHED_RETURN_IF_ERROR(
      Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
        if (k == "readOnly") return Bool(v, vp, &out->read_only);
        if (kind == "csi" && k == "driver") return Str(v, vp, &out->driver);
        if ((kind == "csi" && k == "volumeHandle") || InTreeDiskField(kind, k) ||
            (kind == "local" && k == "path") || (kind == "hostPath" && k == "path")) {
          return Str(v, vp, &out->volume_handle);
        }
        if (kind == "azureDisk" && k == "kind") return Str(v, vp, &out->azure_disk_kind);
        return absl::OkStatus();
      }));
  if (kind == "azureDisk" && out->azure_disk_kind.empty()) out->azure_disk_kind = "Shared";
  return absl::OkStatus();
}

absl::Status PvSpec(element e, const Path& p, PersistentVolume* out) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k == "capacity") return StorageOf(v, vp, &out->capacity);
    if (k == "accessModes") return StrList(v, vp, &out->access_modes);
    if (k == "claimRef") {
      if (v.is_null()) return absl::OkStatus();
      return ObjectRef(v, vp, &out->claim_ref.emplace());
    }
    if (k == "storageClassName") return Str(v, vp, &out->storage_class_name);
    if (k == "volumeMode") return OptStr(v, vp, &out->volume_mode);
    if (k == "volumeAttributesClassName") return OptStr(v, vp, &out->volume_attributes_class_name);
    if (k == "nodeAffinity") {
      return Fields(v, vp, [&](std::string_view ak, element av, const Path& avp) -> absl::Status {
        if (ak != "required" || av.is_null()) return absl::OkStatus();
        return NodeSel(av, avp, &out->node_affinity.emplace());
      });
    }
    if (k == "persistentVolumeReclaimPolicy") {
      return CheckOneOf(v, vp, {"Delete", "Recycle", "Retain"});
    }
    if (k == "mountOptions" || v.is_null() || !v.is_object()) {
      return absl::OkStatus();
    }
    return PvSource(k, v, vp, &out->source);
  });
}

absl::Status PhaseOf(element e, const Path& p, std::string* out) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k == "phase") return Str(v, vp, out);
    return absl::OkStatus();
  });
}

absl::Status PvAt(element e, const Path& p, PersistentVolume* out) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k == "metadata") return Meta(v, vp, &out->metadata);
    if (k == "spec") return PvSpec(v, vp, out);
    if (k == "status") return PhaseOf(v, vp, &out->phase);
    return absl::OkStatus();
  });
}

absl::Status PvcSpec(element e, const Path& p, PersistentVolumeClaim* out) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k == "accessModes") return StrList(v, vp, &out->access_modes);
    if (k == "selector") return OptLabelSel(v, vp, &out->selector);
    if (k == "resources") {
      return Fields(v, vp, [&](std::string_view rk, element rv, const Path& rvp) -> absl::Status {
        if (rk == "requests") return StorageOf(rv, rvp, &out->storage_request);
        return absl::OkStatus();
      });
    }
    if (k == "storageClassName") return OptStr(v, vp, &out->storage_class_name);
    if (k == "volumeName") return Str(v, vp, &out->volume_name);
    if (k == "volumeMode") return OptStr(v, vp, &out->volume_mode);
    if (k == "volumeAttributesClassName") return OptStr(v, vp, &out->volume_attributes_class_name);
    return absl::OkStatus();
  });
}

absl::Status PvcAt(element e, const Path& p, PersistentVolumeClaim* out) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k == "metadata") return Meta(v, vp, &out->metadata);
    if (k == "spec") return PvcSpec(v, vp, out);
    if (k == "status") return PhaseOf(v, vp, &out->phase);
    return absl::OkStatus();
  });
}

}  // namespace

absl::Status PodClaim(element e, const Path& p, PodResourceClaim* out) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k == "name") return Str(v, vp, &out->name);
    if (k == "resourceClaimName") return OptStr(v, vp, &out->resource_claim_name);
    if (k == "resourceClaimTemplateName") {
      return OptStr(v, vp, &out->resource_claim_template_name);
    }
    return absl::OkStatus();
  });
}

absl::Status PodClaimStatus(element e, const Path& p, PodResourceClaimStatus* out) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k == "name") return Str(v, vp, &out->name);
    if (k == "resourceClaimName") return OptStr(v, vp, &out->resource_claim_name);
    return absl::OkStatus();
  });
}

}  // namespace decoding

using decoding::element;
using decoding::Path;

void KeepObjectJson(bool keep) { decoding::keep_object_json.store(keep); }

absl::Status DecodePod(element e, Pod* out) { return decoding::PodAt(e, Path(), out); }
absl::Status DecodeNodeAffinity(element e, NodeAffinity* out) {
  return decoding::NodeAff(e, Path(), out, decoding::OperatorError::kSchedulerConfig);
}
absl::Status DecodeNode(element e, Node* out) { return decoding::NodeAt(e, Path(), out); }
absl::Status DecodeNamespace(element e, Namespace* out) {
  return decoding::NamespaceAt(e, Path(), out);
}
absl::Status DecodeService(element e, Service* out) { return decoding::WorkloadAt(e, Path(), out); }
absl::Status DecodeReplicationController(element e, ReplicationController* out) {
  return decoding::WorkloadAt(e, Path(), out);
}
absl::Status DecodePersistentVolume(element e, PersistentVolume* out) {
  return decoding::PvAt(e, Path(), out);
}
absl::Status DecodePersistentVolumeClaim(element e, PersistentVolumeClaim* out) {
  return decoding::PvcAt(e, Path(), out);
}
absl::StatusOr<Pod> DecodePod(std::string_view json) {
  return decoding::ParseAndDecode<Pod, decoding::PodAt>(json);
}
absl::StatusOr<Node> DecodeNode(std::string_view json) {
  return decoding::ParseAndDecode<Node, decoding::NodeAt>(json);
}

}  // namespace ksched::api
