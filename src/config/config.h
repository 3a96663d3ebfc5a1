// KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1) as C++ values, with upstream's
// defaults. Decoding and validation of config files build on this (issue: configuration).
//
//   Configuration cfg = DefaultConfiguration();
//   cfg.profiles[0].plugins.score.enabled.push_back({"TeamAware", 5});
//   MergeDefaultPlugins(cfg.profiles[0]);  // what the scheduler actually runs
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ksched/plugin_args.h"
#include "nlohmann/json.hpp"

namespace ksched::config {

inline constexpr char kDefaultSchedulerName[] = "default-scheduler";

struct PluginRef {
  std::string name;
  int32_t weight = 0;  // Score only; 0 means the default (1, or the default plugin's weight).
};

struct PluginSet {
  std::vector<PluginRef> enabled;
  std::vector<PluginRef> disabled;  // "*" disables every default plugin of the point.
};

struct Plugins {
  PluginSet pre_enqueue, queue_sort, pre_filter, filter, post_filter, pre_score, score, reserve,
      permit, pre_bind, bind, post_bind, multi_point;
  // kube-scheduler's workload points (placement since 1.36, podGroupPostFilter since 1.37): read,
  // checked and printed; no plugin of ksched implements them yet.
  PluginSet placement_generate, placement_score, pod_group_post_filter;
};

struct PluginConfig {
  std::string name;
  // Decoded by the plugin's ArgsDecoder when the configuration is loaded; until then, and for a
  // plugin without one, JsonArgs as written.
  std::shared_ptr<const PluginArgs> args = std::make_shared<const JsonArgs>();
};

struct Profile {
  std::string scheduler_name = kDefaultSchedulerName;
  std::optional<int32_t> percentage_of_nodes_to_score;
  Plugins plugins;
  std::vector<PluginConfig> plugin_config;

  // The args for `plugin`; nullptr when none are configured.
  std::shared_ptr<const PluginArgs> ArgsFor(std::string_view plugin) const;
};

// component-base's LeaderElectionConfiguration with kube-scheduler's v1 defaults. Durations are
// kept as Go duration strings ("15s"), as they are written and printed.
struct LeaderElection {
  bool leader_elect = true;
  std::string lease_duration = "15s";
  std::string renew_deadline = "10s";
  std::string retry_period = "2s";
  std::string resource_lock = "leases";
  std::string resource_name = "kube-scheduler";
  std::string resource_namespace = "kube-system";
};

// component-base's ClientConnectionConfiguration with kube-scheduler's v1 defaults.
struct ClientConnection {
  std::string kubeconfig;
  std::string accept_content_types;
  std::string content_type = "application/vnd.kubernetes.protobuf";
  double qps = 50;
  int32_t burst = 100;
};

struct Configuration {
  int32_t parallelism = 16;
  LeaderElection leader_election;
  ClientConnection client_connection;
  bool enable_profiling = true;
  bool enable_contention_profiling = true;
  int32_t percentage_of_nodes_to_score = 0;  // 0: adaptive, as upstream.
  int64_t pod_initial_backoff_seconds = 1;
  int64_t pod_max_backoff_seconds = 10;
  std::vector<Profile> profiles;
  // The HTTP extenders, as validated v1 documents (src/extender reads them).
  std::vector<nlohmann::json> extenders;
  bool delay_cache_until_active = false;
};

// kube-scheduler's default plugins: every one enabled through multiPoint, in upstream's order,
// with the default score weights (TaintToleration 3, NodeAffinity 2, ... ).
Plugins DefaultPlugins();

// One profile named default-scheduler with the default plugins merged in.
Configuration DefaultConfiguration();

// Merges the default plugins into a profile's plugins as upstream's v1 defaulting does
// (mergePlugins): per extension point, disabled defaults are dropped ("*" drops all), a default
// that is enabled again keeps its place with the new settings, and other custom plugins follow.
void MergeDefaultPlugins(Profile& profile);

}  // namespace ksched::config
