// scheduling.k8s.io/v1 PriorityClass, part of the object model of ksched/api/objects.h.
//
// Thread safety: plain values; concurrent reads are safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "ksched/api/meta.h"

namespace ksched::api {

// --- PriorityClass ---------------------------------------------------------------------------

// scheduling.k8s.io/v1 PriorityClass.
struct PriorityClass {
  ObjectMeta metadata;
  int32_t value = 0;
  bool global_default = false;
  std::optional<std::string> preemption_policy;  // PreemptLowerPriority (the default) or Never.
};

}  // namespace ksched::api
