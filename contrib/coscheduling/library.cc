// libksched_coscheduling.so: Coscheduling as a plugin library, the same code the tests link in.
//   ksched run --plugin-library libksched_coscheduling.so --config coscheduling.yaml
#include "contrib/coscheduling/coscheduling.h"
#include "ksched/plugin_library.h"

KSCHED_PLUGIN_LIBRARY(ksched::coscheduling::Register)
