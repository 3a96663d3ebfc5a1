#include "ksched/events.h"

#include "src/api/kinds.h"

namespace ksched {

bool Matches(const ClusterEvent& registered, const ClusterEvent& incoming) {
  if (registered.resource == EventResource::kWildCard) return true;
  if (registered.resource == EventResource::kCustom) {
    return incoming.resource == EventResource::kCustom &&
           registered.custom_resource == incoming.custom_resource &&
           (registered.action & incoming.action) != 0;
  }
  bool resource_matches = registered.resource == incoming.resource ||
                          (registered.resource == EventResource::kPod &&
                           (incoming.resource == EventResource::kAssignedPod ||
                            incoming.resource == EventResource::kTargetPod));
  return resource_matches && (registered.action & incoming.action) != 0;
}

std::string_view EventResourceName(EventResource r) {
  switch (r) {
    case EventResource::kPod:
      return "Pod";
    case EventResource::kAssignedPod:
      return "AssignedPod";
    case EventResource::kTargetPod:
      return "TargetPod";
    case EventResource::kWildCard:
      return "*";
    case EventResource::kCustom:
      return "Custom";
    default:
      break;
  }
  std::string_view name = "?";
  api::ForEachKind([&]<typename T>() {
    if (api::kKind<T>.event != r) return false;
    name = api::kKind<T>.name;
    return true;
  });
  return name;
}

}  // namespace ksched
