// OnlyLabeled: keeps pods off nodes without a label (args `{label: team}`, the default).
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "ksched/plugin.h"
#include "ksched/registry.h"

struct OnlyLabeledArgs {
  std::string label = "team";
};

// Decodes {label}; an unknown field or a label that is no valid label name is an error naming
// the field, in upstream's field-error form.
absl::StatusOr<OnlyLabeledArgs> ParseArgs(const nlohmann::json& args, std::string_view path);
nlohmann::json ArgsToJson(const OnlyLabeledArgs& args);
absl::StatusOr<std::unique_ptr<ksched::Plugin>> New(const OnlyLabeledArgs& args, ksched::Handle&);
