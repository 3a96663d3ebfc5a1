// Where the API server keeps an object given as JSON, for the harnesses that create and delete
// objects over REST (test/difftest, bench/side_by_side).
//
//   http.Call({.method = "POST", .path = CollectionOf(pod), .body = pod.dump()});
//   http.Call({.method = "DELETE", .path = PathOf(pod)});
#pragma once

#include <string>

#include "nlohmann/json.hpp"
#include "src/api/kinds.h"

namespace ksched::testing {

// The collection of the object's kind (in its namespace, "default" if it has none, for a
// namespaced kind), one of the kinds of src/api/kinds.h; any other kind is taken for a Pod.
inline std::string CollectionOf(const nlohmann::json& o) {
  const std::string kind = o.value("kind", "");
  const std::string ns = o["metadata"].value("namespace", "default");
  std::string path = api::CollectionPath<api::Pod>(ns);
  api::ForEachKind([&]<typename T>() {
    if (kind != api::kKind<T>.name) return false;
    path = api::CollectionPath<T>(ns);
    return true;
  });
  return path;
}

// The object itself: its collection and its metadata.name.
inline std::string PathOf(const nlohmann::json& o) {
  return CollectionOf(o) + "/" + o["metadata"].value("name", "");
}

}  // namespace ksched::testing
