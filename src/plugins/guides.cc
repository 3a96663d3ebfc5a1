#include "src/plugins/guides.h"

#include "ksched/status_macros.h"
#include "src/plugins/annotation_gate/annotation_gate.h"
#include "src/plugins/app_pinning/app_pinning.h"
#include "src/plugins/names.h"
#include "src/plugins/network_aware/network_aware.h"
#include "src/plugins/node_price/node_price.h"

namespace ksched::plugins {

absl::Status RegisterGuidePlugins(Registry& registry) {
  KSCHED_RETURN_IF_ERROR(
      registry.Register(MakePluginSpec(names::kNetworkAware, network_aware::ParseNetworkAwareArgs,
                                       network_aware::NetworkAwareArgsToJson, network_aware::New)));
  KSCHED_RETURN_IF_ERROR(registry.Register(
      MakePluginSpec(names::kAnnotationGate, annotation_gate::ParseAnnotationGateArgs,
                     annotation_gate::AnnotationGateArgsToJson, annotation_gate::New)));
  KSCHED_RETURN_IF_ERROR(
      registry.Register(MakePluginSpec(names::kNodePrice, node_price::ParseNodePriceArgs,
                                       node_price::NodePriceArgsToJson, node_price::New)));
  return registry.Register(MakePluginSpec(names::kAppPinning, app_pinning::ParseAppPinningArgs,
                                          app_pinning::AppPinningArgsToJson, app_pinning::New));
}

}  // namespace ksched::plugins
