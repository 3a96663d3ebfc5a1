// libksched_guides.so: the guides' plugins as a plugin library, the same code that ksched has
// in-tree. A ksched built without them loads it with `--plugin-library libksched_guides.so`; the
// integration tests run the guides both ways.
#include "ksched/plugin_library.h"
#include "src/plugins/guides.h"

KSCHED_PLUGIN_LIBRARY(ksched::plugins::RegisterGuidePlugins)
