#include "src/sim/disruption.h"

#include <algorithm>
#include <charconv>
#include <optional>

#include "ksched/api/selectors.h"

namespace ksched::sim {
namespace {

// The value of an intstr.IntOrString scaled against `total`, rounding a percentage up; nullopt
// for a string that is not a percentage (the controller fails safe: no disruption allowed).
std::optional<int64_t> Scaled(const api::IntOrString& v, int64_t total) {
  if (!v.is_string) return v.int_value;
  std::string_view s = v.str_value;
  if (!s.ends_with('%')) return std::nullopt;
  int64_t percent = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size() - 1, percent);
  if (ec != std::errc() || end != s.data() + s.size() - 1 || s.size() == 1) return std::nullopt;
  int64_t scaled = percent * total;
  return scaled / 100 + (scaled % 100 > 0 ? 1 : 0);
}

}  // namespace

bool Selects(const api::PodDisruptionBudget& pdb, const api::Pod& pod) {
  return pdb.selector.has_value() && pod.metadata.namespace_ == pdb.metadata.namespace_ &&
         api::Matches(*pdb.selector, pod.metadata.labels);
}

bool IsHealthy(const api::Pod& pod) {
  return !pod.spec.node_name.empty() && !pod.metadata.deletion_timestamp.has_value() &&
         pod.status.phase != "Succeeded" && pod.status.phase != "Failed";
}

int32_t DisruptionsAllowed(const api::PodDisruptionBudget& pdb, int32_t pods, int32_t healthy) {
  // getExpectedPodCount. Simulate's expected count is always the number of matching pods (see
  // the header); the controller uses that only for an integer minAvailable.
  int64_t expected = pods;
  int64_t desired = 0;
  if (pdb.max_unavailable) {
    std::optional<int64_t> max_unavailable = Scaled(*pdb.max_unavailable, expected);
    if (!max_unavailable) return 0;
    desired = std::max<int64_t>(0, expected - *max_unavailable);
  } else if (pdb.min_available) {
    std::optional<int64_t> min_available = Scaled(*pdb.min_available, expected);
    if (!min_available) return 0;
    desired = *min_available;
  } else {
    expected = 0;  // Neither is set: the controller expects no pod.
  }
  // updatePdbStatus.
  int64_t allowed = healthy - desired;
  return expected <= 0 || allowed <= 0 ? 0 : static_cast<int32_t>(allowed);
}

}  // namespace ksched::sim
