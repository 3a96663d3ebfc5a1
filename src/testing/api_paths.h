// Where the API server keeps an object given as JSON, for the harnesses that create and delete
// objects over REST (test/difftest, bench/side_by_side).
//
//   http.Call({.method = "POST", .path = CollectionOf(pod), .body = pod.dump()});
//   http.Call({.method = "DELETE", .path = PathOf(pod)});
#pragma once

#include <cctype>
#include <string>
#include <string_view>

#include "nlohmann/json.hpp"
#include "src/api/kinds.h"

namespace ksched::testing {

// The collection of the object's kind (in its namespace, "default" if it has none, for a
// namespaced kind), one of the kinds of src/api/kinds.h (by kind and API group); a namespaced
// custom resource of another group is taken to be at its kind's lower-case plural
// (scheduling.x-k8s.io's PodGroups); any other object is taken for a Pod.
inline std::string CollectionOf(const nlohmann::json& o) {
  auto group = [](std::string_view gv) {
    const size_t slash = gv.find('/');
    return slash == std::string_view::npos ? std::string_view() : gv.substr(0, slash);
  };
  const std::string kind = o.value("kind", "");
  const std::string version = o.value("apiVersion", "");
  const std::string ns = o["metadata"].value("namespace", "default");
  std::string path;
  api::ForEachKind([&]<typename T>() {
    if (kind != api::kKind<T>.name || group(version) != group(api::kKind<T>.group_version)) {
      return false;
    }
    path = api::CollectionPath<T>(ns);
    return true;
  });
  if (!path.empty()) return path;
  if (version.find('/') == std::string::npos) return api::CollectionPath<api::Pod>(ns);
  std::string plural = kind + "s";
  for (char& c : plural) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return "/apis/" + version + "/namespaces/" + ns + "/" + plural;
}

// The object itself: its collection and its metadata.name.
inline std::string PathOf(const nlohmann::json& o) {
  return CollectionOf(o) + "/" + o["metadata"].value("name", "");
}

}  // namespace ksched::testing
