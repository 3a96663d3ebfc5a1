#include "src/api/decode.h"

#include <charconv>
#include <string>

#include "fmt/format.h"
#include "fmt/ranges.h"
#include "ksched/status_macros.h"
#include "ksched/strings.h"
#include "src/api/json_path.h"

namespace ksched::api {
namespace {

using internal::FieldError;
using internal::Path;
using simdjson::dom::element;

// --- Scalars -------------------------------------------------------------------------------

absl::Status TypeError(const Path& p, std::string_view want, element e) {
  return FieldError(p, fmt::format("expected {}, got {}", want, internal::TypeName(e)));
}

absl::Status Str(element e, const Path& p, std::string* out) {
  if (e.is_null()) return absl::OkStatus();
  std::string_view s;
  if (e.get_string().get(s)) return TypeError(p, "string", e);
  out->assign(s);
  return absl::OkStatus();
}

absl::Status OptStr(element e, const Path& p, std::optional<std::string>* out) {
  if (e.is_null()) return absl::OkStatus();
  KSCHED_RETURN_IF_ERROR(Str(e, p, &out->emplace()));
  return absl::OkStatus();
}

absl::Status Bool(element e, const Path& p, bool* out) {
  if (e.is_null()) return absl::OkStatus();
  if (e.get_bool().get(*out)) return TypeError(p, "boolean", e);
  return absl::OkStatus();
}

template <typename Int>
absl::Status Integer(element e, const Path& p, Int* out) {
  if (e.is_null()) return absl::OkStatus();
  int64_t v = 0;
  if (e.get_int64().get(v)) return TypeError(p, "integer", e);
  if (v < std::numeric_limits<Int>::min() || v > std::numeric_limits<Int>::max()) {
    return FieldError(p, fmt::format("integer {} out of range", v));
  }
  *out = static_cast<Int>(v);
  return absl::OkStatus();
}

template <typename Int>
absl::Status OptInteger(element e, const Path& p, std::optional<Int>* out) {
  if (e.is_null()) return absl::OkStatus();
  return Integer(e, p, &out->emplace());
}

// A quantity is a string ("100m") or, as upstream's UnmarshalJSON accepts, a bare number.
absl::Status Quant(element e, const Path& p, Quantity* out) {
  std::string text;
  std::string_view s;
  int64_t i = 0;
  double d = 0;
  if (!e.get_string().get(s)) {
    text = s;
  } else if (!e.get_int64().get(i)) {
    text = std::to_string(i);
  } else if (!e.get_double().get(d)) {
    char buf[64];
    auto res = std::to_chars(buf, buf + sizeof buf, d);
    text.assign(buf, res.ptr);
  } else {
    return TypeError(p, "quantity", e);
  }
  absl::StatusOr<Quantity> q = Quantity::Parse(text);
  if (!q.ok()) return FieldError(p, AsStd(q.status().message()));
  *out = *q;
  return absl::OkStatus();
}

// --- Containers of values ------------------------------------------------------------------

// Calls fn(key, value, path_of_value) for each field of an object; null is an empty object.
template <typename Fn>
absl::Status Fields(element e, const Path& p, Fn&& fn) {
  if (e.is_null()) return absl::OkStatus();
  simdjson::dom::object obj;
  if (e.get_object().get(obj)) return TypeError(p, "object", e);
  for (auto field : obj) {
    Path child = p.Field(field.key);
    KSCHED_RETURN_IF_ERROR(fn(field.key, field.value, child));
  }
  return absl::OkStatus();
}

// Decodes each item of an array with decode(item, path, T*); null is an empty array.
template <typename T, typename Fn>
absl::Status Items(element e, const Path& p, std::vector<T>* out, Fn&& decode) {
  if (e.is_null()) return absl::OkStatus();
  simdjson::dom::array arr;
  if (e.get_array().get(arr)) return TypeError(p, "array", e);
  out->clear();
  out->reserve(arr.size());
  int index = 0;
  for (element item : arr) {
    Path child = p.Index(index++);
    KSCHED_RETURN_IF_ERROR(decode(item, child, &out->emplace_back()));
  }
  return absl::OkStatus();
}

absl::Status StrList(element e, const Path& p, std::vector<std::string>* out) {
  return Items(e, p, out, Str);
}

absl::Status StrMapOf(element e, const Path& p, StringMap* out) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) {
    return Str(v, vp, &(*out)[std::string(k)]);
  });
}

absl::Status Resources(element e, const Path& p, ResourceList* out) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) {
    return Quant(v, vp, &(*out)[std::string(k)]);
  });
}

// --- Metadata ------------------------------------------------------------------------------

absl::Status OwnerRef(element e, const Path& p, OwnerReference* out) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k == "apiVersion") return Str(v, vp, &out->api_version);
    if (k == "kind") return Str(v, vp, &out->kind);
    if (k == "name") return Str(v, vp, &out->name);
    if (k == "uid") return Str(v, vp, &out->uid);
    if (k == "controller") return Bool(v, vp, &out->controller);
    return absl::OkStatus();
  });
}

absl::Status Meta(element e, const Path& p, ObjectMeta* out) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k == "name") return Str(v, vp, &out->name);
    if (k == "namespace") return Str(v, vp, &out->namespace_);
    if (k == "uid") return Str(v, vp, &out->uid);
    if (k == "labels") return StrMapOf(v, vp, &out->labels);
    if (k == "annotations") return StrMapOf(v, vp, &out->annotations);
    if (k == "ownerReferences") return Items(v, vp, &out->owner_references, OwnerRef);
    if (k == "creationTimestamp") return Str(v, vp, &out->creation_timestamp);
    if (k == "deletionTimestamp") return OptStr(v, vp, &out->deletion_timestamp);
    if (k == "resourceVersion") return Str(v, vp, &out->resource_version);
    return absl::OkStatus();
  });
}

// --- Selectors -----------------------------------------------------------------------------

// How an operator outside the allowed ones is reported: as the API server validates an object
// ("Invalid value: ...: not a valid selector operator"), or as kube-scheduler validates
// NodeAffinityArgs.addedAffinity (component-helpers' nodeaffinity: "Unsupported value: ...").
enum class OperatorError { kApiServer, kSchedulerConfig };

// Validates a requirement as the API server does; `ops` lists the operators allowed here.
template <typename Req>
absl::Status Requirement(element e, const Path& p, Req* out,
                         std::initializer_list<std::string_view> ops,
                         OperatorError wording = OperatorError::kApiServer) {
  Path op_path = p.Field("operator");
  KSCHED_RETURN_IF_ERROR(Fields(e, p, [&](std::string_view k, element v, const Path& vp) {
    if (k == "key") return Str(v, vp, &out->key);
    if (k == "operator") return Str(v, vp, &out->op);
    if (k == "values") return StrList(v, vp, &out->values);
    return absl::OkStatus();
  }));
  if (out->key.empty()) return FieldError(p.Field("key"), "Required value");
  if (std::find(ops.begin(), ops.end(), out->op) == ops.end()) {
    if (wording == OperatorError::kApiServer) {
      return FieldError(
          op_path, fmt::format("Invalid value: \"{}\": not a valid selector operator", out->op));
    }
    return FieldError(op_path, fmt::format("Unsupported value: \"{}\": supported values: \"{}\"",
                                           out->op, fmt::join(ops, "\", \"")));
  }
  Path values = p.Field("values");
  const std::string& op = out->op;
  if ((op == "In" || op == "NotIn") && out->values.empty()) {
    return FieldError(values,
                      "Required value: must be specified when `operator` is 'In' or 'NotIn'");
  }
  if ((op == "Exists" || op == "DoesNotExist") && !out->values.empty()) {
    return FieldError(values,
                      "Forbidden: may not be specified when `operator` is 'Exists' or "
                      "'DoesNotExist'");
  }
  if (op == "Gt" || op == "Lt") {
    int64_t n = 0;
    const std::string* v = out->values.size() == 1 ? &out->values[0] : nullptr;
    if (v == nullptr)
      return FieldError(
          values, "Required value: must be specified single value when `operator` is 'Lt' or 'Gt'");
    auto [end, ec] = std::from_chars(v->data(), v->data() + v->size(), n);
    if (ec != std::errc() || end != v->data() + v->size() || v->empty()) {
      return FieldError(values.Index(0),
                        fmt::format("Invalid value: \"{}\": must be an integer", *v));
    }
  }
  return absl::OkStatus();
}

absl::Status LabelReq(element e, const Path& p, LabelSelectorRequirement* out) {
  return Requirement(e, p, out, {"In", "NotIn", "Exists", "DoesNotExist"});
}

absl::Status NodeReq(element e, const Path& p, NodeSelectorRequirement* out,
                     OperatorError wording) {
  return Requirement(e, p, out, {"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"}, wording);
}

absl::Status FieldReq(element e, const Path& p, NodeSelectorRequirement* out,
                      OperatorError wording) {
  KSCHED_RETURN_IF_ERROR(Requirement(e, p, out, {"In", "NotIn"}, wording));
  if (out->key != "metadata.name") {
    return FieldError(
        p.Field("key"),
        fmt::format("Invalid value: \"{}\": not a valid field selector key", out->key));
  }
  return absl::OkStatus();
}

absl::Status LabelSel(element e, const Path& p, LabelSelector* out) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k == "matchLabels") return StrMapOf(v, vp, &out->match_labels);
    if (k == "matchExpressions") return Items(v, vp, &out->match_expressions, LabelReq);
    return absl::OkStatus();
  });
}

absl::Status OptLabelSel(element e, const Path& p, std::optional<LabelSelector>* out) {
  if (e.is_null()) return absl::OkStatus();
  return LabelSel(e, p, &out->emplace());
}

absl::Status NodeTerm(element e, const Path& p, NodeSelectorTerm* out,
                      OperatorError wording = OperatorError::kApiServer) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    auto req = [wording](element re, const Path& rp, NodeSelectorRequirement* r) {
      return NodeReq(re, rp, r, wording);
    };
    auto field_req = [wording](element re, const Path& rp, NodeSelectorRequirement* r) {
      return FieldReq(re, rp, r, wording);
    };
    if (k == "matchExpressions") return Items(v, vp, &out->match_expressions, req);
    if (k == "matchFields") return Items(v, vp, &out->match_fields, field_req);
    return absl::OkStatus();
  });
}

absl::Status NodeSel(element e, const Path& p, NodeSelector* out,
                     OperatorError wording = OperatorError::kApiServer) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    auto term = [wording](element te, const Path& tp, NodeSelectorTerm* t) {
      return NodeTerm(te, tp, t, wording);
    };
    if (k == "nodeSelectorTerms") return Items(v, vp, &out->node_selector_terms, term);
    return absl::OkStatus();
  });
}

absl::Status OptNodeSel(element e, const Path& p, std::optional<NodeSelector>* out) {
  if (e.is_null()) return absl::OkStatus();
  return NodeSel(e, p, &out->emplace());
}

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
  if ((allow_empty && out->empty()) || *out == kTaintEffectNoSchedule ||
      *out == kTaintEffectPreferNoSchedule || *out == kTaintEffectNoExecute) {
    return absl::OkStatus();
  }
  return FieldError(p, fmt::format("Unsupported value: \"{}\": supported values: \"NoSchedule\", "
                                   "\"PreferNoSchedule\", \"NoExecute\"",
                                   *out));
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
  if (!out->op.empty() && out->op != "Equal" && out->op != "Exists") {
    return FieldError(
        p.Field("operator"),
        fmt::format("Unsupported value: \"{}\": supported values: \"Equal\", \"Exists\"", out->op));
  }
  return absl::OkStatus();
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

absl::Status ContainerOf(element e, const Path& p, Container* out) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k == "name") return Str(v, vp, &out->name);
    if (k == "image") return Str(v, vp, &out->image);
    if (k == "ports") return Items(v, vp, &out->ports, Port);
    if (k == "resources") return Requirements(v, vp, &out->resources);
    if (k == "restartPolicy") return OptStr(v, vp, &out->restart_policy);
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

// The API server's defaults for a pod's containers (SetDefaults_Pod), so that a pod from a
// manifest reads as the API server would store it; pods read from the API server have them
// already. Requests default to the limits of resources that have no request, and on the host's
// network every container port is also a host port (defaultHostNetworkPorts).
void ApplyPodDefaults(PodSpec* spec, bool host_network) {
  for (auto* list : {&spec->init_containers, &spec->containers}) {
    for (Container& c : *list) {
      for (const auto& [name, limit] : c.resources.limits)
        c.resources.requests.try_emplace(name, limit);
      if (!host_network) continue;
      for (ContainerPort& port : c.ports) {
        if (port.host_port == 0) port.host_port = port.container_port;
      }
    }
  }
}

absl::Status Spec(element e, const Path& p, PodSpec* out) {
  bool host_network = false;
  absl::Status st =
      Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
        if (k == "hostNetwork") return Bool(v, vp, &host_network);
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
  if (st.ok()) ApplyPodDefaults(out, host_network);
  return st;
}

absl::Status PodCond(element e, const Path& p, PodCondition* out) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k == "type") return Str(v, vp, &out->type);
    if (k == "status") return Str(v, vp, &out->status);
    if (k == "reason") return Str(v, vp, &out->reason);
    if (k == "message") return Str(v, vp, &out->message);
    if (k == "lastTransitionTime") return Str(v, vp, &out->last_transition_time);
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

absl::Status PodStat(element e, const Path& p, PodStatus* out) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k == "phase") return Str(v, vp, &out->phase);
    if (k == "conditions") return Items(v, vp, &out->conditions, PodCond);
    if (k == "nominatedNodeName") return Str(v, vp, &out->nominated_node_name);
    if (k == "startTime") return Str(v, vp, &out->start_time);
    if (k == "resourceClaimStatuses") {
      return Items(v, vp, &out->resource_claim_statuses, PodClaimStatus);
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
        return absl::OkStatus();
      });
  // The API server's defaulting (SetDefaults_NodeStatus): no allocatable means the capacity.
  if (!has_allocatable) out->allocatable = out->capacity;
  return st;
}

absl::Status PodAt(element e, const Path& p, Pod* out) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k == "metadata") return Meta(v, vp, &out->metadata);
    if (k == "spec") return Spec(v, vp, &out->spec);
    if (k == "status") return PodStat(v, vp, &out->status);
    return absl::OkStatus();
  });
}

absl::Status NodeAt(element e, const Path& p, Node* out) {
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

absl::Status PriorityClassAt(element e, const Path& p, PriorityClass* out) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k == "metadata") return Meta(v, vp, &out->metadata);
    if (k == "value") return Integer(v, vp, &out->value);
    if (k == "globalDefault") return Bool(v, vp, &out->global_default);
    if (k == "preemptionPolicy") return OptStr(v, vp, &out->preemption_policy);
    return absl::OkStatus();
  });
}

// --- Workloads that select pods, PodDisruptionBudgets --------------------------------------

absl::Status SelectorOf(element e, const Path& p, StringMap* out) { return StrMapOf(e, p, out); }
absl::Status SelectorOf(element e, const Path& p, std::optional<LabelSelector>* out) {
  return OptLabelSel(e, p, out);
}

// Service, ReplicationController (spec.selector a map), ReplicaSet, StatefulSet (a LabelSelector).
template <typename T>
absl::Status WorkloadAt(element e, const Path& p, T* out) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k == "metadata") return Meta(v, vp, &out->metadata);
    if (k != "spec") return absl::OkStatus();
    return Fields(v, vp, [&](std::string_view sk, element sv, const Path& svp) -> absl::Status {
      if (sk == "selector") return SelectorOf(sv, svp, &out->selector);
      return absl::OkStatus();
    });
  });
}

// An intstr.IntOrString that PodDisruptionBudget validation accepts: a non-negative integer or
// a percentage of at most 100% ("50%").
absl::Status IntOrPercent(element e, const Path& p, std::optional<IntOrString>* out) {
  if (e.is_null()) return absl::OkStatus();
  IntOrString& v = out->emplace();
  std::string_view s;
  if (e.get_string().get(s)) {
    if (!e.is_int64()) return TypeError(p, "integer or string", e);
    KSCHED_RETURN_IF_ERROR(Integer(e, p, &v.int_value));
    if (v.int_value < 0) {
      return FieldError(
          p, fmt::format("Invalid value: {}: must be greater than or equal to 0", v.int_value));
    }
    return absl::OkStatus();
  }
  v.is_string = true;
  v.str_value = s;
  int percent = 0;
  std::string_view digits = s.substr(0, s.empty() ? 0 : s.size() - 1);
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), percent);
  if (!s.ends_with('%') || digits.empty() || digits[0] == '-' || digits[0] == '+' ||
      end != digits.data() + digits.size()) {
    return FieldError(p, fmt::format("Invalid value: \"{}\": a valid percent string must be a "
                                     "numeric string followed by an ending '%' (e.g. '1%', or "
                                     "'93%', regex used for validation is '[0-9]+%')",
                                     s));
  }
  if (ec != std::errc() || percent > 100) {
    return FieldError(p, fmt::format("Invalid value: \"{}\": must not be greater than 100%", s));
  }
  return absl::OkStatus();
}

absl::Status PdbSpec(element e, const Path& p, PodDisruptionBudget* out) {
  KSCHED_RETURN_IF_ERROR(
      Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
        if (k == "minAvailable") return IntOrPercent(v, vp, &out->min_available);
        if (k == "maxUnavailable") return IntOrPercent(v, vp, &out->max_unavailable);
        if (k == "selector") return OptLabelSel(v, vp, &out->selector);
        return absl::OkStatus();
      }));
  if (out->min_available && out->max_unavailable) {
    return FieldError(p, "Invalid value: minAvailable and maxUnavailable cannot be both set");
  }
  return absl::OkStatus();
}

absl::Status PdbStatus(element e, const Path& p, PodDisruptionBudget* out) {
  out->has_status = !e.is_null();
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k == "disruptionsAllowed") return Integer(v, vp, &out->disruptions_allowed);
    if (k == "disruptedPods") return StrMapOf(v, vp, &out->disrupted_pods);
    return absl::OkStatus();
  });
}

absl::Status PdbAt(element e, const Path& p, PodDisruptionBudget* out) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k == "metadata") return Meta(v, vp, &out->metadata);
    if (k == "spec") return PdbSpec(v, vp, out);
    if (k == "status") return PdbStatus(v, vp, out);
    return absl::OkStatus();
  });
}

// --- Storage -------------------------------------------------------------------------------

absl::Status OptQuant(element e, const Path& p, std::optional<Quantity>* out) {
  if (e.is_null()) return absl::OkStatus();
  return Quant(e, p, &out->emplace());
}

// The `storage` entry of a ResourceList (a PV's capacity, a claim's requests).
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
    if (k == "persistentVolumeReclaimPolicy" || k == "mountOptions" || v.is_null() ||
        !v.is_object()) {
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

absl::Status TopologyReq(element e, const Path& p, TopologySelectorRequirement* out) {
  KSCHED_RETURN_IF_ERROR(
      Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
        if (k == "key") return Str(v, vp, &out->key);
        if (k == "values") return StrList(v, vp, &out->values);
        return absl::OkStatus();
      }));
  if (out->key.empty()) return FieldError(p.Field("key"), "Required value");
  if (out->values.empty()) return FieldError(p.Field("values"), "Required value");
  return absl::OkStatus();
}

absl::Status TopologyTerm(element e, const Path& p, TopologySelectorTerm* out) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k == "matchLabelExpressions") {
      return Items(v, vp, &out->match_label_expressions, TopologyReq);
    }
    return absl::OkStatus();
  });
}

absl::Status StorageClassAt(element e, const Path& p, StorageClass* out) {
  KSCHED_RETURN_IF_ERROR(
      Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
        if (k == "metadata") return Meta(v, vp, &out->metadata);
        if (k == "provisioner") return Str(v, vp, &out->provisioner);
        if (k == "volumeBindingMode") return Str(v, vp, &out->volume_binding_mode);
        if (k == "allowedTopologies") return Items(v, vp, &out->allowed_topologies, TopologyTerm);
        return absl::OkStatus();
      }));
  const std::string& mode = out->volume_binding_mode;
  if (mode != "Immediate" && mode != "WaitForFirstConsumer") {
    return FieldError(p.Field("volumeBindingMode"),
                      fmt::format("Unsupported value: \"{}\": supported values: \"Immediate\", "
                                  "\"WaitForFirstConsumer\"",
                                  mode));
  }
  return absl::OkStatus();
}

absl::Status CsiNodeDriver(element e, const Path& p, CSINodeDriver* out) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k == "name") return Str(v, vp, &out->name);
    if (k == "nodeID") return Str(v, vp, &out->node_id);
    if (k == "topologyKeys") return StrList(v, vp, &out->topology_keys);
    if (k == "allocatable") {
      return Fields(v, vp, [&](std::string_view ak, element av, const Path& avp) -> absl::Status {
        if (ak == "count") return OptInteger(av, avp, &out->allocatable_count);
        return absl::OkStatus();
      });
    }
    return absl::OkStatus();
  });
}

absl::Status CsiNodeAt(element e, const Path& p, CSINode* out) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k == "metadata") return Meta(v, vp, &out->metadata);
    if (k != "spec") return absl::OkStatus();
    return Fields(v, vp, [&](std::string_view sk, element sv, const Path& svp) -> absl::Status {
      if (sk == "drivers") return Items(sv, svp, &out->drivers, CsiNodeDriver);
      return absl::OkStatus();
    });
  });
}

absl::Status OptBool(element e, const Path& p, std::optional<bool>* out) {
  if (e.is_null()) return absl::OkStatus();
  return Bool(e, p, &out->emplace());
}

absl::Status CsiDriverAt(element e, const Path& p, CSIDriver* out) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k == "metadata") return Meta(v, vp, &out->metadata);
    if (k != "spec") return absl::OkStatus();
    return Fields(v, vp, [&](std::string_view sk, element sv, const Path& svp) -> absl::Status {
      if (sk == "attachRequired") return OptBool(sv, svp, &out->attach_required);
      if (sk == "storageCapacity") return OptBool(sv, svp, &out->storage_capacity);
      return absl::OkStatus();
    });
  });
}

absl::Status CsiStorageCapacityAt(element e, const Path& p, CSIStorageCapacity* out) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k == "metadata") return Meta(v, vp, &out->metadata);
    if (k == "storageClassName") return Str(v, vp, &out->storage_class_name);
    if (k == "nodeTopology") return OptLabelSel(v, vp, &out->node_topology);
    if (k == "capacity") return OptQuant(v, vp, &out->capacity);
    if (k == "maximumVolumeSize") return OptQuant(v, vp, &out->maximum_volume_size);
    return absl::OkStatus();
  });
}

absl::Status VolumeAttachmentAt(element e, const Path& p, VolumeAttachment* out) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k == "metadata") return Meta(v, vp, &out->metadata);
    if (k != "spec") return absl::OkStatus();
    return Fields(v, vp, [&](std::string_view sk, element sv, const Path& svp) -> absl::Status {
      if (sk == "attacher") return Str(sv, svp, &out->attacher);
      if (sk == "nodeName") return Str(sv, svp, &out->node_name);
      if (sk != "source") return absl::OkStatus();
      return Fields(sv, svp, [&](std::string_view ok, element ov, const Path& ovp) {
        if (ok == "persistentVolumeName") return Str(ov, ovp, &out->persistent_volume_name);
        return absl::OkStatus();
      });
    });
  });
}

// --- Dynamic resource allocation (resource.k8s.io/v1) ---------------------------------------

// A field of a feature ksched does not implement yet, recorded by its path when it has a value.
void Unsupported(element v, const Path& vp, std::vector<std::string>* out) {
  simdjson::dom::array arr;
  simdjson::dom::object obj;
  bool b = false;
  if (v.is_null() || (!v.get_array().get(arr) && arr.size() == 0) ||
      (!v.get_object().get(obj) && obj.size() == 0) || (!v.get_bool().get(b) && !b)) {
    return;  // Absent, empty or false: as if not set.
  }
  out->push_back(vp.String());
}

absl::Status DeviceAttr(element e, const Path& p, DeviceAttribute* out) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k == "int") return OptInteger(v, vp, &out->int_value);
    if (k == "bool") return OptBool(v, vp, &out->bool_value);
    if (k == "string") return OptStr(v, vp, &out->string_value);
    if (k == "version") return OptStr(v, vp, &out->version_value);
    return absl::OkStatus();
  });
}

absl::Status DeviceTaintOf(element e, const Path& p, DeviceTaint* out) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k == "key") return Str(v, vp, &out->key);
    if (k == "value") return Str(v, vp, &out->value);
    if (k == "effect") return Str(v, vp, &out->effect);
    return absl::OkStatus();
  });
}

absl::Status DeviceTolerationOf(element e, const Path& p, DeviceToleration* out) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k == "key") return Str(v, vp, &out->key);
    if (k == "operator") return Str(v, vp, &out->op);
    if (k == "value") return Str(v, vp, &out->value);
    if (k == "effect") return Str(v, vp, &out->effect);
    if (k == "tolerationSeconds") return OptInteger(v, vp, &out->toleration_seconds);
    return absl::OkStatus();
  });
}

absl::Status DeviceOf(element e, const Path& p, Device* out) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k == "name") return Str(v, vp, &out->name);
    if (k == "attributes") {
      return Fields(v, vp, [&](std::string_view ak, element av, const Path& avp) {
        return DeviceAttr(av, avp, &out->attributes[std::string(ak)]);
      });
    }
    if (k == "capacity") {
      return Fields(v, vp, [&](std::string_view ck, element cv, const Path& cvp) {
        return Fields(cv, cvp,
                      [&](std::string_view f, element fv, const Path& fvp) -> absl::Status {
                        if (f == "value") return Quant(fv, fvp, &out->capacity[std::string(ck)]);
                        if (f == "requestPolicy") Unsupported(fv, fvp, &out->unsupported);
                        return absl::OkStatus();
                      });
      });
    }
    if (k == "nodeName") return OptStr(v, vp, &out->node_name);
    if (k == "nodeSelector") return OptNodeSel(v, vp, &out->node_selector);
    if (k == "allNodes") return OptBool(v, vp, &out->all_nodes);
    if (k == "taints") return Items(v, vp, &out->taints, DeviceTaintOf);
    // Partitionable devices, binding conditions and consumable capacity.
    if (k == "consumesCounters" || k == "bindsToNode" || k == "bindingConditions" ||
        k == "bindingFailureConditions" || k == "allowMultipleAllocations") {
      Unsupported(v, vp, &out->unsupported);
    }
    return absl::OkStatus();
  });
}

absl::Status ResourceSliceAt(element e, const Path& p, ResourceSlice* out) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k == "metadata") return Meta(v, vp, &out->metadata);
    if (k != "spec") return absl::OkStatus();
    return Fields(v, vp, [&](std::string_view sk, element sv, const Path& svp) -> absl::Status {
      if (sk == "driver") return Str(sv, svp, &out->driver);
      if (sk == "pool") {
        return Fields(sv, svp,
                      [&](std::string_view pk, element pv, const Path& pvp) -> absl::Status {
                        if (pk == "name") return Str(pv, pvp, &out->pool);
                        if (pk == "generation") return Integer(pv, pvp, &out->pool_generation);
                        if (pk == "resourceSliceCount")
                          return Integer(pv, pvp, &out->pool_slice_count);
                        return absl::OkStatus();
                      });
      }
      if (sk == "nodeName") return OptStr(sv, svp, &out->node_name);
      if (sk == "nodeSelector") return OptNodeSel(sv, svp, &out->node_selector);
      if (sk == "allNodes") return Bool(sv, svp, &out->all_nodes);
      if (sk == "perDeviceNodeSelection") return Bool(sv, svp, &out->per_device_node_selection);
      if (sk == "devices") return Items(sv, svp, &out->devices, DeviceOf);
      if (sk == "sharedCounters") Unsupported(sv, svp, &out->unsupported);  // Partitionable.
      return absl::OkStatus();
    });
  });
}

// selectors[].cel.expression
absl::Status Selectors(element e, const Path& p, std::vector<std::string>* out) {
  return Items(e, p, out, [](element s, const Path& sp, std::string* expr) {
    return Fields(s, sp, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
      if (k != "cel") return absl::OkStatus();
      return Fields(v, vp, [&](std::string_view ck, element cv, const Path& cvp) -> absl::Status {
        if (ck == "expression") return Str(cv, cvp, expr);
        return absl::OkStatus();
      });
    });
  });
}

// A configuration: `requests` (a claim's) and `opaque` {driver, parameters}.
absl::Status DeviceConfigField(std::string_view k, element v, const Path& vp,
                               DeviceConfiguration* out) {
  if (k == "requests") return StrList(v, vp, &out->requests);
  if (k != "opaque") return absl::OkStatus();
  return Fields(v, vp, [&](std::string_view ok, element ov, const Path& ovp) -> absl::Status {
    if (ok == "driver") return Str(ov, ovp, &out->driver);
    if (ok == "parameters") out->parameters = simdjson::minify(ov);
    return absl::OkStatus();
  });
}

absl::Status DeviceConfig(element e, const Path& p, DeviceConfiguration* out) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) {
    return DeviceConfigField(k, v, vp, out);
  });
}

absl::Status DeviceClassAt(element e, const Path& p, DeviceClass* out) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k == "metadata") return Meta(v, vp, &out->metadata);
    if (k != "spec") return absl::OkStatus();
    return Fields(v, vp, [&](std::string_view sk, element sv, const Path& svp) -> absl::Status {
      if (sk == "selectors") return Selectors(sv, svp, &out->selectors);
      if (sk == "config") return Items(sv, svp, &out->config, DeviceConfig);
      if (sk == "extendedResourceName") return OptStr(sv, svp, &out->extended_resource_name);
      return absl::OkStatus();
    });
  });
}

// An ExactDeviceRequest or a DeviceSubRequest; `unsupported` gets what they use of consumable
// capacity.
absl::Status SubRequest(element e, const Path& p, DeviceSubRequest* out,
                        std::vector<std::string>* unsupported) {
  bool count_given = false;
  KSCHED_RETURN_IF_ERROR(
      Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
        if (k == "name") return Str(v, vp, &out->name);
        if (k == "deviceClassName") return Str(v, vp, &out->device_class_name);
        if (k == "selectors") return Selectors(v, vp, &out->selectors);
        if (k == "allocationMode") return Str(v, vp, &out->allocation_mode);
        if (k == "count") {
          count_given = !v.is_null();
          return Integer(v, vp, &out->count);
        }
        if (k == "adminAccess") return Bool(v, vp, &out->admin_access);
        if (k == "tolerations") return Items(v, vp, &out->tolerations, DeviceTolerationOf);
        if (k == "capacity") Unsupported(v, vp, unsupported);
        return absl::OkStatus();
      }));
  // The API server defaults an absent or zero count to 1 for ExactCount; with All it stays 0
  // (and must).
  if (out->allocation_mode == "ExactCount" && out->count == 0) out->count = 1;
  if (!count_given && out->allocation_mode == "All") out->count = 0;
  return absl::OkStatus();
}

// A request: `exactly` one class's devices, or the `firstAvailable` of alternatives.
absl::Status RequestOf(element e, const Path& p, DeviceRequest* out,
                       std::vector<std::string>* unsupported) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k == "name") return Str(v, vp, &out->name);
    if (k == "exactly" && !v.is_null()) {
      return SubRequest(v, vp, &out->exactly.emplace(), unsupported);
    }
    if (k == "firstAvailable") {
      return Items(v, vp, &out->first_available,
                   [&](element s, const Path& sp, DeviceSubRequest* sub) {
                     return SubRequest(s, sp, sub, unsupported);
                   });
    }
    return absl::OkStatus();
  });
}

absl::Status ConstraintOf(element e, const Path& p, DeviceConstraint* out,
                          std::vector<std::string>* unsupported) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k == "requests") return StrList(v, vp, &out->requests);
    if (k == "matchAttribute") return OptStr(v, vp, &out->match_attribute);
    if (k == "distinctAttribute") Unsupported(v, vp, unsupported);  // Consumable capacity.
    return absl::OkStatus();
  });
}

absl::Status ClaimSpec(element e, const Path& p, ResourceClaimSpec* out) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k != "devices") return absl::OkStatus();
    return Fields(v, vp, [&](std::string_view dk, element dv, const Path& dvp) -> absl::Status {
      if (dk == "requests") {
        return Items(dv, dvp, &out->requests, [&](element r, const Path& rp, DeviceRequest* req) {
          return RequestOf(r, rp, req, &out->unsupported);
        });
      }
      if (dk == "constraints") {
        return Items(dv, dvp, &out->constraints,
                     [&](element c, const Path& cp, DeviceConstraint* constraint) {
                       return ConstraintOf(c, cp, constraint, &out->unsupported);
                     });
      }
      if (dk == "config") return Items(dv, dvp, &out->config, DeviceConfig);
      return absl::OkStatus();
    });
  });
}

// One allocated device (status.allocation.devices.results[]).
absl::Status AllocatedDeviceOf(element e, const Path& p, DeviceRequestAllocationResult* out,
                               std::vector<std::string>* unsupported) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k == "request") return Str(v, vp, &out->request);
    if (k == "driver") return Str(v, vp, &out->driver);
    if (k == "pool") return Str(v, vp, &out->pool);
    if (k == "device") return Str(v, vp, &out->device);
    if (k == "adminAccess") return Bool(v, vp, &out->admin_access);
    if (k == "tolerations") return Items(v, vp, &out->tolerations, DeviceTolerationOf);
    // Binding conditions and consumable capacity.
    if (k == "bindingConditions" || k == "bindingFailureConditions" || k == "shareID" ||
        k == "consumedCapacity") {
      Unsupported(v, vp, unsupported);
    }
    return absl::OkStatus();
  });
}

// status.allocation.devices.config[]: its `source` beside a configuration's fields.
absl::Status AllocationConfigOf(element e, const Path& p, DeviceAllocationConfiguration* out) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) {
    if (k == "source") return Str(v, vp, &out->source);
    return DeviceConfigField(k, v, vp, &out->configuration);
  });
}

absl::Status AllocationOf(element e, const Path& p, AllocationResult* out,
                          std::vector<std::string>* unsupported) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k == "nodeSelector") return OptNodeSel(v, vp, &out->node_selector);
    if (k == "allocationTimestamp") return Str(v, vp, &out->allocation_timestamp);
    if (k != "devices") return absl::OkStatus();
    return Fields(v, vp, [&](std::string_view dk, element dv, const Path& dvp) -> absl::Status {
      if (dk == "results") {
        return Items(dv, dvp, &out->results,
                     [&](element r, const Path& rp, DeviceRequestAllocationResult* result) {
                       return AllocatedDeviceOf(r, rp, result, unsupported);
                     });
      }
      if (dk == "config") return Items(dv, dvp, &out->config, AllocationConfigOf);
      return absl::OkStatus();
    });
  });
}

absl::Status ResourceClaimAt(element e, const Path& p, ResourceClaim* out) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k == "metadata") return Meta(v, vp, &out->metadata);
    if (k == "spec") return ClaimSpec(v, vp, &out->spec);
    if (k != "status") return absl::OkStatus();
    return Fields(v, vp, [&](std::string_view sk, element sv, const Path& svp) -> absl::Status {
      if (sk == "allocation") {
        if (sv.is_null()) return absl::OkStatus();
        return AllocationOf(sv, svp, &out->allocation.emplace(), &out->unsupported);
      }
      if (sk == "reservedFor") {
        return Items(sv, svp, &out->reserved_for,
                     [](element r, const Path& rp, ResourceClaimConsumerReference* ref) {
                       return Fields(
                           r, rp,
                           [&](std::string_view rk, element rv, const Path& rvp) -> absl::Status {
                             if (rk == "apiGroup") return Str(rv, rvp, &ref->api_group);
                             if (rk == "resource") return Str(rv, rvp, &ref->resource);
                             if (rk == "name") return Str(rv, rvp, &ref->name);
                             if (rk == "uid") return Str(rv, rvp, &ref->uid);
                             return absl::OkStatus();
                           });
                     });
      }
      return absl::OkStatus();
    });
  });
}

absl::Status ResourceClaimTemplateAt(element e, const Path& p, ResourceClaimTemplate* out) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k == "metadata") return Meta(v, vp, &out->metadata);
    if (k != "spec") return absl::OkStatus();
    return Fields(v, vp, [&](std::string_view sk, element sv, const Path& svp) -> absl::Status {
      if (sk == "spec") return ClaimSpec(sv, svp, &out->spec);
      if (sk != "metadata") return absl::OkStatus();
      return Fields(sv, svp, [&](std::string_view mk, element mv, const Path& mvp) -> absl::Status {
        if (mk == "labels") return StrMapOf(mv, mvp, &out->claim_labels);
        if (mk == "annotations") return StrMapOf(mv, mvp, &out->claim_annotations);
        return absl::OkStatus();
      });
    });
  });
}

// Decodes one object of type T with `decode` and appends it.
template <typename T>
absl::Status Append(element e, const Path& p, absl::Status (*decode)(element, const Path&, T*),
                    std::vector<Object>* out) {
  T obj;
  KSCHED_RETURN_IF_ERROR(decode(e, p, &obj));
  out->emplace_back(std::move(obj));
  return absl::OkStatus();
}

// "kind Namespace/name" for error messages about an item, or just the kind.
absl::Status AppendObject(element e, const Path& p, std::string_view default_kind,
                          std::vector<Object>* out) {
  std::string_view kind = default_kind;
  element k;
  if (!e["kind"].get(k) && !k.is_null() && k.get_string().get(kind)) {
    return TypeError(p.Field("kind"), "string", k);
  }
  if (kind == "Pod") return Append(e, p, PodAt, out);
  if (kind == "Node") return Append(e, p, NodeAt, out);
  if (kind == "Namespace") return Append(e, p, NamespaceAt, out);
  if (kind == "PriorityClass") return Append(e, p, PriorityClassAt, out);
  if (kind == "Service") return Append(e, p, WorkloadAt<Service>, out);
  if (kind == "ReplicationController") return Append(e, p, WorkloadAt<ReplicationController>, out);
  if (kind == "ReplicaSet") return Append(e, p, WorkloadAt<ReplicaSet>, out);
  if (kind == "StatefulSet") return Append(e, p, WorkloadAt<StatefulSet>, out);
  if (kind == "PodDisruptionBudget") return Append(e, p, PdbAt, out);
  if (kind == "PersistentVolume") return Append(e, p, PvAt, out);
  if (kind == "PersistentVolumeClaim") return Append(e, p, PvcAt, out);
  if (kind == "StorageClass") return Append(e, p, StorageClassAt, out);
  if (kind == "CSINode") return Append(e, p, CsiNodeAt, out);
  if (kind == "CSIDriver") return Append(e, p, CsiDriverAt, out);
  if (kind == "CSIStorageCapacity") return Append(e, p, CsiStorageCapacityAt, out);
  if (kind == "VolumeAttachment") return Append(e, p, VolumeAttachmentAt, out);
  if (kind == "DeviceClass") return Append(e, p, DeviceClassAt, out);
  if (kind == "ResourceSlice") return Append(e, p, ResourceSliceAt, out);
  if (kind == "ResourceClaim") return Append(e, p, ResourceClaimAt, out);
  if (kind == "ResourceClaimTemplate") return Append(e, p, ResourceClaimTemplateAt, out);
  if (kind.ends_with("List")) {
    std::string_view item_kind = kind == "List" ? "" : kind.substr(0, kind.size() - 4);
    element items;
    if (e["items"].get(items)) return FieldError(p.Field("items"), "Required value");
    simdjson::dom::array arr;
    if (items.get_array().get(arr)) return TypeError(p.Field("items"), "array", items);
    int index = 0;
    for (element item : arr) {
      Path items_path = p.Field("items");
      Path item_path = items_path.Index(index++);
      absl::Status st = AppendObject(item, Path(), item_kind, out);
      if (!st.ok()) {
        return absl::InvalidArgumentError(fmt::format("{} ({}): {}", item_path.String(),
                                                      DescribeObject(item, item_kind),
                                                      AsStd(st.message())));
      }
    }
    return absl::OkStatus();
  }
  if (kind.empty()) return FieldError(p.Field("kind"), "Required value");
  return FieldError(p.Field("kind"), fmt::format("unknown kind \"{}\"", kind));
}

template <typename T, absl::Status (*Decode)(element, const Path&, T*)>
absl::StatusOr<T> ParseAndDecode(std::string_view json) {
  simdjson::dom::parser parser;
  element e;
  if (auto err = parser.parse(json.data(), json.size()).get(e)) {
    return absl::InvalidArgumentError(
        fmt::format("invalid JSON: {}", simdjson::error_message(err)));
  }
  T out;
  KSCHED_RETURN_IF_ERROR(Decode(e, Path(), &out));
  return out;
}

absl::Status ObjectsAt(element e, const Path& p, std::vector<Object>* out) {
  return AppendObject(e, p, "", out);
}

}  // namespace

std::string_view KindOf(const Object& object) {
  static constexpr std::string_view kKinds[] = {"Pod",
                                                "Node",
                                                "Namespace",
                                                "PriorityClass",
                                                "Service",
                                                "ReplicationController",
                                                "ReplicaSet",
                                                "StatefulSet",
                                                "PodDisruptionBudget",
                                                "PersistentVolume",
                                                "PersistentVolumeClaim",
                                                "StorageClass",
                                                "CSINode",
                                                "CSIDriver",
                                                "CSIStorageCapacity",
                                                "VolumeAttachment",
                                                "DeviceClass",
                                                "ResourceSlice",
                                                "ResourceClaim",
                                                "ResourceClaimTemplate"};
  static_assert(std::variant_size_v<Object> == std::size(kKinds));
  return kKinds[object.index()];
}

std::string DescribeObject(element e, std::string_view default_kind) {
  std::string_view kind = default_kind, name, ns;
  if (e["kind"].get(kind)) kind = default_kind;
  element meta;
  if (!e["metadata"].get(meta)) {
    if (meta["name"].get(name)) name = {};
    if (meta["namespace"].get(ns)) ns = {};
  }
  if (name.empty()) return std::string(kind);
  return fmt::format("{}{}{}{}", kind, kind.empty() ? "" : " ",
                     ns.empty() ? "" : fmt::format("{}/", ns), name);
}

namespace {

template <typename... T>
bool HoldsOneOf(const Object& object) {
  return (std::holds_alternative<T>(object) || ...);
}

}  // namespace

bool IsNamespaced(const Object& object) {
  return !HoldsOneOf<Node, Namespace, PriorityClass, PersistentVolume, StorageClass, CSINode,
                     CSIDriver, VolumeAttachment, DeviceClass, ResourceSlice>(object);
}

const ObjectMeta& MetaOf(const Object& object) {
  return std::visit([](const auto& o) -> const ObjectMeta& { return o.metadata; }, object);
}

absl::Status DecodePod(element e, Pod* out) { return PodAt(e, Path(), out); }
absl::Status DecodeLabelSelector(element e, LabelSelector* out) { return LabelSel(e, Path(), out); }
absl::Status DecodeNodeSelector(element e, NodeSelector* out) { return NodeSel(e, Path(), out); }
absl::Status DecodeNodeAffinity(element e, NodeAffinity* out) {
  return NodeAff(e, Path(), out, OperatorError::kSchedulerConfig);
}
absl::Status DecodeNode(element e, Node* out) { return NodeAt(e, Path(), out); }
absl::Status DecodeNamespace(element e, Namespace* out) { return NamespaceAt(e, Path(), out); }
absl::Status DecodePriorityClass(element e, PriorityClass* out) {
  return PriorityClassAt(e, Path(), out);
}

absl::Status DecodeService(element e, Service* out) { return WorkloadAt(e, Path(), out); }
absl::Status DecodeReplicationController(element e, ReplicationController* out) {
  return WorkloadAt(e, Path(), out);
}
absl::Status DecodeReplicaSet(element e, ReplicaSet* out) { return WorkloadAt(e, Path(), out); }
absl::Status DecodeStatefulSet(element e, StatefulSet* out) { return WorkloadAt(e, Path(), out); }
absl::Status DecodePodDisruptionBudget(element e, PodDisruptionBudget* out) {
  return PdbAt(e, Path(), out);
}

absl::Status DecodePersistentVolume(element e, PersistentVolume* out) {
  return PvAt(e, Path(), out);
}
absl::Status DecodePersistentVolumeClaim(element e, PersistentVolumeClaim* out) {
  return PvcAt(e, Path(), out);
}
absl::Status DecodeStorageClass(element e, StorageClass* out) {
  return StorageClassAt(e, Path(), out);
}
absl::Status DecodeCSINode(element e, CSINode* out) { return CsiNodeAt(e, Path(), out); }
absl::Status DecodeCSIDriver(element e, CSIDriver* out) { return CsiDriverAt(e, Path(), out); }
absl::Status DecodeCSIStorageCapacity(element e, CSIStorageCapacity* out) {
  return CsiStorageCapacityAt(e, Path(), out);
}
absl::Status DecodeVolumeAttachment(element e, VolumeAttachment* out) {
  return VolumeAttachmentAt(e, Path(), out);
}
absl::Status DecodeDeviceClass(element e, DeviceClass* out) {
  return DeviceClassAt(e, Path(), out);
}
absl::Status DecodeResourceSlice(element e, ResourceSlice* out) {
  return ResourceSliceAt(e, Path(), out);
}
absl::Status DecodeResourceClaim(element e, ResourceClaim* out) {
  return ResourceClaimAt(e, Path(), out);
}
absl::Status DecodeResourceClaimTemplate(element e, ResourceClaimTemplate* out) {
  return ResourceClaimTemplateAt(e, Path(), out);
}

absl::StatusOr<Pod> DecodePod(std::string_view json) { return ParseAndDecode<Pod, PodAt>(json); }
absl::StatusOr<Node> DecodeNode(std::string_view json) {
  return ParseAndDecode<Node, NodeAt>(json);
}

absl::StatusOr<std::vector<Object>> DecodeObjects(element e) {
  std::vector<Object> out;
  KSCHED_RETURN_IF_ERROR(ObjectsAt(e, Path(), &out));
  return out;
}

absl::StatusOr<std::vector<Object>> DecodeObjects(std::string_view json) {
  return ParseAndDecode<std::vector<Object>, ObjectsAt>(json);
}

}  // namespace ksched::api
