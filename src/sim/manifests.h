// Reading Kubernetes manifests from files: multi-document YAML or JSON, single objects or lists
// (`kubectl get -o yaml|json`). Errors name the file, the object and the field:
//   cluster.yaml: document 2 (Pod default/web): spec.containers[0].resources.requests.cpu: ...
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "ksched/custom_objects.h"
#include "src/api/decode.h"

namespace ksched::sim {

// How unknown fields are treated, as kubectl's --validate: refused (strict, kubectl's default),
// warned about (warn), or dropped as the API server drops them (ignore, --validate=false).
enum class FieldValidation { kStrict, kWarn, kIgnore };

// The documents of one manifest text, each as JSON: the text itself when it is JSON, else its
// YAML documents; `source` names it in errors.
absl::StatusOr<std::vector<std::string>> ManifestDocuments(std::string_view text,
                                                           const std::string& source);

// Decodes the objects of one manifest text, checked as kubectl and the API server check them on
// create; `source` names it in errors, which name the document, the object and the field:
//   pods.yaml: document 2 (Pod default/web): strict decoding error: unknown field
//   "spec.nodeSelecter" pods.yaml: document 1 (Pod default/web): no matches for kind "Pod" in
//   version "apps/v1" pods.yaml: document 3 (Pod default/db): Pod "db" is invalid:
//   spec.containers[0].resources.
//     requests[cpu]: Invalid value: "-1": must be greater than or equal to 0
// An object with only metadata.generateName gets a name made of it, as the API server makes one.
// With FieldValidation::kWarn, each unknown field is added to `warnings` instead, in the same
// form ("pods.yaml: document 2 (Pod default/web): unknown field \"spec.nodeSelecter\"").
absl::StatusOr<std::vector<api::Object>> ParseManifest(
    std::string_view text, const std::string& source,
    FieldValidation fields = FieldValidation::kStrict,
    std::vector<std::string>* warnings = nullptr);

// The files that `args` name, as kubectl -f reads them: a file as it is, "-" (standard input) as
// it is, a directory as its .json, .yaml and .yml files in name order, and with `recursive` those
// of the directories in it too. A path that does not exist is ReadFile's error; a directory
// without such a file is an error.
absl::StatusOr<std::vector<std::string>> ManifestPaths(const std::vector<std::string>& args,
                                                       bool recursive);

// The whole of a manifest file ("-": standard input); an error as ReadFile's: "open <path>: no such
// file or directory".
absl::StatusOr<std::string> ReadManifest(const std::string& path);

// What the API server does to each pod of `objects` it is given: MergeMatchLabelKeys, then
// AdmitPod, whose error is prefixed with `source`.
absl::Status AdmitPods(std::vector<api::Object>& objects, const std::string& source);

// Reads and decodes every file, in order, as ParseManifest, and admits their pods and priorities.
// Two objects of one kind, namespace and name are an error, as the second create would be:
//   pods.yaml: document 2 (Pod default/web): pods "web" already exists
// So are files that hold no object at all, as kubectl's "no objects passed to create".
// An object of a custom resource (ksched/custom_objects.h) read from a manifest, and the resource.
struct CustomManifestObject {
  std::string resource;
  std::shared_ptr<const CustomObject> object;
};

// With `custom_kinds` (the custom resources the profiles' plugins watch, each with its kind), an
// object of one of those kinds and apiVersions goes to `custom`, checked by its resource's
// `validate`, instead of being refused as a kind ksched does not serve.
absl::StatusOr<std::vector<api::Object>> LoadManifests(
    const std::vector<std::string>& paths, FieldValidation fields = FieldValidation::kStrict,
    std::vector<std::string>* warnings = nullptr,
    const std::vector<CustomResource>& custom_kinds = {},
    std::vector<CustomManifestObject>* custom = nullptr);

// Whether the API server requires a limit equal to the request for `resource`: one that cannot
// be overcommitted (not helper.IsOvercommitAllowed), an extended resource such as example.com/gpu
// or hugepages.
bool NeedsEqualLimit(std::string_view resource);

// What the API server refuses in a pod it is given (its defaults, such as requests from limits,
// are applied when the pod is decoded): a resource that NeedsEqualLimit without that limit. An
// error is the API server's:
//   Pod "train" is invalid: spec.containers[0].resources.limits: Required value: Limit must be
//   set for non overcommitable resources
absl::Status AdmitPod(const api::Pod& pod);

// What the API server does to a pod it creates (the pod strategy's PrepareForCreate): the labels
// that matchLabelKeys (and mismatchLabelKeys) name in a podAffinity or podAntiAffinity term, or
// matchLabelKeys in a topology spread constraint, become `In` (`NotIn`) requirements of its
// labelSelector, with the pod's own values. A term without a labelSelector is left alone (it
// selects nothing), as upstream.
void MergeMatchLabelKeys(api::Pod* pod);

// What the Priority admission plugin does to a pod created without spec.priority: the priority of
// its priorityClassName (the built-in system-node-critical and system-cluster-critical, or a
// PriorityClass among `objects`), else of the global default class (the lowest, if several), else
// 0; preemptionPolicy too, when the pod has none. A PodGroup gets its priority alike. Pods and
// PodGroups that carry a priority (exported from a
// cluster) keep it. An unknown class is an error, as the API server's:
//   pods "web" is forbidden: no PriorityClass with name high was found
// The built-in classes that `objects` lacks are added to it, as the API server creates them.
absl::Status AdmitPriorities(std::vector<api::Object>* objects);

}  // namespace ksched::sim
