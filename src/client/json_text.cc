#include "src/client/json_text.h"

#include <iterator>

#include "fmt/format.h"

namespace ksched::client {

void AppendJsonString(std::string* out, std::string_view s) {
  out->push_back('"');
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out->push_back('\\');
      out->push_back(c);
    } else if (static_cast<unsigned char>(c) < 0x20) {  // Control characters, as \u00XX.
      fmt::format_to(std::back_inserter(*out), "\\u{:04x}", static_cast<unsigned char>(c));
    } else {
      out->push_back(c);
    }
  }
  out->push_back('"');
}

void AppendJsonField(std::string* out, std::string_view before, std::string_view value) {
  out->append(before);
  AppendJsonString(out, value);
}

}  // namespace ksched::client
