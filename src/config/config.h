// KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1) as C++ values, with upstream's
// defaults. Decoding and validation of config files build on this (issue: configuration).
//
//   Configuration cfg = DefaultConfiguration();
//   cfg.profiles[0].plugins.score.enabled.push_back({"NetworkAware", 5});
//   MergeDefaultPlugins(cfg.profiles[0]);  // what the scheduler actually runs
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

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
};

struct PluginConfig {
  std::string name;
  nlohmann::json args = nlohmann::json::object();
};

struct Profile {
  std::string scheduler_name = kDefaultSchedulerName;
  std::optional<int32_t> percentage_of_nodes_to_score;
  Plugins plugins;
  std::vector<PluginConfig> plugin_config;

  // The args for `plugin` ({} when none are configured).
  const nlohmann::json& ArgsFor(std::string_view plugin) const;
};

struct Configuration {
  int32_t parallelism = 16;
  int32_t percentage_of_nodes_to_score = 0;  // 0: adaptive, as upstream.
  int64_t pod_initial_backoff_seconds = 1;
  int64_t pod_max_backoff_seconds = 10;
  std::vector<Profile> profiles;
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
