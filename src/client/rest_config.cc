#include "src/client/rest_config.h"

#include <cstdlib>
#include <filesystem>

#include "absl/strings/escaping.h"
#include "fmt/format.h"
#include "ksched/status_macros.h"
#include "ksched/strings.h"
#include "nlohmann/json.hpp"
#include "src/api/yaml.h"
#include "src/base/file.h"

namespace ksched::client {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// The entry named `name` of a kubeconfig list (clusters, users, contexts), or nullptr.
const json* FindNamed(const json& doc, const char* list, const char* inner,
                      const std::string& name) {
  auto it = doc.find(list);
  if (it == doc.end() || !it->is_array()) return nullptr;
  for (const json& entry : *it) {
    if (entry.is_object() && entry.value("name", json()).is_string() &&
        entry["name"].get<std::string>() == name) {
      auto body = entry.find(inner);
      static const json kEmpty = json::object();
      return body != entry.end() && body->is_object() ? &*body : &kEmpty;
    }
  }
  return nullptr;
}

// Reads string field `key` of `obj` (absent: ""), naming `path` when it is not a string.
absl::StatusOr<std::string> Str(const json& obj, const char* key, const std::string& path) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return std::string();
  if (!it->is_string()) {
    return absl::InvalidArgumentError(fmt::format("{}.{}: expected a string", path, key));
  }
  return it->get<std::string>();
}

// `*-data` fields hold base64.
absl::StatusOr<std::string> Base64Field(const json& obj, const char* key, const std::string& path) {
  KSCHED_ASSIGN_OR_RETURN(std::string b64, Str(obj, key, path));
  std::string out;
  if (!b64.empty() && !absl::Base64Unescape(b64, &out)) {
    return absl::InvalidArgumentError(fmt::format("{}.{}: illegal base64 data", path, key));
  }
  return out;
}

std::string Resolve(const std::string& dir, const std::string& path) {
  if (path.empty() || fs::path(path).is_absolute()) return path;
  return (fs::path(dir) / path).string();
}

absl::StatusOr<RestConfig> FromDocument(const json& doc, const std::string& dir,
                                        const std::string& wanted_context) {
  std::string context = wanted_context;
  if (context.empty()) {
    KSCHED_ASSIGN_OR_RETURN(context, Str(doc, "current-context", ""));
    if (context.empty()) {
      return absl::InvalidArgumentError(
          "invalid configuration: no configuration has been provided, try setting "
          "KUBERNETES_MASTER environment variable");
    }
  }
  const json* ctx = FindNamed(doc, "contexts", "context", context);
  if (ctx == nullptr) {
    return absl::InvalidArgumentError(fmt::format("context \"{}\" does not exist", context));
  }
  const std::string ctx_path = fmt::format("contexts[{}].context", context);
  KSCHED_ASSIGN_OR_RETURN(std::string cluster_name, Str(*ctx, "cluster", ctx_path));
  KSCHED_ASSIGN_OR_RETURN(std::string user_name, Str(*ctx, "user", ctx_path));
  const json* cluster = FindNamed(doc, "clusters", "cluster", cluster_name);
  if (cluster == nullptr) {
    return absl::InvalidArgumentError(
        fmt::format("invalid configuration: context \"{}\": cluster \"{}\" does not exist", context,
                    cluster_name));
  }
  static const json kNoUser = json::object();
  const json* user = user_name.empty() ? &kNoUser : FindNamed(doc, "users", "user", user_name);
  if (user == nullptr) {
    return absl::InvalidArgumentError(fmt::format(
        "invalid configuration: context \"{}\": user \"{}\" does not exist", context, user_name));
  }

  RestConfig cfg;
  const std::string cp = fmt::format("clusters[{}].cluster", cluster_name);
  const std::string up = fmt::format("users[{}].user", user_name);
  KSCHED_ASSIGN_OR_RETURN(cfg.server, Str(*cluster, "server", cp));
  if (cfg.server.empty()) {
    return absl::InvalidArgumentError(fmt::format(
        "invalid configuration: {}.server: no server found for cluster \"{}\"", cp, cluster_name));
  }
  while (cfg.server.ends_with('/')) cfg.server.pop_back();
  KSCHED_ASSIGN_OR_RETURN(cfg.ca_data, Base64Field(*cluster, "certificate-authority-data", cp));
  KSCHED_ASSIGN_OR_RETURN(std::string ca_file, Str(*cluster, "certificate-authority", cp));
  cfg.ca_file = Resolve(dir, ca_file);
  KSCHED_ASSIGN_OR_RETURN(cfg.tls_server_name, Str(*cluster, "tls-server-name", cp));
  if (auto it = cluster->find("insecure-skip-tls-verify"); it != cluster->end()) {
    if (!it->is_boolean()) {
      return absl::InvalidArgumentError(
          fmt::format("{}.insecure-skip-tls-verify: expected a boolean", cp));
    }
    cfg.insecure_skip_tls_verify = it->get<bool>();
  }
  KSCHED_ASSIGN_OR_RETURN(cfg.cert_data, Base64Field(*user, "client-certificate-data", up));
  KSCHED_ASSIGN_OR_RETURN(cfg.key_data, Base64Field(*user, "client-key-data", up));
  KSCHED_ASSIGN_OR_RETURN(std::string cert_file, Str(*user, "client-certificate", up));
  KSCHED_ASSIGN_OR_RETURN(std::string key_file, Str(*user, "client-key", up));
  cfg.cert_file = Resolve(dir, cert_file);
  cfg.key_file = Resolve(dir, key_file);
  KSCHED_ASSIGN_OR_RETURN(cfg.token, Str(*user, "token", up));
  KSCHED_ASSIGN_OR_RETURN(std::string token_file, Str(*user, "tokenFile", up));
  cfg.token_file = Resolve(dir, token_file);
  return cfg;
}

}  // namespace

absl::StatusOr<RestConfig> ParseKubeconfig(std::string_view text, const std::string& name,
                                           const std::string& dir, const std::string& context) {
  auto fail = [&](const absl::Status& st) {
    return absl::Status(st.code(), fmt::format("{}: {}", name, AsStd(st.message())));
  };
  absl::StatusOr<std::vector<std::string>> docs = api::YamlToJson(text);
  if (!docs.ok()) return fail(docs.status());
  json doc = json::object();
  if (!docs->empty()) {
    doc = json::parse(docs->front(), nullptr, /*allow_exceptions=*/false);
    if (!doc.is_object()) return fail(absl::InvalidArgumentError("not a kubeconfig object"));
  }
  absl::StatusOr<RestConfig> cfg = FromDocument(doc, dir, context);
  if (!cfg.ok()) return fail(cfg.status());
  return cfg;
}

absl::StatusOr<RestConfig> LoadKubeconfig(const std::string& path, const std::string& context) {
  KSCHED_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  return ParseKubeconfig(text, path, fs::path(path).parent_path().string(), context);
}

absl::StatusOr<RestConfig> InClusterConfig(const std::string& sa_dir) {
  const char* host = std::getenv("KUBERNETES_SERVICE_HOST");
  const char* port = std::getenv("KUBERNETES_SERVICE_PORT");
  if (host == nullptr || port == nullptr || *host == '\0' || *port == '\0') {
    return absl::FailedPreconditionError(
        "unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST and "
        "KUBERNETES_SERVICE_PORT must be defined");
  }
  RestConfig cfg;
  std::string h = host;
  if (h.find(':') != std::string::npos) h = "[" + h + "]";  // An IPv6 address.
  cfg.server = fmt::format("https://{}:{}", h, port);
  cfg.token_file = sa_dir + "/token";
  cfg.ca_file = sa_dir + "/ca.crt";
  KSCHED_RETURN_IF_ERROR(CheckReadable(cfg.token_file));
  return cfg;
}

namespace {

absl::StatusOr<RestConfig> LoadWithoutMaster(const RestConfigSource& source) {
  if (!source.kubeconfig.empty()) return LoadKubeconfig(source.kubeconfig, source.context);
  if (const char* env = std::getenv("KUBECONFIG"); env != nullptr && *env != '\0') {
    std::string list = env;
    std::string first = list.substr(0, list.find(':'));
    return LoadKubeconfig(first, source.context);
  }
  if (!source.master.empty()) return RestConfig{};
  return InClusterConfig();
}

}  // namespace

absl::StatusOr<RestConfig> LoadRestConfig(const RestConfigSource& source) {
  absl::StatusOr<RestConfig> config = LoadWithoutMaster(source);
  if (config.ok() && !source.master.empty()) {
    config->server = source.master;
    while (config->server.ends_with('/')) config->server.pop_back();
  }
  return config;
}

}  // namespace ksched::client
