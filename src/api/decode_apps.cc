// apps/v1: ReplicaSet and StatefulSet, whose spec.selector PodTopologySpread's default constraints
// read.
#include "src/api/decode.h"
#include "src/api/decode_internal.h"

namespace ksched::api {
using decoding::element;
using decoding::Path;

absl::Status DecodeReplicaSet(element e, ReplicaSet* out) {
  return decoding::WorkloadAt(e, Path(), out);
}
absl::Status DecodeStatefulSet(element e, StatefulSet* out) {
  return decoding::WorkloadAt(e, Path(), out);
}

}  // namespace ksched::api
