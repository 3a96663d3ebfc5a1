// policy/v1: PodDisruptionBudget, with the API server's checks of its minAvailable and
// maxUnavailable.
#include <charconv>
#include <string>

#include "fmt/format.h"
#include "ksched/status_macros.h"
#include "src/api/decode.h"
#include "src/api/decode_internal.h"

namespace ksched::api {
namespace decoding {
namespace {

// An intstr.IntOrString that PodDisruptionBudget validation accepts: a non-negative integer or
// a percentage of at most 100% ("50%").
absl::Status IntOrPercent(element e, const Path& p, std::optional<IntOrString>* out) {
  if (e.is_null()) return absl::OkStatus();
  IntOrString& v = out->emplace();
  std::string_view s;
  if (e.get_string().get(s)) {
    if (!e.is_int64()) return TypeError(p, "integer or string", e);
    KSCHED_RETURN_IF_ERROR(Integer(e, p, &v.int_value));
    if (v.int_value < 0) {
      return FieldError(
          p, fmt::format("Invalid value: {}: must be greater than or equal to 0", v.int_value));
    }
    return absl::OkStatus();
  }
  v.is_string = true;
  v.str_value = s;
  int percent = 0;
  std::string_view digits = s.substr(0, s.empty() ? 0 : s.size() - 1);
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), percent);
  if (!s.ends_with('%') || digits.empty() || digits[0] == '-' || digits[0] == '+' ||
      end != digits.data() + digits.size()) {
    return FieldError(p, fmt::format("Invalid value: \"{}\": a valid percent string must be a "
                                     "numeric string followed by an ending '%' (e.g. '1%', or "
                                     "'93%', regex used for validation is '[0-9]+%')",
                                     s));
  }
  if (ec != std::errc() || percent > 100) {
    return FieldError(p, fmt::format("Invalid value: \"{}\": must not be greater than 100%", s));
  }
  return absl::OkStatus();
}

absl::Status PdbSpec(element e, const Path& p, PodDisruptionBudget* out) {
  KSCHED_RETURN_IF_ERROR(
      Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
        if (k == "minAvailable") return IntOrPercent(v, vp, &out->min_available);
        if (k == "maxUnavailable") return IntOrPercent(v, vp, &out->max_unavailable);
        if (k == "selector") return OptLabelSel(v, vp, &out->selector);
        return absl::OkStatus();
      }));
  if (out->min_available && out->max_unavailable) {
    return FieldError(p, "Invalid value: minAvailable and maxUnavailable cannot be both set");
  }
  return absl::OkStatus();
}

absl::Status PdbStatus(element e, const Path& p, PodDisruptionBudget* out) {
  out->has_status = !e.is_null();
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k == "disruptionsAllowed") return Integer(v, vp, &out->disruptions_allowed);
    if (k == "disruptedPods") return StrMapOf(v, vp, &out->disrupted_pods);
    return absl::OkStatus();
  });
}

absl::Status PdbAt(element e, const Path& p, PodDisruptionBudget* out) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k == "metadata") return Meta(v, vp, &out->metadata);
    if (k == "spec") return PdbSpec(v, vp, out);
    if (k == "status") return PdbStatus(v, vp, out);
    return absl::OkStatus();
  });
}

}  // namespace
}  // namespace decoding

using decoding::element;
using decoding::Path;

absl::Status DecodePodDisruptionBudget(element e, PodDisruptionBudget* out) {
  return decoding::PdbAt(e, Path(), out);
}

}  // namespace ksched::api
