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

#include "nlohmann/json.hpp"

namespace {

using nlohmann::json;

// The kinds ksched reads, and the OpenAPI document of the group/version that serves each.
constexpr std::pair<const char*, const char*> kKinds[] = {
    {"Pod", "api__v1_openapi.json"},
    {"Node", "api__v1_openapi.json"},
    {"Namespace", "api__v1_openapi.json"},
    {"Service", "api__v1_openapi.json"},
    {"ReplicationController", "api__v1_openapi.json"},
    {"PersistentVolume", "api__v1_openapi.json"},
    {"PersistentVolumeClaim", "api__v1_openapi.json"},
    {"ReplicaSet", "apis__apps__v1_openapi.json"},
    {"StatefulSet", "apis__apps__v1_openapi.json"},
    {"PodDisruptionBudget", "apis__policy__v1_openapi.json"},
    {"PriorityClass", "apis__scheduling.k8s.io__v1_openapi.json"},
    {"StorageClass", "apis__storage.k8s.io__v1_openapi.json"},
    {"CSINode", "apis__storage.k8s.io__v1_openapi.json"},
    {"CSIDriver", "apis__storage.k8s.io__v1_openapi.json"},
    {"CSIStorageCapacity", "apis__storage.k8s.io__v1_openapi.json"},
    {"VolumeAttachment", "apis__storage.k8s.io__v1_openapi.json"},
    {"DeviceClass", "apis__resource.k8s.io__v1_openapi.json"},
    {"ResourceSlice", "apis__resource.k8s.io__v1_openapi.json"},
    {"ResourceClaim", "apis__resource.k8s.io__v1_openapi.json"},
    {"ResourceClaimTemplate", "apis__resource.k8s.io__v1_openapi.json"},
};

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
  for (auto [kind, file] : kKinds) {
    json& doc = documents[file];
    if (doc.is_null()) {
      std::ifstream in(std::string(argv[2]) + "/" + file);
      doc = json::parse(in, nullptr, false);
      if (doc.is_discarded()) {
        std::fprintf(stderr, "gen_api_fields: %s/%s: cannot read or parse\n", argv[2], file);
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
      std::fprintf(stderr, "gen_api_fields: no kind %s in %s\n", kind, file);
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
