#include "src/cli/plugin_library.h"

#include <dlfcn.h>

#include "absl/time/clock.h"
#include "fmt/format.h"
#include "fmt/ranges.h"
#include "ksched/plugin_library.h"
#include "ksched/stable.h"
#include "ksched/strings.h"
#include "src/base/log.h"
#include "src/sdk/stable.h"

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
  // Registered into a registry of its own first, so that a failing library adds nothing.
  Registry own;
  using StableEntryPoint = const ksched_stable_library* (*)();
  using EntryPoint = const KschedPluginLibraryV1* (*)();
  if (auto stable_entry =
          reinterpret_cast<StableEntryPoint>(dlsym(handle, KSCHED_STABLE_ENTRY_POINT))) {
    const ksched_stable_library* library = stable_entry();
    if (library == nullptr) return fail("its " KSCHED_STABLE_ENTRY_POINT " returned no library");
    if (absl::Status st = stable::RegisterLibrary(*library, own); !st.ok()) {
      return fail(AsStd(st.message()));
    }
  } else if (auto entry =
                 reinterpret_cast<EntryPoint>(dlsym(handle, KSCHED_PLUGIN_LIBRARY_ENTRY_POINT))) {
    const KschedPluginLibraryV1* library = entry();
    if (library == nullptr || library->register_plugins == nullptr) {
      return fail("its entry point returned no register function");
    }
    if (library->sdk_version != SdkVersion()) {
      return fail(fmt::format(
          "built against ksched SDK version {}, but this ksched has SDK version {}; rebuild the "
          "library against this ksched's include/ksched, or write it against ksched/stable.h",
          library->sdk_version, SdkVersion()));
    }
    if (absl::Status st = library->register_plugins(own); !st.ok()) {
      return fail(AsStd(st.message()));
    }
  } else {
    return fail("no " KSCHED_STABLE_ENTRY_POINT " or " KSCHED_PLUGIN_LIBRARY_ENTRY_POINT
                " entry point: not a ksched plugin library (see ksched/stable.h or "
                "ksched/plugin_library.h)");
  }
  if (absl::Status st = registry.Merge(own); !st.ok()) return fail(AsStd(st.message()));
  KLOG(1, "Loaded plugin library", {"path", path},
       {"plugins", fmt::format("{}", fmt::join(own.Names(), ","))},
       {"duration", absl::FormatDuration(absl::Now() - start)});
  return absl::OkStatus();
}

}  // namespace ksched::cli
