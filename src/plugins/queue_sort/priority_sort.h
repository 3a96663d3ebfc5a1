// PrioritySort: the default queue order (upstream's plugins/queuesort). Pods with a higher
// spec.priority come first; among equal priorities, the pod queued earlier comes first.
//
//   auto plugin = queue_sort::New({}, handle);
//   bool first = static_cast<QueueSortPlugin&>(**plugin).Less(a, b);
#pragma once

#include <memory>
#include <string_view>

#include "absl/status/statusor.h"
#include "ksched/handle.h"
#include "ksched/plugin.h"
#include "ksched/plugin_args.h"
#include "src/plugins/names.h"

namespace ksched::plugins::queue_sort {

class PrioritySort final : public QueueSortPlugin {
 public:
  std::string_view Name() const override { return names::kPrioritySort; }
  // Higher priority (an absent spec.priority counts as 0) first, then the earlier
  // QueuedPodInfo::timestamp. Thread-safe: reads only its arguments.
  bool Less(const QueuedPodInfo& a, const QueuedPodInfo& b) const override;
};

// The plugin takes no args; `args` is ignored.
absl::StatusOr<std::unique_ptr<Plugin>> New(const PluginArgs& args, Handle& handle);

}  // namespace ksched::plugins::queue_sort
