#include "src/api/json_path.h"

#include <vector>

#include "fmt/format.h"

namespace ksched::api::internal {

std::string Path::String() const {
  std::vector<const Path*> chain;
  for (const Path* p = this; p != nullptr && p->parent_ != nullptr; p = p->parent_) {
    chain.push_back(p);
  }
  std::string out;
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    if ((*it)->index_ >= 0) {
      fmt::format_to(std::back_inserter(out), "[{}]", (*it)->index_);
    } else {
      if (!out.empty()) out.push_back('.');
      out.append((*it)->name_);
    }
  }
  return out;
}

absl::Status FieldError(const Path& path, std::string_view message) {
  std::string where = path.String();
  if (where.empty()) return absl::InvalidArgumentError(std::string(message));
  return absl::InvalidArgumentError(fmt::format("{}: {}", where, message));
}

std::string_view TypeName(simdjson::dom::element e) {
  switch (e.type()) {
    case simdjson::dom::element_type::ARRAY:
      return "array";
    case simdjson::dom::element_type::OBJECT:
      return "object";
    case simdjson::dom::element_type::STRING:
      return "string";
    case simdjson::dom::element_type::BOOL:
      return "boolean";
    case simdjson::dom::element_type::NULL_VALUE:
      return "null";
    default:
      return "number";
  }
}

}  // namespace ksched::api::internal
