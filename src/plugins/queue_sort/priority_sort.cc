#include "src/plugins/queue_sort/priority_sort.h"

namespace ksched::plugins::queue_sort {

bool PrioritySort::Less(const QueuedPodInfo& a, const QueuedPodInfo& b) const {
  const int32_t pa = api::PodPriority(a.pod());
  const int32_t pb = api::PodPriority(b.pod());
  return pa > pb || (pa == pb && a.timestamp < b.timestamp);
}

absl::StatusOr<std::unique_ptr<Plugin>> New(const PluginArgs&, Handle&) {
  return std::make_unique<PrioritySort>();
}

}  // namespace ksched::plugins::queue_sort
