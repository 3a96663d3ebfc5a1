// AppPinning: pins each app to the nodes labelled with its name, so that all pods of one app land
// on one node and all pods of another app on another (the demo of guide 000, "How to create a
// custom Kubernetes scheduler"). A pod labelled app=web fits only nodes labelled app=web; a pod
// without the app label (or with an empty one) fits every node. The pods need no nodeSelector: the
// operator pins an app by labelling nodes (`kubectl label node worker-1 app=web`). Pinning does not
// reserve a node for its app; a taint does that. Not in the default profile:
//
//   profiles:
//   - schedulerName: my-custom-scheduler
//     plugins: {multiPoint: {enabled: [{name: AppPinning}]}}
//     pluginConfig:                       # optional; these are the defaults
//     - name: AppPinning
//       args: {podLabelKey: app, nodeLabelKey: app}
//
// examples/guides/000-app-pinning/README.md says why this is a plugin and not configuration.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "contrib/guides/names.h"
#include "ksched/handle.h"
#include "ksched/plugin.h"
#include "nlohmann/json.hpp"

namespace ksched::guides::app_pinning {

// AppPinningArgs.
struct AppPinningArgs {
  std::string pod_label_key = "app";   // The pod label whose value names the app.
  std::string node_label_key = "app";  // The node label whose value names the app it hosts.
};

class AppPinning final : public PreFilterPlugin, public FilterPlugin, public EnqueueExtensions {
 public:
  explicit AppPinning(AppPinningArgs args) : args_(std::move(args)) {}

  std::string_view Name() const override { return names::kAppPinning; }

  // Skip (no Filter) when the pod has no app label, or an empty one; success otherwise.
  Status PreFilter(CycleState& state, const api::Pod& pod,
                   const std::vector<const NodeInfo*>& nodes, PreFilterResult* result) override;

  // UnschedulableAndUnresolvable "node(s) didn't have label <nodeLabelKey>=<app>" when the node
  // is not labelled for the pod's app.
  Status Filter(const CycleState& state, const api::Pod& pod, const NodeInfo& node) override;

  // Node/Add|UpdateNodeLabel: Queue when the node is labelled for the pod's app and (for an
  // update) was not before. UnschedulablePod/UpdatePodLabel: Queue when the rejected pod's own
  // app label changed.
  std::vector<ClusterEventWithHint> EventsToRegister() const override;

 private:
  // The value of the pod's app label; nullopt when it has none, or an empty one.
  std::optional<std::string_view> PodApp(const api::Pod& pod) const;
  bool Hosts(const api::Node& node, std::string_view app) const;

  AppPinningArgs args_;
};

// Decodes {podLabelKey, nodeLabelKey}; a field left out (or null) keeps its default.
// InvalidArgument names the field below `path`. Unknown fields are errors.
absl::StatusOr<AppPinningArgs> ParseAppPinningArgs(const nlohmann::json& args,
                                                   std::string_view path = "");
// The args as a v1 document, every default filled in.
nlohmann::json AppPinningArgsToJson(const AppPinningArgs& args);

absl::StatusOr<std::unique_ptr<Plugin>> New(const AppPinningArgs& args, Handle& handle);

}  // namespace ksched::guides::app_pinning
