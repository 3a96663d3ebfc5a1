// Custom resources: objects of kinds ksched itself does not know (a CustomResourceDefinition's),
// watched for the plugins that ask, as kube-scheduler starts a dynamic informer for each
// "<plural>.<version>.<group>" its plugins register events for.
//
//   // In the factory:
//   const CustomObjectLister& groups = handle.WatchCustomResource(
//       {.resource = "podgroups.v1alpha1.scheduling.x-k8s.io", .kind = "PodGroup"});
//   // In a cycle:
//   if (std::shared_ptr<const CustomObject> pg = groups.Get("default", "train"))
//     int64_t min = pg->object["spec"].value("minMember", 0);
//   // EventsToRegister:
//   {{EventResource::kCustom, kAdd | kUpdate, "", "podgroups.v1alpha1.scheduling.x-k8s.io"}, hint}
//
// `ksched run` lists and watches each one (its absence, a CRD not installed, is logged and
// retried, as an optional kind's); `ksched simulate` takes its objects from manifests by
// apiVersion and kind, checked with `validate`.
//
// Thread safety: a CustomObject is immutable; a lister is safe from any thread.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "ksched/api/meta.h"
#include "nlohmann/json.hpp"

namespace ksched {

struct CustomResource {
  // "<plural>.<version>.<group>", as upstream's EventResource names a custom resource.
  std::string resource;
  // The kind, as manifests give it ("PodGroup"); empty: `ksched simulate` does not read it.
  std::string kind;
  bool namespaced = true;
  // What the API server checks of an object on create, beyond its metadata (the CRD's schema),
  // for `ksched simulate`: an error names the field, as the API server's does
  // ("spec.minMember: Invalid value: 0: spec.minMember in body should be greater than or equal
  // to 1"). Empty: nothing.
  std::function<absl::Status(const nlohmann::json& object)> validate;
  // The fields its objects may hold: the CRD's structural schema (its openAPIV3Schema, whose
  // "properties", "additionalProperties", "items" and "x-kubernetes-preserve-unknown-fields"
  // count), for `ksched simulate`, which refuses, warns of or drops another field as --validate
  // says and kubectl does ("strict decoding error: unknown field \"spec.minMembr\""). Null: any.
  nlohmann::json schema;

  // The parts of `resource`: "podgroups", "v1alpha1", "scheduling.x-k8s.io", and
  // "scheduling.x-k8s.io/v1alpha1"; empty when `resource` has fewer than three parts.
  std::string_view Plural() const { return Part(0); }
  std::string_view Version() const { return Part(1); }
  std::string_view Group() const { return Part(2); }
  std::string ApiVersion() const {
    return Group().empty() ? "" : std::string(Group()) + "/" + std::string(Version());
  }

 private:
  std::string_view Part(int i) const {
    const std::string_view r = resource;
    const size_t first = r.find('.');
    const size_t second = first == std::string_view::npos ? first : r.find('.', first + 1);
    if (second == std::string_view::npos) return {};
    return i == 0   ? r.substr(0, first)
           : i == 1 ? r.substr(first + 1, second - first - 1)
                    : r.substr(second + 1);
  }
};

struct CustomObject {
  api::ObjectMeta metadata;
  nlohmann::json object;  // The whole object, as the API server sent it.
};

class CustomObjectLister {
 public:
  virtual ~CustomObjectLister() = default;
  // nullptr where there is none (`ns` is empty for a cluster-scoped resource).
  virtual std::shared_ptr<const CustomObject> Get(std::string_view ns,
                                                  std::string_view name) const = 0;
  // Those of one namespace, or of all with an empty `ns`, by name.
  virtual std::vector<std::shared_ptr<const CustomObject>> List(std::string_view ns) const = 0;
};

}  // namespace ksched
