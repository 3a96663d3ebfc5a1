// gen_api_fields: writes api_fields.json, the fields of every kind ksched reads and of every type
// they hold, from upstream's OpenAPI v3 documents (api/openapi-spec/v3 of the pinned
// k8s.io/kubernetes module). `make api-fields` runs it when the pin moves:
//
//   gen_api_fields v1.36.3 $(go env GOMODCACHE)/k8s.io/kubernetes@v1.36.3/api/openapi-spec/v3 \
//     > src/api/api_fields.json
//
// The output is the one data file that strict field validation (api_fields.h) reads: for each
// kind its apiVersion and type, and for each type its fields, each field's value encoded as
//   ""  a scalar;  "*"  any JSON (RawExtension);  "T"  an object of type T;
//   "[" + value  a list;  "{" + value  a map from strings.
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "nlohmann/json.hpp"
#include "src/api/kinds.h"

namespace {

using nlohmann::json;

// The kinds ksched reads (src/api/kinds.h), and the OpenAPI document of the group/version that
// serves each: api__v1_openapi.json, apis__<group>__<version>_openapi.json.
std::vector<std::pair<std::string, std::string>> KindsAndDocuments() {
  std::vector<std::pair<std::string, std::string>> out;
  ksched::api::ForEachKind([&]<typename T>() {
    const std::string_view gv = ksched::api::kKind<T>.group_version;
    const size_t slash = gv.find('/');
    std::string file = slash == std::string_view::npos
                           ? "api__" + std::string(gv)
                           : "apis__" + std::string(gv.substr(0, slash)) + "__" +
                                 std::string(gv.substr(slash + 1));
    out.emplace_back(ksched::api::kKind<T>.name, file + "_openapi.json");
  });
  return out;
}

std::string RefName(const json& schema) {
  if (schema.contains("$ref")) return schema["$ref"].get<std::string>().substr(21);
  if (schema.contains("allOf")) return RefName(schema["allOf"][0]);
  return "";
}

struct Generator {
  const json& schemas;
  std::map<std::string, std::map<std::string, std::string>> types;

  // The encoding of a value of `schema`, adding the object types it holds to `types`.
  std::string Encode(const json& schema) {
    if (std::string ref = RefName(schema); !ref.empty()) return Encode(schemas.at(ref), ref);
    return Encode(schema, "");
  }
  std::string Encode(const json& schema, const std::string& name) {
    if (schema.contains("properties")) {
      if (!types.contains(name)) {
        types[name];  // Marks it seen before its fields, which may hold it again.
        std::map<std::string, std::string> fields;
        for (const auto& [field, value] : schema["properties"].items())
          fields[field] = Encode(value);
        types[name] = std::move(fields);
      }
      return name;
    }
    if (schema.contains("additionalProperties"))
      return "{" + Encode(schema["additionalProperties"]);
    if (schema.contains("items")) return "[" + Encode(schema["items"]);
    if (schema.value("type", "") == "object") return "*";
    return "";
  }
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: gen_api_fields KUBERNETES_VERSION OPENAPI_V3_DIR\n");
    return 2;
  }
  std::map<std::string, json> documents;
  json kinds = json::object();
  std::map<std::string, std::map<std::string, std::string>> types;
  for (const auto& [kind, file] : KindsAndDocuments()) {
    json& doc = documents[file];
    if (doc.is_null()) {
      std::ifstream in(std::string(argv[2]) + "/" + file);
      doc = json::parse(in, nullptr, false);
      if (doc.is_discarded()) {
        std::fprintf(stderr, "gen_api_fields: %s/%s: cannot read or parse\n", argv[2],
                     file.c_str());
        return 1;
      }
    }
    const json& schemas = doc["components"]["schemas"];
    for (const auto& [name, schema] : schemas.items()) {
      for (const json& gvk : schema.value("x-kubernetes-group-version-kind", json::array())) {
        if (gvk["kind"] != kind) continue;
        std::string group = gvk["group"];
        std::string version = gvk["version"];
        kinds[kind] = {group.empty() ? version : group + "/" + version, name};
        Generator g{schemas, {}};
        g.Encode(schema, name);
        types.merge(g.types);
      }
    }
    if (!kinds.contains(kind)) {
      std::fprintf(stderr, "gen_api_fields: no kind %s in %s\n", kind.c_str(), file.c_str());
      return 1;
    }
  }
  // One type per line, so that a new pin's change reads as a diff.
  std::printf("{\"kubernetes\": %s,\n\"kinds\": %s,\n\"types\": {\n", json(argv[1]).dump().c_str(),
              kinds.dump().c_str());
  size_t i = 0;
  for (const auto& [name, fields] : types) {
    std::printf("%s: %s%s\n", json(name).dump().c_str(), json(fields).dump().c_str(),
                ++i == types.size() ? "" : ",");
  }
  std::printf("}}\n");
  return 0;
}
