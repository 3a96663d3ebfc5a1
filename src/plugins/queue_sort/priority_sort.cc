#include "src/plugins/queue_sort/priority_sort.h"

namespace ksched::plugins::queue_sort {

namespace {
int32_t PodPriority(const api::Pod& pod) { return pod.spec.priority.value_or(0); }
}  // namespace

bool PrioritySort::Less(const QueuedPodInfo& a, const QueuedPodInfo& b) const {
  const int32_t pa = PodPriority(a.pod());
  const int32_t pb = PodPriority(b.pod());
  return pa > pb || (pa == pb && a.timestamp < b.timestamp);
}

absl::StatusOr<std::unique_ptr<Plugin>> New(const PluginArgs&, Handle&) {
  return std::make_unique<PrioritySort>();
}

}  // namespace ksched::plugins::queue_sort
