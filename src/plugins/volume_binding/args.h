// The args of VolumeBinding (upstream's VolumeBindingArgs): how long PreBind waits for the
// volumes of a pod to be bound. Decoded from pluginConfig JSON with the v1 defaults applied and
// then validated as validation_pluginargs.go does with kube-scheduler 1.36's default feature
// gates.
//
//   absl::StatusOr<VolumeBindingArgs> args = ParseArgs(json, "profiles[0].pluginConfig[0].args");
//   if (!args.ok()) return args.status();
//   // "profiles[0].pluginConfig[0].args.bindTimeoutSeconds: Invalid value: -1: invalid
//   //  BindTimeoutSeconds, should not be a negative value"
//
// `shape` (the storage-capacity score) belongs to the StorageCapacityScoring feature gate, which
// is off by default in 1.36 and which ksched does not implement: a given shape is rejected as
// kube-scheduler rejects it with the gate off.
//
// Errors are InvalidArgument naming the field below `path` (the args object's own path, "" for
// none), in upstream's field.Error form; several are joined as "[a, b]".
#pragma once

#include <cstdint>
#include <string_view>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"

namespace ksched::plugins::volume_binding {

struct VolumeBindingArgs {
  // How long PreBind waits for the pod's volumes to be bound; 0 means not at all.
  int64_t bind_timeout_seconds = 600;
};

// Decodes {bindTimeoutSeconds, shape}. A null or empty document, or a null field, gives the
// default (600 seconds). Unknown fields are errors (apiVersion and kind are allowed).
absl::StatusOr<VolumeBindingArgs> ParseArgs(const nlohmann::json& args, std::string_view path = "");

// The args as a v1 document with every default filled in, apiVersion and kind included, as
// kube-scheduler prints its effective configuration.
nlohmann::json ArgsToJson(const VolumeBindingArgs& args);

}  // namespace ksched::plugins::volume_binding
