#include "src/config/load.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>
#include <utility>

#include "absl/time/time.h"
#include "fmt/format.h"
#include "src/api/field.h"
#include "src/api/yaml.h"
#include "src/base/status_macros.h"
#include "src/base/strings.h"
#include "yaml-cpp/yaml.h"

namespace ksched::config {
namespace {

using api::field::CheckObject;
using api::field::Child;
using api::field::DecodeBool;
using api::field::DecodeInt32;
using api::field::DecodeString;
using api::field::ErrorList;
using api::field::Index;
using api::field::Member;
using api::field::Quote;

// The extension points of Plugins, with their v1 field names, in upstream's order.
struct PointField {
  std::string_view name;
  PluginSet Plugins::*set;
  std::string_view go_type;  // The interface's name in upstream's "does not exist" error.
};
constexpr PointField kPoints[] = {
    {"preEnqueue", &Plugins::pre_enqueue, "PreEnqueuePlugin"},
    {"queueSort", &Plugins::queue_sort, "QueueSortPlugin"},
    {"preFilter", &Plugins::pre_filter, "PreFilterPlugin"},
    {"filter", &Plugins::filter, "FilterPlugin"},
    {"postFilter", &Plugins::post_filter, "PostFilterPlugin"},
    {"preScore", &Plugins::pre_score, "PreScorePlugin"},
    {"score", &Plugins::score, "ScorePlugin"},
    {"reserve", &Plugins::reserve, "ReservePlugin"},
    {"permit", &Plugins::permit, "PermitPlugin"},
    {"preBind", &Plugins::pre_bind, "PreBindPlugin"},
    {"bind", &Plugins::bind, "BindPlugin"},
    {"postBind", &Plugins::post_bind, "PostBindPlugin"},
    // Upstream reports an unknown multiPoint plugin at the first point it expands to.
    {"multiPoint", &Plugins::multi_point, "PreFilterPlugin"},
};

// Plugins that earlier API versions had and v1 dropped (validation.go's removedPluginsByVersion).
struct RemovedPlugins {
  std::string_view version;
  std::initializer_list<std::string_view> names;
};
const RemovedPlugins kRemoved[] = {
    {"kubescheduler.config.k8s.io/v1beta2",
     {"NodeLabel", "ServiceAffinity", "NodePreferAvoidPods", "NodeResourcesLeastAllocated",
      "NodeResourcesMostAllocated", "RequestedToCapacityRatio"}},
    {"kubescheduler.config.k8s.io/v1beta3", {"SelectorSpread"}},
    // kube-scheduler 1.36 names this version "v1" in its message.
    {"v1", {"AzureDiskLimits", "CinderLimits", "EBSLimits", "GCEPDLimits"}},
};

// --- Go durations -------------------------------------------------------------------------------

// Go's time.Duration.String(): "15s", "1m30s", "1h0m0s", "500ms", "0s".
std::string GoDuration(absl::Duration d) {
  if (d == absl::ZeroDuration()) return "0s";
  std::string sign = d < absl::ZeroDuration() ? "-" : "";
  d = absl::AbsDuration(d);
  if (d < absl::Seconds(1)) {
    const int64_t ns = absl::ToInt64Nanoseconds(d);
    if (ns < 1000) return fmt::format("{}{}ns", sign, ns);
    if (ns < 1000000) return fmt::format("{}{}µs", sign, absl::ToDoubleMicroseconds(d));
    return fmt::format("{}{}ms", sign, absl::ToDoubleMilliseconds(d));
  }
  const int64_t hours = absl::IDivDuration(d, absl::Hours(1), &d);
  const int64_t minutes = absl::IDivDuration(d, absl::Minutes(1), &d);
  const double seconds = absl::ToDoubleSeconds(d);
  std::string out = sign;
  if (hours > 0) out += fmt::format("{}h", hours);
  if (hours > 0 || minutes > 0) out += fmt::format("{}m", minutes);
  return out + fmt::format("{}s", seconds);
}

absl::StatusOr<std::string> DecodeDuration(const nlohmann::json& j, std::string_view path) {
  KSCHED_ASSIGN_OR_RETURN(std::string text, DecodeString(j, path));
  absl::Duration d;
  if (!absl::ParseDuration(text, &d) || text == "inf" || text == "-inf") {
    return absl::InvalidArgumentError(
        fmt::format("{}: time: invalid duration {}", path, Quote(text)));
  }
  return GoDuration(d);
}

absl::Duration ParsedDuration(const std::string& go) {
  absl::Duration d;
  return absl::ParseDuration(go, &d) ? d : absl::ZeroDuration();
}

// --- Decoding (strict: unknown fields are errors) -----------------------------------------------

// `score` is set for plugins.score, whose explicit weights must lie in [1, 100]. (Other points
// keep any weight: upstream prints the default multiPoint plugins with weight 0.)
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
        if (score && key == std::string_view("enabled") && (w < 1 || w > 100)) {
          return absl::InvalidArgumentError(fmt::format(
              "{}: Invalid value: {}: must be in range [1, 100]", Child(p, "weight"), w));
        }
        ref.weight = w;
        ref.weight_set = true;
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
    std::vector<std::string_view> names;
    for (const PointField& f : kPoints) names.push_back(f.name);
    KSCHED_RETURN_IF_ERROR(
        CheckObject(*plugins, plugins_path,
                    {"preEnqueue", "queueSort", "preFilter", "filter", "postFilter", "preScore",
                     "score", "reserve", "permit", "preBind", "bind", "postBind", "multiPoint"}));
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
      if (const nlohmann::json* args = Member((*list)[i], "args")) pc.args = *args;
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

// Extenders are checked for their fields and types; the extender client is a later issue.
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
    KSCHED_RETURN_IF_ERROR(CheckObject(*tls, Child(path, "tlsConfig"),
                                       {"insecure", "serverName", "certFile", "keyFile", "caFile",
                                        "certData", "keyData", "caData"}));
  }
  if (const nlohmann::json* list = Member(j, "managedResources")) {
    const std::string list_path = Child(path, "managedResources");
    if (!list->is_array()) {
      return absl::InvalidArgumentError(fmt::format("{}: expected a list", list_path));
    }
    for (size_t i = 0; i < list->size(); ++i) {
      const std::string p = Index(list_path, i);
      KSCHED_RETURN_IF_ERROR(CheckObject((*list)[i], p, {"name", "ignoredByScheduler"}));
    }
  }
  return absl::OkStatus();
}

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

// --- Defaults (v1 defaults.go) ------------------------------------------------------------------

// The enabled plugins of a merged profile, each once, multiPoint first, as upstream collects the
// plugins whose args it defaults.
std::vector<std::string> EnabledPlugins(const Profile& p) {
  std::vector<std::string> out;
  std::set<std::string, std::less<>> seen;
  auto add = [&](const PluginSet& set) {
    for (const PluginRef& r : set.enabled) {
      if (seen.insert(r.name).second) out.push_back(r.name);
    }
  };
  add(p.plugins.multi_point);
  for (const PointField& f : kPoints) add(p.plugins.*f.set);
  return out;
}

void SetDefaults(Configuration& cfg) {
  if (cfg.profiles.empty()) cfg.profiles.emplace_back();
  if (cfg.profiles.size() == 1 && cfg.profiles[0].scheduler_name.empty()) {
    cfg.profiles[0].scheduler_name = kDefaultSchedulerName;
  }
  for (Profile& p : cfg.profiles) MergeDefaultPlugins(p);
  for (nlohmann::json& e : cfg.extenders) {
    if (!e.contains("weight") || e["weight"] == 0) e["weight"] = 1;
  }
}

// Args: every pluginConfig entry is decoded; every enabled plugin with an args type and no entry
// gets one with its defaults, after the written ones.
absl::Status CompleteArgs(Profile& p, std::string_view path, const Registry& registry,
                          ErrorList& errs) {
  for (size_t i = 0; i < p.plugin_config.size(); ++i) {
    PluginConfig& pc = p.plugin_config[i];
    const ArgsDecoder* decode = registry.FindArgs(pc.name);
    if (decode == nullptr) continue;  // Out-of-tree args reach the factory as written.
    absl::StatusOr<nlohmann::json> args =
        (*decode)(pc.args, Child(Index(Child(path, "pluginConfig"), i), "args"));
    if (!args.ok()) {
      errs.Add(std::string(AsStd(args.status().message())));
      continue;
    }
    pc.args = *std::move(args);
  }
  for (const std::string& name : EnabledPlugins(p)) {
    const ArgsDecoder* decode = registry.FindArgs(name);
    if (decode == nullptr) continue;
    bool configured = false;
    for (const PluginConfig& pc : p.plugin_config) configured |= pc.name == name;
    if (configured) continue;
    KSCHED_ASSIGN_OR_RETURN(nlohmann::json args, (*decode)(nlohmann::json::object(), ""));
    p.plugin_config.push_back({name, std::move(args)});
  }
  return absl::OkStatus();
}

// --- Validation (validation.go) -----------------------------------------------------------------

// A PluginSet as Go's %v of the internal type prints it in field errors:
// {"Enabled":[{"Name":"PrioritySort","Weight":0}],"Disabled":[...]}.
std::string GoPluginSet(const PluginSet& set) {
  auto refs = [](const std::vector<PluginRef>& list) {
    std::string out;
    for (const PluginRef& r : list) {
      out += fmt::format("{}{{\"Name\":{},\"Weight\":{}}}", out.empty() ? "" : ",", Quote(r.name),
                         r.weight);
    }
    return list.empty() ? std::string("null") : "[" + out + "]";
  };
  return fmt::format("{{\"Enabled\":{},\"Disabled\":{}}}", refs(set.enabled), refs(set.disabled));
}

std::vector<std::string> QueueSortNames(const Profile& p) {
  std::vector<std::string> out;
  for (const PluginRef& r : p.plugins.queue_sort.enabled) out.push_back(r.name);
  return out;
}

void ValidateRemovedPlugins(const Profile& p, std::string_view path, ErrorList& errs) {
  const std::string plugins_path = Child(path, "plugins");
  for (const PointField& f : kPoints) {
    const PluginSet& set = p.plugins.*f.set;
    for (size_t i = 0; i < set.enabled.size(); ++i) {
      const PluginRef& r = set.enabled[i];
      const std::string item = Index(Child(Child(plugins_path, f.name), "enabled"), i);
      for (const RemovedPlugins& rp : kRemoved) {
        for (std::string_view name : rp.names) {
          if (name != r.name) continue;
          errs.Invalid(item, Quote(r.name),
                       fmt::format("was invalid in version {} (KubeSchedulerConfiguration is "
                                   "version {})",
                                   Quote(rp.version), Quote(kApiVersion)));
        }
      }
    }
  }
}

void ValidateProfile(const Profile& p, std::string_view path, ErrorList& errs) {
  if (p.scheduler_name.empty()) errs.Required(Child(path, "schedulerName"), "");
  if (p.percentage_of_nodes_to_score &&
      (*p.percentage_of_nodes_to_score < 0 || *p.percentage_of_nodes_to_score > 100)) {
    errs.Invalid(Child(path, "percentageOfNodesToScore"),
                 std::to_string(*p.percentage_of_nodes_to_score), "not in valid range [0-100]");
  }
  ValidateRemovedPlugins(p, path, errs);
  const std::vector<std::string> enabled = EnabledPlugins(p);
  std::set<std::string, std::less<>> seen;
  for (size_t i = 0; i < p.plugin_config.size(); ++i) {
    const PluginConfig& pc = p.plugin_config[i];
    const std::string item = Index(Child(path, "pluginConfig"), i);
    if (!seen.insert(pc.name).second) {
      errs.Duplicate(item, pc.name);
      continue;
    }
    if (std::find(enabled.begin(), enabled.end(), pc.name) == enabled.end()) {
      errs.Invalid(Child(item, "name"), Quote(pc.name),
                   "pluginConfig for a plugin that the profile does not enable");
    }
  }
}

void Validate(const Configuration& cfg, ErrorList& errs) {
  if (cfg.parallelism <= 0) {
    errs.Invalid("parallelism", std::to_string(cfg.parallelism),
                 "should be an integer value greater than zero");
  }
  if (cfg.percentage_of_nodes_to_score < 0 || cfg.percentage_of_nodes_to_score > 100) {
    errs.Invalid("percentageOfNodesToScore", std::to_string(cfg.percentage_of_nodes_to_score),
                 "not in valid range [0-100]");
  }
  if (cfg.pod_initial_backoff_seconds <= 0) {
    errs.Invalid("podInitialBackoffSeconds", std::to_string(cfg.pod_initial_backoff_seconds),
                 "must be greater than 0");
  }
  if (cfg.pod_max_backoff_seconds < cfg.pod_initial_backoff_seconds) {
    errs.Invalid("podMaxBackoffSeconds", std::to_string(cfg.pod_max_backoff_seconds),
                 "must be greater than or equal to PodInitialBackoffSeconds");
  }
  const LeaderElection& le = cfg.leader_election;
  if (le.leader_elect) {
    const absl::Duration lease = ParsedDuration(le.lease_duration);
    const absl::Duration renew = ParsedDuration(le.renew_deadline);
    const absl::Duration retry = ParsedDuration(le.retry_period);
    if (lease <= absl::ZeroDuration()) {
      errs.Invalid("leaderElection.leaseDuration", le.lease_duration, "must be greater than zero");
    }
    if (renew <= absl::ZeroDuration()) {
      errs.Invalid("leaderElection.renewDeadline", le.renew_deadline, "must be greater than zero");
    }
    if (retry <= absl::ZeroDuration()) {
      errs.Invalid("leaderElection.retryPeriod", le.retry_period, "must be greater than zero");
    }
    if (lease <= renew) {
      errs.Invalid("leaderElection.leaseDuration", le.renew_deadline,
                   "LeaseDuration must be greater than RenewDeadline");
    }
    if (le.resource_lock.empty())
      errs.Invalid("leaderElection.resourceLock", "\"\"", "resourceLock is required");
    if (le.resource_name.empty())
      errs.Invalid("leaderElection.resourceName", "\"\"", "resourceName is required");
    if (le.resource_namespace.empty()) {
      errs.Invalid("leaderElection.resourceNamespace", "\"\"", "resourceNamespace is required");
    }
  }
  if (cfg.client_connection.burst < 0) {
    errs.Invalid("clientConnection.burst", std::to_string(cfg.client_connection.burst),
                 "must be non-negative");
  }
  if (cfg.profiles.empty()) errs.Required("profiles", "");
  std::set<std::string, std::less<>> names;
  for (size_t i = 0; i < cfg.profiles.size(); ++i) {
    const Profile& p = cfg.profiles[i];
    const std::string path = Index("profiles", i);
    ValidateProfile(p, path, errs);
    if (!p.scheduler_name.empty() && !names.insert(p.scheduler_name).second) {
      errs.Duplicate(Child(path, "schedulerName"), p.scheduler_name);
    }
    if (i > 0 && QueueSortNames(p) != QueueSortNames(cfg.profiles[0])) {
      errs.Invalid(Child(Child(path, "plugins"), "queueSort"), GoPluginSet(p.plugins.queue_sort),
                   "must be the same for all profiles");
    }
  }
}

// Every enabled plugin must exist; upstream finds this when it builds the profiles, after
// validation, and reports the first.
absl::Status CheckPluginsExist(const Configuration& cfg, const Registry& registry) {
  for (const Profile& p : cfg.profiles) {
    for (const PointField& f : kPoints) {
      for (const PluginRef& r : (p.plugins.*f.set).enabled) {
        if (registry.Find(r.name) != nullptr) continue;
        return absl::InvalidArgumentError(fmt::format(
            "initializing profiles: creating profile for scheduler name {}: {} {} does not exist",
            p.scheduler_name, f.go_type, Quote(r.name)));
      }
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<Configuration> Complete(Configuration cfg, const Registry& registry) {
  SetDefaults(cfg);
  ErrorList errs;
  Validate(cfg, errs);
  KSCHED_RETURN_IF_ERROR(errs.ToStatus());
  KSCHED_RETURN_IF_ERROR(CheckPluginsExist(cfg, registry));
  for (size_t i = 0; i < cfg.profiles.size(); ++i) {
    KSCHED_RETURN_IF_ERROR(CompleteArgs(cfg.profiles[i], Index("profiles", i), registry, errs));
    // Upstream's effective configuration lists the args by plugin name.
    std::stable_sort(cfg.profiles[i].plugin_config.begin(), cfg.profiles[i].plugin_config.end(),
                     [](const PluginConfig& a, const PluginConfig& b) { return a.name < b.name; });
  }
  KSCHED_RETURN_IF_ERROR(errs.ToStatus());
  return cfg;
}

// --- Encoding -----------------------------------------------------------------------------------

// Weights print when given, as upstream's *int32 (the default plugins give theirs, 0 included).
nlohmann::json EncodePluginSet(const PluginSet& set) {
  nlohmann::json out = nlohmann::json::object();
  for (auto [key, list] : {std::pair{"enabled", &set.enabled}, {"disabled", &set.disabled}}) {
    if (list->empty()) continue;
    nlohmann::json items = nlohmann::json::array();
    for (const PluginRef& r : *list) {
      nlohmann::json item = {{"name", r.name}};
      if (r.weight_set) item["weight"] = r.weight;
      items.push_back(std::move(item));
    }
    out[key] = std::move(items);
  }
  return out;
}

void EmitYaml(YAML::Emitter& out, const nlohmann::json& j) {
  if (j.is_object()) {
    if (j.empty()) {
      out << YAML::Flow << YAML::BeginMap << YAML::EndMap;
      return;
    }
    out << YAML::BeginMap;
    for (const auto& [key, value] : j.items()) {
      out << YAML::Key << key << YAML::Value;
      EmitYaml(out, value);
    }
    out << YAML::EndMap;
  } else if (j.is_array()) {
    if (j.empty()) {
      out << YAML::Flow << YAML::BeginSeq << YAML::EndSeq;
      return;
    }
    out << YAML::BeginSeq;
    for (const nlohmann::json& v : j) EmitYaml(out, v);
    out << YAML::EndSeq;
  } else if (j.is_string()) {
    out << j.get<std::string>();
  } else if (j.is_null()) {
    out << YAML::Null;
  } else {
    out << j.dump();  // Numbers and booleans as JSON writes them.
  }
}

}  // namespace

absl::StatusOr<Configuration> DecodeConfiguration(std::string_view text, const Registry& registry) {
  absl::StatusOr<std::vector<std::string>> docs = api::YamlToJson(text);
  if (!docs.ok()) {
    return absl::InvalidArgumentError(
        fmt::format("the config is not valid YAML: {}", AsStd(docs.status().message())));
  }
  if (docs->size() != 1) {
    return absl::InvalidArgumentError(
        fmt::format("the config must hold one document, found {}", docs->size()));
  }
  nlohmann::json doc = nlohmann::json::parse((*docs)[0], nullptr, false);
  if (doc.is_discarded()) return absl::InvalidArgumentError("the config is not valid JSON");
  absl::StatusOr<Configuration> cfg = DecodeDocument(doc, text);
  if (!cfg.ok()) {
    // apimachinery's strict decoding names unknown fields under this prefix.
    const std::string_view msg = AsStd(cfg.status().message());
    if (msg.starts_with("unknown field ")) {
      return absl::InvalidArgumentError(fmt::format("strict decoding error: {}", msg));
    }
    return cfg.status();
  }
  return Complete(*std::move(cfg), registry);
}

absl::StatusOr<Configuration> LoadConfigFile(const std::string& path, const Registry& registry) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::InvalidArgumentError(fmt::format("open {}: cannot read the file", path));
  std::stringstream ss;
  ss << in.rdbuf();
  absl::StatusOr<Configuration> cfg = DecodeConfiguration(ss.str(), registry);
  if (!cfg.ok()) {
    return absl::InvalidArgumentError(fmt::format("{}: {}", path, AsStd(cfg.status().message())));
  }
  return cfg;
}

absl::StatusOr<Configuration> DefaultEffectiveConfiguration(const Registry& registry) {
  Configuration cfg;
  return Complete(std::move(cfg), registry);
}

nlohmann::json EncodeConfiguration(const Configuration& cfg) {
  nlohmann::json out = {
      {"apiVersion", kApiVersion},
      {"kind", kKind},
      {"parallelism", cfg.parallelism},
      {"enableProfiling", cfg.enable_profiling},
      {"enableContentionProfiling", cfg.enable_contention_profiling},
      {"percentageOfNodesToScore", cfg.percentage_of_nodes_to_score},
      {"podInitialBackoffSeconds", cfg.pod_initial_backoff_seconds},
      {"podMaxBackoffSeconds", cfg.pod_max_backoff_seconds},
  };
  const LeaderElection& le = cfg.leader_election;
  out["leaderElection"] = {{"leaderElect", le.leader_elect},
                           {"leaseDuration", le.lease_duration},
                           {"renewDeadline", le.renew_deadline},
                           {"retryPeriod", le.retry_period},
                           {"resourceLock", le.resource_lock},
                           {"resourceName", le.resource_name},
                           {"resourceNamespace", le.resource_namespace}};
  const ClientConnection& cc = cfg.client_connection;
  out["clientConnection"] = {{"kubeconfig", cc.kubeconfig},
                             {"acceptContentTypes", cc.accept_content_types},
                             {"contentType", cc.content_type},
                             {"burst", cc.burst}};
  // qps is a float32 upstream; print whole numbers without a fraction.
  if (std::floor(cc.qps) == cc.qps && std::abs(cc.qps) < 1e15) {
    out["clientConnection"]["qps"] = static_cast<int64_t>(cc.qps);
  } else {
    out["clientConnection"]["qps"] = cc.qps;
  }
  nlohmann::json profiles = nlohmann::json::array();
  for (const Profile& p : cfg.profiles) {
    nlohmann::json prof = {{"schedulerName", p.scheduler_name}};
    if (p.percentage_of_nodes_to_score) {
      prof["percentageOfNodesToScore"] = *p.percentage_of_nodes_to_score;
    }
    nlohmann::json plugins = nlohmann::json::object();
    for (const PointField& f : kPoints) {
      nlohmann::json set = EncodePluginSet(p.plugins.*f.set);
      plugins[std::string(f.name)] = std::move(set);
    }
    prof["plugins"] = std::move(plugins);
    nlohmann::json pcs = nlohmann::json::array();
    for (const PluginConfig& pc : p.plugin_config) {
      pcs.push_back({{"name", pc.name}, {"args", pc.args}});
    }
    prof["pluginConfig"] = std::move(pcs);
    profiles.push_back(std::move(prof));
  }
  out["profiles"] = std::move(profiles);
  if (!cfg.extenders.empty()) out["extenders"] = cfg.extenders;
  if (cfg.delay_cache_until_active) out["delayCacheUntilActive"] = true;
  return out;
}

std::string ToYaml(const nlohmann::json& doc) {
  YAML::Emitter out;
  out.SetIndent(2);
  out.SetSeqFormat(YAML::Block);
  EmitYaml(out, doc);
  return std::string(out.c_str()) + "\n";
}

}  // namespace ksched::config
