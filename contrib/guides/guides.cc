#include "contrib/guides/guides.h"

#include "contrib/guides/annotation_gate/annotation_gate.h"
#include "contrib/guides/app_pinning/app_pinning.h"
#include "contrib/guides/names.h"
#include "contrib/guides/network_aware/network_aware.h"
#include "contrib/guides/node_price/node_price.h"
#include "ksched/status_macros.h"

namespace ksched::guides {

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

}  // namespace ksched::guides
