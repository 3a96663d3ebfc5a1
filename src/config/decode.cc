// Strict decoding of a KubeSchedulerConfiguration v1 document: an unknown field is an error, as
// apimachinery's strict decoder makes it.
#include <limits>
#include <utility>

#include "absl/strings/escaping.h"
#include "fmt/format.h"
#include "ksched/status_macros.h"
#include "src/config/internal.h"
#include "src/config/load.h"

namespace ksched::config::internal {
namespace {

using api::field::CheckObject;
using api::field::Child;
using api::field::DecodeBool;
using api::field::DecodeInt32;
using api::field::DecodeString;
using api::field::Index;
using api::field::Member;
using api::field::Quote;

// A duration as kube-scheduler prints it back ("90s": "1m30s").
absl::StatusOr<std::string> DecodeDuration(const nlohmann::json& j, std::string_view path) {
  KSCHED_ASSIGN_OR_RETURN(absl::Duration d, api::field::DecodeDuration(j, path));
  return api::field::GoDuration(d);
}

// `score` is set for plugins.score, whose weights must lie in [1, 100], or be 0 for the default.
// (Upstream has no such range check; a negative weight fails there as an overflow.)
absl::Status DecodePluginSet(const nlohmann::json& j, std::string_view path, bool score,
                             PluginSet& out) {
  KSCHED_RETURN_IF_ERROR(CheckObject(j, path, {"enabled", "disabled"}));
  for (auto [key, list] : {std::pair{"enabled", &out.enabled}, {"disabled", &out.disabled}}) {
    const nlohmann::json* items = Member(j, key);
    if (items == nullptr) continue;
    const std::string list_path = Child(path, key);
    if (!items->is_array()) {
      return absl::InvalidArgumentError(fmt::format("{}: expected a list", list_path));
    }
    for (size_t i = 0; i < items->size(); ++i) {
      const std::string p = Index(list_path, i);
      KSCHED_RETURN_IF_ERROR(CheckObject((*items)[i], p, {"name", "weight"}));
      PluginRef ref;
      if (const nlohmann::json* name = Member((*items)[i], "name")) {
        KSCHED_ASSIGN_OR_RETURN(ref.name, DecodeString(*name, Child(p, "name")));
      }
      if (const nlohmann::json* weight = Member((*items)[i], "weight")) {
        KSCHED_ASSIGN_OR_RETURN(int32_t w, DecodeInt32(*weight, Child(p, "weight")));
        // 0 is upstream's "unset" (it prints it so), read as the default weight.
        if (score && key == std::string_view("enabled") && (w < 0 || w > 100)) {
          return absl::InvalidArgumentError(fmt::format(
              "{}: Invalid value: {}: must be in range [1, 100]", Child(p, "weight"), w));
        }
        ref.weight = w;
      }
      list->push_back(std::move(ref));
    }
  }
  return absl::OkStatus();
}

absl::Status DecodeProfile(const nlohmann::json& j, std::string_view path, Profile& out) {
  KSCHED_RETURN_IF_ERROR(CheckObject(
      j, path, {"schedulerName", "percentageOfNodesToScore", "plugins", "pluginConfig"}));
  out.scheduler_name.clear();
  if (const nlohmann::json* v = Member(j, "schedulerName")) {
    KSCHED_ASSIGN_OR_RETURN(out.scheduler_name, DecodeString(*v, Child(path, "schedulerName")));
  }
  if (const nlohmann::json* v = Member(j, "percentageOfNodesToScore")) {
    KSCHED_ASSIGN_OR_RETURN(out.percentage_of_nodes_to_score,
                            DecodeInt32(*v, Child(path, "percentageOfNodesToScore")));
  }
  if (const nlohmann::json* plugins = Member(j, "plugins")) {
    const std::string plugins_path = Child(path, "plugins");
    KSCHED_RETURN_IF_ERROR(
        CheckObject(*plugins, plugins_path,
                    {"preEnqueue", "queueSort", "preFilter", "filter", "postFilter", "preScore",
                     "score", "reserve", "permit", "preBind", "bind", "postBind", "multiPoint",
                     "placementGenerate", "placementScore", "podGroupPostFilter"}));
    for (const PointField& f : kPoints) {
      if (const nlohmann::json* set = Member(*plugins, f.name)) {
        KSCHED_RETURN_IF_ERROR(DecodePluginSet(*set, Child(plugins_path, f.name), f.name == "score",
                                               out.plugins.*f.set));
      }
    }
  }
  if (const nlohmann::json* list = Member(j, "pluginConfig")) {
    const std::string list_path = Child(path, "pluginConfig");
    if (!list->is_array()) {
      return absl::InvalidArgumentError(fmt::format("{}: expected a list", list_path));
    }
    for (size_t i = 0; i < list->size(); ++i) {
      const std::string p = Index(list_path, i);
      KSCHED_RETURN_IF_ERROR(CheckObject((*list)[i], p, {"name", "args"}));
      PluginConfig pc;
      if (const nlohmann::json* name = Member((*list)[i], "name")) {
        KSCHED_ASSIGN_OR_RETURN(pc.name, DecodeString(*name, Child(p, "name")));
      }
      if (const nlohmann::json* args = Member((*list)[i], "args")) {
        pc.args = std::make_shared<const JsonArgs>(*args);
      }
      out.plugin_config.push_back(std::move(pc));
    }
  }
  return absl::OkStatus();
}

absl::Status DecodeLeaderElection(const nlohmann::json& j, LeaderElection& out) {
  const std::string path = "leaderElection";
  KSCHED_RETURN_IF_ERROR(
      CheckObject(j, path,
                  {"leaderElect", "leaseDuration", "renewDeadline", "retryPeriod", "resourceLock",
                   "resourceName", "resourceNamespace"}));
  if (const nlohmann::json* v = Member(j, "leaderElect")) {
    KSCHED_ASSIGN_OR_RETURN(out.leader_elect, DecodeBool(*v, Child(path, "leaderElect")));
  }
  for (auto [key, field] : {std::pair{"leaseDuration", &out.lease_duration},
                            {"renewDeadline", &out.renew_deadline},
                            {"retryPeriod", &out.retry_period}}) {
    if (const nlohmann::json* v = Member(j, key)) {
      KSCHED_ASSIGN_OR_RETURN(*field, DecodeDuration(*v, Child(path, key)));
    }
  }
  for (auto [key, field] : {std::pair{"resourceLock", &out.resource_lock},
                            {"resourceName", &out.resource_name},
                            {"resourceNamespace", &out.resource_namespace}}) {
    if (const nlohmann::json* v = Member(j, key)) {
      KSCHED_ASSIGN_OR_RETURN(*field, DecodeString(*v, Child(path, key)));
    }
  }
  return absl::OkStatus();
}

absl::Status DecodeClientConnection(const nlohmann::json& j, ClientConnection& out) {
  const std::string path = "clientConnection";
  KSCHED_RETURN_IF_ERROR(
      CheckObject(j, path, {"kubeconfig", "acceptContentTypes", "contentType", "qps", "burst"}));
  for (auto [key, field] : {std::pair{"kubeconfig", &out.kubeconfig},
                            {"acceptContentTypes", &out.accept_content_types},
                            {"contentType", &out.content_type}}) {
    if (const nlohmann::json* v = Member(j, key)) {
      KSCHED_ASSIGN_OR_RETURN(*field, DecodeString(*v, Child(path, key)));
    }
  }
  if (const nlohmann::json* v = Member(j, "qps")) {
    if (!v->is_number()) {
      return absl::InvalidArgumentError(
          fmt::format("{}: expected a number, got {}", Child(path, "qps"), v->dump()));
    }
    out.qps = v->get<double>();
  }
  if (const nlohmann::json* v = Member(j, "burst")) {
    KSCHED_ASSIGN_OR_RETURN(out.burst, DecodeInt32(*v, Child(path, "burst")));
  }
  return absl::OkStatus();
}

// Extenders are checked for their fields and types, and kept as written (src/extender reads
// them).
absl::Status DecodeExtender(const nlohmann::json& j, std::string_view path, nlohmann::json& out) {
  KSCHED_RETURN_IF_ERROR(
      CheckObject(j, path,
                  {"urlPrefix", "filterVerb", "preemptVerb", "prioritizeVerb", "weight", "bindVerb",
                   "enableHTTPS", "tlsConfig", "httpTimeout", "nodeCacheCapable",
                   "managedResources", "ignorable"}));
  out = j;
  for (const char* key : {"urlPrefix", "filterVerb", "preemptVerb", "prioritizeVerb", "bindVerb"}) {
    if (const nlohmann::json* v = Member(j, key)) {
      KSCHED_RETURN_IF_ERROR(DecodeString(*v, Child(path, key)).status());
    }
  }
  for (const char* key : {"enableHTTPS", "nodeCacheCapable", "ignorable"}) {
    if (const nlohmann::json* v = Member(j, key)) {
      KSCHED_RETURN_IF_ERROR(DecodeBool(*v, Child(path, key)).status());
    }
  }
  if (const nlohmann::json* v = Member(j, "weight")) {
    KSCHED_ASSIGN_OR_RETURN(int64_t w, api::field::DecodeInt(*v, Child(path, "weight"),
                                                             std::numeric_limits<int64_t>::min(),
                                                             std::numeric_limits<int64_t>::max()));
    out["weight"] = w;
  }
  if (const nlohmann::json* v = Member(j, "httpTimeout")) {
    KSCHED_ASSIGN_OR_RETURN(out["httpTimeout"], DecodeDuration(*v, Child(path, "httpTimeout")));
  }
  if (const nlohmann::json* tls = Member(j, "tlsConfig")) {
    const std::string tls_path = Child(path, "tlsConfig");
    KSCHED_RETURN_IF_ERROR(CheckObject(*tls, tls_path,
                                       {"insecure", "serverName", "certFile", "keyFile", "caFile",
                                        "certData", "keyData", "caData"}));
    if (const nlohmann::json* v = Member(*tls, "insecure")) {
      KSCHED_RETURN_IF_ERROR(DecodeBool(*v, Child(tls_path, "insecure")).status());
    }
    for (const char* key : {"serverName", "certFile", "keyFile", "caFile"}) {
      if (const nlohmann::json* v = Member(*tls, key)) {
        KSCHED_RETURN_IF_ERROR(DecodeString(*v, Child(tls_path, key)).status());
      }
    }
    // []byte fields: base64 in JSON and YAML.
    for (const char* key : {"certData", "keyData", "caData"}) {
      if (const nlohmann::json* v = Member(*tls, key)) {
        KSCHED_ASSIGN_OR_RETURN(std::string text, DecodeString(*v, Child(tls_path, key)));
        std::string bytes;
        if (!absl::Base64Unescape(text, &bytes)) {
          return absl::InvalidArgumentError(
              fmt::format("{}: illegal base64 data", Child(tls_path, key)));
        }
      }
    }
  }
  if (const nlohmann::json* list = Member(j, "managedResources")) {
    const std::string list_path = Child(path, "managedResources");
    if (!list->is_array()) {
      return absl::InvalidArgumentError(fmt::format("{}: expected a list", list_path));
    }
    for (size_t i = 0; i < list->size(); ++i) {
      const std::string p = Index(list_path, i);
      KSCHED_RETURN_IF_ERROR(CheckObject((*list)[i], p, {"name", "ignoredByScheduler"}));
      if (const nlohmann::json* v = Member((*list)[i], "name")) {
        KSCHED_RETURN_IF_ERROR(DecodeString(*v, Child(p, "name")).status());
      }
      if (const nlohmann::json* v = Member((*list)[i], "ignoredByScheduler")) {
        KSCHED_RETURN_IF_ERROR(DecodeBool(*v, Child(p, "ignoredByScheduler")).status());
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Configuration> DecodeDocument(const nlohmann::json& doc, std::string_view text) {
  if (!doc.is_object()) {
    return absl::InvalidArgumentError("the config is not a KubeSchedulerConfiguration object");
  }
  const nlohmann::json* api_version = Member(doc, "apiVersion");
  const nlohmann::json* kind = Member(doc, "kind");
  if (api_version == nullptr || !api_version->is_string() || kind == nullptr ||
      !kind->is_string()) {
    return absl::InvalidArgumentError(fmt::format("Object 'Kind' is missing in '{}'", text));
  }
  if (*api_version != kApiVersion || *kind != kKind) {
    return absl::InvalidArgumentError(fmt::format(
        "no kind {} is registered for version {} in scheme \"pkg/runtime/scheme.go:111\"",
        Quote(kind->get<std::string>()), Quote(api_version->get<std::string>())));
  }
  KSCHED_RETURN_IF_ERROR(CheckObject(
      doc, "",
      {"parallelism", "leaderElection", "clientConnection", "enableProfiling",
       "enableContentionProfiling", "percentageOfNodesToScore", "podInitialBackoffSeconds",
       "podMaxBackoffSeconds", "profiles", "extenders", "delayCacheUntilActive"},
      true));
  Configuration cfg;
  if (const nlohmann::json* v = Member(doc, "parallelism")) {
    KSCHED_ASSIGN_OR_RETURN(cfg.parallelism, DecodeInt32(*v, "parallelism"));
  }
  if (const nlohmann::json* v = Member(doc, "leaderElection")) {
    KSCHED_RETURN_IF_ERROR(DecodeLeaderElection(*v, cfg.leader_election));
  }
  if (const nlohmann::json* v = Member(doc, "clientConnection")) {
    KSCHED_RETURN_IF_ERROR(DecodeClientConnection(*v, cfg.client_connection));
  }
  for (auto [key, field] : {std::pair{"enableProfiling", &cfg.enable_profiling},
                            {"enableContentionProfiling", &cfg.enable_contention_profiling},
                            {"delayCacheUntilActive", &cfg.delay_cache_until_active}}) {
    if (const nlohmann::json* v = Member(doc, key)) {
      KSCHED_ASSIGN_OR_RETURN(*field, DecodeBool(*v, key));
    }
  }
  if (const nlohmann::json* v = Member(doc, "percentageOfNodesToScore")) {
    KSCHED_ASSIGN_OR_RETURN(cfg.percentage_of_nodes_to_score,
                            DecodeInt32(*v, "percentageOfNodesToScore"));
  }
  for (auto [key, field] : {std::pair{"podInitialBackoffSeconds", &cfg.pod_initial_backoff_seconds},
                            {"podMaxBackoffSeconds", &cfg.pod_max_backoff_seconds}}) {
    if (const nlohmann::json* v = Member(doc, key)) {
      KSCHED_ASSIGN_OR_RETURN(*field,
                              api::field::DecodeInt(*v, key, std::numeric_limits<int64_t>::min(),
                                                    std::numeric_limits<int64_t>::max()));
    }
  }
  if (const nlohmann::json* list = Member(doc, "profiles")) {
    if (!list->is_array()) return absl::InvalidArgumentError("profiles: expected a list");
    for (size_t i = 0; i < list->size(); ++i) {
      Profile p;
      KSCHED_RETURN_IF_ERROR(DecodeProfile((*list)[i], Index("profiles", i), p));
      cfg.profiles.push_back(std::move(p));
    }
  }
  if (const nlohmann::json* list = Member(doc, "extenders")) {
    if (!list->is_array()) return absl::InvalidArgumentError("extenders: expected a list");
    for (size_t i = 0; i < list->size(); ++i) {
      nlohmann::json e;
      KSCHED_RETURN_IF_ERROR(DecodeExtender((*list)[i], Index("extenders", i), e));
      cfg.extenders.push_back(std::move(e));
    }
  }
  return cfg;
}

absl::Duration ParsedDuration(const std::string& go) {
  absl::Duration d;
  return absl::ParseDuration(go, &d) ? d : absl::ZeroDuration();
}

}  // namespace ksched::config::internal
