// YAML at the edge: converts a YAML stream to JSON text, one string per document, so that the one
// JSON decoder (decode.h) reads both; and JSON back to block YAML for what ksched prints. Plain
// scalars resolve as sigs.k8s.io/yaml (YAML 1.1) resolves them: null, booleans (true, yes, on,
// ...), integers and floats; everything else is a string.
//
//   absl::StatusOr<std::vector<std::string>> docs = YamlToJson(text);
//   // docs.status(): "line 3, column 5: illegal map value"
//
// Thread safety: reentrant.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"

namespace ksched::api {

// Empty documents (a lone "---", comments only) are skipped.
absl::StatusOr<std::vector<std::string>> YamlToJson(std::string_view yaml);

// Whether the text is JSON rather than YAML: its first non-blank character opens an object or an
// array. (JSON is valid YAML too, but the JSON parser is exact and much faster.)
bool LooksLikeJson(std::string_view text);

// JSON as block YAML, keys in the document's order (sorted, as sigs.k8s.io/yaml prints them),
// ending in a newline: what `ksched config print` prints.
std::string JsonToYaml(const nlohmann::json& doc);

}  // namespace ksched::api
