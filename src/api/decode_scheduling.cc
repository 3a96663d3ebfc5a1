// scheduling.k8s.io/v1: PriorityClass.
#include "src/api/decode.h"
#include "src/api/decode_internal.h"

namespace ksched::api {
namespace decoding {
namespace {

absl::Status PriorityClassAt(element e, const Path& p, PriorityClass* out) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k == "metadata") return Meta(v, vp, &out->metadata);
    if (k == "value") return Integer(v, vp, &out->value);
    if (k == "globalDefault") return Bool(v, vp, &out->global_default);
    if (k == "preemptionPolicy") return OptStr(v, vp, &out->preemption_policy);
    return absl::OkStatus();
  });
}

}  // namespace
}  // namespace decoding

using decoding::element;
using decoding::Path;

absl::Status DecodePriorityClass(element e, PriorityClass* out) {
  return decoding::PriorityClassAt(e, Path(), out);
}

}  // namespace ksched::api
