// The args of VolumeBinding (upstream's VolumeBindingArgs): how long PreBind waits for the
// volumes of a pod to be bound, and the shape of the storage-capacity score. Decoded from
// pluginConfig JSON with the v1 defaults applied and then validated as validation_pluginargs.go
// does, with or without the StorageCapacityScoring feature gate.
//
//   absl::StatusOr<VolumeBindingArgs> args =
//       ParseArgs(json, "profiles[0].pluginConfig[0].args", /*storage_capacity_scoring=*/false);
//   if (!args.ok()) return args.status();
//   // "profiles[0].pluginConfig[0].args.bindTimeoutSeconds: Invalid value: -1: invalid
//   //  BindTimeoutSeconds, should not be a negative value"
//
// `shape` belongs to the gate: with it off, a given shape is refused as kube-scheduler refuses
// it; with it on, an absent or empty shape is the default (DefaultShape).
//
// Errors are InvalidArgument naming the field below `path` (the args object's own path, "" for
// none), in upstream's field.Error form; several are joined as "[a, b]".
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "ksched/registry.h"
#include "nlohmann/json.hpp"
#include "src/plugins/helper/shape_score.h"

namespace ksched::plugins::volume_binding {

struct VolumeBindingArgs {
  // How long PreBind waits for the pod's volumes to be bound; 0 means not at all.
  int64_t bind_timeout_seconds = 600;
  // The storage-capacity score's shape: utilization of the class's capacity on the node → score.
  // Empty when the StorageCapacityScoring gate is off (the plugin does not score).
  std::vector<helper::UtilizationShapePoint> shape;
};

// Decodes {bindTimeoutSeconds, shape}. A null or empty document, or a null field, gives the
// defaults (600 seconds; the shape with the gate on). Unknown fields are errors (apiVersion and
// kind are allowed).
absl::StatusOr<VolumeBindingArgs> ParseArgs(const nlohmann::json& args, std::string_view path,
                                            bool storage_capacity_scoring);

// The args' decoder for the registry (ParseArgs with the gate, then ArgsToJson).
ArgsDecoder MakeDecoder(bool storage_capacity_scoring);

// [{0, 10}, {100, 0}]: an empty volume scores 100, a full one 0 (upstream's default, which prefers
// the node with the most free capacity).
std::vector<helper::UtilizationShapePoint> DefaultShape();

// The args as a v1 document with every default filled in, apiVersion and kind included, as
// kube-scheduler prints its effective configuration.
nlohmann::json ArgsToJson(const VolumeBindingArgs& args);

}  // namespace ksched::plugins::volume_binding
