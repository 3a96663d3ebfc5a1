// Sample: one series' value in a Prometheus text exposition (what /metrics serves).
#pragma once

#include <string>

namespace ksched::testing {

// The value of `series` (its name and labels, as exposed: `a_total{code="200"}`) in `text`; -1
// when absent.
inline double Sample(const std::string& text, const std::string& series) {
  const size_t at = text.find("\n" + series + " ");
  return at == std::string::npos ? -1.0 : std::stod(text.substr(at + series.size() + 2));
}

}  // namespace ksched::testing
