#include "src/api/api_fields.h"

#include <map>

#include "fmt/format.h"
#include "nlohmann/json.hpp"

namespace ksched::api {

// api_fields.json, embedded by CMake (api_fields_data.cc.in).
extern const char kApiFieldsJson[];

namespace {

// Each field's value as gen_api_fields encodes it: "" a scalar, "*" any JSON, a type's name,
// "[" + value a list of it, "{" + value a map to it.
using Fields = std::map<std::string, std::string, std::less<>>;

struct Table {
  std::string release;
  std::map<std::string, std::pair<std::string, std::string>, std::less<>> kinds;  // version, type
  std::map<std::string, Fields, std::less<>> types;
};

const Table& TheTable() {
  static const Table* table = [] {
    auto* t = new Table;
    const nlohmann::json j = nlohmann::json::parse(kApiFieldsJson);
    t->release = j.at("kubernetes");
    for (const auto& [kind, v] : j.at("kinds").items()) t->kinds[kind] = {v.at(0), v.at(1)};
    for (const auto& [type, fields] : j.at("types").items()) {
      Fields& f = t->types[type];
      for (const auto& [name, value] : fields.items()) f[name] = value;
    }
    return t;
  }();
  return *table;
}

void Walk(const Table& table, simdjson::dom::element e, std::string_view value,
          const std::string& path, std::vector<std::string>* unknown) {
  if (value.empty() || value == "*") return;
  if (value[0] == '[') {
    simdjson::dom::array items;
    if (e.get(items)) return;  // A wrong type is the decoder's error.
    size_t i = 0;
    for (simdjson::dom::element item : items) {
      Walk(table, item, value.substr(1), fmt::format("{}[{}]", path, i++), unknown);
    }
    return;
  }
  simdjson::dom::object object;
  if (e.get(object)) return;
  const Fields* fields = nullptr;  // Stays null for a map.
  if (value[0] != '{') {
    auto type = table.types.find(value);
    if (type == table.types.end()) return;
    fields = &type->second;
  }
  for (auto [key, child] : object) {
    std::string child_path = path.empty() ? std::string(key) : fmt::format("{}.{}", path, key);
    if (fields == nullptr) {  // A map: each value is of the one type.
      Walk(table, child, value.substr(1), child_path, unknown);
      continue;
    }
    auto field = fields->find(key);
    if (field == fields->end()) {
      unknown->push_back(std::move(child_path));
    } else {
      Walk(table, child, field->second, child_path, unknown);
    }
  }
}

// Walks `e` as `schema`, a CRD's structural schema, alongside `pruned`, its copy (or null).
void WalkSchema(const Table& table, simdjson::dom::element e, const nlohmann::json& schema,
                const std::string& path, bool root, nlohmann::json* pruned,
                std::vector<std::string>* unknown) {
  if (!schema.is_object()) return;
  if (auto items = schema.find("items"); items != schema.end()) {
    simdjson::dom::array list;
    if (e.get(list)) return;  // A wrong type is the schema check's error.
    size_t i = 0;
    for (simdjson::dom::element item : list) {
      nlohmann::json* copy =
          pruned != nullptr && pruned->is_array() && i < pruned->size() ? &(*pruned)[i] : nullptr;
      WalkSchema(table, item, *items, fmt::format("{}[{}]", path, i), false, copy, unknown);
      ++i;
    }
    return;
  }
  simdjson::dom::object object;
  if (e.get(object)) return;
  const bool preserve = schema.value("x-kubernetes-preserve-unknown-fields", false);
  const auto properties = schema.find("properties");
  const auto additional = schema.find("additionalProperties");
  for (auto [key, child] : object) {
    std::string child_path = path.empty() ? std::string(key) : fmt::format("{}.{}", path, key);
    const std::string name(key);
    nlohmann::json* copy = pruned != nullptr && pruned->is_object() && pruned->contains(name)
                               ? &(*pruned)[name]
                               : nullptr;
    if (root && (key == "apiVersion" || key == "kind")) continue;
    if (root && key == "metadata") {
      Walk(table, child, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta", child_path, unknown);
    } else if (properties != schema.end() && properties->is_object() &&
               properties->contains(name)) {
      WalkSchema(table, child, (*properties)[name], child_path, false, copy, unknown);
    } else if (additional != schema.end() && additional->is_object()) {  // A map.
      WalkSchema(table, child, *additional, child_path, false, copy, unknown);
    } else if (!preserve && !(additional != schema.end() && additional->is_boolean() &&
                              additional->get<bool>())) {
      unknown->push_back(std::move(child_path));
      if (pruned != nullptr && pruned->is_object()) pruned->erase(name);
    }
  }
}

}  // namespace

std::vector<std::string> UnknownCustomFields(simdjson::dom::element object,
                                             const nlohmann::json& schema, nlohmann::json* pruned) {
  std::vector<std::string> unknown;
  WalkSchema(TheTable(), object, schema, "", true, pruned, &unknown);
  return unknown;
}

std::string_view ServedApiVersion(std::string_view kind) {
  const Table& t = TheTable();
  auto it = t.kinds.find(kind);
  return it == t.kinds.end() ? std::string_view() : it->second.first;
}

std::vector<std::string> UnknownFields(simdjson::dom::element object, std::string_view kind) {
  const Table& t = TheTable();
  std::vector<std::string> unknown;
  auto it = t.kinds.find(kind);
  if (it != t.kinds.end()) Walk(t, object, it->second.second, "", &unknown);
  return unknown;
}

std::string_view ApiFieldsRelease() { return TheTable().release; }

}  // namespace ksched::api
