// What the decoders of every API group share (decode.cc, decode_<group>.cc): the JSON walkers,
// scalars, metadata and selectors, each of which names the field path of what it refuses. Not
// part of the SDK; src/api/decode.h is the door.
//
// Thread safety: reentrant.
#pragma once

#include <initializer_list>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "fmt/format.h"
#include "ksched/api/objects.h"
#include "ksched/status_macros.h"
#include "simdjson.h"
#include "src/api/json_path.h"

namespace ksched::api::decoding {

using internal::FieldError;
using internal::Path;
using simdjson::dom::element;

// --- Scalars: null leaves *out as it is ---------------------------------------------------------

absl::Status TypeError(const Path& p, std::string_view want, element e);
absl::Status Str(element e, const Path& p, std::string* out);
absl::Status OptStr(element e, const Path& p, std::optional<std::string>* out);
absl::Status Bool(element e, const Path& p, bool* out);
absl::Status OptBool(element e, const Path& p, std::optional<bool>* out);
// A quantity is a string ("100m") or, as upstream's UnmarshalJSON accepts, a bare number.
absl::Status Quant(element e, const Path& p, Quantity* out);
absl::Status OptQuant(element e, const Path& p, std::optional<Quantity>* out);
// OK when `value` is one of `supported`, else the API server's words for it at `p`:
// "Unsupported value: "Later": supported values: "Immediate", "WaitForFirstConsumer"".
absl::Status CheckSupported(const Path& p, std::string_view value,
                            std::initializer_list<std::string_view> supported);
// A string field ksched does not keep, checked as the API server checks it (CheckSupported): a
// PersistentVolume's reclaim policy.
absl::Status CheckOneOf(element e, const Path& p,
                        std::initializer_list<std::string_view> supported);

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

// --- Containers of values ----------------------------------------------------------------------

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

absl::Status StrList(element e, const Path& p, std::vector<std::string>* out);
absl::Status StrMapOf(element e, const Path& p, StringMap* out);
absl::Status Resources(element e, const Path& p, ResourceList* out);

// --- Metadata and selectors ----------------------------------------------------------------------

absl::Status Meta(element e, const Path& p, ObjectMeta* out);
// A status condition (metav1.Condition, or a pod's PodCondition): type, status, reason, message,
// lastTransitionTime.
template <typename C>
absl::Status ConditionOf(element e, const Path& p, C* out) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k == "type") return Str(v, vp, &out->type);
    if (k == "status") return Str(v, vp, &out->status);
    if (k == "reason") return Str(v, vp, &out->reason);
    if (k == "message") return Str(v, vp, &out->message);
    if (k == "lastTransitionTime") return Str(v, vp, &out->last_transition_time);
    return absl::OkStatus();
  });
}

// How an operator outside the allowed ones is reported: as the API server validates an object
// ("Invalid value: ...: not a valid selector operator"), or as kube-scheduler validates
// NodeAffinityArgs.addedAffinity (component-helpers' nodeaffinity: "Unsupported value: ...").
enum class OperatorError { kApiServer, kSchedulerConfig };

absl::Status LabelSel(element e, const Path& p, LabelSelector* out);
absl::Status OptLabelSel(element e, const Path& p, std::optional<LabelSelector>* out);
absl::Status NodeTerm(element e, const Path& p, NodeSelectorTerm* out,
                      OperatorError wording = OperatorError::kApiServer);
absl::Status NodeSel(element e, const Path& p, NodeSelector* out,
                     OperatorError wording = OperatorError::kApiServer);
absl::Status OptNodeSel(element e, const Path& p, std::optional<NodeSelector>* out);

// A pod's spec.resourceClaims[] and status.resourceClaimStatuses[] entries, which a PodGroup's
// share.
absl::Status PodClaim(element e, const Path& p, PodResourceClaim* out);
absl::Status PodClaimStatus(element e, const Path& p, PodResourceClaimStatus* out);

// A field ksched does not model, set to something (not absent, empty or false): its path goes to
// *out, so that what needs the object stays pending and says why.
void Unsupported(element v, const Path& vp, std::vector<std::string>* out);

// --- Objects -----------------------------------------------------------------------------------

// spec.selector: a map (Service, ReplicationController) or a LabelSelector (ReplicaSet,
// StatefulSet).
inline absl::Status SelectorOf(element e, const Path& p, StringMap* out) {
  return StrMapOf(e, p, out);
}
inline absl::Status SelectorOf(element e, const Path& p, std::optional<LabelSelector>* out) {
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

// Parses `json` and decodes it with Decode; invalid JSON is an InvalidArgument.
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

}  // namespace ksched::api::decoding
