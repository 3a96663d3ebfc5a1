#include "ksched/version.h"

namespace ksched {

int SdkVersion() { return KSCHED_SDK_VERSION; }

}  // namespace ksched
