// Upstream's v1 defaults (apis/config/v1/defaults.go), and every enabled plugin's args decoded.
#include <set>
#include <utility>

#include "fmt/format.h"
#include "ksched/status_macros.h"
#include "ksched/strings.h"
#include "src/config/internal.h"

namespace ksched::config::internal {
namespace {

using api::field::Child;
using api::field::ErrorList;
using api::field::Index;

}  // namespace

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

}  // namespace ksched::config::internal
