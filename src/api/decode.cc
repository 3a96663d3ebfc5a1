#include "src/api/decode.h"

#include <algorithm>
#include <charconv>
#include <string>

#include "fmt/format.h"
#include "fmt/ranges.h"
#include "ksched/status_macros.h"
#include "ksched/strings.h"
#include "nlohmann/json.hpp"
#include "src/api/decode_internal.h"
#include "src/api/json_path.h"
#include "src/api/kinds.h"

// What the decoders of every API group share (decode_internal.h), and the dispatch by kind; each
// group's objects are decoded in decode_<group>.cc.
namespace ksched::api {
namespace decoding {

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

absl::Status OptQuant(element e, const Path& p, std::optional<Quantity>* out) {
  if (e.is_null()) return absl::OkStatus();
  return Quant(e, p, &out->emplace());
}

// The `storage` entry of a ResourceList (a PV's capacity, a claim's requests).

absl::Status CheckSupported(const Path& p, std::string_view value,
                            std::initializer_list<std::string_view> supported) {
  if (std::find(supported.begin(), supported.end(), value) != supported.end()) {
    return absl::OkStatus();
  }
  return FieldError(p, fmt::format("Unsupported value: \"{}\": supported values: \"{}\"", value,
                                   fmt::join(supported, "\", \"")));
}

absl::Status CheckOneOf(element e, const Path& p,
                        std::initializer_list<std::string_view> supported) {
  if (e.is_null()) return absl::OkStatus();
  std::string value;
  KSCHED_RETURN_IF_ERROR(Str(e, p, &value));
  return CheckSupported(p, value, supported);
}

absl::Status OptBool(element e, const Path& p, std::optional<bool>* out) {
  if (e.is_null()) return absl::OkStatus();
  return Bool(e, p, &out->emplace());
}

// --- Containers of values ------------------------------------------------------------------

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
    return CheckSupported(op_path, out->op, ops);
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

absl::Status NodeTerm(element e, const Path& p, NodeSelectorTerm* out, OperatorError wording) {
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

absl::Status NodeSel(element e, const Path& p, NodeSelector* out, OperatorError wording) {
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

// "kind Namespace/name" for error messages about an item, or just the kind.
absl::Status AppendObject(element e, const Path& p, std::string_view default_kind,
                          std::vector<Object>* out) {
  std::string_view kind = default_kind;
  element k;
  if (!e["kind"].get(k) && !k.is_null() && k.get_string().get(kind)) {
    return TypeError(p.Field("kind"), "string", k);
  }
  std::optional<absl::Status> decoded;  // Set when `kind` is one of the table's.
  ForEachKind([&]<typename T>() {
    if (kind != kKind<T>.name) return false;
    T obj;
    decoded = kKind<T>.decode(e, &obj);
    if (decoded->ok()) out->emplace_back(std::move(obj));
    return true;
  });
  if (decoded) return *decoded;
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

absl::Status ObjectsAt(element e, const Path& p, std::vector<Object>* out) {
  return AppendObject(e, p, "", out);
}

}  // namespace decoding

using decoding::element;
using decoding::Path;

std::string_view KindOf(const Object& object) {
  return std::visit([]<typename T>(const T&) { return kKind<T>.name; }, object);
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

bool IsNamespaced(const Object& object) {
  return std::visit([]<typename T>(const T&) { return kKind<T>.namespaced; }, object);
}

const ObjectMeta& MetaOf(const Object& object) {
  return std::visit([](const auto& o) -> const ObjectMeta& { return o.metadata; }, object);
}

absl::Status DecodeCustomObject(element e, CustomObject* out) {
  element meta;
  if (e.is_object() && !e["metadata"].get(meta)) {
    if (absl::Status st = decoding::Meta(meta, Path().Field("metadata"), &out->metadata);
        !st.ok()) {
      return st;
    }
  }
  out->object = nlohmann::json::parse(simdjson::minify(e), nullptr, /*allow_exceptions=*/false);
  if (out->object.is_discarded()) return absl::InvalidArgumentError("not a JSON object");
  return absl::OkStatus();
}

absl::Status DecodeLabelSelector(element e, LabelSelector* out) {
  return decoding::LabelSel(e, Path(), out);
}
absl::Status DecodeNodeSelector(element e, NodeSelector* out) {
  return decoding::NodeSel(e, Path(), out);
}
absl::StatusOr<std::vector<Object>> DecodeObjects(element e) {
  std::vector<Object> out;
  KSCHED_RETURN_IF_ERROR(decoding::ObjectsAt(e, Path(), &out));
  return out;
}

absl::StatusOr<std::vector<Object>> DecodeObjects(std::string_view json) {
  return decoding::ParseAndDecode<std::vector<Object>, decoding::ObjectsAt>(json);
}

}  // namespace ksched::api
