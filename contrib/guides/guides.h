// The guides' plugins (../shared/guides): NetworkAware, AnnotationGate, NodePrice and AppPinning,
// each with its args decoder. ksched-guides has them compiled in (main.cc); the same code is also
// built as the plugin library libksched_guides.so (guides_library.cc), which ksched loads with
// --plugin-library.
#pragma once

#include "absl/status/status.h"
#include "ksched/registry.h"

namespace ksched::guides {

// Registers the four plugins and their args decoders; an error if a name is taken.
absl::Status RegisterGuidePlugins(Registry& registry);

}  // namespace ksched::guides
