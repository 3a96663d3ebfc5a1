// Field paths for decoding errors ("spec.containers[0].resources.requests.cpu"), built only when
// an error is reported: a Path is a chain of stack frames, each pointing at its parent.
//
//   Path child = path.Field("spec");           // child must not outlive path
//   return FieldError(child.Index(0), "expected string, got number");
#pragma once

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "simdjson.h"

namespace ksched::api::internal {

class Path {
 public:
  Path() = default;

  Path Field(std::string_view name) const { return Path(this, name, -1); }
  Path Index(int index) const { return Path(this, {}, index); }

  // "a.b[2].c"; empty for the root.
  std::string String() const;

 private:
  Path(const Path* parent, std::string_view name, int index)
      : parent_(parent), name_(name), index_(index) {}

  const Path* parent_ = nullptr;
  std::string_view name_;
  int index_ = -1;
};

// InvalidArgument "<path>: <message>", or just the message at the root.
absl::Status FieldError(const Path& path, std::string_view message);

// "string", "number", "object", ... as a JSON user would name the element's type.
std::string_view TypeName(simdjson::dom::element e);

}  // namespace ksched::api::internal
