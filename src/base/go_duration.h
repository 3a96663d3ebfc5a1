// Durations as Go's time.Duration.String() writes them, for the messages and configuration that
// ksched prints as kube-scheduler does: "15s", "1m30s", "1h0m0s", "500ms", "0s".
//
//   GoDuration(absl::Minutes(10))  // "10m0s"
//
// Thread safety: a pure function.
#pragma once

#include <string>

#include "absl/time/time.h"

namespace ksched {

std::string GoDuration(absl::Duration d);

}  // namespace ksched
