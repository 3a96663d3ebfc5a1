// apps/v1 ReplicaSet and StatefulSet, which PodTopologySpread's default constraints read, part of
// the object model of ksched/api/objects.h.
//
// Thread safety: plain values; concurrent reads are safe.
#pragma once

#include <optional>

#include "ksched/api/meta.h"

namespace ksched::api {

// apps/v1 ReplicaSet and StatefulSet: their spec.selector.
struct ReplicaSet {
  ObjectMeta metadata;
  std::optional<LabelSelector> selector;
};
struct StatefulSet {
  ObjectMeta metadata;
  std::optional<LabelSelector> selector;
};

}  // namespace ksched::api
