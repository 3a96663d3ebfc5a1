// Bridging std::string_view and Debian's abseil, which is built with its own absl::string_view
// (ABSL_OPTION_USE_STD_STRING_VIEW is 0). Build strings with fmt::format, not absl::StrCat.
//
//   return absl::InvalidArgumentError(fmt::format("{}: {}", path, message));
//   std::string_view msg = AsStd(status.message());
#pragma once

#include <string_view>

#include "absl/strings/string_view.h"

namespace ksched {

inline std::string_view AsStd(absl::string_view s) { return {s.data(), s.size()}; }
inline absl::string_view AsAbsl(std::string_view s) { return {s.data(), s.size()}; }

}  // namespace ksched
