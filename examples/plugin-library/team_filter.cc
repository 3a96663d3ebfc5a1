// A plugin library: TeamFilter keeps pods labelled `team: <name>` on nodes labelled with the
// same team, and scores a node of the pod's team 100 and any other 0. Built as a shared
// library against include/ksched/ and loaded with no rebuild of ksched:
//
//   ksched simulate --plugin-library libteam_filter.so --config config.yaml nodes.yaml pods.yaml
#include <memory>
#include <string>

#include "ksched/plugin.h"
#include "ksched/plugin_library.h"

namespace {

// The team a pod or node names in its labels; "" when none.
std::string TeamOf(const ksched::api::StringMap& labels) {
  auto it = labels.find("team");
  return it == labels.end() ? "" : it->second;
}

class TeamFilter : public ksched::FilterPlugin, public ksched::ScorePlugin {
 public:
  std::string_view Name() const override { return "TeamFilter"; }

  ksched::Status Filter(const ksched::CycleState&, const ksched::api::Pod& pod,
                        const ksched::NodeInfo& node) override {
    const std::string team = TeamOf(pod.metadata.labels);
    if (team.empty() || TeamOf(node.node()->metadata.labels) == team) return {};
    return ksched::Status::UnschedulableAndUnresolvable("node(s) didn't belong to team " + team);
  }

  ksched::Status Score(const ksched::CycleState&, const ksched::api::Pod& pod,
                       const ksched::NodeInfo& node, int64_t* score) override {
    const std::string team = TeamOf(pod.metadata.labels);
    *score = !team.empty() && TeamOf(node.node()->metadata.labels) == team ? 100 : 0;
    return {};
  }
};

}  // namespace

KSCHED_PLUGIN_LIBRARY([](ksched::Registry& registry) -> absl::Status {
  return registry.Register("TeamFilter",
                           [](const ksched::PluginArgs&,
                              ksched::Handle&) -> absl::StatusOr<std::unique_ptr<ksched::Plugin>> {
                             return std::make_unique<TeamFilter>();
                           });
})
