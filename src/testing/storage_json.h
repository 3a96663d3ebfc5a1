// Storage objects as JSON, for the harnesses that create them over REST (test/integration,
// bench/side_by_side).
//
//   http.Call({.method = "POST", .path = CollectionOf(pv),
//              .body = LocalVolumeJson("pv-1", "local", "node-2", "10Gi").dump()});
#pragma once

#include <string>

#include "nlohmann/json.hpp"

namespace ksched::testing {

// A local PersistentVolume of `storage_class` on `node` (its nodeAffinity names the node's
// kubernetes.io/hostname), of `capacity`, ReadWriteOnce, kept (Retain) when released.
inline nlohmann::json LocalVolumeJson(const std::string& name, const std::string& storage_class,
                                      const std::string& node, const std::string& capacity) {
  nlohmann::json term = {
      {"matchExpressions",
       {{{"key", "kubernetes.io/hostname"}, {"operator", "In"}, {"values", {node}}}}}};
  return {{"apiVersion", "v1"},
          {"kind", "PersistentVolume"},
          {"metadata", {{"name", name}}},
          {"spec",
           {{"capacity", {{"storage", capacity}}},
            {"accessModes", {"ReadWriteOnce"}},
            {"storageClassName", storage_class},
            {"persistentVolumeReclaimPolicy", "Retain"},
            {"local", {{"path", "/mnt/" + name}}},
            {"nodeAffinity", {{"required", {{"nodeSelectorTerms", {term}}}}}}}}};
}

}  // namespace ksched::testing
