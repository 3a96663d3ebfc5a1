// YAML at the edge: converts a YAML stream to JSON text, one string per document, so that the one
// JSON decoder (decode.h) reads both. Plain scalars resolve as sigs.k8s.io/yaml (YAML 1.1) resolves
// them: null, booleans (true, yes, on, ...), integers and floats; everything else is a string.
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

namespace ksched::api {

// Empty documents (a lone "---", comments only) are skipped.
absl::StatusOr<std::vector<std::string>> YamlToJson(std::string_view yaml);

// Whether the text is JSON rather than YAML: its first non-blank character opens an object or an
// array. (JSON is valid YAML too, but the JSON parser is exact and much faster.)
bool LooksLikeJson(std::string_view text);

}  // namespace ksched::api
