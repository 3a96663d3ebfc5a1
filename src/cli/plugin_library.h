// Loading plugin libraries (--plugin-library): dlopen, the entry point (the stable ABI's, else the
// C++ SDK's), the generation or SDK version check, and registration. The rules are in
// include/ksched/stable.h and include/ksched/plugin_library.h.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "ksched/registry.h"

namespace ksched::cli {

// Loads the library at `path` and registers its plugins into `registry`. The library stays loaded
// for the life of the process. InvalidArgument "--plugin-library <path>: <why>" on any error.
absl::Status LoadPluginLibrary(const std::string& path, Registry& registry);

}  // namespace ksched::cli
