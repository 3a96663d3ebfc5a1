#include "src/base/go_duration.h"

#include "fmt/format.h"

namespace ksched {

std::string GoDuration(absl::Duration d) {
  if (d == absl::ZeroDuration()) return "0s";
  std::string sign = d < absl::ZeroDuration() ? "-" : "";
  d = absl::AbsDuration(d);
  if (d < absl::Seconds(1)) {
    const int64_t ns = absl::ToInt64Nanoseconds(d);
    if (ns < 1000) return fmt::format("{}{}ns", sign, ns);
    if (ns < 1000000) return fmt::format("{}{}µs", sign, absl::ToDoubleMicroseconds(d));
    return fmt::format("{}{}ms", sign, absl::ToDoubleMilliseconds(d));
  }
  const int64_t hours = absl::IDivDuration(d, absl::Hours(1), &d);
  const int64_t minutes = absl::IDivDuration(d, absl::Minutes(1), &d);
  const double seconds = absl::ToDoubleSeconds(d);
  std::string out = sign;
  if (hours > 0) out += fmt::format("{}h", hours);
  if (hours > 0 || minutes > 0) out += fmt::format("{}m", minutes);
  return out + fmt::format("{}s", seconds);
}

bool ParseGoDuration(std::string_view text, absl::Duration* out) {
  if (text == "inf" || text == "-inf" || text == "+inf") return false;
  return absl::ParseDuration(absl::string_view(text.data(), text.size()), out);
}

}  // namespace ksched
