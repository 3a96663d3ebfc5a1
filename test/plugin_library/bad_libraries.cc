// Libraries that ksched must refuse with a clear error, each built with one of these defined:
//   KSCHED_TEST_NO_ENTRY_POINT     a shared library without the entry point
//   KSCHED_TEST_OTHER_SDK_VERSION  the entry point of a library built against another SDK version
//   KSCHED_TEST_TAKEN_NAME         a library that registers an in-tree plugin's name
#include <memory>

#include "ksched/plugin_library.h"

namespace {

absl::Status RegisterTaken(ksched::Registry& registry) {
  return registry.Register("NodeAffinity",
                           [](const ksched::PluginArgs&,
                              ksched::Handle&) -> absl::StatusOr<std::unique_ptr<ksched::Plugin>> {
                             return absl::UnimplementedError("never built");
                           });
}

}  // namespace

#if defined(KSCHED_TEST_NO_ENTRY_POINT)
extern "C" int not_a_plugin_library() { return 0; }
#elif defined(KSCHED_TEST_OTHER_SDK_VERSION)
extern "C" __attribute__((visibility("default"))) const KschedPluginLibraryV1*
ksched_plugin_library_v1() {
  static const KschedPluginLibraryV1 library{KSCHED_SDK_VERSION + 1000, RegisterTaken};
  return &library;
}
#elif defined(KSCHED_TEST_TAKEN_NAME)
KSCHED_PLUGIN_LIBRARY(RegisterTaken)
#endif
