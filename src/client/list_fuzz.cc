// Fuzzes the walk over a list's items (ForEachListItem): arbitrary bytes never crash it, it hands
// on only objects, and a text that simdjson parses whole as a list of objects it walks to the
// same items.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "src/client/list.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  simdjson::dom::parser item_parser;
  size_t walked = 0;
  absl::StatusOr<std::string> version =
      ksched::client::ForEachListItem(text, item_parser, [&](simdjson::dom::element e) {
        if (!e.is_object()) std::abort();
        ++walked;
      });
  simdjson::dom::parser whole_parser;
  simdjson::dom::element whole;
  simdjson::dom::array items;
  if (whole_parser.parse(text.data(), text.size()).get(whole) != simdjson::SUCCESS ||
      whole["items"].get_array().get(items) != simdjson::SUCCESS) {
    return 0;
  }
  size_t objects = 0;
  for (simdjson::dom::element item : items) {
    if (!item.is_object()) return 0;
    ++objects;
  }
  // A repeated "items" key: simdjson reads the first, the walk every one.
  if (!version.ok() || walked < objects) std::abort();
  return 0;
}
