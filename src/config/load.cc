#include "src/config/load.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>
#include <tuple>
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
    {"placementGenerate", &Plugins::placement_generate, "PlacementGeneratePlugin"},
    {"placementScore", &Plugins::placement_score, "PlacementScorePlugin"},
};

// Plugins that kube-scheduler 1.33-1.36 reject by name (validation.go's invalidPluginsByVersion).
// Its version is core "v1", which is what upstream's message prints.
constexpr std::string_view kInvalidPluginsVersion = "v1";
constexpr std::string_view kInvalidPlugins[] = {"AzureDiskLimits", "CinderLimits", "EBSLimits",
                                                "GCEPDLimits"};

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
                     "placementGenerate", "placementScore"}));
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
  // A zero duration takes the default, as component-base's RecommendedDefault does.
  LeaderElection defaults;
  LeaderElection& le = cfg.leader_election;
  for (auto [field, fallback] : {std::pair{&le.lease_duration, defaults.lease_duration},
                                 {&le.renew_deadline, defaults.renew_deadline},
                                 {&le.retry_period, defaults.retry_period}}) {
    if (ParsedDuration(*field) == absl::ZeroDuration()) *field = fallback;
  }
  for (auto [field, fallback] : {std::pair{&le.resource_lock, defaults.resource_lock},
                                 {&le.resource_name, defaults.resource_name},
                                 {&le.resource_namespace, defaults.resource_namespace}}) {
    if (field->empty()) *field = fallback;
  }
  ClientConnection cc_defaults;
  ClientConnection& cc = cfg.client_connection;
  if (cc.content_type.empty()) cc.content_type = cc_defaults.content_type;
  if (cc.qps == 0) cc.qps = cc_defaults.qps;
  if (cc.burst == 0) cc.burst = cc_defaults.burst;
  if (cfg.profiles.empty()) cfg.profiles.emplace_back();
  if (cfg.profiles.size() == 1 && cfg.profiles[0].scheduler_name.empty()) {
    cfg.profiles[0].scheduler_name = kDefaultSchedulerName;
  }
  for (Profile& p : cfg.profiles) MergeDefaultPlugins(p);
}

// Args: every pluginConfig entry is decoded; every enabled plugin with an args type and no entry
// gets one with its defaults, after the written ones. Decoding errors (a wrong kind, an unknown
// field) return at once, as upstream's decoder fails before validation; validation errors go to
// `errs`.
absl::Status CompleteArgs(Profile& p, std::string_view path, const Registry& registry,
                          ErrorList& errs) {
  for (size_t i = 0; i < p.plugin_config.size(); ++i) {
    PluginConfig& pc = p.plugin_config[i];
    const ArgsDecoder* decode = registry.FindArgs(pc.name);
    if (decode == nullptr) continue;  // Out-of-tree args reach the factory as written.
    const std::string entry = Index(Child(path, "pluginConfig"), i);
    const std::string want_kind = pc.name + "Args";
    const nlohmann::json written = pc.args->ToJson();
    if (written.is_object() && written.contains("kind") && written["kind"] != want_kind) {
      return absl::InvalidArgumentError(fmt::format(
          "decoding .{}: args for plugin {} were not of type {}.kubescheduler.config.k8s.io, got "
          "{}.kubescheduler.config.k8s.io",
          entry, pc.name, want_kind,
          written["kind"].is_string() ? written["kind"].get<std::string>()
                                      : written["kind"].dump()));
    }
    const std::string args_path = Child(entry, "args");
    absl::StatusOr<std::shared_ptr<const PluginArgs>> args = (*decode)(written, args_path);
    if (!args.ok()) {
      const std::string_view msg = AsStd(args.status().message());
      const std::string unknown = fmt::format("unknown field \"{}.", args_path);
      if (msg.starts_with(unknown)) {  // Upstream names the field inside the args.
        return absl::InvalidArgumentError(fmt::format(
            "strict decoding error: decoding .{}: strict decoding error: decoding args for plugin "
            "{}: strict decoding error: unknown field \"{}",
            entry, pc.name, msg.substr(unknown.size())));
      }
      errs.Add(std::string(msg));
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
    KSCHED_ASSIGN_OR_RETURN(std::shared_ptr<const PluginArgs> args,
                            (*decode)(nlohmann::json::object(), ""));
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

void CheckInvalidPlugin(std::string_view name, std::string_view path, ErrorList& errs) {
  if (std::find(std::begin(kInvalidPlugins), std::end(kInvalidPlugins), name) ==
      std::end(kInvalidPlugins)) {
    return;
  }
  errs.Invalid(path, Quote(name),
               fmt::format("was invalid in version {} (KubeSchedulerConfiguration is version {})",
                           Quote(kInvalidPluginsVersion), Quote(kApiVersion)));
}

// Upstream checks the specific points and pluginConfig, not multiPoint.
void ValidateInvalidPlugins(const Profile& p, std::string_view path, ErrorList& errs) {
  const std::string plugins_path = Child(path, "plugins");
  for (const PointField& f : kPoints) {
    if (f.name == "multiPoint") continue;
    const PluginSet& set = p.plugins.*f.set;
    for (size_t i = 0; i < set.enabled.size(); ++i) {
      CheckInvalidPlugin(set.enabled[i].name,
                         Index(Child(Child(plugins_path, f.name), "enabled"), i), errs);
    }
  }
  for (size_t i = 0; i < p.plugin_config.size(); ++i) {
    CheckInvalidPlugin(p.plugin_config[i].name, Index(Child(path, "pluginConfig"), i), errs);
  }
}

void ValidateProfile(const Profile& p, std::string_view path, ErrorList& errs) {
  if (p.scheduler_name.empty()) errs.Required(Child(path, "schedulerName"), "");
  if (p.percentage_of_nodes_to_score &&
      (*p.percentage_of_nodes_to_score < 0 || *p.percentage_of_nodes_to_score > 100)) {
    errs.Invalid(Child(path, "percentageOfNodesToScore"),
                 std::to_string(*p.percentage_of_nodes_to_score), "not in valid range [0-100]");
  }
  ValidateInvalidPlugins(p, path, errs);
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

// component-base's ValidateLeaderElectionConfiguration, then kube-scheduler's own lock check.
void ValidateLeaderElection(const LeaderElection& le, ErrorList& errs) {
  if (!le.leader_elect) return;
  const absl::Duration lease = ParsedDuration(le.lease_duration);
  const absl::Duration renew = ParsedDuration(le.renew_deadline);
  const absl::Duration retry = ParsedDuration(le.retry_period);
  for (auto [path, text, d] :
       {std::tuple{"leaderElection.leaseDuration", &le.lease_duration, lease},
        {"leaderElection.renewDeadline", &le.renew_deadline, renew},
        {"leaderElection.retryPeriod", &le.retry_period, retry}}) {
    if (d <= absl::ZeroDuration()) errs.Invalid(path, Quote(*text), "must be greater than zero");
  }
  if (lease <= renew) {  // Upstream shows the renewDeadline as the bad value.
    errs.Invalid("leaderElection.leaseDuration", Quote(le.renew_deadline),
                 "must be greater than `RenewDeadline`");
  }
  for (auto [path, value] : {std::pair{"leaderElection.resourceLock", &le.resource_lock},
                             {"leaderElection.resourceName", &le.resource_name},
                             {"leaderElection.resourceNamespace", &le.resource_namespace}}) {
    if (value->empty()) errs.Required(path, "");
  }
  if (le.resource_lock != "leases") {
    errs.Invalid("leaderElection.resourceLock", Quote(le.resource_lock),
                 "resourceLock value must be \"leases\"");
  }
}

// Extenders (validateExtenders); the extender client itself is a later issue.
void ValidateExtenders(const std::vector<nlohmann::json>& extenders, ErrorList& errs) {
  int binders = 0;
  for (size_t i = 0; i < extenders.size(); ++i) {
    const nlohmann::json& e = extenders[i];
    const int64_t weight = e.value("weight", int64_t{0});
    if (!e.value("prioritizeVerb", std::string()).empty() && weight <= 0) {
      errs.Invalid(Child(Index("extenders", i), "weight"), std::to_string(weight),
                   "must have a positive weight applied to it");
    }
    if (!e.value("bindVerb", std::string()).empty()) ++binders;
  }
  if (binders > 1) {
    errs.Invalid("extenders", Quote(fmt::format("found {} extenders implementing bind", binders)),
                 "only one extender can implement bind");
  }
}

// ValidateKubeSchedulerConfiguration, its checks in upstream's order.
void Validate(const Configuration& cfg, ErrorList& errs) {
  if (cfg.client_connection.burst < 0) {
    errs.Invalid("clientConnection.burst", std::to_string(cfg.client_connection.burst),
                 "must be non-negative");
  }
  ValidateLeaderElection(cfg.leader_election, errs);
  if (cfg.parallelism <= 0) {
    errs.Invalid("parallelism", std::to_string(cfg.parallelism),
                 "should be an integer value greater than zero");
  }
  if (cfg.profiles.empty()) errs.Required("profiles", "");
  std::set<std::string, std::less<>> names;
  for (size_t i = 0; i < cfg.profiles.size(); ++i) {
    const Profile& p = cfg.profiles[i];
    const std::string path = Index("profiles", i);
    ValidateProfile(p, path, errs);
    // Upstream prints the first profile's field.Path here, which renders as {}; the name is
    // the useful value.
    if (!p.scheduler_name.empty() && !names.insert(p.scheduler_name).second) {
      errs.Duplicate(Child(path, "schedulerName"), p.scheduler_name);
    }
  }
  if (!cfg.profiles.empty() && cfg.profiles[0].plugins.queue_sort.enabled.size() > 1) {
    errs.Invalid("profiles[0].plugins.queueSort.Enabled",
                 std::to_string(cfg.profiles[0].plugins.queue_sort.enabled.size()),
                 "only one queue sort plugin can be enabled");
  }
  for (size_t i = 1; i < cfg.profiles.size(); ++i) {
    const PluginSet& qs = cfg.profiles[i].plugins.queue_sort;
    if (GoPluginSet(qs) != GoPluginSet(cfg.profiles[0].plugins.queue_sort)) {
      errs.Invalid(Child(Child(Index("profiles", i), "plugins"), "queueSort"), GoPluginSet(qs),
                   "must be the same for all profiles");
    }
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
  ValidateExtenders(cfg.extenders, errs);
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
  for (size_t i = 0; i < cfg.profiles.size(); ++i) {
    KSCHED_RETURN_IF_ERROR(CompleteArgs(cfg.profiles[i], Index("profiles", i), registry, errs));
  }
  Validate(cfg, errs);
  KSCHED_RETURN_IF_ERROR(errs.ToStatus());
  KSCHED_RETURN_IF_ERROR(CheckPluginsExist(cfg, registry));
  for (Profile& p : cfg.profiles) {  // Upstream's effective configuration lists args by name.
    std::stable_sort(p.plugin_config.begin(), p.plugin_config.end(),
                     [](const PluginConfig& a, const PluginConfig& b) { return a.name < b.name; });
  }
  return cfg;
}

// --- Encoding -----------------------------------------------------------------------------------

// Every entry prints its weight, 0 included, as upstream converts its int32 back to *int32.
nlohmann::json EncodePluginSet(const PluginSet& set) {
  nlohmann::json out = nlohmann::json::object();
  for (auto [key, list] : {std::pair{"enabled", &set.enabled}, {"disabled", &set.disabled}}) {
    if (list->empty()) continue;
    nlohmann::json items = nlohmann::json::array();
    for (const PluginRef& r : *list) {
      nlohmann::json item = {{"name", r.name}};
      item["weight"] = r.weight;
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
      pcs.push_back({{"name", pc.name}, {"args", pc.args->ToJson()}});
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
