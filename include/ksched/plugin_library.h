// Plugins in a shared library, loaded at start with `ksched --plugin-library PATH` (any
// subcommand; repeatable), with no rebuild of ksched:
//
//   // team_filter.cc, built with -shared -fPIC against these headers
//   #include "ksched/plugin_library.h"
//   KSCHED_PLUGIN_LIBRARY([](ksched::Registry& r) -> absl::Status {
//     return r.Register("TeamFilter", NewTeamFilter);
//   })
//
// (A library that should load into later ksched releases too is written against ksched/stable.h
// instead, whose ABI only grows; include/ksched/README.md says which to pick.)
//
// What crosses the boundary: the C++ interfaces of include/ksched/ as they are (Plugin, Status,
// Registry, the api objects). So a library must be built with the same compiler and standard
// library as the ksched that loads it, against the same SDK: its KSCHED_SDK_VERSION must equal
// the running ksched's SdkVersion(). ksched checks the version when it loads the library and
// refuses a mismatch. The entry point itself is extern "C" and carries its own version in its
// name (ksched_plugin_library_v1), so that a later layout of the struct below is a new name.
//
// Errors stop the start with exit code 1 and a message that names the library: a file that is
// missing or not a shared library, no entry point, an SDK version mismatch, a plugin name that is
// taken, or the error the register function returns.
#pragma once

#include "absl/status/status.h"
#include "ksched/registry.h"
#include "ksched/version.h"

extern "C" {

// What the entry point returns: the SDK version the library was built against, and the function
// that registers its plugins' specs into ksched's registry.
struct KschedPluginLibraryV1 {
  int sdk_version;
  absl::Status (*register_plugins)(ksched::Registry& registry);
};

// The entry point a plugin library defines with KSCHED_PLUGIN_LIBRARY.
const KschedPluginLibraryV1* ksched_plugin_library_v1();

}  // extern "C"

// The name ksched looks up in a plugin library.
#define KSCHED_PLUGIN_LIBRARY_ENTRY_POINT "ksched_plugin_library_v1"

// Defines the entry point; `register_fn` converts to absl::Status (*)(ksched::Registry&), for
// example a lambda that captures nothing.
#define KSCHED_PLUGIN_LIBRARY(register_fn)                                         \
  extern "C" __attribute__((visibility("default"))) const KschedPluginLibraryV1*   \
  ksched_plugin_library_v1() {                                                     \
    static const KschedPluginLibraryV1 library{KSCHED_SDK_VERSION, (register_fn)}; \
    return &library;                                                               \
  }
