// The host side of the stable plugin ABI (include/ksched/stable.h): the table of functions ksched
// gives a stable plugin, and the adapter that makes the plugin a Plugin of the framework.
#pragma once

#include "absl/status/status.h"
#include "ksched/registry.h"
#include "ksched/stable.h"

namespace ksched::stable {

// This ksched's table: generation KSCHED_STABLE_ABI.
const ksched_host& Host();

// Registers each plugin of a stable library into `registry`. Fails, saying why, when the library
// was built for a later generation than this ksched's, or when it describes a plugin wrongly.
absl::Status RegisterLibrary(const ksched_stable_library& library, Registry& registry);

}  // namespace ksched::stable
