#include "src/plugins/dynamic_resources/capacity.h"

#include <cstdint>
#include <limits>

#include "fmt/format.h"
#include "ksched/strings.h"

namespace ksched::plugins::dynamic_resources {
namespace {

constexpr __int128 kNanoPerMilli = 1'000'000;
constexpr int64_t kMaxInt64 = std::numeric_limits<int64_t>::max();

constexpr char kNotRepresentable[] =
    "capacity request cannot be represented in the device's range arithmetic";

// The quantity in milli-units, when it is a whole number of them (upstream's safeMilliValue).
std::optional<int64_t> ExactMilli(const api::Quantity& q) {
  const __int128 nano = q.NanoValue();
  if (nano % kNanoPerMilli != 0) return std::nullopt;
  const __int128 milli = nano / kNanoPerMilli;
  if (milli > kMaxInt64 || milli < std::numeric_limits<int64_t>::min()) return std::nullopt;
  return static_cast<int64_t>(milli);
}

// Whether a range is rounded in milli-units: with DRAFractionalCapacityRange, when its bounds
// and step are whole milli-units and the step is at least 1m (upstream's useMilli).
bool UseMilli(const api::CapacityRequestRange& range, bool fractional) {
  if (!fractional) return false;
  for (const std::optional<api::Quantity>* q : {&range.min, &range.max, &range.step}) {
    if (q->has_value() && !ExactMilli(**q)) return false;
  }
  return !range.step || *ExactMilli(*range.step) >= 1;
}

int64_t MilliOf(const std::optional<api::Quantity>& q) { return q ? q->MilliValue() : 0; }
int64_t ValueOf(const std::optional<api::Quantity>& q) { return q ? q->Value() : 0; }

// n such that min + n * step is the first step at or above `value` (value >= min).
int64_t StepsUp(int64_t value, int64_t min, int64_t step) {
  const int64_t added = value - min;
  return added / step + (added % step != 0 ? 1 : 0);
}

// A request at least the range's min, rounded up to the next step from min (upstream's
// roundUpRange).
absl::StatusOr<api::Quantity> RoundUpRange(const api::Quantity& request,
                                           const api::CapacityRequestRange& range,
                                           bool fractional) {
  if (request < *range.min) return *range.min;
  if (!range.step) return request;
  const api::Quantity::Format format = range.step->format();
  if (UseMilli(range, fractional)) {
    std::optional<int64_t> milli = ExactMilli(request);
    if (!milli) {
      return absl::InvalidArgumentError(
          fmt::format("{}: request {} is not a representable milli value", kNotRepresentable,
                      request.String()));
    }
    const int64_t step = MilliOf(range.step), min = MilliOf(range.min);
    const int64_t n = StepsUp(*milli, min, step);
    if (n > (kMaxInt64 - min) / step) {
      return absl::InvalidArgumentError(
          fmt::format("{}: rounding request {} up to the next step passes the milli-value range",
                      kNotRepresentable, request.String()));
    }
    const int64_t value = min + step * n;
    return value % 1000 == 0 ? api::Quantity::FromValue(value / 1000, format)
                             : api::Quantity::FromMilli(value, format);
  }
  if (request.NanoValue() > __int128{kMaxInt64} * 1'000'000'000) {
    return absl::InvalidArgumentError(
        fmt::format("{}: request {} exceeds MaxInt64", kNotRepresentable, request.String()));
  }
  const int64_t step = ValueOf(range.step), min = ValueOf(range.min);
  if (step <= 0) return request;  // The API server refuses such a step.
  const int64_t n = StepsUp(request.Value(), min, step);
  if (min >= 0 && n > (kMaxInt64 - min) / step) {
    return absl::InvalidArgumentError(
        fmt::format("{}: rounding request {} up to the next step passes MaxInt64",
                    kNotRepresentable, request.String()));
  }
  return api::Quantity::FromValue(min + step * n, format);
}

// What one allocation consumes of a capacity (`requested` when the request names it) (upstream's
// calculateConsumedCapacity).
absl::StatusOr<api::Quantity> ConsumedOf(const api::Quantity* requested, const api::Quantity& value,
                                         const api::CapacityRequestPolicy* policy,
                                         bool fractional) {
  if (requested == nullptr) return policy && policy->default_value ? *policy->default_value : value;
  if (policy == nullptr) return *requested;
  if (policy->valid_range && policy->valid_range->min) {
    return RoundUpRange(*requested, *policy->valid_range, fractional);
  }
  for (const api::Quantity& valid : policy->valid_values) {
    if (*requested <= valid) return valid;
  }
  return *requested;
}

// Whether a consumed amount breaks the capacity's policy (upstream's violatesPolicy): above the
// range's max or off its steps, or not one of the valid values.
bool Violates(const api::Quantity& consumed, const api::CapacityRequestPolicy* policy,
              bool fractional) {
  if (policy == nullptr) return false;
  if (policy->default_value && consumed == *policy->default_value) return false;
  if (policy->valid_range) {
    const api::CapacityRequestRange& range = *policy->valid_range;
    if (range.max && consumed > *range.max) return true;
    if (!range.step) return false;
    int64_t requested, step, min;
    if (UseMilli(range, fractional)) {
      std::optional<int64_t> milli = ExactMilli(consumed);
      if (!milli) return true;
      requested = *milli;
      step = MilliOf(range.step);
      min = MilliOf(range.min);
    } else {
      requested = consumed.Value();
      step = ValueOf(range.step);
      min = ValueOf(range.min);
    }
    return step > 0 && (requested - min) % step != 0;
  }
  if (policy->valid_values.empty()) return false;
  for (const api::Quantity& valid : policy->valid_values) {
    if (consumed == valid) return false;
  }
  return true;
}

}  // namespace

absl::StatusOr<std::optional<Amounts>> TakeCapacity(const api::Device& device,
                                                    const Amounts& requests, const Amounts& in_use,
                                                    bool fractional) {
  for (const auto& [name, quantity] : requests) {
    if (!device.capacity.contains(name)) return std::nullopt;
  }
  auto policy_of = [&](const std::string& name) -> const api::CapacityRequestPolicy* {
    auto it = device.request_policies.find(name);
    return it == device.request_policies.end() ? nullptr : &it->second;
  };
  Amounts consumed;
  for (const auto& [name, value] : device.capacity) {
    auto requested = requests.find(name);
    absl::StatusOr<api::Quantity> amount =
        ConsumedOf(requested == requests.end() ? nullptr : &requested->second, value,
                   policy_of(name), fractional);
    if (!amount.ok()) {
      return absl::InvalidArgumentError(
          fmt::format("capacity \"{}\": {}", name, AsStd(amount.status().message())));
    }
    if (amount->Sign() < 0) {
      return absl::InvalidArgumentError(
          fmt::format("capacity \"{}\": capacity value is negative", name));
    }
    consumed[name] = *amount;
  }
  for (const auto& [name, value] : device.capacity) {
    if (Violates(consumed[name], policy_of(name), fractional)) return std::nullopt;
    api::Quantity total = consumed[name];
    if (auto it = in_use.find(name); it != in_use.end()) total += it->second;
    if (total > value) return std::nullopt;
  }
  return consumed;
}

void AddAmounts(const Amounts& amounts, Amounts* into) {
  for (const auto& [name, value] : amounts) (*into)[name] += value;
}

}  // namespace ksched::plugins::dynamic_resources
