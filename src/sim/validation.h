// What the API server's validation refuses in the objects ksched reads, for `ksched simulate`,
// which stands in for the API server: a negative quantity, a request above its limit, a missing
// image, an invalid name, label, selector, operator, toleration, taint or topology key, a pod's
// volumes and claims, and the storage and DRA fields the scheduler relies on (DRA's in
// validation_dra.cc, a selector's CEL compiled by upstream's compiler when libksched_cel.so can be
// opened). Each error is upstream's own text, with its field path:
//
//   std::vector<std::string> errors = ValidateObject(pod);
//   // {"spec.containers[0].resources.requests[cpu]: Invalid value: \"-1\": must be greater
//   //   than or equal to 0"}
//   InvalidObjectMessage(pod, errors)  // Pod "web" is invalid: spec.containers[0]...
//
// This is the part of upstream's pkg/apis/*/validation that decides where a pod may go, not all
// of it: a pod's namespace existing and the fields ksched does not read are not checked (the
// decoder checks a few of those: a volume's reclaim policy).
//
// Thread safety: the functions are reentrant.
#pragma once

#include <string>
#include <vector>

#include "src/api/decode.h"

namespace ksched::sim {

// The field errors of `object`, as the API server finds them on create; none when it is valid.
std::vector<std::string> ValidateObject(const api::Object& object);

// The API server's message for them: `Pod "web" is invalid: <error>`, or one error a line, each
// after "* ", as kubectl prints several.
std::string InvalidObjectMessage(const api::Object& object, const std::vector<std::string>& errors);

}  // namespace ksched::sim
