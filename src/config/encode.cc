// The configuration as a v1 document, every field present, as kube-scheduler prints it.
#include <cmath>

#include "src/config/internal.h"
#include "src/config/load.h"

namespace ksched::config {
namespace {

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

}  // namespace

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
    for (const internal::PointField& f : internal::kPoints) {
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

}  // namespace ksched::config
