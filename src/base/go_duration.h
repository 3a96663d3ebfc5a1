// Durations as Go's time.Duration.String() writes them, for the messages and configuration that
// ksched prints as kube-scheduler does: "15s", "1m30s", "1h0m0s", "500ms", "0s".
//
//   GoDuration(absl::Minutes(10))  // "10m0s"
//   ParseGoDuration("1m30s", &d)     // true, d == absl::Seconds(90)
//
// Thread safety: a pure function.
#pragma once

#include <string>
#include <string_view>

#include "absl/time/time.h"

namespace ksched {

std::string GoDuration(absl::Duration d);

// Parses a duration as Go's time.ParseDuration does ("300ms", "-1.5h", "2h45m"); false for text
// it does not take (Abseil's "inf" included).
bool ParseGoDuration(std::string_view text, absl::Duration* out);

}  // namespace ksched
