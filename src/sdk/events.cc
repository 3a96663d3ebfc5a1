#include "ksched/events.h"

namespace ksched {

bool Matches(const ClusterEvent& registered, const ClusterEvent& incoming) {
  if (registered.resource == EventResource::kWildCard) return true;
  bool resource_matches = registered.resource == incoming.resource ||
                          (registered.resource == EventResource::kPod &&
                           (incoming.resource == EventResource::kAssignedPod ||
                            incoming.resource == EventResource::kUnschedulablePod));
  return resource_matches && (registered.action & incoming.action) != 0;
}

}  // namespace ksched
