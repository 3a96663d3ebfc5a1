// JSON text written by hand where building nlohmann values would cost more than the rest of the
// work: an event recorded, a binding sent, once for every pod bound.
//
//   std::string out;
//   AppendJsonField(&out, R"({"name":)", name);  // {"name":"web-1"
//
// Thread safety: reentrant.
#pragma once

#include <string>
#include <string_view>

namespace ksched::client {

// Appends `s` as a JSON string: quotes and backslashes escaped, control characters as \u00XX.
void AppendJsonString(std::string* out, std::string_view s);

// Appends `before` (JSON text up to a string value) and `value` as a JSON string.
void AppendJsonField(std::string* out, std::string_view before, std::string_view value);

}  // namespace ksched::client
