// policy/v1 PodDisruptionBudget, which preemption reads, part of the object model of
// ksched/api/objects.h.
//
// Thread safety: plain values; concurrent reads are safe.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "ksched/api/meta.h"

namespace ksched::api {

// --- PodDisruptionBudget (policy/v1) ---------------------------------------------------------

// intstr.IntOrString: 2 or "50%".
struct IntOrString {
  bool is_string = false;
  int32_t int_value = 0;
  std::string str_value;
};

struct PodDisruptionBudget {
  ObjectMeta metadata;
  std::optional<IntOrString> min_available;
  std::optional<IntOrString> max_unavailable;
  // Absent: selects no pod. Empty: preemption counts no pod under it, while the disruption
  // controller counts every pod of the namespace (policy/v1).
  std::optional<LabelSelector> selector;
  // Status, as the disruption controller writes it: how many more pods may be disrupted, and
  // the pods already being disrupted (name → the time it began), which count as gone.
  int32_t disruptions_allowed = 0;
  std::map<std::string, std::string, std::less<>> disrupted_pods;
  // Whether the object came with a status. The API server always serves one; a hand-written
  // manifest may leave it out, and `ksched simulate` then computes it as the controller would.
  bool has_status = false;
};

}  // namespace ksched::api
