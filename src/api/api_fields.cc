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

}  // namespace

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
