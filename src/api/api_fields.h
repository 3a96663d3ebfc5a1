// Strict field validation, as kubectl's default (--validate=strict) has the API server do it: an
// object may hold only the fields its kind's API type has. The types are upstream's, from the
// pinned release's OpenAPI documents (api_fields.json, written by gen_api_fields.cc), so a typo is
// found wherever it sits:
//
//   UnknownFields(pod, "Pod")  // {"spec.nodeSelecter", "spec.containers[0].resources.request"}
//
// Thread safety: the functions are reentrant; the table is read once, on first use.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "nlohmann/json.hpp"
#include "simdjson.h"

namespace ksched::api {

// The apiVersion that serves `kind` ("v1", "apps/v1", "resource.k8s.io/v1", ...), or "" for a
// kind ksched does not read.
std::string_view ServedApiVersion(std::string_view kind);

// The fields of `object`, one object of `kind` (a kind ServedApiVersion knows), that its type does
// not have, in document order, named as strict decoding names them:
//   spec.containers[0].resources.request
// The values of fields that hold any JSON (a RawExtension, such as a DRA driver's parameters) are
// not looked into.
std::vector<std::string> UnknownFields(simdjson::dom::element object, std::string_view kind);

// The fields of `object`, one object of a custom resource whose CRD's structural schema is
// `schema` (its openAPIV3Schema), that the schema does not have, as the API server prunes them
// and its strict decoding names them: "spec.minMembr". Each is removed from `pruned`, the same
// object as the plugins will read it, when given. Its metadata is checked as ObjectMeta (and
// left as it is); a value whose schema has x-kubernetes-preserve-unknown-fields keeps any field.
std::vector<std::string> UnknownCustomFields(simdjson::dom::element object,
                                             const nlohmann::json& schema,
                                             nlohmann::json* pruned = nullptr);

// The Kubernetes release whose types the table holds ("v1.36.3").
std::string_view ApiFieldsRelease();

}  // namespace ksched::api
