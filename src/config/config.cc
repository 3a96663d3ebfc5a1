#include "src/config/config.h"

#include <algorithm>
#include <set>

#include "src/plugins/names.h"

namespace ksched::config {
namespace {

namespace n = plugins::names;

// Upstream's mergePluginSet.
PluginSet MergePluginSet(const PluginSet& defaults, const PluginSet& custom) {
  std::set<std::string> disabled_names;
  PluginSet out;
  for (const auto& d : custom.disabled) {
    out.disabled.push_back({d.name});
    disabled_names.insert(d.name);
  }
  for (const auto& d : defaults.disabled) {
    out.disabled.push_back({d.name});
    disabled_names.insert(d.name);
  }
  std::vector<bool> replaced(custom.enabled.size(), false);
  if (!disabled_names.contains("*")) {
    for (const PluginRef& def : defaults.enabled) {
      if (disabled_names.contains(def.name)) continue;
      PluginRef chosen = def;
      for (size_t i = 0; i < custom.enabled.size(); ++i) {
        if (custom.enabled[i].name == def.name) {
          chosen = custom.enabled[i];  // Re-configured: keep the default's place.
          replaced[i] = true;
          break;
        }
      }
      out.enabled.push_back(chosen);
    }
  }
  for (size_t i = 0; i < custom.enabled.size(); ++i) {
    if (!replaced[i]) out.enabled.push_back(custom.enabled[i]);
  }
  return out;
}

}  // namespace

std::shared_ptr<const PluginArgs> Profile::ArgsFor(std::string_view plugin) const {
  for (const PluginConfig& pc : plugin_config) {
    if (pc.name == plugin) return pc.args;
  }
  return nullptr;
}

Plugins DefaultPlugins() {
  Plugins p;
  p.multi_point.enabled = {
      {n::kSchedulingGates, 0},
      {n::kPrioritySort, 0},
      {n::kNodeName, 0},
      {n::kNodeUnschedulable, 0},
      {n::kTaintToleration, 3},
      {n::kNodeAffinity, 2},
      {n::kNodePorts, 0},
      {n::kNodeResourcesFit, 1},
      {n::kVolumeRestrictions, 0},
      {n::kNodeVolumeLimits, 0},
      {n::kVolumeBinding, 0},
      {n::kVolumeZone, 0},
      {n::kPodTopologySpread, 2},
      {n::kInterPodAffinity, 2},
      {n::kDynamicResources, 2},  // Before DefaultPreemption, as upstream's applyDynamicResources.
      {n::kDefaultPreemption, 0},
      {n::kNodeResourcesBalancedAllocation, 1},
      {n::kImageLocality, 1},
      {n::kDefaultBinder, 0},
      // Upstream's only with the NodeDeclaredFeatures gate (GA and locked on in 1.37, off when
      // emulating 1.35); without it the plugin is made disabled, and skips every pod.
      {n::kNodeDeclaredFeatures, 0},
  };
  return p;
}

Configuration DefaultConfiguration() {
  Configuration c;
  c.profiles.emplace_back();
  MergeDefaultPlugins(c.profiles[0]);
  return c;
}

void MergeDefaultPlugins(Profile& profile) {
  Plugins defaults = DefaultPlugins();
  Plugins& p = profile.plugins;
  for (auto [d, c] : {std::pair{&defaults.pre_enqueue, &p.pre_enqueue},
                      {&defaults.queue_sort, &p.queue_sort},
                      {&defaults.pre_filter, &p.pre_filter},
                      {&defaults.filter, &p.filter},
                      {&defaults.post_filter, &p.post_filter},
                      {&defaults.pre_score, &p.pre_score},
                      {&defaults.score, &p.score},
                      {&defaults.reserve, &p.reserve},
                      {&defaults.permit, &p.permit},
                      {&defaults.pre_bind, &p.pre_bind},
                      {&defaults.bind, &p.bind},
                      {&defaults.post_bind, &p.post_bind},
                      {&defaults.multi_point, &p.multi_point},
                      {&defaults.placement_generate, &p.placement_generate},
                      {&defaults.placement_score, &p.placement_score},
                      {&defaults.pod_group_post_filter, &p.pod_group_post_filter}}) {
    *c = MergePluginSet(*d, *c);
  }
}

}  // namespace ksched::config
