#include "src/plugins/guides.h"

#include "src/base/status_macros.h"
#include "src/plugins/annotation_gate/annotation_gate.h"
#include "src/plugins/app_pinning/app_pinning.h"
#include "src/plugins/names.h"
#include "src/plugins/network_aware/network_aware.h"
#include "src/plugins/node_price/node_price.h"

namespace ksched::plugins {
namespace {

// Registers a plugin whose args type T is decoded by `parse` and printed by `to_json`.
template <typename T, typename New, typename Parse, typename ToJson>
absl::Status RegisterTyped(Registry& registry, const char* name, New make, Parse parse,
                           ToJson to_json) {
  if (absl::Status st = registry.Register(name, TypedFactory<T>(make)); !st.ok()) return st;
  return registry.RegisterArgs(name, MakeArgsDecoder(parse, to_json));
}

}  // namespace

absl::Status RegisterGuidePlugins(Registry& registry) {
  KSCHED_RETURN_IF_ERROR(RegisterTyped<network_aware::NetworkAwareArgs>(
      registry, names::kNetworkAware, network_aware::New, network_aware::ParseNetworkAwareArgs,
      network_aware::NetworkAwareArgsToJson));
  KSCHED_RETURN_IF_ERROR(RegisterTyped<annotation_gate::AnnotationGateArgs>(
      registry, names::kAnnotationGate, annotation_gate::New,
      annotation_gate::ParseAnnotationGateArgs, annotation_gate::AnnotationGateArgsToJson));
  KSCHED_RETURN_IF_ERROR(RegisterTyped<node_price::NodePriceArgs>(
      registry, names::kNodePrice, node_price::New, node_price::ParseNodePriceArgs,
      node_price::NodePriceArgsToJson));
  return RegisterTyped<app_pinning::AppPinningArgs>(registry, names::kAppPinning, app_pinning::New,
                                                    app_pinning::ParseAppPinningArgs,
                                                    app_pinning::AppPinningArgsToJson);
}

}  // namespace ksched::plugins
