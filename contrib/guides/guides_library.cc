// libksched_guides.so: the guides' plugins as a plugin library, the same code that ksched-guides
// has compiled in. ksched loads it with `--plugin-library libksched_guides.so`; the integration
// tests run the guides both ways.
#include "contrib/guides/guides.h"
#include "ksched/plugin_library.h"

KSCHED_PLUGIN_LIBRARY(ksched::guides::RegisterGuidePlugins)
