#include "src/cli/plugin_library.h"

#include <dlfcn.h>

#include "absl/time/clock.h"
#include "fmt/format.h"
#include "fmt/ranges.h"
#include "ksched/plugin_library.h"
#include "ksched/strings.h"
#include "src/base/log.h"

namespace ksched::cli {

absl::Status LoadPluginLibrary(const std::string& path, Registry& registry) {
  auto fail = [&](std::string_view why) {
    return absl::InvalidArgumentError(fmt::format("--plugin-library {}: {}", path, why));
  };
  const absl::Time start = absl::Now();
  // RTLD_LOCAL: two libraries may use the same internal names. Never closed: its plugins live as
  // long as the process.
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* err = dlerror();
    return fail(err != nullptr ? err : "cannot be loaded");
  }
  using EntryPoint = const KschedPluginLibraryV1* (*)();
  auto entry = reinterpret_cast<EntryPoint>(dlsym(handle, KSCHED_PLUGIN_LIBRARY_ENTRY_POINT));
  if (entry == nullptr) {
    return fail("no " KSCHED_PLUGIN_LIBRARY_ENTRY_POINT
                " entry point: not a ksched plugin library (see KSCHED_PLUGIN_LIBRARY)");
  }
  const KschedPluginLibraryV1* library = entry();
  if (library == nullptr || library->register_plugins == nullptr) {
    return fail("its entry point returned no register function");
  }
  if (library->sdk_version != SdkVersion()) {
    return fail(fmt::format(
        "built against ksched SDK version {}, but this ksched has SDK version {}; rebuild the "
        "library against this ksched's include/ksched",
        library->sdk_version, SdkVersion()));
  }
  // Registered into a registry of its own first, so that a failing library adds nothing.
  Registry own;
  if (absl::Status st = library->register_plugins(own); !st.ok()) return fail(AsStd(st.message()));
  if (absl::Status st = registry.Merge(own); !st.ok()) return fail(AsStd(st.message()));
  KLOG(1, "Loaded plugin library", {"path", path},
       {"plugins", fmt::format("{}", fmt::join(own.Names(), ","))},
       {"duration", absl::FormatDuration(absl::Now() - start)});
  return absl::OkStatus();
}

}  // namespace ksched::cli
