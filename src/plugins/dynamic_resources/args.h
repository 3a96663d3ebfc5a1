// The args of DynamicResources (upstream's DynamicResourcesArgs), decoded from pluginConfig JSON
// with the v1 defaults and validated as validation_pluginargs.go does with kube-scheduler 1.36's
// default feature gates (DRASchedulerFilterTimeout, DRADeviceBindingConditions and
// DRAResourceClaimDeviceStatus on).
//
//   absl::StatusOr<DynamicResourcesArgs> args = ParseArgs(json,
//   "profiles[0].pluginConfig[0].args");
//   // "profiles[0].pluginConfig[0].args.filterTimeout: Invalid value: \"-1s\": must be zero
//   //  or positive"
//
// bindingTimeout bounds how long PreBind waits for devices' binding conditions, counted from the
// claim's allocationTimestamp (binding.h).
//
// Errors are InvalidArgument naming the field below `path`, in upstream's field.Error form.
#pragma once

#include <string_view>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "nlohmann/json.hpp"

namespace ksched::plugins::dynamic_resources {

struct DynamicResourcesArgs {
  // How long Filter may search one node for devices; zero: no limit.
  absl::Duration filter_timeout = absl::Seconds(10);
  absl::Duration binding_timeout = absl::Minutes(10);
};

// Decodes {filterTimeout, bindingTimeout} (Go durations, "10s"). A null document or field gives
// the default. Unknown fields are errors (apiVersion and kind are allowed).
absl::StatusOr<DynamicResourcesArgs> ParseArgs(const nlohmann::json& args,
                                               std::string_view path = "");

// The args as a v1 document with every default filled in, as kube-scheduler prints them.
nlohmann::json ArgsToJson(const DynamicResourcesArgs& args);

}  // namespace ksched::plugins::dynamic_resources
