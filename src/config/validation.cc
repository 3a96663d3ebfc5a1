// The checks of upstream's apis/config/validation/validation.go.
#include <set>

#include "fmt/format.h"
#include "ksched/node_info.h"
#include "src/config/internal.h"
#include "src/config/load.h"

namespace ksched::config::internal {
namespace {

using api::field::Child;
using api::field::ErrorList;
using api::field::Index;
using api::field::Quote;

// Plugins that kube-scheduler 1.33-1.36 reject by name (validation.go's invalidPluginsByVersion).
// Its version is core "v1", which is what upstream's message prints.
constexpr std::string_view kInvalidPluginsVersion = "v1";
constexpr std::string_view kInvalidPlugins[] = {"AzureDiskLimits", "CinderLimits", "EBSLimits",
                                                "GCEPDLimits"};

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

// Extenders (validateExtenders): a prioritizer's weight, the managed resources' names (extended
// resource names, each managed by one extender), and one binder at most.
void ValidateExtenders(const std::vector<nlohmann::json>& extenders, ErrorList& errs) {
  int binders = 0;
  std::set<std::string> managed;
  for (size_t i = 0; i < extenders.size(); ++i) {
    const nlohmann::json& e = extenders[i];
    const std::string path = Index("extenders", i);
    const int64_t weight = e.value("weight", int64_t{0});
    if (!e.value("prioritizeVerb", std::string()).empty() && weight <= 0) {
      errs.Invalid(Child(path, "weight"), std::to_string(weight),
                   "must have a positive weight applied to it");
    }
    if (!e.value("bindVerb", std::string()).empty()) ++binders;
    const nlohmann::json resources = e.value("managedResources", nlohmann::json::array());
    for (size_t j = 0; j < resources.size(); ++j) {
      const std::string name_path = Child(Index(Child(path, "managedResources"), j), "name");
      const std::string name = resources[j].value("name", std::string());
      std::vector<std::string> bad = api::field::QualifiedNameErrors(name);
      for (const std::string& msg : bad) errs.Invalid(name_path, Quote(name), msg);
      if (bad.empty() && !IsExtendedResourceName(name)) {
        errs.Invalid(name_path, Quote(name), "is an invalid extended resource name");
      }
      if (!managed.insert(name).second) {
        errs.Invalid(name_path, Quote(name), "duplicate extender managed resource name");
      }
    }
  }
  if (binders > 1) {
    errs.Invalid("extenders", Quote(fmt::format("found {} extenders implementing bind", binders)),
                 "only one extender can implement bind");
  }
}

// ValidateKubeSchedulerConfiguration, its checks in upstream's order.

}  // namespace

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

}  // namespace ksched::config::internal
