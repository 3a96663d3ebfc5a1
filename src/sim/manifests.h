// Reading Kubernetes manifests from files: multi-document YAML or JSON, single objects or lists
// (`kubectl get -o yaml|json`). Errors name the file, the object and the field:
//   cluster.yaml: document 2 (Pod default/web): spec.containers[0].resources.requests.cpu: ...
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "src/api/decode.h"

namespace ksched::sim {

// Decodes the objects of one manifest text; `source` names it in errors.
absl::StatusOr<std::vector<api::Object>> ParseManifest(std::string_view text,
                                                       const std::string& source);

// Reads and decodes every file, in order.
absl::StatusOr<std::vector<api::Object>> LoadManifests(const std::vector<std::string>& paths);

}  // namespace ksched::sim
