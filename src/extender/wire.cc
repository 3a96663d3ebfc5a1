#include "src/extender/wire.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <utility>

#include "fmt/format.h"
#include "ksched/status_macros.h"
#include "nlohmann/json.hpp"
#include "simdjson.h"
#include "src/api/decode.h"
#include "src/client/json_text.h"
#include "src/extender/go_json.h"

namespace ksched::extender::wire {
namespace {

using simdjson::dom::element;
using simdjson::dom::element_type;

void AppendStringMap(std::string* out, std::string_view before, const api::StringMap& map) {
  if (map.empty()) return;
  *out += before;
  *out += '{';
  for (const auto& [k, v] : map) {
    if (out->back() != '{') *out += ',';
    client::AppendJsonString(out, k);
    *out += ':';
    client::AppendJsonString(out, v);
  }
  *out += '}';
}

// The metadata of an object made in code, which has no JSON of its own.
std::string MetaJson(const api::ObjectMeta& m) {
  std::string out;
  client::AppendJsonField(&out, R"({"metadata":{"name":)", m.name);
  if (!m.namespace_.empty()) client::AppendJsonField(&out, R"(,"namespace":)", m.namespace_);
  if (!m.uid.empty()) client::AppendJsonField(&out, R"(,"uid":)", m.uid);
  AppendStringMap(&out, R"(,"labels":)", m.labels);
  AppendStringMap(&out, R"(,"annotations":)", m.annotations);
  out += "}}";
  return out;
}

void AppendStrings(std::string* out, const std::vector<std::string_view>& list) {
  *out += '[';
  for (size_t i = 0; i < list.size(); ++i) {
    if (i > 0) *out += ',';
    client::AppendJsonString(out, list[i]);
  }
  *out += ']';
}

// Go's name for a JSON value's type in "cannot unmarshal" errors.
std::string_view GoJsonType(element e) {
  switch (e.type()) {
    case element_type::ARRAY:
      return "array";
    case element_type::OBJECT:
      return "object";
    case element_type::STRING:
      return "string";
    case element_type::BOOL:
      return "bool";
    case element_type::NULL_VALUE:
      return "null";
    default:
      return "number";
  }
}

absl::Status CannotUnmarshal(element e, std::string_view field, std::string_view go_type) {
  return absl::InvalidArgumentError(fmt::format(
      "json: cannot unmarshal {} into Go {} of type {}", GoJsonType(e),
      field.empty() ? std::string("value") : fmt::format("struct field {}", field), go_type));
}

// Whether `a` and `b` are equal without regard to ASCII case.
bool EqualFold(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

// Calls `fn` with each field of `object` whose key is one of `names` without regard to case
// (Go's encoding/json; where two keys match, the last wins, as there). A null value is skipped:
// Go leaves the field as it was.
absl::Status Fields(element object, std::string_view go_type,
                    std::initializer_list<std::string_view> names,
                    const std::function<absl::Status(std::string_view, element)>& fn) {
  if (object.type() == element_type::NULL_VALUE) return absl::OkStatus();
  simdjson::dom::object fields;
  if (object.get(fields) != simdjson::SUCCESS) return CannotUnmarshal(object, "", go_type);
  for (auto [key, value] : fields) {
    for (std::string_view name : names) {
      if (!EqualFold(key, name)) continue;
      if (value.type() != element_type::NULL_VALUE) KSCHED_RETURN_IF_ERROR(fn(name, value));
      break;
    }
  }
  return absl::OkStatus();
}

absl::Status String(element e, std::string_view field, std::string* out) {
  std::string_view s;
  if (e.get(s) != simdjson::SUCCESS) return CannotUnmarshal(e, field, "string");
  *out = std::string(s);
  return absl::OkStatus();
}

absl::Status Int64(element e, std::string_view field, int64_t* out) {
  if (e.get(*out) == simdjson::SUCCESS) return absl::OkStatus();
  if (e.type() == element_type::DOUBLE || e.type() == element_type::UINT64) {
    return absl::InvalidArgumentError(
        fmt::format("json: cannot unmarshal number {} into Go struct field {} of type int64",
                    simdjson::minify(e), field));
  }
  return CannotUnmarshal(e, field, "int64");
}

absl::Status StringMap(element e, std::string_view field, std::map<std::string, std::string>* out) {
  simdjson::dom::object fields;
  if (e.get(fields) != simdjson::SUCCESS) return CannotUnmarshal(e, field, "v1.FailedNodesMap");
  for (auto [key, value] : fields) {
    KSCHED_RETURN_IF_ERROR(String(value, field, &(*out)[std::string(key)]));
  }
  return absl::OkStatus();
}

absl::Status Array(element e, std::string_view field, std::string_view go_type,
                   const std::function<absl::Status(element)>& fn) {
  simdjson::dom::array items;
  if (e.get(items) != simdjson::SUCCESS) return CannotUnmarshal(e, field, go_type);
  for (element item : items) KSCHED_RETURN_IF_ERROR(fn(item));
  return absl::OkStatus();
}

// Parses the answer's first JSON value, as Go's json.Decoder reads it, with its words for an
// answer that is not JSON.
absl::Status Parse(simdjson::dom::parser& parser, std::string_view body, element* out) {
  const GoJsonScan scan = ScanFirstJsonValue(body);
  if (!scan.error.empty()) return absl::InvalidArgumentError(scan.error);
  if (auto err = parser.parse(body.data(), scan.end).get(*out)) {
    return absl::InvalidArgumentError(
        fmt::format("invalid JSON in the answer: {}", simdjson::error_message(err)));
  }
  return absl::OkStatus();
}

}  // namespace

std::string PodJson(const api::Pod& pod) {
  if (pod.json == nullptr) return MetaJson(pod.metadata);
  // An assumed pod (its binding on the way) goes with its node, as upstream's copy of it does;
  // its JSON is from before. (`ksched simulate`'s cluster writes its own pods' nodes in.)
  if (pod.spec.node_name.empty() || pod.json->find(R"("nodeName":)") != std::string::npos) {
    return *pod.json;
  }
  nlohmann::json j = nlohmann::json::parse(*pod.json, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return *pod.json;
  j["spec"]["nodeName"] = pod.spec.node_name;
  return j.dump();
}

std::string NodeJson(const api::Node& node) {
  return node.json == nullptr ? MetaJson(node.metadata) : *node.json;
}

std::string ExtenderArgs(const api::Pod& pod, const std::vector<const NodeInfo*>& nodes,
                         bool node_cache_capable) {
  std::string out = R"({"Pod":)" + PodJson(pod);
  if (node_cache_capable) {
    std::vector<std::string_view> names;
    names.reserve(nodes.size());
    for (const NodeInfo* n : nodes) names.push_back(n->name());
    out += R"(,"Nodes":null,"NodeNames":)";
    AppendStrings(&out, names);
  } else {
    out += R"(,"Nodes":{"metadata":{},"items":[)";
    for (size_t i = 0; i < nodes.size(); ++i) {
      if (i > 0) out += ',';
      out += NodeJson(*nodes[i]->node());
    }
    out += R"(]},"NodeNames":null)";
  }
  out += '}';
  return out;
}

std::string PreemptionArgs(const api::Pod& pod,
                           const std::map<std::string, preemption::Victims>& victims,
                           bool node_cache_capable) {
  std::string map = "{";
  for (const auto& [node, v] : victims) {
    if (map.size() > 1) map += ',';
    client::AppendJsonString(&map, node);
    map += R"(:{"Pods":[)";
    for (size_t i = 0; i < v.pods.size(); ++i) {
      if (i > 0) map += ',';
      if (node_cache_capable) {
        client::AppendJsonField(&map, R"({"UID":)", v.pods[i]->pod->metadata.uid);
        map += '}';
      } else {
        map += PodJson(*v.pods[i]->pod);
      }
    }
    map += fmt::format(R"(],"NumPDBViolations":{}}})", v.num_pdb_violations);
  }
  map += '}';
  std::string out = R"({"Pod":)" + PodJson(pod);
  out += node_cache_capable ? R"(,"NodeNameToVictims":null,"NodeNameToMetaVictims":)" + map
                            : R"(,"NodeNameToVictims":)" + map + R"(,"NodeNameToMetaVictims":null)";
  out += '}';
  return out;
}

std::string BindingArgs(const api::Pod& pod, std::string_view node) {
  std::string out;
  client::AppendJsonField(&out, R"({"PodName":)", pod.metadata.name);
  client::AppendJsonField(&out, R"(,"PodNamespace":)", pod.metadata.namespace_);
  client::AppendJsonField(&out, R"(,"PodUID":)", pod.metadata.uid);
  client::AppendJsonField(&out, R"(,"Node":)", node);
  out += '}';
  return out;
}

absl::Status DecodeFilterResult(std::string_view body, FilterAnswer* out) {
  simdjson::dom::parser parser;
  element doc;
  KSCHED_RETURN_IF_ERROR(Parse(parser, body, &doc));
  return Fields(
      doc, "v1.ExtenderFilterResult",
      {"Nodes", "NodeNames", "FailedNodes", "FailedAndUnresolvableNodes", "Error"},
      [&](std::string_view name, element v) -> absl::Status {
        if (name == "Nodes") {
          out->nodes.emplace();
          return Fields(v, "v1.NodeList", {"items"}, [&](std::string_view, element items) {
            return Array(items, "NodeList.items", "[]v1.Node", [&](element item) {
              api::Node& node = out->nodes->emplace_back();
              if (absl::Status s = api::DecodeNode(item, &node); !s.ok()) {
                return absl::InvalidArgumentError(fmt::format(
                    "Nodes.items[{}]: {}", out->nodes->size() - 1, std::string(s.message())));
              }
              return absl::OkStatus();
            });
          });
        }
        if (name == "NodeNames") {
          out->node_names.emplace();
          return Array(v, "ExtenderFilterResult.NodeNames", "[]string", [&](element item) {
            return String(item, "ExtenderFilterResult.NodeNames", &out->node_names->emplace_back());
          });
        }
        if (name == "FailedNodes") {
          return StringMap(v, "ExtenderFilterResult.FailedNodes", &out->failed);
        }
        if (name == "FailedAndUnresolvableNodes") {
          return StringMap(v, "ExtenderFilterResult.FailedAndUnresolvableNodes",
                           &out->failed_and_unresolvable);
        }
        return String(v, "ExtenderFilterResult.Error", &out->error);
      });
}

absl::Status DecodeHostPriorityList(std::string_view body, std::vector<HostPriority>* out) {
  simdjson::dom::parser parser;
  element doc;
  KSCHED_RETURN_IF_ERROR(Parse(parser, body, &doc));
  if (doc.type() == element_type::NULL_VALUE) return absl::OkStatus();
  return Array(doc, "", "v1.HostPriorityList", [&](element item) {
    HostPriority& h = out->emplace_back();
    return Fields(item, "v1.HostPriority", {"Host", "Score"},
                  [&](std::string_view name, element v) {
                    return name == "Host" ? String(v, "HostPriority.Host", &h.host)
                                          : Int64(v, "HostPriority.Score", &h.score);
                  });
  });
}

absl::Status DecodePreemptionResult(std::string_view body,
                                    std::map<std::string, MetaVictims>* out) {
  simdjson::dom::parser parser;
  element doc;
  KSCHED_RETURN_IF_ERROR(Parse(parser, body, &doc));
  return Fields(doc, "v1.ExtenderPreemptionResult", {"NodeNameToMetaVictims"},
                [&](std::string_view, element map) -> absl::Status {
                  simdjson::dom::object nodes;
                  if (map.get(nodes) != simdjson::SUCCESS) {
                    return CannotUnmarshal(map, "ExtenderPreemptionResult.NodeNameToMetaVictims",
                                           "map[string]*v1.MetaVictims");
                  }
                  for (auto [node, victims] : nodes) {
                    MetaVictims& mv = (*out)[std::string(node)];
                    KSCHED_RETURN_IF_ERROR(Fields(
                        victims, "v1.MetaVictims", {"Pods", "NumPDBViolations"},
                        [&](std::string_view name, element v) -> absl::Status {
                          if (name == "NumPDBViolations") {
                            return Int64(v, "MetaVictims.NumPDBViolations", &mv.num_pdb_violations);
                          }
                          return Array(v, "MetaVictims.Pods", "[]*v1.MetaPod", [&](element pod) {
                            std::string& uid = mv.uids.emplace_back();
                            return Fields(pod, "v1.MetaPod", {"UID"},
                                          [&](std::string_view, element u) {
                                            return String(u, "MetaPod.UID", &uid);
                                          });
                          });
                        }));
                  }
                  return absl::OkStatus();
                });
}

absl::Status DecodeBindingResult(std::string_view body, std::string* error) {
  simdjson::dom::parser parser;
  element doc;
  KSCHED_RETURN_IF_ERROR(Parse(parser, body, &doc));
  return Fields(doc, "v1.ExtenderBindingResult", {"Error"}, [&](std::string_view, element v) {
    return String(v, "ExtenderBindingResult.Error", error);
  });
}

}  // namespace ksched::extender::wire
